"""The server's own routes: health, the presets, checking a retired shoe's fairness record."""

from __future__ import annotations

import importlib
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request

from pontoon.errors import PontoonError
from pontoon.web.replies import err

router = APIRouter(tags=["meta"])


@router.get("/healthz")
async def healthz(request: Request) -> dict[str, Any]:
    srv = request.app.state.server
    return {"ok": True, "tables": len(srv.lobby.tables), "lanes": srv.workers.describe()}


@router.get("/api/presets")
async def presets(request: Request) -> list[dict[str, Any]]:
    return list(request.app.state.server.lobby.presets())


@router.post("/api/verify", responses={400: {}, 404: {}})
async def verify(
    record: Annotated[dict[str, Any], Body(description="a revealed shoe's record (docs/fairness.md)")],
) -> Any:
    """Check a retired shoe's record: its commitment, its order and every card dealt from it."""
    try:
        fair = importlib.import_module("pontoon.fair")
    except ImportError:
        return err(404, "this build has no provably fair shuffle (pontoon.fair)")
    try:
        res = fair.verify_record(record)
    except PontoonError as e:
        return err(400, str(e))
    return {"ok": res.ok, "checked": list(res.checked), "difference": res.difference}
