"""Accounts and who is asking: passwords (argon2id), login sessions, the session cookie, seat tokens.

- **Passwords** are hashed with argon2id (``argon2-cffi``'s ``PasswordHasher``: RFC 9106's low-memory
  profile), in a worker thread, at most ``Security.hash_slots`` at once; a login for an unknown name
  verifies against a dummy hash, so that its time does not tell which names exist.
- **Sessions**: a random 256-bit token; the store keeps only its SHA-256 (``web_sessions``, durable
  across restarts, expiring after ``Security.session_ttl_s``, deleted at logout). A browser holds it
  in the ``pontoon_session`` cookie (HttpOnly, SameSite=Lax, Path=/, Secure behind TLS); a script
  sends ``Authorization: Bearer <token>``. A token is never accepted in a URL (``transport.py``).
- **Guests**: ``POST /api/accounts`` makes an account with a name only and starts its session; the
  guest may later set a password (``claim``) and then log in from any device with the same balance.
- **Seat tokens** (signed, ``tokens.py``) are issued on joining, bound to the session that joined
  (claim ``s``): logging out ends them too.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import HTTPException, Request, Response, WebSocket
from starlette.requests import HTTPConnection

from pontoon.history.logins import Login, LoginRecords, NameTaken
from pontoon.web.names import NameError_, canonical, name_key
from pontoon.web.ratelimit import RateLimiter
from pontoon.web.site import Security
from pontoon.web.tokens import Signer, TokenError

COOKIE = "pontoon_session"


class Backend(Protocol):
    """Where logins and sessions live: ``LoginRecords`` (the history store) or ``MemoryLogins``."""

    def create(self, name: str, key: str, opening: Decimal, pw_hash: str | None) -> None: ...
    def by_key(self, key: str) -> Login | None: ...
    def of(self, name: str) -> Login | None: ...
    def claim(self, name: str, pw_hash: str) -> bool: ...
    def set_hash(self, name: str, pw_hash: str) -> None: ...
    def session_add(self, sid: str, name: str, expires: float) -> None: ...
    def session_get(self, sid: str, at: float) -> str | None: ...
    def session_drop(self, sid: str) -> None: ...
    def sessions_drop_for(self, name: str, keep: str | None = None) -> None: ...
    def purge(self, at: float) -> int: ...


@dataclass
class MemoryLogins:
    """``--memory``: logins and sessions in this process only (nothing survives a restart)."""

    logins: dict[str, Login] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    sessions: dict[str, tuple[str, float]] = field(default_factory=dict)

    def create(self, name: str, key: str, opening: Decimal, pw_hash: str | None) -> None:
        if key in self.keys or name in self.logins:
            raise NameTaken(f"the name {name!r} is taken (as {self.keys.get(key, name)!r})")
        self.logins[name] = Login(name, key, pw_hash)
        self.keys[key] = name

    def by_key(self, key: str) -> Login | None:
        name = self.keys.get(key)
        return None if name is None else self.logins[name]

    def of(self, name: str) -> Login | None:
        return self.logins.get(name)

    def claim(self, name: str, pw_hash: str) -> bool:
        got = self.logins.get(name)
        if got is None or got.pw_hash is not None or got.key is None:
            return False
        self.logins[name] = Login(name, got.key, pw_hash)
        return True

    def set_hash(self, name: str, pw_hash: str) -> None:
        got = self.logins[name]
        self.logins[name] = Login(name, got.key, pw_hash)

    def session_add(self, sid: str, name: str, expires: float) -> None:
        self.sessions[sid] = (name, expires)

    def session_get(self, sid: str, at: float) -> str | None:
        got = self.sessions.get(sid)
        if got is None or got[1] <= at:
            self.sessions.pop(sid, None)
            return None
        return got[0]

    def session_drop(self, sid: str) -> None:
        self.sessions.pop(sid, None)

    def sessions_drop_for(self, name: str, keep: str | None = None) -> None:
        for sid in [s for s, (n, _) in self.sessions.items() if n == name and s != keep]:
            del self.sessions[sid]

    def purge(self, at: float) -> int:
        gone = [s for s, (_, exp) in self.sessions.items() if exp <= at]
        for s in gone:
            del self.sessions[s]
        return len(gone)


def backend_for(persistence: Any) -> Backend:
    """The history store's logins when the server records into it (``StorePersistence``), else memory."""
    store = getattr(persistence, "store", None)
    return LoginRecords(store) if store is not None and hasattr(persistence, "web") else MemoryLogins()


def session_id(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _fail(status: int, msg: str) -> HTTPException:
    return HTTPException(status_code=status, detail=msg)


@dataclass(frozen=True)
class Who:
    """The account behind a request: its name and its session's id (the SHA-256 of the token)."""

    name: str
    sid: str


class Auth:
    """Accounts, passwords and sessions of one server (``Server.auth``)."""

    def __init__(self, security: Security, backend: Backend, lobby: Any, signer: Signer) -> None:
        self.security = security
        self.backend = backend
        self.lobby = lobby
        self.signer = signer
        self.hasher = PasswordHasher()  # argon2id, RFC 9106 low-memory profile (t=3, m=64 MiB, p=4)
        self.slots = asyncio.Semaphore(security.hash_slots)
        self.tries = RateLimiter(security.login_burst, security.login_rate)
        self.sockets: dict[str, set[WebSocket]] = {}  # session id -> its open table sockets
        self._dummy: str | None = None
        with contextlib.suppress(Exception):  # expired sessions of earlier runs (a store that is down: later)
            backend.purge(time.time())

    # ------------------------------------------------------------------ passwords
    async def _hash(self, password: str) -> str:
        async with self.slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, pw_hash: str | None, password: str) -> bool:
        async with self.slots:
            if pw_hash is None:  # an unknown name or a guest: spend the same time, then refuse
                if self._dummy is None:
                    self._dummy = await asyncio.to_thread(self.hasher.hash, secrets.token_hex(16))
                with contextlib.suppress(VerificationError, InvalidHashError):
                    await asyncio.to_thread(self.hasher.verify, self._dummy, password)
                return False
            try:
                return bool(await asyncio.to_thread(self.hasher.verify, pw_hash, password))
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

    # ------------------------------------------------------------------ accounts
    async def create(self, raw_name: str, password: str | None) -> tuple[str, str]:
        """A new account (a guest without ``password``) and its first session: (name, token)."""
        name = canonical(raw_name)
        if len(self.lobby.accounts) >= self.lobby.settings.max_accounts:
            raise _fail(400, f"the server holds its maximum of {self.lobby.settings.max_accounts} accounts")
        key = name_key(name)
        if self.backend.by_key(key) is not None or name in self.lobby.accounts:
            raise _fail(409, f"the name {name!r} is taken (or one that looks like it): pick another")
        pw_hash = None if password is None else await self._hash(password)
        opening = self.lobby.settings.start_balance
        try:
            self.backend.create(name, key, opening, pw_hash)
        except NameTaken:
            raise _fail(
                409, f"the name {name!r} is taken (or one that looks like it): pick another"
            ) from None
        self.lobby.accounts[name] = opening
        self.lobby.store.save_account(name, opening)  # the store: the row exists (one read); memory: kept
        return name, self.start(name)

    async def login(self, raw_name: str, password: str, client: str) -> tuple[str, str]:
        try:
            key = name_key(canonical(raw_name))
        except NameError_:
            key = ""
        if not self.tries.allow(key or client):
            raise _fail(429, f"too many login attempts for this name: {self.tries.describe()}; wait")
        got = self.backend.by_key(key) if key else None
        ok = await self._verify(got.pw_hash if got is not None else None, password)
        if got is None or not ok:
            raise _fail(401, "wrong name or password (a guest account has no password until it is claimed)")
        assert got.pw_hash is not None
        if self.hasher.check_needs_rehash(got.pw_hash):
            self.backend.set_hash(got.name, await self._hash(password))
        self.lobby.balance(got.name)  # the live copy follows the store (another process may have made it)
        return got.name, self.start(got.name)

    async def claim(self, who: Who, password: str) -> str:
        """A guest sets a password: the account is his from any device; his other sessions end and
        this one is replaced (a new token)."""
        login = self.backend.of(who.name)
        if login is None or login.key is None:
            raise _fail(400, f"account {who.name!r} cannot be claimed (made before names were checked)")
        if login.pw_hash is not None:
            raise _fail(409, f"account {who.name!r} has a password already")
        if not self.backend.claim(who.name, await self._hash(password)):
            raise _fail(409, f"account {who.name!r} has a password already")
        self.backend.sessions_drop_for(who.name)
        token = self.start(who.name)
        moved = self.sockets.pop(who.sid, set())  # this device's open sockets follow its new session
        if moved:
            self.sockets.setdefault(session_id(token), set()).update(moved)
        return token

    # ------------------------------------------------------------------ sessions
    def start(self, name: str) -> str:
        token = secrets.token_urlsafe(32)
        self.backend.session_add(session_id(token), name, time.time() + self.security.session_ttl_s)
        return token

    def resolve(self, token: str | None) -> Who | None:
        """The live session of ``token`` (a session token, not a seat token), or None."""
        if not token or len(token) > 128 or "." in token:
            return None
        sid = session_id(token)
        name = self.backend.session_get(sid, time.time())
        return None if name is None else Who(name, sid)

    async def logout(self, who: Who) -> None:
        self.backend.session_drop(who.sid)
        for ws in list(self.sockets.pop(who.sid, ())):
            with contextlib.suppress(Exception):
                await ws.close(code=4401, reason="logged out")

    def watch(self, sid: str, ws: WebSocket) -> None:
        self.sockets.setdefault(sid, set()).add(ws)

    def forget(self, ws: WebSocket, sid: str | None = None) -> None:
        """``ws`` no longer watched; ``sid``: the session it was watched under (only that one is looked
        at: a look through every session's sockets per closed socket was quadratic when 2,000 left)."""
        sids = [sid] if sid is not None else [s for s, w in self.sockets.items() if ws in w]
        for sid in [s for s in sids if ws in self.sockets.get(s, ())]:
            self.sockets[sid].discard(ws)
            if not self.sockets[sid]:
                del self.sockets[sid]

    # ------------------------------------------------------------------ seat tokens
    def seat(self, token: str, tid: str) -> tuple[str, str | None]:
        """A seat token's name at table ``tid`` and its session (TokenError: forged, expired, logged out)."""
        _, name = self.lobby.seat_of(token, tid)
        sid = self.signer.check(token, "seat").get("s")
        if sid is not None and self.backend.session_get(str(sid), time.time()) is None:
            raise TokenError(
                "the seat token's session has ended (logged out or expired): log in and join again"
            )
        return name, None if sid is None else str(sid)


# ---------------------------------------------------------------------- requests
def bearer(conn: HTTPConnection) -> str | None:
    got = conn.headers.get("authorization", "")
    if got[:7].lower() == "bearer ":
        return got[7:].strip() or None
    return None


def session_token(conn: HTTPConnection) -> str | None:
    """The session token a request carries: ``Authorization: Bearer`` first, else the cookie."""
    tok = bearer(conn)
    if tok is not None and "." not in tok:
        return tok
    return conn.cookies.get(COOKIE)


def who(conn: HTTPConnection, auth: Auth) -> Who | None:
    return auth.resolve(session_token(conn))


def require(conn: HTTPConnection, auth: Auth) -> Who:
    got = who(conn, auth)
    if got is None:
        raise _fail(401, "log in first (or play as a guest): no live session in the cookie or Authorization")
    return got


def cookie_secure(request: Request, security: Security) -> bool:
    if security.cookie_secure != "auto":
        return security.cookie_secure == "always"
    return request.url.scheme == "https" or security.https_site


def set_session(response: Response, request: Request, security: Security, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(security.session_ttl_s),
        path="/",
        httponly=True,
        samesite="lax",
        secure=cookie_secure(request, security),
    )


def clear_session(response: Response, request: Request, security: Security) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=cookie_secure(request, security)
    )


def seat_name(request: Request, auth: Auth, token: str | None, tid: str) -> tuple[str, str | None]:
    """Who acts at table ``tid`` over REST: a seat token's name (given in the body), else the
    session's account (cookie or Authorization). TokenError / 401 otherwise."""
    if token:
        return auth.seat(token, tid)
    me = require(request, auth)
    return me.name, me.sid


def socket_identity(auth: Auth, websocket: WebSocket, tid: str) -> tuple[str | None, str | None, bool]:
    """Who a table socket is for: (name, session id, by a seat token). A seat token in ``Authorization:
    Bearer`` (scripts), else the session (cookie or Bearer); (None, None, False): a spectator.
    TokenError for explicit credentials that fail (an expired cookie: a spectator)."""
    tok = bearer(websocket)
    if tok is not None and "." in tok:
        name, sid = auth.seat(tok, tid)
        return name, sid, True
    me = who(websocket, auth)
    if me is None:
        if tok is not None:
            raise TokenError("the session token is not valid (expired or logged out): log in again")
        return None, None, False
    return me.name, me.sid, False


__all__ = [
    "COOKIE",
    "Auth",
    "MemoryLogins",
    "backend_for",
    "Who",
    "clear_session",
    "require",
    "seat_name",
    "session_id",
    "set_session",
    "socket_identity",
    "who",
]
