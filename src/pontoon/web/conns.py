"""A table's WebSocket connection on the server (``Conn``) and its sender task (``sender``).

A frame is written at once when nothing is ahead of it (the connection's queue empty and its sender
not in a send) and fewer than ``AT_ONCE`` frames were written at once in this turn of the event loop:
the socket's ``send_text`` is run right there, and it ends there unless the transport's
buffer is full (the client does not read fast enough), in which case the rest of that send is handed to
the sender task and the frames after it queue behind it. Otherwise a frame waits in the queue for the
sender task, which sends them in order. Either way the frames go out in the order they were pushed,
and a close asked by ``close_after`` goes out after every frame pushed before it. Written at once, a
frame no longer waits for its sender task's turn of the event loop (at a thousand tables, 40 to 300 ms
under load: docs/scale.md), and the queue's and the task's wake-up are spared on each frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket

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


_turn = _Turn()


def _reset() -> None:
    _turn.n = 0


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
    deltas: bool = False  # asked for deltas (``?deltas=1``, the page): web/frames.py
    kind: str | None = None  # the view kind and change number of the last state frame it was sent
    seq: int = -1
    resynced: int = -1  # the table's change number when it was last answered a ``resync``
    closing: tuple[int, str] | None = None  # closed by the sender once the frames before are sent
    hint: asyncio.Task[None] | None = None  # its hint being worked out (web/hint_asks.py)
    sending: bool = False  # the sender task is in a send: a new frame queues behind it

    def push(self, text: str) -> None:
        """Send ``text`` after every frame pushed before it: at once when nothing is ahead of it."""
        if not self.sending and self.closing is None and self.queue.empty() and _at_once():
            self._now(text)
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            if not self.overflow:  # a client that does not read: closed (bounded memory); it may reconnect
                self.overflow = True
                asyncio.get_running_loop().create_task(self._close())

    def _now(self, text: str) -> None:
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


__all__ = ["CLOSE_WAIT_S", "QUEUE", "Conn", "sender"]
