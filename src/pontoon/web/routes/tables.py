"""The tables' REST routes: the lobby, making a table, a table's public state and last rounds, its
live shoe, joining, leaving and a seat's messages over REST (docs/server.md).

Making a table checks the seed (ruling 36: test mode only), custom rules (the operator's switch and
bound; their exact house edge computed off the event loop, once per rules) and the per-address and
per-account limits; joining checks the minimum buy-in and the seat limits (web/limits.py).
"""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse

from pontoon.history.leases import LeaseLost
from pontoon.money import fmt
from pontoon.web.auth import require, seat_name, who
from pontoon.web.hosting import HostForbidden
from pontoon.web.marks import differs, exact_edge
from pontoon.web.models import JoinIn, JoinOut, LeaveIn, MessageIn, TableIn
from pontoon.web.replies import client_address, err, limited, missing
from pontoon.web.workers import Busy

router = APIRouter()
TableId = Annotated[str, PathParam(pattern=r"^[0-9a-f]{8}$", description="a table id from /api/tables")]


def _srv(request: Request) -> Any:
    return request.app.state.server


@router.get("/api/tables")
async def tables(request: Request) -> list[dict[str, Any]]:
    """This process's tables and (several processes on one store) every other open table of the
    store with the address of the process that owns it and whether its lease is live."""
    srv = _srv(request)
    own = [dict(t.row(), served_here=True) for t in srv.lobby.tables.values()]
    others = getattr(srv.lobby.store, "other_tables", None)
    return own + (others(set(srv.lobby.tables)) if others is not None else [])


@router.post("/api/tables", status_code=201, responses={400: {}, 401: {}, 422: {}, 429: {}})
async def create_table(request: Request, body: TableIn) -> Any:
    """A new table; made in a login session (the cookie or ``Authorization: Bearer``) it counts as
    that account's."""
    srv = _srv(request)
    if (r := limited(srv, request)) is not None:
        return r
    me = who(request, srv.auth)
    account = me.name if me is not None else None
    address = client_address(request)
    srv.lobby.limits.check_table(srv.lobby.tables, address, account)  # before any analysis is run
    rules = srv.lobby.table_rules(body)
    edge = None
    if differs(rules):  # the analyser's exact edge: seconds the first time, then cached; off the loop,
        try:  # on its own lane (web/workers.py): never behind a hint or a bot; a bounded line, else 429
            edge = await srv.workers.edges.run(exact_edge, rules)
        except Busy as busy:
            return err(429, str(busy))
    host = srv.lobby.create_table(body, rules, edge, address, account)
    return host.row()


@router.get("/api/tables/{tid}", responses={404: {}})
async def table(request: Request, tid: TableId) -> Any:
    srv = _srv(request)
    host = srv.lobby.tables.get(tid)
    if host is None:
        return missing(srv, tid)
    async with srv.lock(tid):
        if not await srv.settled(host):
            return missing(srv, tid)
        return dict(host.row(), state=host.state_for(None))


@router.get("/api/tables/{tid}/history", responses={404: {}})
async def history(request: Request, tid: TableId) -> Any:
    srv = _srv(request)
    host = srv.lobby.tables.get(tid)
    if host is None:
        return missing(srv, tid)
    return [host.history_for(h, None) for h in host.history]


@router.get("/api/tables/{tid}/shoes", responses={404: {}})
async def shoes(request: Request, tid: TableId) -> Any:
    """The live shoe's commitment and the revealed seeds of retired shoes (provably fair tables)."""
    srv = _srv(request)
    host = srv.lobby.tables.get(tid)
    if host is None:
        return missing(srv, tid)
    return {"live": host.fair, "revealed": list(host.revealed)}


@router.post(
    "/api/tables/{tid}/join",
    response_model=JoinOut,
    responses={
        202: {"description": "seat approval: asked the host"},
        400: {},
        401: {},
        403: {},
        404: {},
        429: {},
    },
)
async def join(request: Request, tid: TableId, body: JoinIn | None = Body(None)) -> Any:
    """Join as the session's account (the cookie, or ``Authorization: Bearer <session token>``)."""
    srv = _srv(request)
    if (r := limited(srv, request)) is not None:
        return r
    host = srv.lobby.tables.get(tid)
    if host is None:
        return missing(srv, tid)
    me = require(request, srv.auth)
    async with srv.lock(tid):
        if host.approval and not host.is_host(me.name) and me.name not in host.members:
            if me.name in host.removed:
                raise HostForbidden(f"the host removed you from table {tid}: {host.removed[me.name]}")
            host.requests[me.name] = {  # seat approval: the host says yes or no (routes/host.py)
                "body": (body or JoinIn()).model_dump(exclude_none=True),
                "address": client_address(request),
                "session": me.sid,
            }
            host.bump()
            srv.broadcast(host)
            return JSONResponse(
                {
                    "waiting": True,
                    "table": tid,
                    "name": me.name,
                    "note": f"asked {host.host_name} for a seat",
                },
                status_code=202,
            )
        out = srv.lobby.join(host, me.name, body or JoinIn(), client_address(request), session=me.sid)
        if not await srv.settled(host):  # shown (and answered) only once durable
            return err(409, f"table {tid} could not record the join; it is no longer served here")
        srv.broadcast(host)
    return out


@router.post("/api/tables/{tid}/leave", responses={400: {}, 401: {}, 404: {}})
async def leave(request: Request, tid: TableId, body: LeaveIn | None = Body(None)) -> Any:
    """Leave as the seat token's person (``token``), else as the session's account."""
    srv = _srv(request)
    host = srv.lobby.tables.get(tid)
    if host is None:
        return missing(srv, tid)
    name, _ = seat_name(request, srv.auth, body.token if body else None, tid)
    async with srv.lock(tid):
        if name not in host.members:
            return err(400, f"{name} is no longer at table {tid}")
        got: Decimal | None = host.leave(name)
        if not await srv.settled(host):
            return err(409, f"table {tid} could not record the leave; it is no longer served here")
        srv.broadcast(host)
    return {
        "left": got is not None,
        "returned": None if got is None else fmt(got),
        "note": None if got is not None else host.leave_note,
    }


@router.post("/api/tables/{tid}/messages", responses={400: {}, 401: {}, 404: {}, 409: {}, 429: {}})
async def message(request: Request, tid: TableId, body: MessageIn) -> Any:
    """The WebSocket's client messages over REST, for the seat of ``token`` (else the session's
    account): an engine action, a
    wager, the kitty, a kitty top-up, the bank offered for sale or bought (checked as on the
    WebSocket); answers the seat's state after it. A message over REST counts as the seat's presence
    (its grace period starts again), as a connection does."""
    srv = _srv(request)
    host = srv.lobby.tables.get(tid)
    if host is None:
        return missing(srv, tid)
    name, _ = seat_name(request, srv.auth, body.token, tid)
    if not srv.actions.allow(f"{tid}:{name}"):
        return err(429, f"rate limit: {srv.actions.describe()} messages; this one was dropped")
    msg = body.message
    if msg.type in ("ping", "hints", "chat", "resync"):
        return err(400, f"{msg.type}: only on the WebSocket (/ws/tables/{tid})")
    async with srv.lock(tid):
        m = host.members.get(name)
        if m is None:
            return err(400, f"{name} is no longer at table {tid}")
        if m.connections == 0 and not m.absent:
            m.gone_since = time.monotonic()
        try:
            host.handle(name, msg)
            host.last_play = time.monotonic()
        except LeaseLost as lost:
            srv.lobby.tables.pop(tid, None)
            return err(409, str(lost))
        finally:
            ok = await srv.settled(host)  # shown only once durable (group commit)
            if ok:
                srv.broadcast(host)
        if not ok:
            return err(409, f"table {tid} could not record the message; it is no longer served here")
        return host.state_for(name, False)
