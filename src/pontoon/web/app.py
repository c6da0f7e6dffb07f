"""The ASGI app: REST for the lobby, tables and accounts; a WebSocket per table; the page.

``create_app(settings, persistence)`` builds it; ``pontoon serve`` runs it on uvicorn. Every table is
driven under its own asyncio lock; after every change each connection is sent the state of its view
kind (``HostedTable.state_for``), built once per kind, or the delta from its last one (web/frames.py).
Bad input of any kind gets a 4xx with a one-line reason (REST) or an ``{"type": "error"}`` message
(WebSocket); the connection and the server stay up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Request, WebSocket
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.types import Message, Receive, Scope, Send

from pontoon.errors import PontoonError
from pontoon.history.leases import LeaseLost
from pontoon.web import frames, hint_asks, replies
from pontoon.web.auth import Auth, MemoryLogins, backend_for, socket_identity
from pontoon.web.coalesce import Coalesce
from pontoon.web.conns import Conn, deltas_asked, sender
from pontoon.web.hosting import HostedTable, HostError, HostForbidden, Settings
from pontoon.web.lobby import Lobby
from pontoon.web.models import parse_client
from pontoon.web.persistence import MemoryPersistence, TablePersistence
from pontoon.web.ratelimit import RateLimiter
from pontoon.web.replies import client_address as _client
from pontoon.web.replies import err as _err
from pontoon.web.routes import accounts as accounts_routes
from pontoon.web.routes import auth as auth_routes
from pontoon.web.routes import host as host_routes
from pontoon.web.routes import meta as meta_routes
from pontoon.web.routes import page as page_routes
from pontoon.web.routes import sessions as session_routes
from pontoon.web.routes import store as store_routes
from pontoon.web.routes import tables as table_routes
from pontoon.web.tokens import Signer, TokenError
from pontoon.web.transport import BodyLimit, SiteGuard, gc_pacer, install_log_filter, tune_gc
from pontoon.web.workers import Busy, Workers

log = logging.getLogger("pontoon.web")
STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024
TICK_SLICE_S = 0.002  # CPU seconds the timer tick holds the event loop before it lets the messages in
SLOW_S = 2.0  # a table message answered later than this is logged (its waits named)
TableId = Annotated[str, PathParam(pattern=r"^[0-9a-f]{8}$", description="a table id from /api/tables")]


class Server:
    """The app's state: the lobby, a lock and the connections of every table, the rate limits."""

    def __init__(self, settings: Settings, store: TablePersistence) -> None:
        self.settings = settings
        self.signer = Signer.new(settings.secret, settings.token_ttl_s)
        self.lobby = Lobby(settings, store, self.signer)
        self.locks: dict[str, asyncio.Lock] = {}
        self.conns: dict[str, set[Conn]] = {}
        self.joins = RateLimiter(settings.join_burst, settings.join_rate)
        self.actions = RateLimiter(settings.action_burst, settings.action_rate)
        self.workers = Workers(  # the analysis: bots, hints, custom tables' edges, each its own lane
            bot_workers=settings.bot_workers,
            hint_workers=settings.hint_workers,
            hint_queue=settings.hint_queue,
            edge_workers=settings.edge_workers,
            edge_queue=settings.edge_queue,
        )
        self.bot_runs: dict[str, asyncio.Task[None]] = {}  # a table's bots deciding (``start_bots``)
        self.chats = RateLimiter(settings.chat_burst, settings.chat_rate)  # chat lines per person
        self.auth = Auth(settings.security, backend_for(store), self.lobby, self.signer)  # web/auth.py
        # one broadcast a table a turn; with a store, made by the next taker of the table's lock before
        # his change (it may await its commit) where the turn's callback has not made it yet
        durable = not isinstance(store, MemoryPersistence)  # (memory: ``settle`` never waits)
        self.soon = Coalesce(self._send, self.lock, self._served, durable=durable)

    def limited(self, request: Request) -> JSONResponse | None:
        """429 once a client address has spent its burst of REST writes (accounts, logins, tables, joins)."""
        return replies.limited(self, request)

    def lock(self, tid: str) -> asyncio.Lock:
        lk = self.locks.get(tid)  # (not ``setdefault``: that made a new Lock on every call, to drop it)
        if lk is None:
            lk = self.locks[tid] = self.soon.new_lock(tid)
        return lk

    async def settled(self, host: HostedTable) -> bool:
        """Wait until the table's events so far are durable (group commit: ``StorePersistence.settle``)
        before anything of it is shown. False: its write failed (a lease lost, the database gone, the
        writer process dead): the table is dropped from this process, its connections closed; the
        committed records rebuild it (the writer's death: in place, web/respawn.py; else a restart, or
        the process that holds its lease). False too for a host no longer served (dropped or closed)."""
        settle = getattr(self.lobby.store, "settle", None)
        if settle is None:
            return True
        try:
            await settle(host.id)
        except Exception as err:  # noqa: BLE001 (any failed write: nothing uncommitted is shown)
            lost = isinstance(err, LeaseLost)
            now = self.lobby.tables.get(host.id)
            if now is not None and now is not host:  # dropped before, rebuilt since: leave the new one be
                return False
            if now is host:
                self.lobby.tables.pop(host.id, None)
                host.closed = True  # (its bots and timers stop: it is served no more)
            dropped = getattr(self.lobby.store, "dropped", None)
            back = not lost and dropped is not None and dropped(self.lobby, host.id, err)
            if not lost:
                log.error(
                    "table %s: its events could not be committed; dropped%s: %s",
                    host.id, "; rebuilt once the writer is back" if back else "", err,
                )  # fmt: skip
            why = (
                "this table moved to another process" if lost else "this table's records could not be written"
            )
            for c in list(self.conns.pop(host.id, ())):
                with contextlib.suppress(Exception):
                    await c.ws.send_text(json.dumps({"type": "error", "error": str(err)[:500]}))
                with contextlib.suppress(Exception):
                    await c.ws.close(code=4409 if lost else 1011, reason=why)
            return False
        # a host dropped (or closed) while this waited: nothing of it is shown, its engine table may hold
        # what was never committed (a writer's death), and a rebuilt one may serve its id and connections
        return self.lobby.tables.get(host.id) is host

    def broadcast(self, host: HostedTable) -> None:
        """Every connection its frame of the change, now (under the table's lock, after its settle);
        the table's broadcast due at the next turn (``broadcast_soon``) is made by this one."""
        self.soon.now(host)

    def broadcast_soon(self, host: HostedTable) -> None:
        """The change's frames at the next turn of the event loop, one broadcast for every change of the
        table asked for till then (web/coalesce.py: made only with the table's lock free, so only what
        is committed is shown). Asked under the table's lock, after its settle."""
        self.soon.ask(host)

    def push(self, host: HostedTable, conn: Conn, text: str) -> None:
        """A frame for one connection (an error, a pong, a chat line) after the table's due broadcast."""
        self.soon.after(host, conn, text)

    def _served(self, host: HostedTable) -> bool:
        return not host.closed and self.lobby.tables.get(host.id) is host

    def _send(self, host: HostedTable) -> None:
        """Every connection its frame of the change: each view kind built and serialized once, a delta
        where the connection holds the kind's last view (web/frames.py)."""
        frames.broadcast(host, list(self.conns.get(host.id, ())))
        pacer = gc_pacer()
        if pacer is not None:  # a tuned server: a young collection every ``YOUNG_S`` (web/transport.py)
            pacer.pace()

    async def close_table(self, host: HostedTable, reason: str) -> None:
        """Close a table: every member's money back to his account; its sockets closed with ``reason``."""
        async with self.lock(host.id):
            if host.id in self.soon.due:  # its last change's frames first (they were due)
                self.broadcast(host)
            host.close_all()  # every member's money back to his account; a fair shoe's seed revealed
            self.lobby.tables.pop(host.id, None)
            self.lobby.store.table_closed(host.id)
            self.locks.pop(host.id, None)
            gone = list(self.conns.pop(host.id, ()))
        for c in gone:  # each after the frames queued for it
            c.close_after(4410, reason)

    async def bots(self, host: HostedTable) -> None:
        """The bots of a table: a casino bot's wager at once; a bot's decision off the event loop from
        its own view (web/bots.py), played if the table has not moved meanwhile."""
        if not any(m.bot for m in host.members.values()):
            return
        async with self.lock(host.id):
            try:
                changed = getattr(host, "bots_bet", None) is not None and host.bots_bet()  # type: ignore[attr-defined]
            except PontoonError as err:  # a wager refused (e.g. a deal the engine refuses): said, not fatal
                log.warning("table %s: bots' wagers: %s", host.id, err)
                changed = True
            if changed:  # shown only once durable, as a person's wager (the round it dealt: its cards)
                if not await self.settled(host):
                    return
                self.broadcast(host)
            job, version = host.bot_job(), host.version
        if job is None:
            return
        name, decide = job
        try:  # on the bots' own lane (web/workers.py): a long hint never holds a bot back
            action = await self.workers.bots.run(decide, key=host.id)
        except Busy:  # (one decision per table at a time: this table's next tick tries again)
            return
        except Exception:  # an analyser failure: the bot plays the documented default instead
            log.exception("table %s: bot %s's decision", host.id, name)
            action = None
        async with self.lock(host.id):
            if host.version == version and not host.closed:
                try:
                    host.bot_act(name, action)
                except PontoonError as err:
                    log.warning("table %s: bot %s: %s", host.id, name, err)
                if await self.settled(host):  # shown only once durable
                    self.broadcast(host)

    def start_bots(self, host: HostedTable) -> None:
        """A table's bots run as a task of their own, one at a time per table: the tick goes on to the
        other tables' timers while a bot decides. Awaited in the tick, a bot's decision waiting for the
        analysis slot behind a long hint (a British split hint takes 10-20 s) held back every table's
        turn timers and grace periods for that long."""
        run = self.bot_runs.get(host.id)
        if run is not None and not run.done():
            return
        run = self.bot_runs[host.id] = asyncio.create_task(self._bots_of(host))
        tid = host.id

        def forget(done: asyncio.Task[None]) -> None:
            if self.bot_runs.get(tid) is done:
                del self.bot_runs[tid]

        run.add_done_callback(forget)

    async def _bots_of(self, host: HostedTable) -> None:
        try:
            await self.bots(host)
        except Exception:  # a bug in one table's bots must not stop the others (as the tick's own guard)
            log.exception("table %s: bots", host.id)

    async def tick(self) -> None:
        """The turn timers, the grace periods and the bots of every table. The event loop is let go
        once the pass has used ``TICK_SLICE_S`` of CPU (with a thousand tables one pass held it for 5
        to 30 ms, and every action that arrived meanwhile waited: docs/scale-log.md, "The tail"); by CPU
        time, not by a count of tables nor by the clock, so that a pass takes few turns of a loaded
        loop (each turn of it may be long) and the timers are not made late."""
        now = time.monotonic()
        idle = self.settings.idle_table_s
        tables = self.lobby.tables
        held = time.thread_time()  # (this thread's CPU: a process waiting for a core does not count)
        for i, host in enumerate(list(tables.values())):
            if i and time.thread_time() - held > TICK_SLICE_S:
                await asyncio.sleep(0)
                held = time.thread_time()
            if host.closed or tables.get(host.id) is not host:
                continue  # closed or dropped while the tick let the loop run
            if (not host.members and not self.conns.get(host.id) and now - host.last_change > idle) or (
                now - max(host.last_play, host.last_change if not host.members else 0.0) > idle
            ):  # nobody joined, wagered or acted for the idle timeout: closed, everyone paid back
                await self.close_table(host, "this table closed: idle too long")
                continue
            if self.lock(host.id).locked():  # busy (e.g. waiting for its commit): its turn next tick,
                continue  # the other tables' timers now, not after that commit
            members = host.members.values()
            if any(m.bot for m in members):
                self.start_bots(host)
            if not (host.due(now) or any(m.gone_since is not None and not m.absent for m in members)):
                continue
            async with self.lock(host.id):
                before = host.version
                try:
                    host.check_grace(now)
                    if host.due(now):
                        host.on_timer(now)
                except PontoonError as err:  # the default action refused: leave the round as it is
                    log.warning("table %s: timer: %s", host.id, err)
                    host.deadline = None
                if host.version != before and await self.settled(host):
                    self.broadcast_soon(host)


def create_app(
    settings: Settings | None = None, persistence: TablePersistence | None = None, tick_s: float = 0.2
) -> FastAPI:
    settings = settings or Settings()
    store: TablePersistence = persistence if persistence is not None else MemoryPersistence()
    srv = Server(settings, store)
    restore = getattr(store, "restore", None)
    if restore is not None:  # the history store: every open table rebuilt and hosted again
        for tid in restore(srv.lobby):
            log.info("table %s recovered", tid)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async def timers() -> None:
            while True:
                await asyncio.sleep(tick_s)
                try:
                    await srv.tick()
                except Exception:  # a bug must not stop every table's timer
                    log.exception("timer tick")
                pacer = gc_pacer()
                if pacer is not None and pacer.due():  # a tuned server: the whole heap, every 10 minutes
                    pacer.sweep()

        async def heartbeat() -> None:  # several processes: renew our leases, take over expired ones
            beat = getattr(store, "heartbeat", None)
            leases = getattr(store, "leases", None)
            if beat is None or leases is None:
                return
            while True:
                await asyncio.sleep(leases.ttl / 3)
                try:
                    dropped, taken = beat(srv.lobby)
                except Exception:  # a database outage must not stop the server; the next beat tries again
                    log.exception("lease heartbeat")
                    continue
                for tid in dropped:
                    log.warning("table %s: lease lost; no longer served here", tid)
                    for c in list(srv.conns.pop(tid, ())):
                        with contextlib.suppress(Exception):
                            await c.ws.close(code=4409, reason="this table moved to another process")
                for tid in taken:
                    log.info("table %s taken over (its owner's lease expired)", tid)

        if settings.tune_gc:  # a server process (pontoon serve): what exists now frozen (web/transport.py)
            tune_gc()
        on_loop = getattr(store, "on_loop", None)
        if on_loop is not None:  # the store's writer process: its acknowledgements read by this loop
            on_loop(asyncio.get_running_loop())
        task = asyncio.create_task(timers())
        beat_task = asyncio.create_task(heartbeat())
        yield
        task.cancel()
        beat_task.cancel()
        for run in list(srv.bot_runs.values()):
            run.cancel()
        srv.workers.shutdown()

    app = FastAPI(
        title="pontoon table server",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        description="Play Pontoon at shared tables: lobby, tables, accounts, one WebSocket per table.",
    )
    app.state.server = srv

    @app.exception_handler(HostForbidden)
    async def _forbidden(request: Request, err: HostForbidden) -> JSONResponse:
        return _err(403, str(err))

    @app.exception_handler(HostError)
    async def _host_error(request: Request, err: HostError) -> JSONResponse:
        return _err(400, str(err))

    @app.exception_handler(PontoonError)
    async def _pontoon_error(request: Request, err: PontoonError) -> JSONResponse:
        return _err(400, str(err))

    @app.exception_handler(TokenError)
    async def _token_error(request: Request, err: TokenError) -> JSONResponse:
        return _err(401, str(err))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, err: RequestValidationError) -> JSONResponse:
        return _err(422, _one_error(err.errors()))

    app.include_router(table_routes.router)
    app.include_router(session_routes.router)  # ledger and export (docs/export.md)

    @app.websocket("/ws/tables/{tid}")
    async def ws(websocket: WebSocket, tid: str) -> None:
        """A seat's socket by the session (cookie or Authorization) or a seat token in Authorization:
        Bearer; no credentials: a spectator. Never a token in the URL (transport.SiteGuard)."""
        await table_socket(srv, websocket, tid)

    for mod in (meta_routes, store_routes, host_routes, accounts_routes, auth_routes, page_routes):
        app.include_router(mod.router)  # web/routes/: one APIRouter per resource
    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    app.add_middleware(BodyLimit, cap=MAX_BODY, timeout=settings.security.request_timeout_s)

    async def socket(scope: Scope, receive: Receive, send: Send, tid: str) -> None:
        """``/ws/tables/{tid}`` from ``SiteGuard`` once its checks passed, as ``ws`` above (which serves
        the path under a ``root_path``) without the app's middleware, router and dependencies."""
        await table_socket(srv, WebSocket(scope, receive=receive, send=send), tid)

    # outermost: Host, Origin, headers; a table's socket then straight to ``table_socket``
    app.add_middleware(SiteGuard, security=settings.security, sockets={"/ws/tables/": socket})
    install_log_filter()
    return app


def _step(x: Any) -> str:
    """A step of a validation error's location as said: a hostile key (a line break, a control
    character, a thousand characters) quoted and cut, so that the error stays one short line."""
    s = str(x)
    return s if s.isprintable() and len(s) <= 40 else repr(s[:40])


def _one_error(errors: Any) -> str:
    try:
        e = errors[0]
        where = ".".join(_step(x) for x in e.get("loc", ()) if x not in ("body", "msg"))
        return f"{where or 'message'}: {e.get('msg', 'invalid')}"[:300]
    except (IndexError, KeyError, TypeError, AttributeError):
        return "the request is not valid"


async def table_socket(srv: Server, websocket: WebSocket, tid: str) -> None:
    host = srv.lobby.tables.get(tid)
    name: str | None = None
    if host is None:
        owner = getattr(srv.lobby.store, "owner_address", None)
        where = owner(tid) if owner is not None and len(tid) == 8 else None
        if where:  # another process serves it (its lease): accepted, then closed naming the owner
            await websocket.accept()
            await websocket.close(code=4409, reason=f"served by {where}"[:120])
        else:
            await websocket.close(code=4404, reason=f"no table {tid[:16]!r}")
        return
    try:  # web/auth.py: a seat token in Authorization, else the session (cookie or Bearer), else a spectator
        # (in a worker thread: the session's row is read from the store, which held the event loop
        # for 10-60 ms a socket when a hundred tables' people connected at once: bench_server's probe)
        # (the memory store's sessions are a dict: read on the loop, no thread's hop and wake-up)
        if isinstance(srv.auth.backend, MemoryLogins):
            name, sid, by_seat = socket_identity(srv.auth, websocket, tid)
        else:
            name, sid, by_seat = await asyncio.to_thread(socket_identity, srv.auth, websocket, tid)
    except (TokenError, HostError) as err:
        await websocket.close(code=4401, reason=str(err)[:120])
        return
    if name is not None and name not in host.members:
        if by_seat:
            await websocket.close(code=4403, reason="you are no longer at this table; join again")
            return
        name = None  # a logged-in person who does not sit here watches
    await websocket.accept()
    if sid is not None:
        srv.auth.watch(sid, websocket)  # closed when that session logs out
    conn = Conn(name, websocket, deltas=deltas_asked(websocket.query_params.get("deltas")))
    srv.conns.setdefault(tid, set()).add(conn)
    async with srv.lock(tid):
        before = host.version
        host.connected(name)
        if not await srv.settled(host):  # its last write failed: the table is gone from here
            if srv.conns.get(tid) is not None:  # (a table rebuilt meanwhile: this socket is not one of it)
                srv.conns[tid].discard(conn)
            if sid is not None:
                srv.auth.forget(websocket, sid)
            return
        if host.version != before:  # a member back: everyone sees him connected
            srv.broadcast_soon(host)
        else:  # a spectator or a second tab: only the joiner needs a frame (issue 28 item 8)
            frames.welcome(host, conn, list(srv.conns.get(tid, ())))
    sender_task = asyncio.create_task(sender(conn))
    key = f"{tid}:{name}" if name else _client(websocket)
    try:
        while not conn.overflow and not sender_task.done():
            msg = await websocket.receive()
            if msg["type"] == "websocket.disconnect":
                break
            await _one_message(srv, host, conn, key, msg)
    except Exception as err:  # the client vanished mid-send, or a bug: this connection ends, not the server
        if not isinstance(err, RuntimeError | ConnectionError):
            log.exception("table %s: connection of %s", tid, name)
    finally:
        sender_task.cancel()
        if conn.hint is not None:  # (its thread runs on, holding its place in the hints' lane)
            conn.hint.cancel()
        if sid is not None:  # (watched only under its session: web/auth.py)
            srv.auth.forget(websocket, sid)
        srv.conns.get(tid, set()).discard(conn)
        async with srv.lock(tid):
            before = host.version
            host.disconnected(name)
            if host.version != before and await srv.settled(host):  # a spectator's close: no frame
                srv.broadcast_soon(host)
        if conn.overflow:
            with contextlib.suppress(Exception):
                await websocket.close(code=1008, reason="too many unread messages")


def _owed_resync(host: HostedTable, conn: Conn, text: str) -> bool:
    """A ``resync`` past the action rate limit is still answered once per change of the table: the page
    asks once per gap and drops every delta till the full state comes, so a refused resync left it
    showing a stale table for good (a bet never answered). A second one at the same change is a flood."""
    if len(text) > 64 or conn.resynced == frames.frames_of(host).seq:
        return False
    try:
        return bool(json.loads(text) == {"type": "resync"})
    except ValueError:
        return False


def _error(srv: Server, host: HostedTable, conn: Conn, message: str) -> None:
    """An error frame for ``conn``, after the state frames due before it (web/coalesce.py)."""
    srv.push(host, conn, json.dumps({"type": "error", "error": replies.one_line(message[:500])}))


async def _one_message(srv: Server, host: HostedTable, conn: Conn, key: str, raw: Message) -> None:
    text = raw.get("text")
    if text is None:
        _error(srv, host, conn, 'binary frames are not accepted: send JSON text such as {"type": "ping"}')
        return
    if len(text) > srv.settings.max_frame:
        _error(
            srv, host, conn, f"message of {len(text)} characters refused: at most {srv.settings.max_frame}"
        )
        return
    if not srv.actions.allow(key) and not _owed_resync(host, conn, text):
        conn.dropped += 1
        if conn.dropped > 200:
            conn.overflow = True  # a flood: the connection is closed
        _error(srv, host, conn, f"rate limit: {srv.actions.describe()} messages; this one was dropped")
        return
    try:
        msg = parse_client(text)  # parsed and validated in one pass, each text once (web/models.py)
    except ValidationError as err:
        errors = err.errors()
        detail = "not JSON text" if errors and errors[0].get("type") == "json_invalid" else _one_error(errors)
        _error(
            srv,
            host,
            conn,
            f'bad message: {detail}; send e.g. {{"type": "act", "action": {{"verb": "stand", "box": 1}}}}',
        )
        return
    if msg.type == "ping":
        srv.push(host, conn, json.dumps({"type": "pong"}))
        return
    if msg.type == "resync":  # a delta that did not fit (a gap): the full state of its view kind
        async with srv.lock(host.id):
            if host.id in srv.soon.due:  # the frames due first (the lock held: all committed)
                srv.broadcast(host)
            conn.seq = -1
            frames.welcome(host, conn, list(srv.conns.get(host.id, ())))
            conn.resynced = frames.frames_of(host).seq
        return
    if conn.name is None:
        _error(srv, host, conn, "spectators cannot act: join the table for a seat token")
        return
    if msg.type == "chat":
        _chat(srv, host, conn, msg.text)
        return
    if msg.type == "hints":  # a task of its own: this connection's moves go on meanwhile
        hint_asks.ask(srv, host, conn)
        return
    t0 = time.monotonic()
    async with srv.lock(host.id):
        t1 = time.monotonic()
        try:
            host.handle(conn.name, msg)  # type: ignore[attr-defined]
            host.last_play = time.monotonic()
        except LeaseLost as err:  # another process holds the table now: its write was refused; drop it
            with contextlib.suppress(Exception):  # sent at once: the connection is closed right after
                await conn.ws.send_text(json.dumps({"type": "error", "error": str(err)[:500]}))
            srv.lobby.tables.pop(host.id, None)
            for c in list(srv.conns.pop(host.id, ())):
                with contextlib.suppress(Exception):
                    await c.ws.close(code=4409, reason="this table moved to another process")
            return
        except PontoonError as err:
            _error(srv, host, conn, str(err))
        t2 = time.monotonic()
        if await srv.settled(host):  # shown only once durable (group commit), once a turn
            srv.broadcast_soon(host)
    if (t3 := time.monotonic()) - t0 > SLOW_S:  # what a late answer waited for (an operator's clue)
        log.warning(
            "table %s: %s's %s answered after %.1f s (the table's lock %.1f s, the move %.1f s, its commit %.1f s)",
            host.id, conn.name, msg.type, t3 - t0, t1 - t0, t2 - t1, t3 - t2,
        )  # fmt: skip


def _chat(srv: Server, host: HostedTable, conn: Conn, text: str) -> None:
    """A chat line between the people at the table: bounded (the message model), rate-limited, sent as
    data (the page shows it as text, never as markup); spectators neither send nor read it."""
    if conn.name not in host.members:
        _error(srv, host, conn, "chat: only the people at the table chat")
        return
    if not srv.chats.allow(f"{host.id}:{conn.name}"):
        _error(srv, host, conn, f"chat: {srv.chats.describe()} lines; this one was not sent")
        return
    line = " ".join(text.split())
    if not line:
        _error(srv, host, conn, "chat: an empty line is not sent")
        return
    out = json.dumps({"type": "chat", "from": conn.name, "text": line, "at": round(time.time())})
    for c in list(srv.conns.get(host.id, ())):
        if c.name is not None and c.name in host.members:
            srv.push(host, c, out)
