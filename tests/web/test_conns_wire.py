"""A state frame written to uvicorn's transport as ready-made bytes (web/conns.py ``Conn._direct``,
``frame_of``): what the ASGI ``send_text`` would write, through a real uvicorn server on loopback and
the ``websockets`` library's client, which checks every frame it reads (RFC 6455: the length's three
forms, unmasked from a server); with per-message compression agreed every frame goes the ASGI way."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from typing import Any

from websockets.sync.client import connect

from pontoon.web.conns import Conn, frame_of
from tests.web.conftest import FAST, LiveServer, bearer


def _on_loop(live: LiveServer, fn: Any) -> Any:
    loop = live.server.servers[0].get_loop()
    return asyncio.run_coroutine_threadsafe(fn(), loop).result(10)


def _conn_of(live: LiveServer, tid: str, name: str) -> Conn:
    return next(c for c in live.srv.conns[tid] if c.name == name)


def test_frame_of_is_the_libraries_frame() -> None:
    from websockets.frames import Frame, Opcode

    for n in (0, 1, 125, 126, 65535, 65536, 70_000):
        text = "é" * (n // 2) + "x" * (n % 2)
        want = Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[])
        assert frame_of(text) == want
        assert frame_of(text) is frame_of(text)  # (one text, many connections: made once)


def test_frames_are_written_directly_and_arrive_whole(make_live: Any) -> None:
    live = make_live(FAST)
    tid = live.table(preset="mbs", seed=2)
    ann = live.account("ann")
    ws = live.ws(tid, live.join(tid, ann, box=1))
    ws.until(lambda m: m.get("type") == "state")
    time.sleep(0.2)
    conn = _conn_of(live, tid, "ann")
    assert conn.wire is not None  # uvicorn's websockets-sansio protocol, nothing agreed: written directly
    sizes = [0, 100, 200, 70_000, 5, 300_000]

    async def push() -> int:
        for i, n in enumerate(sizes):  # (in one turn: the first AT_ONCE at once, none queued here)
            conn.push(json.dumps({"type": "test", "i": i, "pad": "é" * n}))
        return conn.queue.qsize()

    assert _on_loop(live, push) == 0
    got = [ws.until(lambda m: m.get("type") == "test") for _ in sizes]
    assert [(m["i"], len(m["pad"])) for m in got] == list(enumerate(sizes))
    ws.send({"type": "bet", "amount": "10"})  # the table's own frames still come, and the socket works
    ws.wait_state(lambda s: s["phase"] == "play")  # (the one seat's wager: dealt at once)
    ws.close()


def test_with_compression_every_frame_goes_the_asgi_way(make_live: Any) -> None:
    live = make_live(dataclasses.replace(FAST, ws_deflate=True))
    tid = live.table(preset="mbs", seed=2)
    ann = live.account("ann")
    token = live.join(tid, ann, box=1)
    with connect(
        f"ws://127.0.0.1:{live.port}/ws/tables/{tid}", additional_headers=bearer(token), open_timeout=10
    ) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
        assert _conn_of(live, tid, "ann").wire is None  # permessage-deflate agreed: compressed per socket
        ws.send(json.dumps({"type": "bet", "amount": "10"}))
        while True:
            m = json.loads(ws.recv(timeout=10))
            if m.get("type") == "state" and m["phase"] == "play":
                break
