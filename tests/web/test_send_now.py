"""A frame is written at once when nothing is queued before it (web/app.py ``Conn.push``): no wake-up of
a sender task and no turn of the event loop between a change and its frames. When the transport asks to
stop writing (a client that reads slowly: its buffer past the high-water mark), the write that had to
wait is finished by a task and the frames after it queue behind it, in order, none lost. Through a real
server on loopback: the transport's pause is the one uvicorn's protocol gets (``pause_writing``), called
on the server's loop for one spectator's connection while a player plays on."""

from __future__ import annotations

import json
import time
from typing import Any

from websockets.sync.client import connect

from tests.web.conftest import LiveServer
from tests.web.test_casino_ws import play_round


def _protocol_of(live: LiveServer, local_port: int) -> Any:
    """The server's WebSocket protocol object of the client socket at ``local_port``."""
    for p in list(live.server.server_state.connections):
        if getattr(p, "client", None) and p.client[1] == local_port and hasattr(p, "writable"):
            return p
    raise AssertionError("no server-side protocol for that client")


def _until(pred: Any, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "not reached in time"
        time.sleep(0.02)


def test_frames_go_out_at_once_and_in_order_behind_a_paused_write(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=11)
    ann, bob = live.account("ann"), live.account("bob")
    ca, cb = live.ws(tid, live.join(tid, ann, box=1)), live.ws(tid, live.join(tid, bob, box=2))
    ca.wait_state(lambda m: True)
    cb.wait_state(lambda m: True)
    watcher = connect(f"ws://127.0.0.1:{live.port}/ws/tables/{tid}?deltas=1", open_timeout=10).__enter__()
    first = json.loads(watcher.recv(timeout=10))
    assert first["type"] == "state"
    conn = next(c for c in live.srv.conns[tid] if c.name is None)
    play_round([ca, cb])  # written at once: nothing ever waited in the queue or in a finishing task
    assert conn.finishing is None and conn.queue.qsize() == 0
    proto = _protocol_of(live, watcher.socket.getsockname()[1])
    loop = proto.loop
    loop.call_soon_threadsafe(proto.pause_writing)  # the transport: "stop writing" (buffer full)
    _until(lambda: not proto.writable.is_set())
    for _ in range(2):
        play_round([ca, cb])
    _until(lambda: conn.finishing is not None and conn.queue.qsize() > 0)
    assert not conn.finishing.done()  # the first frame's write waits; the others queued behind it
    loop.call_soon_threadsafe(proto.resume_writing)
    seq, got = first["seq"], 0
    final = ca.state["version"]
    while True:  # every delta applies to the one before it: in order, none lost
        msg = json.loads(watcher.recv(timeout=10))
        if msg.get("type") != "delta":
            continue
        assert msg["base"] == seq, (msg["base"], seq)
        seq, got = msg["seq"], got + 1
        versions = [op[1] for op in msg["ops"] if op[0] == ["version"]]
        if versions and versions[-1] == final:
            break
    assert got >= 6  # (three rounds of changes)
    _until(lambda: conn.finishing.done() and conn.queue.qsize() == 0 and not conn.busy)
    ca.send({"type": "ping"})
    assert ca.until(lambda m: m.get("type") == "pong")
    watcher.close()
    ca.close()
    cb.close()
