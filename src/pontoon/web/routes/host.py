"""``/api/tables/{id}/host``: the host's actions (web/host_actions.py): seat approval, approving a
join, removing a person with a reason, pause and resume, the turn timer and the result pause, bots,
closing the table. Others are answered 403 with one line (a lone person may add or remove bots)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam

from pontoon.web import host_actions
from pontoon.web.auth import require
from pontoon.web.bots import british_bots
from pontoon.web.replies import missing

router = APIRouter(tags=["host"])
TableId = Annotated[str, PathParam(pattern=r"^[0-9a-f]{8}$", description="a table id from /api/tables")]


@router.post("/api/tables/{tid}/host", responses={400: {}, 401: {}, 403: {}, 404: {}, 422: {}})
async def host_action(request: Request, tid: TableId, body: host_actions.HostIn) -> Any:
    """One host action, e.g. ``{"msg": {"action": "kick", "name": "bob", "reason": "rude"}}``."""
    srv = request.app.state.server
    host = srv.lobby.tables.get(tid)
    if host is None:
        return missing(srv, tid)
    me = require(request, srv.auth)
    level = getattr(body.msg, "level", "simple")
    if level != "simple" and level in host.bot_levels():
        # the shipped solution read on the bots' lane (a few seconds the first time, then kept in memory),
        # once for all the hosts asking meanwhile: on the loop's default threads (which the sockets'
        # sign-in and the store's reads use) hosts asking at once each read it and held those threads
        key = ("british bots", host.rules.model_dump_json(), level)
        await srv.workers.shared(srv.workers.bots, key, british_bots, host.rules, level)
    async with srv.lock(tid):
        out = host_actions.do(srv, host, me.name, body.msg)
        if not out.get("closed"):
            srv.broadcast(host)
    if out.get("closed"):
        await srv.close_table(host, f"the host ({me.name}) closed this table")
    if out.get("removed"):  # his last frame (the state with the host's notice) first, then the close
        host.notices.pop(out["removed"], None)  # (the notice of a person with no connection: dropped)
        for c in [c for c in srv.conns.get(tid, ()) if c.name == out["removed"]]:
            c.close_after(4403, f"the host removed you: {out['reason']}")
    return out
