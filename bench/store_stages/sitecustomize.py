"""What the history store adds to a bench_server server, stage by stage (CPU time of each thread).

Loaded by Python at start-up (``sitecustomize``) when this folder is on ``PYTHONPATH``; active only in
the server process of ``bench/bench_server.py`` (``--serve``) and only with ``STORE_STAGES=STEM`` set::

    STORE_STAGES=/tmp/ss BENCH_STAGES=1 PYTHONPATH=bench/store_stages:src \\
        python bench/bench_server.py --tables 100 --rounds 10 --store sqlite --probe off
    python bench/store_stages/report.py /tmp/ss 5216        # the run's actions (its ``actions`` column)

``BENCH_STAGES=1`` makes the bench mark the play's start and end (SIGUSR1, bench/server_stages.py); at
each mark this writes ``STEM.PID.json``: the loop thread's CPU (``time.thread_time``) in

- ``record``: the recorder's handling of a table call (``Recorder._on_call``: the rows, the round's
  snapshot and result, the hand-off ``GroupCommitter.enqueue``, which is also given alone: ``enqueue``);
- with the writer process (``ProcessCommitter``): its ``enqueue`` and ``enqueue_plain`` (the call made
  plain, and marshalled before this branch, inside ``record``), ``flush`` (a loop turn's calls written to the socket) and ``acks`` (the
  acknowledgements read by the loop and the calls' Futures completed: ``_readable``, the wake-ups'
  scheduling with it);
- ``settle``: ``StorePersistence.settle``'s own lines, each resumption (the wait itself not counted),
  with the young collections it starts (also given alone: ``gc_in_settle``; the recorder's, the
  interpreter's by its count, alike: ``gc_in_record``);
- ``wake``/``tick``: the writer's wake-ups of the loop (``Wakeups._wake``) and the keep-awake timer;
- ``gc``: every collection on the loop thread (``gc.callbacks``), whoever started it;

and the CPU of the server's other threads (``pontoon-group-commit``: the writer; ``pontoon-checkpoint``),
read by their CPU clocks (``time.pthread_getcpuclockid``), with the commits and the table calls they
carried (``GroupCommitter.groups``, ``items``): the writer's CPU per commit beside its calls a commit. With the memory store only ``gc`` and the
threads are non-zero. Not a timed test; CPU, so a loaded machine inflates every stage alike.

Two diagnoses, off by default: ``STORE_PROFILE=FILE`` profiles the loop thread between the two marks
(cProfile, ``FILE.PID.prof``: read with ``pstats``); ``STORE_GC_TYPES=1`` adds to the marks the types of
the objects that every young collection on the loop scanned between them (``kinds``, with the count of
those collections: its own CPU falls in no stage).
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Generator
from typing import Any

ACC: dict[str, list[float]] = {}
INSIDE: list[str | None] = [None]  # the stage the loop thread is in now (its collections counted apart)
COMMITTERS: list[Any] = []  # the group commit's writers (their counts of commits and of calls)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    slot = ACC.setdefault(name, [0.0, 0])

    def wrapper(*a: Any, **k: Any) -> Any:
        t0 = time.thread_time()
        outer, INSIDE[0] = INSIDE[0], INSIDE[0] or name
        try:
            return fn(*a, **k)
        finally:
            INSIDE[0] = outer
            slot[0] += time.thread_time() - t0
            slot[1] += 1

    return wrapper


def _threads() -> dict[str, float]:
    """The CPU seconds of the process's named threads (the writer, the checkpointer)."""
    out: dict[str, float] = {}
    for th in threading.enumerate():
        if th.name.startswith("pontoon-") and th.ident is not None:
            try:
                cpu = time.clock_gettime(time.pthread_getcpuclockid(th.ident))
            except OSError:
                continue
            out[th.name] = out.get(th.name, 0.0) + cpu
    return out


def install(stem: str) -> None:
    from pontoon.history import group, recorder
    from pontoon.web import store_persistence, wakeups

    real_init = group.GroupCommitter.__init__

    def init(self: Any, *a: Any, **k: Any) -> None:
        real_init(self, *a, **k)
        COMMITTERS.append(self)

    group.GroupCommitter.__init__ = init  # type: ignore[method-assign]
    recorder.Recorder._on_call = _timed("record", recorder.Recorder._on_call)  # type: ignore[method-assign]
    group.GroupCommitter.enqueue = _timed("enqueue", group.GroupCommitter.enqueue)  # type: ignore[method-assign]
    try:  # the writer process (a tree before it has none): the hand-off, the sends, the acknowledgements
        from pontoon.history import writer_proc

        proc = writer_proc.ProcessCommitter
        proc.enqueue = _timed("enqueue", proc.enqueue)  # type: ignore[method-assign]
        if hasattr(proc, "enqueue_plain"):  # (the recorder's round calls, made plain: ``enqueue`` calls it)
            proc.enqueue_plain = _timed("enqueue", proc.enqueue_plain)  # type: ignore[method-assign]
        proc._flush = _timed("flush", proc._flush)  # type: ignore[method-assign]
        proc._readable = _timed("acks", proc._readable)  # type: ignore[method-assign]
        real_pinit = proc.__init__

        def pinit(self: Any, *a: Any, **k: Any) -> None:
            real_pinit(self, *a, **k)
            COMMITTERS.append(self)

        proc.__init__ = pinit  # type: ignore[method-assign]
    except ImportError:
        pass
    wakeups.Wakeups._wake = _timed("wake", wakeups.Wakeups._wake)  # type: ignore[method-assign]
    wakeups.Wakeups._tick = _timed("tick", wakeups.Wakeups._tick)  # type: ignore[method-assign]
    real_settle = store_persistence.StorePersistence.settle
    sslot, gslot = (ACC.setdefault(k, [0.0, 0]) for k in ("settle", "gc"))
    for k in ("gc_in_record", "gc_in_settle"):
        ACC.setdefault(k, [0.0, 0])
    # STORE_GC_TYPES=1: the types of the objects each young collection on the loop scans (between the marks)
    kinds: dict[str, int] | None = {} if os.environ.get("STORE_GC_TYPES") else None
    counting = [False]

    def step(coro: Any, how: str, value: Any) -> Any:
        t0 = time.thread_time()
        INSIDE[0] = "settle"
        try:
            return coro.send(value) if how == "send" else coro.throw(value)
        finally:
            INSIDE[0] = None
            sslot[0] += time.thread_time() - t0

    def settle(self: Any, table_id: str) -> Generator[Any, Any, None]:
        """``settle`` driven step by step: its CPU at each resumption, not the wait between them."""
        coro = real_settle(self, table_id)
        how, value = "send", None
        while True:
            try:
                waiting = step(coro, how, value)
            except StopIteration:
                sslot[1] += 1
                return
            try:
                value, how = (yield waiting), "send"
            except BaseException as err:  # noqa: BLE001 (a cancellation: passed on to the coroutine)
                value, how = err, "throw"

    store_persistence.StorePersistence.settle = types.coroutine(settle)  # type: ignore[assignment]
    main = threading.main_thread()
    started = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if threading.current_thread() is not main:
            return
        if phase == "start":
            if kinds is not None and info["generation"] == 0 and counting[0]:
                young = gc.get_objects(0)  # (a diagnosis: its own CPU falls in no stage's)
                kinds["(collections)"] = kinds.get("(collections)", 0) + 1
                for o in young:
                    k = type(o).__qualname__
                    kinds[k] = kinds.get(k, 0) + 1
                del young
            started[0] = time.thread_time()
            return
        d = time.thread_time() - started[0]
        gslot[0] += d
        gslot[1] += 1
        if INSIDE[0] is not None:
            gs = ACC.setdefault("gc_in_" + INSIDE[0], [0.0, 0])
            gs[0] += d
            gs[1] += 1

    gc.callbacks.append(on_gc)
    marks: list[dict[str, Any]] = []
    real_signal = signal.signal

    prof: list[Any] = []  # STORE_PROFILE=FILE: the loop thread profiled between the two marks

    def mark() -> None:
        out = os.environ.get("STORE_PROFILE")
        if out and not prof:
            import cProfile

            prof.append(cProfile.Profile())
            prof[0].enable()
        elif out and len(prof) == 1:
            prof[0].disable()
            prof[0].dump_stats(f"{out}.{os.getpid()}.prof")
            prof.append(None)
        snap: dict[str, Any] = {k: list(v) for k, v in ACC.items()}
        if kinds is not None:
            counting[0] = not counting[0]
            snap["kinds"] = dict(sorted(kinds.items(), key=lambda kv: -kv[1])[:40])
        snap["loop"] = time.thread_time()
        snap["threads"] = _threads()
        snap["commits"] = sum(c.groups for c in COMMITTERS)
        snap["calls"] = sum(c.items for c in COMMITTERS)
        marks.append(snap)
        with open(f"{stem}.{os.getpid()}.json", "w") as f:
            json.dump(marks, f)

    def chained(num: Any, handler: Any) -> Any:  # bench/server_stages.py's SIGUSR1 marks ours too
        if num == signal.SIGUSR1 and callable(handler):
            inner = handler

            def both(*a: Any) -> None:
                mark()
                inner(*a)

            return real_signal(num, both)
        return real_signal(num, handler)

    signal.signal = chained  # type: ignore[assignment]


if os.environ.get("STORE_STAGES") and "--serve" in sys.argv:
    install(os.environ["STORE_STAGES"])
