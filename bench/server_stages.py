"""The server's CPU per action by stage (``BENCH_STAGES=FILE python bench/bench_server.py ...``).

Wraps, in the server process, the stages of one action end to end and adds up the CPU time
(``time.thread_time``: the event loop's thread, a wait for a core not counted) spent in each:

- ``parse``: the message parsed and validated (``parse_client``: a text seen before is looked up;
  a tree before it, ``CLIENT_MESSAGE.validate_json``);
- ``handle``: the host's handling (the engine's step, the records: ``HostedTable.handle``);
- ``frames``: the change's frames (each view kind's state, the delta, the text: ``frames.broadcast``),
  the sends at once inside it (``Conn._now``) taken out;
- ``send``: the WebSocket sends (``Conn._now`` at once, ``Conn.send_one`` by the sender task: starlette,
  uvicorn's protocol, the transport's write);
- ``pace``: the paced young collections (``GcPacer.pace``);
- ``recv``: uvicorn's WebSocket protocol given the socket's bytes (``data_received``: the frames
  parsed, unmasked and queued for the app; the read itself is the event loop's, in ``rest``);
- ``rest``: everything else of the thread's CPU (the event loop: its ``epoll`` and reads, the tasks'
  wake-ups, the ASGI chain's ``receive``, the sender tasks' queues, the timer tick, the young
  collections the interpreter starts by itself, ``_one_message``'s own lines).

Told apart too, not a stage (it falls inside the others): every collection of the collector, paced or
started by the interpreter (``gc.callbacks``, start to stop), its CPU per action and its count.

Counted too: the broadcasts asked for (``Server.broadcast`` and ``broadcast_soon``), those made
(``frames.broadcast``) and of those the ones of a table already broadcast in the same turn of the event
loop (one broadcast per table per turn: web/coalesce.py; before it, about one a round at 100 tables).

Written as JSON to FILE at each SIGUSR1 (the bench sends one as its play starts and one as it ends):
each stage's seconds and calls and the thread's CPU at each mark, so that the set-up is left out. Not a timed test.
"""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import time
from typing import Any


def counted(slot: list[Any], fn: Any) -> Any:
    def wrapper(*a: Any, **k: Any) -> Any:
        slot[1] += 1
        return fn(*a, **k)

    return wrapper


def install(path: str) -> None:
    from pontoon.web import app, conns, frames, transport
    from pontoon.web.hosting import HostedTable

    acc: dict[str, list[float]] = {}
    inner = [0.0]  # CPU of the sends made at once inside the frames (taken out of ``frames``)

    def timed(name: str, fn: Any, nested: bool = False) -> Any:
        slot = acc.setdefault(name, [0.0, 0])

        def wrapper(*a: Any, **k: Any) -> Any:
            t0 = time.thread_time()
            try:
                return fn(*a, **k)
            finally:
                dt = time.thread_time() - t0
                slot[0] += dt
                slot[1] += 1
                if nested:
                    inner[0] += dt

        return wrapper

    class Parser:
        def __init__(self, real: Any) -> None:
            self.validate_json = timed("parse", real.validate_json)

    if hasattr(app, "parse_client"):  # (each text parsed once: the memo's look-up and its misses)
        app.parse_client = timed("parse", app.parse_client)
    else:  # (a tree before it)
        app.CLIENT_MESSAGE = Parser(app.CLIENT_MESSAGE)  # type: ignore[assignment]
    for cls in HostedTable.__subclasses__():
        if "handle" in cls.__dict__:
            cls.handle = timed("handle", cls.__dict__["handle"])  # type: ignore[method-assign]
    real_bc = frames.broadcast
    fslot = acc.setdefault("frames", [0.0, 0])

    turn: set[str] = set()  # the tables broadcast in this turn of the loop (cleared at the next)
    again = acc.setdefault("again", [0.0, 0])  # (calls: broadcasts of a table already sent in its turn)

    def broadcast(*a: Any, **k: Any) -> Any:
        if not turn:
            asyncio.get_running_loop().call_soon(turn.clear)
        tid = a[0].id
        if tid in turn:
            again[1] += 1
        turn.add(tid)
        t0, i0 = time.thread_time(), inner[0]
        try:
            return real_bc(*a, **k)
        finally:
            fslot[0] += time.thread_time() - t0 - (inner[0] - i0)
            fslot[1] += 1

    frames.broadcast = broadcast
    asked = acc.setdefault("asked", [0.0, 0])  # (calls: broadcasts asked for; without ``broadcast_soon``
    for meth in ("broadcast", "broadcast_soon"):  # each one asked is made at once)
        if meth in app.Server.__dict__:
            setattr(app.Server, meth, counted(asked, app.Server.__dict__[meth]))
    conns.Conn._now = timed("send", conns.Conn._now, nested=True)  # type: ignore[method-assign]
    task_slot = acc.setdefault("send_task", [0.0, 0])  # (its calls only: the frames the sender tasks sent)
    real_one = conns.Conn.send_one
    sslot = acc["send"]

    async def send_one(self: Any, item: Any) -> None:  # (a coroutine: its CPU per resumption)
        t0 = time.thread_time()
        coro = real_one(self, item)
        try:
            waiting = coro.send(None)
        except StopIteration:
            sslot[0] += time.thread_time() - t0
            task_slot[1] += 1
            return
        sslot[0] += time.thread_time() - t0
        task_slot[1] += 1
        await conns._Rest(coro, waiting).finish()  # (a paused transport: the rest is not counted)

    conns.Conn.send_one = send_one  # type: ignore[method-assign]
    try:  # uvicorn's WebSocket protocol (pontoon serve's ``ws``): the bytes read, parsed into frames
        from uvicorn.protocols.websockets import websockets_sansio_impl as ws_impl

        proto = ws_impl.WebSocketsSansIOProtocol
        proto.data_received = timed("recv", proto.data_received)  # type: ignore[method-assign]
    except ImportError:  # (another uvicorn: not split out, left in ``rest``)
        pass
    pacer = transport.GcPacer
    pacer.pace = timed("pace", pacer.pace)  # type: ignore[method-assign]
    gc_slot = [0.0, 0, 0.0]  # every collection's CPU (paced or started by the interpreter), count, start

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gc_slot[2] = time.thread_time()
        elif phase == "stop":
            gc_slot[0] += time.thread_time() - gc_slot[2]
            gc_slot[1] += 1

    gc.callbacks.insert(0, on_gc)
    marks: list[dict[str, Any]] = []

    def mark(*_: Any) -> None:  # SIGUSR1 from the bench: the play begins, then ends
        snap: dict[str, Any] = {k: {"s": v[0], "calls": v[1]} for k, v in acc.items()}
        snap["gc"] = {"s": gc_slot[0], "calls": gc_slot[1]}
        snap["thread"] = time.thread_time()
        marks.append(snap)
        with open(path, "w") as f:  # (at each mark: uvicorn ends the process by SIGTERM, no atexit)
            json.dump(marks, f)

    signal.signal(signal.SIGUSR1, mark)


def report(paths: list[str], actions: int) -> None:
    """One line: each stage's CPU microseconds per action between the bench's two marks, summed over
    the servers' files (``--servers``)."""
    total = 0.0
    parts: dict[str, float] = {}
    calls: dict[str, int] = {}
    for path in paths:
        try:
            with open(path) as f:
                marks = json.load(f)
        except OSError:
            marks = []
        if len(marks) < 2:
            print(f"  stages: {len(marks)} marks in {path}, two expected")
            return
        a, b = marks[0], marks[-1]
        total += b["thread"] - a["thread"]
        for k in b:
            if k != "thread":  # (``gc`` overlaps the stages: told apart, not summed)
                parts[k] = parts.get(k, 0.0) + b[k]["s"] - a[k]["s"]
                calls[k] = calls.get(k, 0) + b[k]["calls"] - a[k]["calls"]
    gc_s = parts.pop("gc", 0.0)
    for k in ("asked", "again"):  # (counts, not CPU)
        parts.pop(k, None)
    parts["rest"] = total - sum(parts.values())
    us = {k: 1e6 * v / max(1, actions) for k, v in parts.items()}
    order = ["recv", "parse", "handle", "frames", "send", "pace", "rest"]
    line = ", ".join(f"{k} {us.get(k, 0.0):.0f}" for k in order)
    print(
        f"  server loop thread CPU us per action: {1e6 * total / max(1, actions):.0f} = {line}; "
        f"frames sent at once {calls.get('send', 0)}, by the sender tasks {calls.get('send_task', 0)}; "
        f"of it every collection (paced or not, inside the stages) {1e6 * gc_s / max(1, actions):.0f} "
        f"({calls.get('gc', 0)} collections)"
    )
    print(
        f"  broadcasts {calls.get('frames', 0)} for {calls.get('asked', 0)} asked; a table's second or later "
        f"in one turn of the loop {calls.get('again', 0)}"
    )
