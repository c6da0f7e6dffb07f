"""A connection's frames (web/conns.py): written at once when nothing is ahead of them (past ``AT_ONCE``
in a turn, at the next turn), else queued for the connection's sender task, and in either case received in the order they were pushed, the close that
``close_after`` asks for after the last of them. Through a real uvicorn server on loopback, with a client
that stops reading (its socket's receive buffer small, its library's queue of one message), so that the
server's transport pauses and a send begun at once has to be finished by the sender task."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from pontoon.web.conns import AT_ONCE, Conn
from tests.web.conftest import FAST, LiveServer, bearer


@pytest.fixture
def live() -> Any:
    srv = LiveServer(FAST)
    yield srv
    srv.stop()


def _on_loop(live: LiveServer, fn: Callable[[], Any]) -> Any:
    """``fn()`` (a coroutine function) run on the server's event loop; its result."""
    loop = live.server.servers[0].get_loop()
    return asyncio.run_coroutine_threadsafe(fn(), loop).result(10)


def _slow_reader(live: LiveServer, tid: str, token: str) -> Any:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", live.port))
    return connect(  # (entered as conftest's ``LiveServer.ws`` does)
        f"ws://127.0.0.1:{live.port}/ws/tables/{tid}",
        sock=sock,
        max_size=2**22,
        max_queue=1,  # the library stops reading the socket once one message waits
        additional_headers=bearer(token),
        open_timeout=10,
    ).__enter__()


def _conn_of(live: LiveServer, tid: str, name: str) -> Conn:
    return next(c for c in live.srv.conns[tid] if c.name == name)


def test_frames_arrive_in_order_through_a_paused_transport_then_the_close(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=2)
    ann = live.account("ann")
    ws = _slow_reader(live, tid, live.join(tid, ann, box=1))
    assert json.loads(ws.recv(timeout=10))["type"] == "state"
    time.sleep(0.2)  # (no frame of the table's own in flight: the frames below are the only ones)
    conn = _conn_of(live, tid, "ann")
    pad = "x" * 60_000
    n = 120

    async def push_all() -> tuple[int, int]:
        at_once = 0
        for i in range(n):
            before = conn.queue.qsize()
            conn.push(json.dumps({"type": "test", "i": i, "pad": pad}))
            at_once += conn.queue.qsize() == before
            if i % 4 == 3:
                await asyncio.sleep(0)  # the next turn of the loop (four frames a turn: within AT_ONCE)
        conn.close_after(4410, "the test's close")
        return at_once, conn.queue.qsize()

    at_once, queued = _on_loop(live, push_all)
    assert at_once >= 1  # the first frames written at once
    assert queued >= 2  # the transport paused: a send handed to the sender task, the rest behind it
    got = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            got.append(json.loads(ws.recv(timeout=10))["i"])
    assert got == list(range(n))  # every frame, in order, and only then the close
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4410


def test_after_a_pause_the_next_frame_is_written_at_once_again(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=2)
    ann = live.account("ann")
    ws = _slow_reader(live, tid, live.join(tid, ann, box=1))
    assert json.loads(ws.recv(timeout=10))["type"] == "state"
    time.sleep(0.2)
    conn = _conn_of(live, tid, "ann")
    pad = "y" * 60_000

    async def push(k: int) -> int:
        for i in range(k):
            conn.push(json.dumps({"type": "test", "i": i, "pad": pad}))
            await asyncio.sleep(0)
        return conn.queue.qsize()

    async def state() -> tuple[bool, int]:
        return conn.sending, conn.queue.qsize()

    assert _on_loop(live, lambda: push(60)) >= 2
    for i in range(60):
        assert json.loads(ws.recv(timeout=10))["i"] == i
    time.sleep(0.2)  # the sender has caught up
    assert _on_loop(live, state) == (False, 0)
    assert _on_loop(live, lambda: push(1)) == 0  # nothing ahead of it: written at once
    assert json.loads(ws.recv(timeout=10))["i"] == 0
    ws.close()


def test_past_at_once_frames_in_one_turn_go_at_the_next_and_keep_their_order(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=2)
    ann = live.account("ann")
    ws = live.ws(tid, live.join(tid, ann, box=1))
    ws.until(lambda m: m.get("type") == "state")
    time.sleep(0.2)
    conn = _conn_of(live, tid, "ann")
    n = AT_ONCE * 3

    async def one_turn() -> tuple[int, int]:
        for i in range(n):  # (small frames: the transport never pauses)
            conn.push(json.dumps({"type": "test", "i": i}))
        return len(conn.late), conn.queue.qsize()

    # the first AT_ONCE at once, the rest at the next turn (``_flush``), none through the sender's queue
    assert _on_loop(live, one_turn) == (n - AT_ONCE, 0)
    assert [ws.recv()["i"] for _ in range(n)] == list(range(n))

    async def next_turn() -> int:
        await asyncio.sleep(0.05)  # (the sender has sent them: a later turn, nothing ahead)
        conn.push(json.dumps({"type": "test", "i": n}))
        return conn.queue.qsize()

    assert _on_loop(live, next_turn) == 0
    assert ws.recv()["i"] == n


def test_a_close_asked_in_the_turn_of_late_frames_comes_after_them(live: LiveServer) -> None:
    """Frames pushed past ``AT_ONCE`` and a ``close_after`` in the same turn: the frames waiting for the
    next turn are queued ahead of the close, so every one arrives, in order, and then the close."""
    tid = live.table(preset="mbs", seed=2)
    ws = live.ws(tid, live.join(tid, live.account("ann"), box=1))
    ws.until(lambda m: m.get("type") == "state")
    time.sleep(0.2)
    conn = _conn_of(live, tid, "ann")
    n = AT_ONCE * 2

    async def one_turn() -> int:
        for i in range(n):
            conn.push(json.dumps({"type": "test", "i": i}))
        late = len(conn.late)
        conn.close_after(4410, "the test's close")
        conn.push(json.dumps({"type": "test", "i": n}))  # (after the close was asked: queued behind it)
        return late

    assert _on_loop(live, one_turn) == n - AT_ONCE
    got = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            got.append(json.loads(ws.conn.recv(timeout=10))["i"])
    assert got == list(range(n))
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4410
