"""Small replies shared by the app and its route modules: a one-line 4xx, the client's address, the
rate limit on REST writes, a table this process does not serve."""

from __future__ import annotations

from typing import Any

from fastapi import Request, WebSocket
from fastapi.responses import JSONResponse


def one_line(msg: str) -> str:
    """``msg`` on one line: a hostile name or key may hold a line break (``\n``, ``\u2028``, ...)."""
    return " ".join(msg.splitlines()) if len(msg.splitlines()) > 1 else msg


def err(status: int, msg: str) -> JSONResponse:
    return JSONResponse({"detail": one_line(msg)}, status_code=status)


def client_address(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "unknown"


def limited(srv: Any, request: Request) -> JSONResponse | None:
    """429 when the client's address is over the REST writes' rate limit, else None."""
    addr = client_address(request)
    if not srv.joins.allow(addr):
        return err(429, f"too many requests from {addr}: {srv.joins.describe()}; wait a moment")
    return None


def missing(srv: Any, tid: str) -> JSONResponse:
    """A table this process does not serve: 404, or 409 naming the process that holds its lease."""
    owner = getattr(srv.lobby.store, "owner_address", None)
    where = owner(tid) if owner is not None else None
    if where:
        return JSONResponse(
            {"detail": f"table {tid} is served by {where}: ask there", "owner": where},
            status_code=409,
            headers={"Location": f"{where}/api/tables/{tid}"},
        )
    return err(404, f"no table {tid}")
