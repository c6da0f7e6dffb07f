"""A table's session from the history store (docs/export.md): its ledger (buy-ins, each round's
result per person, leaves), its export as JSON (the finished rounds' events, replayable with
``pontoon replay --export FILE``) and as CSV (one row per wager).

What a player may never learn stays out (ruling 35): a British round dealt from the pack still in play
leaves out the pack's order and every card field (``withheld``; the operator's ``pontoon history
--export`` holds them); once its pack is retired (its seed revealed, its order public) the round is
exported whole and replays like a casino round (``web/store_reads.session_of``). A round still in play
is never exported. Without a store (``--memory``): 404.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from pontoon.history.export import session_ledger, wagers_csv
from pontoon.money import dumps
from pontoon.web.replies import err
from pontoon.web.store_reads import session_of

router = APIRouter()
TableId = Annotated[str, PathParam(pattern=r"^[0-9a-f]{8}$", description="a table id from /api/tables")]


async def _export(request: Request, tid: str) -> dict[str, Any] | Response:
    st = request.app.state.server.lobby.store
    if not hasattr(st, "store_table_ids"):
        return err(404, "this server keeps no history store (started with --memory): no session to export")
    ids = await asyncio.to_thread(st.store_table_ids, tid)
    if not ids:
        return err(404, f"no table {tid} in the history store")
    return await asyncio.to_thread(session_of, st.store, ids)


@router.get("/api/tables/{tid}/ledger", responses={404: {}})
async def ledger(request: Request, tid: TableId) -> Any:
    """Each person's buy-ins, rounds, net and leave, and the rows they come from."""
    doc = await _export(request, tid)
    return doc if isinstance(doc, Response) else session_ledger(doc)


@router.get("/api/tables/{tid}/export.json", responses={404: {}})
async def export_json(request: Request, tid: TableId) -> Any:
    """The session's finished rounds, every event with its ledger rows (docs/export.md)."""
    doc = await _export(request, tid)
    if isinstance(doc, Response):
        return doc
    doc["ledger"] = session_ledger(doc)
    headers = {"Content-Disposition": f'attachment; filename="pontoon-{tid}.json"'}
    return Response(dumps(doc, indent=1), media_type="application/json", headers=headers)


@router.get("/api/tables/{tid}/export.csv", responses={404: {}})
async def export_csv(request: Request, tid: TableId) -> Any:
    """One row per wager of the session's finished rounds (docs/export.md)."""
    doc = await _export(request, tid)
    if isinstance(doc, Response):
        return doc
    headers = {"Content-Disposition": f'attachment; filename="pontoon-{tid}.csv"'}
    return Response(wagers_csv(doc), media_type="text/csv; charset=utf-8", headers=headers)
