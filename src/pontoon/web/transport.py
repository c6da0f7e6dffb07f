"""What guards the server's transport (docs/accounts.md, "Transport"):

- ``SiteGuard`` (ASGI, outermost): every request's ``Host`` must be this site's (DNS rebinding); the
  ``Origin`` of every WebSocket and of every state-changing request, when sent, must be the site's
  (cross-site WebSocket hijacking, CSRF); a token in a URL's query (``?token=``) is refused, since
  URLs are written to logs; every HTTP response carries the security headers (CSP without inline
  script, frame-ancestors 'none' and X-Frame-Options DENY, nosniff, Referrer-Policy no-referrer;
  HSTS over TLS; no-store on the API).
- ``BodyLimit``: a request body over the cap is refused with 413, and one that does not arrive
  within the request timeout with 408, before any route reads it.
- ``guarded(protocol)``: uvicorn's HTTP protocol with a deadline per request: a connection that does
  not complete a request's headers and body within ``request_timeout_s`` of its first byte (or of
  opening) is answered 408 and closed (uvicorn has no header timeout of its own: a half-sent request
  was held for good).
- ``RedactTokens``: a logging filter on uvicorn's access and error loggers that writes any
  ``token=``-like query value as ``[redacted]``.
- ``uvicorn_options(settings)``: the keyword arguments ``pontoon serve`` (and the tests) give uvicorn.
- ``tune_gc()``: the collector of a server process, tuned at start-up (``Settings.tune_gc``): thresholds,
  survivors frozen, a sweep of the whole heap every ``SWEEP_S`` (``GcPacer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import ipaddress
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pontoon.web.site import Security

SECRET_KEYS = frozenset({"token", "access_token", "session", "seat", "password", "auth"})
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def host_name(value: str) -> str | None:
    """The host of a ``Host`` header value (no port, lower case, no trailing dot); None if malformed."""
    v = value.strip().lower()
    if v.startswith("["):
        end = v.find("]")
        if end < 0 or (v[end + 1 :] and not re.fullmatch(r":[0-9]{1,5}", v[end + 1 :])):
            return None
        return v[1:end]
    name, _, port = v.partition(":")
    if port and not port.isdigit():
        return None
    name = name.rstrip(".")
    return name if re.fullmatch(r"[a-z0-9._-]{1,253}", name) else None


def _may_name_secret(qs: str) -> bool:
    """False only where no key of query string ``qs`` can be one of ``SECRET_KEYS`` (none of them in it,
    and nothing escaped that ``parse_qsl`` would decode into one): the parse is then spared."""
    if "%" in qs or "+" in qs:
        return True
    low = qs.lower()
    return any(k in low for k in SECRET_KEYS)


def _ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


# a WebSocket route served straight from ``SiteGuard`` (after its checks): the handler is given the
# scope, receive, send and the path's last segment (the table's id of ``/ws/tables/{tid}``)
SocketRoute = Callable[[Scope, Receive, Send, str], Awaitable[None]]


class SiteGuard:
    """``sockets``: path prefixes whose WebSockets are handed, once this guard let them through, to
    their handler directly, not through the app's middleware, router and dependency injection (a
    connect spent about a third of the server's CPU there: docs/scale.md, "connectburst"): a path
    ``prefix + segment`` (one non-empty segment, as the route's ``{tid}``); any other path, and every
    path under a ``root_path``, goes to the app as before."""

    def __init__(
        self, app: ASGIApp, security: Security, sockets: dict[str, SocketRoute] | None = None
    ) -> None:
        self.app = app
        self.hosts = security.hosts
        self.any_host = "*" in security.allowed_hosts
        self.origins = security.origins
        self.sockets = dict(sockets or {})
        # ``Host`` values, and (``Origin``, ``Host``) pairs, found acceptable: each checked once, not at
        # every request (the checks parse them: a regex, an IP address, a URL); refused ones are never
        # kept, and at most ``KEEP`` of each, so that made-up values cannot grow it
        self.ok_hosts: set[str] = set()
        self.ok_origins: set[tuple[str, str]] = set()

    def socket_route(self, scope: Scope) -> tuple[SocketRoute, str] | None:
        """The handler of a WebSocket's path and its segment (``sockets``), or None: the app's router."""
        if not self.sockets or scope.get("root_path"):
            return None
        path = scope.get("path", "")
        for prefix, handler in self.sockets.items():
            if path.startswith(prefix):
                rest = path[len(prefix) :]
                if rest and "/" not in rest:
                    return handler, rest
        return None

    KEEP = 64

    def refusal(self, scope: Scope, headers: Headers) -> tuple[int, str] | None:
        raw = headers.get("host")
        if raw is None:
            return 400, "a Host header is required"
        if raw not in self.ok_hosts:
            host = host_name(raw)
            if host is None:
                return 400, f"the Host header {raw[:80]!r} is not a host name"
            if not (self.any_host or host == "localhost" or _ip(host) or host in self.hosts):
                return 421, (
                    f"this server does not answer for host {host[:80]!r} (pontoon serve --site or "
                    "--allowed-host names the hosts it answers for)"
                )
            if len(self.ok_hosts) < self.KEEP:
                self.ok_hosts.add(raw)
        origin = headers.get("origin")
        unsafe = scope["type"] == "websocket" or scope.get("method", "GET") not in SAFE_METHODS
        if origin is not None and unsafe and (origin, raw) not in self.ok_origins:
            if not self._origin_ok(origin, raw):
                return 403, f"requests from the origin {origin[:80]!r} are refused: this site's own page only"
            if len(self.ok_origins) < self.KEEP:
                self.ok_origins.add((origin, raw))
        qs = scope.get("query_string", b"").decode("latin-1")
        if (
            qs
            and _may_name_secret(qs)
            and any(k.lower() in SECRET_KEYS for k, _ in parse_qsl(qs, keep_blank_values=True))
        ):
            return 400, (
                "a token in the URL is refused (URLs are written to logs): the page's session cookie or "
                "an Authorization: Bearer header carries it"
            )
        return None

    def _origin_ok(self, origin: str, host_header: str) -> bool:
        o = origin.strip().lower()
        if o in self.origins:
            return True
        try:
            u = urlsplit(o)
        except ValueError:
            return False
        return u.scheme in ("http", "https") and u.netloc == host_header.strip().lower()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = self.refusal(scope, Headers(scope=scope))
        if why is not None:
            status, msg = why
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 4000 + status, "reason": msg[:120]})
            else:
                await _with_headers(JSONResponse({"detail": msg}, status_code=status), scope, receive, send)
            return
        if scope["type"] == "websocket":
            scope["pontoon.send"] = send  # the server's own send (web/conns.py ``wire_of``)
            direct = self.socket_route(scope)
            if direct is not None:  # (an error escaping it: uvicorn logs it and closes, as via the app)
                await direct[0](scope, receive, send, direct[1])
                return
            await self.app(scope, receive, send)
            return
        await _with_headers(self.app, scope, receive, send)


async def _with_headers(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    extra = list(_HEADERS)
    if scope.get("scheme") == "https":
        extra.append((b"strict-transport-security", b"max-age=31536000"))
    if str(scope.get("path", "")).startswith("/api/"):
        extra.append((b"cache-control", b"no-store"))

    async def add(message: Message) -> None:
        if message["type"] == "http.response.start":
            have = {k.lower() for k, _ in message.get("headers", [])}
            message["headers"] = list(message.get("headers", [])) + [
                (k, v) for k, v in extra if k not in have
            ]
        await send(message)

    await app(scope, receive, add)


class BodyLimit:
    """Refuse a request body over ``cap`` bytes with 413 (also a chunked one), and one that has not
    arrived within ``timeout`` seconds with 408, before any route sees it."""

    def __init__(self, app: ASGIApp, cap: int, timeout: float = 5.0) -> None:
        self.app = app
        self.cap = cap
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = b""
        more = True
        loop = asyncio.get_running_loop()
        end = loop.time() + self.timeout
        while more:
            try:
                msg = await asyncio.wait_for(receive(), max(0.0, end - loop.time()))
            except TimeoutError:
                resp = JSONResponse(
                    {"detail": f"the request body did not arrive within {self.timeout:g} s"},
                    status_code=408,
                    headers={"Connection": "close"},
                )
                await resp(scope, receive, send)
                return
            if msg["type"] == "http.disconnect":
                return
            body += msg.get("body", b"")
            more = msg.get("more_body", False)
            if len(body) > self.cap:
                resp = JSONResponse({"detail": f"request body over {self.cap} bytes"}, status_code=413)
                await resp(scope, receive, send)
                return
        done = False

        async def replay() -> Message:
            nonlocal done
            if not done:
                done = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


_TIMEOUT_408 = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 38\r\nconnection: close\r\n\r\nthe request did not arrive in time\r\n\r\n"
)


def guarded(base: type[asyncio.Protocol], timeout: float) -> type[asyncio.Protocol]:
    """``base`` (uvicorn's h11 or httptools protocol) with a deadline on every request's arrival."""

    class Guarded(base):  # type: ignore[valid-type, misc]
        request_timeout = timeout

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._guard: asyncio.TimerHandle | None = None
            self._mark: Any = None
            self._arm()

        def _arm(self) -> None:  # (uvicorn's ``cycle``: the request being read; read defensively)
            self._mark = getattr(self, "cycle", None)
            self._guard = asyncio.get_running_loop().call_later(self.request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._guard is not None:
                self._guard.cancel()
                self._guard = None

        def _complete(self) -> bool:
            cyc = getattr(self, "cycle", None)
            return cyc is not None and cyc is not self._mark and not getattr(cyc, "more_body", False)

        def data_received(self, data: bytes) -> None:
            cyc = getattr(self, "cycle", None)
            if self._guard is None and (cyc is None or getattr(cyc, "response_complete", True)):
                self._arm()  # the first bytes of a new request on a kept-alive connection
            super().data_received(data)
            if self._guard is not None and self._complete():
                self._disarm()

        def handle_websocket_upgrade(self, *args: Any) -> None:
            self._disarm()  # the WebSocket protocol takes the connection over (its own pings and limits)
            super().handle_websocket_upgrade(*args)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _too_slow(self) -> None:
            self._guard = None
            tr = self.transport
            if tr.is_closing() or tr.get_protocol() is not self or self._complete():
                return
            cyc = getattr(self, "cycle", None)
            if cyc is None or cyc is self._mark or not getattr(cyc, "response_started", False):
                tr.write(_TIMEOUT_408)
            tr.close()

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


class RedactTokens(logging.Filter):
    """Write the value of any secret-looking query parameter in a log record as ``[redacted]``."""

    PATTERN = re.compile(r"([?&](?:" + "|".join(sorted(SECRET_KEYS)) + r")=)[^&\s\"']*", re.IGNORECASE)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                self.PATTERN.sub(r"\1[redacted]", a) if isinstance(a, str) else a for a in record.args
            )
        if isinstance(record.msg, str):
            record.msg = self.PATTERN.sub(r"\1[redacted]", record.msg)
        return True


def install_log_filter() -> None:
    """The filter on uvicorn's loggers (the access log; the error log names WebSocket paths)."""
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


def uvicorn_options(settings: Any) -> dict[str, Any]:
    """uvicorn's keyword arguments for the app: the guarded HTTP protocol, the frame cap, a short
    keep-alive, proxy headers only from the trusted proxies (``Security`` has none by default), and
    no per-message compression unless ``Settings.ws_deflate`` (a frame is built once per view kind, but
    compressed once per connection: on, it cost about 15% of the server's CPU per round)."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    sec: Security = settings.security
    install_log_filter()
    return {
        "http": guarded(AutoHTTPProtocol, sec.request_timeout_s),
        "proxy_headers": bool(sec.trusted_proxies),
        "forwarded_allow_ips": sec.trusted_proxies or None,
        "ws_max_size": settings.max_frame * 4,
        "ws_per_message_deflate": bool(getattr(settings, "ws_deflate", False)),
        "timeout_keep_alive": 5,
        "h11_max_incomplete_event_size": 16 * 1024,
    }


GC_THRESHOLDS = (2_500, 10, 10)  # (the middle and full thresholds unused: every survivor is frozen)
SWEEP_S = 600.0  # seconds between two sweeps of the whole heap (``GcPacer.sweep``)
# A young collection at least this often while the server plays (``GcPacer.pace``, after each change's
# frames): with every survivor frozen, each frozen object that dies lowers CPython's count of new
# objects, so the count alone let the young generation grow to 20,000-30,000 objects between two
# collections (10-20 ms each, the loop held); every 50 ms a collection holds what 50 ms of play left
# (1-3 ms), each object still scanned once (docs/scale.md; the store's ``settle`` paces its path alike).
YOUNG_S = 0.05


class GcPacer:
    """What the collector of a tuned server does besides its thresholds (docs/scale.md, "Measured (human-paced)").

    What survives a collection is frozen at once (``gc.freeze`` in the collector's own "stop" callback),
    so that every collection scans only what was made since the last one: the tables' views, the
    records, the connections' state live for seconds to hours, and with CPython's generations each of
    them was scanned again by every middle and full collection until it died (at 1,000 busy tables the
    young and middle collections scanned 40,000 to 170,000 such objects, 20 to 160 ms each, and found
    almost no garbage: what the server drops, reference counting frees, frozen or not). What a frozen
    object's reference cycle leaves behind is reclaimed by the ``sweep`` (everything unfrozen, one full
    collection, frozen again), which the server's timer runs every ``sweep_s`` seconds: one pause of a
    whole-heap collection every ten minutes, where CPython's own full collections came every minute or
    two, and memory stays bounded by what one ``sweep_s`` of play leaves in cycles."""

    def __init__(self, sweep_s: float = SWEEP_S, young_s: float | None = None) -> None:
        self.sweep_s = sweep_s
        self.last_sweep = time.monotonic()
        self.sweeps = 0
        self.young_s = YOUNG_S if young_s is None else young_s  # (read when made: a bench may set it)
        self.young_at = time.monotonic()  # the end of the last young collection (any: paced or counted)
        self.paced = 0

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            gc.freeze()  # (survived this collection: not scanned again until the sweep)
            if info["generation"] == 0:
                self.young_at = time.monotonic()

    def pace(self, now: float | None = None) -> bool:
        """A young collection when none has run for ``young_s`` (the server calls it after each
        change's frames are queued: see ``YOUNG_S``); True if it collected."""
        if (time.monotonic() if now is None else now) - self.young_at < self.young_s:
            return False
        self.paced += 1
        gc.collect(0)  # (its "stop" callback freezes what survived and sets ``young_at``)
        return True

    def due(self, now: float | None = None) -> bool:
        return (time.monotonic() if now is None else now) - self.last_sweep >= self.sweep_s

    def sweep(self) -> int:
        """Unfreeze everything, collect it all (the cycles left since the last sweep), freeze what is
        left; the objects freed."""
        gc.unfreeze()
        got = gc.collect()  # (its "stop" callback freezes what survived)
        gc.freeze()
        self.last_sweep = time.monotonic()
        self.sweeps += 1
        return got


_pacer: GcPacer | None = None


def gc_pacer() -> GcPacer | None:
    """The process's pacer once ``tune_gc`` has run (None before, and after ``untune_gc``)."""
    return _pacer


def tune_gc(sweep_s: float | None = None) -> tuple[int, int, int]:
    """The cyclic garbage collector of a server process, tuned once it has started (docs/scale.md,
    "Measured (human-paced)"; docs/scale-log.md, "The tail"): what exists then (the modules, the app, the tables
    restored: about 100,000 objects) is collected once and frozen (``gc.freeze``: never scanned again),
    a young collection waits for 2,500 new objects instead of 700, and from then on what survives a
    collection is frozen too and the whole heap is swept every ``sweep_s`` seconds (``GcPacer``), so
    that every collection is a young one. With CPython's defaults a server with 1,000 busy tables spent
    about a quarter of its CPU in the collector, and a full collection of its heap held the event loop
    for 300 ms and more (every action waiting then); with 10,000 and no freezing of survivors its
    young collections scanned some 40,000 objects (30 ms of CPU each) and its middle ones 170,000 (up
    to 160 ms). The previous thresholds are returned; idempotent (one pacer per process)."""
    global _pacer
    sweep_s = SWEEP_S if sweep_s is None else sweep_s
    old = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    if _pacer is None:
        _pacer = GcPacer(sweep_s)
        gc.callbacks.append(_pacer.on_gc)
    else:
        _pacer.sweep_s = sweep_s
    return old


def untune_gc(threshold: tuple[int, int, int] = (700, 10, 10)) -> None:
    """Undo ``tune_gc`` (tests, embedders): the pacer's callback removed, everything unfrozen."""
    global _pacer
    if _pacer is not None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(_pacer.on_gc)
        _pacer = None
    gc.unfreeze()
    gc.set_threshold(*threshold)


__all__ = [
    "CSP",
    "GC_THRESHOLDS",
    "SWEEP_S",
    "YOUNG_S",
    "BodyLimit",
    "GcPacer",
    "RedactTokens",
    "SiteGuard",
    "gc_pacer",
    "guarded",
    "host_name",
    "install_log_filter",
    "tune_gc",
    "untune_gc",
    "uvicorn_options",
]
