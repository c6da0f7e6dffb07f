"""``/api/accounts``: a guest account (a name only; its session starts at once) and an account's balance,
shown to its owner only (the table's stacks at a table stay public in the table's state)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from pontoon.money import fmt
from pontoon.web.auth import require, set_session
from pontoon.web.names import NameError_, canonical, name_key

router = APIRouter(tags=["accounts"])
AccountName = Annotated[str, PathParam(min_length=1, max_length=64, description="an account's name")]


class GuestIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(min_length=1, max_length=64, description="docs/accounts.md: letters, digits, ' _-'")


class AccountOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    balance: str
    guest: bool
    at_tables: str | None = Field(
        None, description="money at the tables served by this process (several processes: each its own)"
    )
    token: str | None = Field(None, description="the session token (scripts: Authorization: Bearer)")


def _err(status: int, msg: str) -> JSONResponse:
    return JSONResponse({"detail": msg}, status_code=status)


def account_out(srv: Any, name: str, token: str | None = None) -> AccountOut:
    login = srv.auth.backend.of(name)
    bal = srv.lobby.balance(name)
    return AccountOut(
        name=name,
        balance=fmt(bal if bal is not None else Decimal(0)),
        guest=login is None or login.pw_hash is None,
        at_tables=fmt(srv.lobby.money_at_tables(name)),
        token=token,
    )


@router.post(
    "/api/accounts",
    response_model=AccountOut,
    status_code=201,
    responses={400: {}, 409: {}, 422: {}, 429: {}},
)
async def create_guest(request: Request, response: Response, body: GuestIn) -> Any:
    """A guest account: a name only (docs/accounts.md); its login session starts at once (the cookie,
    and ``token`` for scripts). Claim it later with a password (``POST /api/auth/claim``)."""
    srv = request.app.state.server
    if (r := srv.limited(request)) is not None:
        return r
    name, token = await srv.auth.create(body.name, None)
    set_session(response, request, srv.settings.security, token)
    return account_out(srv, name, token)


@router.get("/api/accounts/{name}", response_model=AccountOut, responses={401: {}, 403: {}, 404: {}})
async def get_account(request: Request, name: AccountName) -> Any:
    """The balance and the money at tables of YOUR account (the session's): another's is refused."""
    srv = request.app.state.server
    me = require(request, srv.auth)
    try:
        mine = name_key(canonical(name)) == name_key(me.name)
    except NameError_:
        mine = False
    if not mine and name != me.name:
        return _err(403, f"an account's balance is shown to its owner only: you are logged in as {me.name!r}")
    return account_out(srv, me.name)
