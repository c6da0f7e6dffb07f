"""The page: ``/`` (the lobby), ``/t/{id}`` (an invite link: the same page, opening that table) and
the invite link's QR code as SVG (``/api/tables/{id}/qr.svg``, made by segno)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, Response

from pontoon.web.replies import missing

STATIC = Path(__file__).resolve().parents[1] / "static"
router = APIRouter(include_in_schema=False)
TableId = Annotated[str, PathParam(pattern=r"^[0-9a-f]{8}$", description="a table id from /api/tables")]


def invite_url(request: Request, tid: str) -> str:
    """The table's invite link: on the operator's public site (``--site``, the first) when given, else
    on the address the client used (its Host header, checked by SiteGuard)."""
    sites = request.app.state.server.settings.security.sites
    base = sites[0] if sites else str(request.base_url)
    return f"{base.rstrip('/')}/t/{tid}"


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/t/{tid}")
async def invite(tid: TableId) -> FileResponse:
    """An invite link: the page, which reads the table's id from its path and opens it."""
    return FileResponse(STATIC / "index.html")


@router.get("/api/tables/{tid}/qr.svg", include_in_schema=True, tags=["tables"], responses={404: {}})
async def qr(request: Request, tid: TableId) -> Any:
    """The table's invite link as a QR code (SVG), for people in the same room."""
    srv = request.app.state.server
    if tid not in srv.lobby.tables:
        return missing(srv, tid)
    import segno

    out = io.BytesIO()
    segno.make(invite_url(request, tid), error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False)
    return Response(out.getvalue(), media_type="image/svg+xml")
