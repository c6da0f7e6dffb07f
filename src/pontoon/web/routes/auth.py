"""``/api/auth``: register (a name and a password), log in from any device, log out, claim a guest
account by setting a password, and the session's own account (docs/accounts.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from pontoon.web.auth import clear_session, require, set_session, who
from pontoon.web.routes.accounts import AccountOut, account_out

router = APIRouter(prefix="/api/auth", tags=["auth"])
Password = Field(min_length=8, max_length=256, description="8 to 256 characters")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RegisterIn(Strict):
    name: str = Field(min_length=1, max_length=64)
    password: str = Password


class LoginIn(Strict):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


class ClaimIn(Strict):
    password: str = Password


@router.post(
    "/register", response_model=AccountOut, status_code=201, responses={400: {}, 409: {}, 422: {}, 429: {}}
)
async def register(request: Request, response: Response, body: RegisterIn) -> Any:
    """A new account with a password; its session starts (the cookie, and ``token`` for scripts)."""
    srv = request.app.state.server
    if (r := srv.limited(request)) is not None:
        return r
    name, token = await srv.auth.create(body.name, body.password)
    set_session(response, request, srv.settings.security, token)
    return account_out(srv, name, token)


@router.post("/login", response_model=AccountOut, responses={401: {}, 422: {}, 429: {}})
async def login(request: Request, response: Response, body: LoginIn) -> Any:
    """Log in from any device (the name in any case or look-alike spelling of it)."""
    srv = request.app.state.server
    if (r := srv.limited(request)) is not None:
        return r
    client = request.client.host if request.client else "unknown"
    name, token = await srv.auth.login(body.name, body.password, client)
    set_session(response, request, srv.settings.security, token)
    return account_out(srv, name, token)


@router.post("/logout", responses={200: {}})
async def logout(request: Request, response: Response) -> Any:
    """End this session (the store forgets it; its table sockets are closed; its seat tokens fail)."""
    srv = request.app.state.server
    me = who(request, srv.auth)
    if me is not None:
        await srv.auth.logout(me)
    clear_session(response, request, srv.settings.security)
    return {"logged_out": me is not None}


@router.post("/claim", response_model=AccountOut, responses={400: {}, 401: {}, 409: {}, 422: {}})
async def claim(request: Request, response: Response, body: ClaimIn) -> Any:
    """A guest sets a password: the account (and its balance) is his from any device from now on."""
    srv = request.app.state.server
    me = require(request, srv.auth)
    token = await srv.auth.claim(me, body.password)
    set_session(response, request, srv.settings.security, token)
    return account_out(srv, me.name, token)


@router.get("/session", response_model=AccountOut, responses={401: {}})
async def session(request: Request) -> Any:
    """The session's own account: name, balance, money at tables, guest or not."""
    srv = request.app.state.server
    me = require(request, srv.auth)
    return account_out(srv, me.name)
