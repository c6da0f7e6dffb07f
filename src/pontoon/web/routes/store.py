"""The history store's reads: a table's rounds, a finished round's steps, a retired shoe's record
(``--db``; a server started with ``--memory`` answers 404 and says so)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam

from pontoon.web import store_reads
from pontoon.web.replies import err

router = APIRouter(tags=["history"])
TableId = Annotated[str, PathParam(pattern=r"^[0-9a-f]{8}$", description="a table id from /api/tables")]
NO_STORE = "this server keeps no history store (started with --memory)"


def store_of(request: Request) -> Any:
    st = request.app.state.server.lobby.store
    return st if hasattr(st, "store_table_ids") else None


@router.get("/api/tables/{tid}/rounds", responses={404: {}})
async def table_rounds(request: Request, tid: TableId, last: Annotated[int, Query(ge=1, le=500)] = 50) -> Any:
    """The table's rounds from the history store, newest last (``--db``; British: every game's)."""
    st = store_of(request)
    if st is None:
        return err(404, NO_STORE)
    ids = await asyncio.to_thread(st.store_table_ids, tid)
    if not ids:
        return err(404, f"no table {tid} in the history store")
    return await asyncio.to_thread(store_reads.rounds_of, st.store, ids, last)


@router.get("/api/rounds/{rid}", responses={404: {}})
async def round_steps(request: Request, rid: Annotated[int, PathParam(ge=1, le=2**62)]) -> Any:
    """A finished round's every step with its payments (an open round's steps are not shown)."""
    st = store_of(request)
    if st is None:
        return err(404, NO_STORE)
    return await asyncio.to_thread(store_reads.round_of, st.store, rid)


@router.get("/api/shoes/{sid}", responses={404: {}})
async def shoe(request: Request, sid: Annotated[int, PathParam(ge=1, le=2**62)]) -> Any:
    """A retired shoe's full record (its order, every card dealt) and, on a fair table, its check."""
    st = store_of(request)
    if st is None:
        return err(404, NO_STORE)
    return await asyncio.to_thread(store_reads.shoe_of, st.store, sid)
