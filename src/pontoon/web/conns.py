"""A table's WebSocket connection on the server (``Conn``) and its sender task (``sender``).

A frame is written at once when nothing is ahead of it (the connection's queue empty and its sender
not in a send) and fewer than ``AT_ONCE`` frames were written at once in this turn of the event loop:
the socket's ``send_text`` is run right there, and it ends there unless the transport's
buffer is full (the client does not read fast enough), in which case the rest of that send is handed to
the sender task and the frames after it queue behind it. Past ``AT_ONCE`` frames in a turn, a frame
is written at the next turn by one callback for all of them (``_flush``: as its sender task would
write it then, without the queue's put, the task's wake-up and the get for each frame). Behind a send
that had to wait, a frame waits in the queue for the sender task, which sends them in order. Either way the frames go out in the order they were pushed,
and a close asked by ``close_after`` goes out after every frame pushed before it. Written at once, a
frame no longer waits for its sender task's turn of the event loop (at a thousand tables, 40 to 300 ms
under load: docs/scale.md), and the queue's and the task's wake-up are spared on each frame.

Either way a frame is written as its ready-made bytes straight to uvicorn's transport where that is
what the ASGI send would write (``wire_of``: uvicorn's websockets-sansio protocol, no per-message
compression; ``Conn._direct``: the connection open and its transport not paused), without starlette's,
uvicorn's and the websockets library's layers for each frame, the bytes made once for the connections
sent the same text (``frame_of``); else, and for every close, by the ASGI send as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket

try:  # (the state of uvicorn's websockets-sansio connection: ``Conn._direct`` writes only while open)
    from websockets.protocol import State

    _OPEN: Any = State.OPEN
except ImportError:  # pragma: no cover (no websockets library: every frame by the ASGI send)
    _OPEN = object()

CLOSE_WAIT_S = 5.0  # a socket closed after its last frames: closed anyway after this long
QUEUE = 256  # frames a connection may have waiting; then it is closed (a client that does not read)
# Frames written at once in one turn of the event loop, all connections together; past it a frame goes
# to its sender task, as before. A loop that handles many messages in one turn (a closed loop of
# clients that answer at once, a backlog after a pause) then writes their frames together in the next
# turn, where written at once each woke its client for one frame: at 100 tables of bench_server.py, 15%
# more CPU a round in the server and 40% in the clients (docs/scale.md).
AT_ONCE = 16


class _Turn(threading.local):
    n = 0  # frames written at once in this turn of this thread's event loop
    loop: asyncio.AbstractEventLoop | None = None
    late: list[Conn] | None = None  # the connections with frames for the next turn's ``_flush``


_turn = _Turn()


def wire_of(ws: Any) -> Any:
    """uvicorn's WebSocket protocol under ``ws`` where a state frame may be written to its transport
    as ready-made bytes (``Conn._direct``), else None: its ASGI ``send`` as the outermost middleware
    saw it (``scope["pontoon.send"]``, web/transport.py ``SiteGuard``) is a method of uvicorn's
    websockets-sansio protocol, and no extension was agreed (per-message deflate compresses each
    connection's frames on its own)."""
    scope = getattr(ws, "scope", None)
    send = scope.get("pontoon.send") if isinstance(scope, dict) else None
    proto = getattr(send, "__self__", None)
    if proto is None or type(proto).__name__ != "WebSocketsSansIOProtocol":
        return None
    conn = getattr(proto, "conn", None)
    if conn is None or getattr(conn, "extensions", True) or not hasattr(conn, "state"):
        return None
    if not all(hasattr(proto, a) for a in ("transport", "writable", "close_sent", "disconnected")):
        return None
    return proto


# the last text made into a frame and its bytes, as ONE tuple swapped whole (one text, many connections; a
# thread with its own loop, as tests run servers, never reads one text with another's bytes)
_last: list[tuple[Any, bytes]] = [(None, b"")]


def frame_of(text: str) -> bytes:
    """A server's unmasked, unfragmented WebSocket text frame of ``text`` (RFC 6455 5.2): the bytes
    uvicorn's protocol would write for ``send_text(text)`` with no extension; made once for the
    connections that are sent the same text one after the other (a view kind's)."""
    last = _last[0]
    if last[0] is text:
        return last[1]
    data = text.encode()
    n = len(data)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 65536:
        head = b"\x81\x7e" + n.to_bytes(2, "big")
    else:
        head = b"\x81\x7f" + n.to_bytes(8, "big")
    out = head + data
    _last[0] = (text, out)
    return out


def deltas_asked(query: str | None) -> int:
    """A table socket's ``?deltas=`` as ``Conn.deltas``: 1 or 2 as asked, anything else 0 (full states)."""
    return 2 if query == "2" else 1 if query == "1" else 0


def _reset() -> None:
    _turn.n = 0


def _flush() -> None:
    """The frames pushed past ``AT_ONCE`` in the last turn, each connection's in order: written now
    where nothing is ahead of them (as the sender task would have written them in this turn, without
    its queue's put, its wake-up and its get for each frame), else queued behind what is."""
    conns, _turn.late = _turn.late or [], None
    for c in conns:
        texts, c.late = c.late, []
        for text in texts:
            if not c.sending and c.closing is None and c.queue.empty():
                c._now(text)
            else:
                c._queue(text)


def _at_once() -> bool:
    """One more frame may be written at once in this turn of the loop (the count is reset at the next)."""
    t = _turn
    loop = asyncio.get_running_loop()
    if t.n == 0 or t.loop is not loop:  # (a new loop in this thread: the old one's reset never came)
        t.n, t.loop = 0, loop
        loop.call_soon(_reset)
    t.n += 1
    return t.n <= AT_ONCE


class _Rest:
    """A send begun at once that had to wait (the transport's buffer full): its coroutine, suspended on
    ``waiting``, for the sender task to finish."""

    __slots__ = ("coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.coro, self.waiting = coro, waiting

    async def finish(self) -> None:
        coro, waiting = self.coro, self.waiting
        while True:
            try:  # (what the event loop's task would do with what the coroutine yielded)
                if waiting is None:
                    await asyncio.sleep(0)
                else:
                    await asyncio.wait([waiting])
            except BaseException:  # the sender cancelled: the send is dropped with the connection
                coro.close()
                raise
            try:
                waiting = coro.send(None)  # (the future's outcome is read inside, as under a task)
            except StopIteration:
                return


class _Failed:
    """A send begun at once that failed (the client gone): the sender task ends with its error."""

    __slots__ = ("err",)

    def __init__(self, err: BaseException) -> None:
        self.err = err


@dataclass(eq=False)
class Conn:
    name: str | None
    ws: WebSocket
    queue: asyncio.Queue[Any] = field(default_factory=lambda: asyncio.Queue(maxsize=QUEUE))
    dropped: int = 0
    overflow: bool = False
    history_mark: int = -1  # the host's history_mark when this connection was last sent the history
    # what it asked for (web/frames.py): 0 full states, 1 deltas (``?deltas=1``), 2 split deltas (the
    # public part and its own apart: ``?deltas=2``, the page); ``deltas_asked``
    deltas: int = 0
    kind: str | None = None  # the view kind and change number of the last state frame it was sent
    seq: int = -1
    resynced: int = -1  # the table's change number when it was last answered a ``resync``
    closing: tuple[int, str] | None = None  # closed by the sender once the frames before are sent
    hint: asyncio.Task[None] | None = None  # its hint being worked out (web/hint_asks.py)
    sending: bool = False  # the sender task is in a send: a new frame queues behind it
    late: list[str] = field(default_factory=list)  # pushed past ``AT_ONCE`` in this turn: ``_flush``
    wire: Any = None  # uvicorn's protocol, to write frames to directly (``wire_of``; None: by the ASGI send)

    def __post_init__(self) -> None:
        if self.wire is None:
            self.wire = wire_of(self.ws)

    def _direct(self, text: str) -> bool:
        """``text``'s frame written to the transport at once, where the connection is open and its
        transport takes more (else False: the ASGI send does it, waiting or failing as before). What
        starlette's, uvicorn's and the websockets library's ``send_text`` would write, without their
        layers for every frame; the order of the frames is kept (the transport's writes are in order)."""
        p = self.wire
        if (
            p is None
            or p.close_sent
            or p.disconnected
            or not p.writable.is_set()
            or p.conn.state is not _OPEN
        ):
            return False
        p.transport.write(frame_of(text))
        return True

    def push(self, text: str) -> None:
        """Send ``text`` after every frame pushed before it: at once when nothing is ahead of it, or at
        the next turn of the loop (``_flush``) past ``AT_ONCE`` frames in this one."""
        if self.late:
            self.late.append(text)
            return
        if not self.sending and self.closing is None and self.queue.empty():
            if _at_once():
                self._now(text)
                return
            self.late.append(text)
            t = _turn
            if t.late is None:
                t.late = []
                asyncio.get_running_loop().call_soon(_flush)
            t.late.append(self)
            return
        self._queue(text)

    def _queue(self, text: str) -> None:
        """``text`` for the sender task, behind what it holds (a client that does not read: closed)."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            if not self.overflow:  # a client that does not read: closed (bounded memory); it may reconnect
                self.overflow = True
                asyncio.get_running_loop().create_task(self._close())

    def _now(self, text: str) -> None:
        if self._direct(text):
            return
        coro = self.ws.send_text(text)
        try:
            waiting = coro.send(None)  # (the ASGI send runs to its end unless the transport pauses it)
        except StopIteration:
            return
        except Exception as err:  # noqa: BLE001 (the client gone: the sender ends the connection, as before)
            self.queue.put_nowait(_Failed(err))
            return
        self.queue.put_nowait(_Rest(coro, waiting))  # (the queue was empty: it fits)

    async def send_one(self, item: Any) -> None:
        """The sender task's send of one queued item (a frame's text, or a send begun at once)."""
        if type(item) is str:
            if not self._direct(item):
                await self.ws.send_text(item)
        elif type(item) is _Rest:
            await item.finish()
        else:
            raise item.err

    async def _close(self, code: int = 1008, reason: str = "too many unread messages") -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(code=code, reason=reason[:120])

    def close_after(self, code: int, reason: str) -> None:
        """Close once every frame queued so far is sent (the sender closes at this mark): closed at
        once, the close overtook the last frames (a removed person's notice was never seen). A client
        that does not read is closed at once (a full queue) or after ``CLOSE_WAIT_S``."""
        if self.closing is not None:
            return
        late, self.late = self.late, []
        for text in late:  # (pushed before the close: queued ahead of it)
            self._queue(text)
        self.closing = (code, reason[:120])
        loop = asyncio.get_running_loop()
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            loop.create_task(self._close(code, reason))
            return
        loop.call_later(CLOSE_WAIT_S, lambda: loop.create_task(self._close(code, reason)))


async def sender(conn: Conn) -> None:
    """A connection's queued frames, in order, then the close that ``close_after`` asked for."""
    while True:
        item = await conn.queue.get()
        if item is None:  # ``close_after``: every frame before it sent, now the close
            code, reason = conn.closing or (1000, "")
            await conn.ws.close(code=code, reason=reason)
            return
        conn.sending = True
        await conn.send_one(item)
        conn.sending = False


__all__ = ["CLOSE_WAIT_S", "QUEUE", "Conn", "deltas_asked", "sender"]
