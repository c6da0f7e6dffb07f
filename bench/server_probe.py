"""Where a server's latency goes (``bench_server.py --serve ... --probe FILE``, used by the benches):

- the event loop's lateness: a task that sleeps ``TICK`` s and records how late it wakes (a loop held
  by one long callback, a collection, or a run queue shows here);
- every garbage collection's generation and duration (``gc.callbacks``);
- a watchdog thread that, when the loop has not turned for ``STALL`` s, samples the loop thread's
  stack (what holds it: ``sys._current_frames``), counted by the innermost frames of the project
  (6 of them; ``PROBE_DEPTH=N`` in the environment for more, e.g. 30 to see the caller);
- the server-side handling time of every message (``app._one_message``: from the message read off
  the socket to its frames queued for the connections, the table's lock and the commit's wait in it),
  the commit's wait alone (``Server.settled``: the group commit of a durable store), and the sending
  (a frame queued until its ``send_text`` returned).

Written as JSON to FILE when the server stops (SIGTERM).
"""

from __future__ import annotations

import asyncio
import collections
import gc
import json
import os
import sys
import threading
import time
import traceback
from collections import Counter
from typing import Any

TICK = 0.005
STALL = 0.05


class Probe:
    def __init__(self) -> None:
        # (at, generation, ms, CPU ms, objects collected); at: time.time()
        self.gcs: list[tuple[float, int, float, float, int]] = []
        self.lag: list[tuple[float, float]] = []  # (at, ms late)
        self.handle: list[tuple[float, float]] = []  # (at, ms) per message
        self.send: list[tuple[float, float]] = []  # (at, ms from queued to sent)
        self.settle: list[
            tuple[float, float]
        ] = []  # (at, ms) waiting for the table's commit (``Server.settled``)
        self.ticks: list[tuple[float, float]] = []  # (at, ms) per timer tick
        self.stalls: list[tuple[float, str]] = []
        self.collected = 0
        self.beat = time.perf_counter()
        self._gc_t0 = self._gc_c0 = 0.0
        # PROBE_GC_CENSUS=1: the types of the objects each collection scans (every collection of
        # generation 1 and 2, every tenth of generation 0; the census is taken before the timing starts)
        self.census_on = os.environ.get("PROBE_GC_CENSUS") == "1"
        self.census: list[tuple[float, int, int, dict[str, int]]] = []  # (at, generation, scanned, top types)
        self._gc_n = 0
        self.t0 = time.perf_counter()
        self.main = threading.get_ident()

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            gen = info["generation"]
            self._gc_n += 1
            if self.census_on and (gen > 0 or self._gc_n % 10 == 0):
                seen: Counter[str] = Counter()
                n = 0
                for g in range(gen + 1):
                    objs = gc.get_objects(generation=g)
                    n += len(objs)
                    seen.update(type(o).__qualname__ for o in objs)
                    del objs
                self.census.append((time.time(), gen, n, dict(seen.most_common(25))))
            self._gc_t0, self._gc_c0 = time.perf_counter(), time.thread_time()
        else:
            now = time.perf_counter()
            cpu = (time.thread_time() - self._gc_c0) * 1000
            gen, got = info["generation"], info["collected"]
            self.gcs.append((time.time(), gen, (now - self._gc_t0) * 1000, cpu, got))
            self.collected += got

    def install(self) -> None:
        self.objects0 = len(gc.get_objects())
        gc.callbacks.append(self._gc)
        from pontoon.web import app as app_mod

        one = app_mod._one_message
        probe = self

        async def timed(*a: Any, **k: Any) -> None:
            t = time.perf_counter()
            try:
                await one(*a, **k)
            finally:
                now = time.perf_counter()
                probe.handle.append((time.time(), (now - t) * 1000))

        app_mod._one_message = timed  # type: ignore[assignment]
        if hasattr(app_mod, "_sender"):  # (an older tree: every frame through the sender task)
            self._install_queued(app_mod)
        else:
            self._install_at_once()
        tick = app_mod.Server.tick

        async def timed_tick(self: Any) -> None:
            t = time.perf_counter()
            await tick(self)
            now = time.perf_counter()
            probe.ticks.append((time.time(), (now - t) * 1000))

        app_mod.Server.tick = timed_tick  # type: ignore[method-assign]
        settled = app_mod.Server.settled

        async def timed_settled(self: Any, host: Any) -> bool:
            t = time.perf_counter()
            try:
                return await settled(self, host)
            finally:
                probe.settle.append((time.time(), (time.perf_counter() - t) * 1000))

        app_mod.Server.settled = timed_settled  # type: ignore[method-assign]
        threading.Thread(target=self._watch, daemon=True).start()

    def _install_queued(self, app_mod: Any) -> None:
        probe = self
        push = app_mod.Conn.push

        def stamped(self: Any, text: str) -> None:
            push(self, text)
            q = getattr(self, "_stamps", None)
            if q is None:
                q = self._stamps = collections.deque()
            q.append(time.perf_counter())

        app_mod.Conn.push = stamped  # type: ignore[method-assign]

        async def sender(conn: Any) -> None:
            while True:
                text = await conn.queue.get()
                await conn.ws.send_text(text)
                q = getattr(conn, "_stamps", None)
                if q:
                    probe.send.append((time.time(), (time.perf_counter() - q.popleft()) * 1000))

        app_mod._sender = sender  # type: ignore[assignment]

    def _install_at_once(self) -> None:
        """web/conns.py: a frame written at once (its time in ``push``) or queued for the sender task
        (from its push to the end of the sender's send of it)."""
        from pontoon.web import conns

        probe = self
        push, send_one = conns.Conn.push, conns.Conn.send_one

        def stamped(self: Any, text: str) -> None:
            t = time.perf_counter()
            n = self.queue.qsize()
            push(self, text)
            if self.queue.qsize() > n:  # queued (or a send begun at once handed to the sender)
                q = getattr(self, "_stamps", None)
                if q is None:
                    q = self._stamps = collections.deque()
                q.append(t)
            else:
                probe.send.append((time.time(), (time.perf_counter() - t) * 1000))

        async def sent(self: Any, item: Any) -> None:
            await send_one(self, item)
            q = getattr(self, "_stamps", None)
            if q:
                probe.send.append((time.time(), (time.perf_counter() - q.popleft()) * 1000))

        conns.Conn.push = stamped  # type: ignore[method-assign]
        conns.Conn.send_one = sent  # type: ignore[method-assign]

    def start_loop(self) -> None:
        async def lagger() -> None:
            while True:
                at = time.perf_counter()
                await asyncio.sleep(TICK)
                now = time.perf_counter()
                self.beat = now
                self.lag.append((time.time(), (now - at - TICK) * 1000))

        asyncio.get_running_loop().create_task(lagger())

    def _watch(self) -> None:
        while True:
            time.sleep(0.01)
            if time.perf_counter() - self.beat > STALL:
                f = sys._current_frames().get(self.main)
                if f is None:
                    continue
                st = traceback.extract_stack(f)
                ours = [x for x in st if "pontoon" in x.filename or "site-packages" in x.filename]
                key = " < ".join(
                    f"{x.filename.rsplit('/', 2)[-1]}:{x.name}"
                    for x in reversed(ours[-int(os.environ.get("PROBE_DEPTH", "6")) :])
                )
                self.stalls.append((time.time(), key or "(no Python frame: the loop itself, or C)"))

    def dump(self, path: str) -> None:
        n = len(gc.get_objects())
        t = time.perf_counter()
        gc.collect()
        full = (time.perf_counter() - t) * 1000
        with open(path, "w") as f:
            json.dump(
                {
                    "gcs": self.gcs,
                    "lag": self.lag,
                    "handle": self.handle,
                    "send": self.send,
                    "settle": self.settle,
                    "cpu": time.process_time(),
                    "ticks": self.ticks,
                    "stalls": self.stalls,
                    "objects": [self.objects0, n, gc.get_freeze_count()],
                    "full_ms": full,
                    "collected": self.collected,
                    "census": self.census,
                },
                f,
            )


def _q(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def report_probe(pr: dict[str, Any], since: float = 0.0, until: float = float("inf")) -> None:
    """What the server measured (bench/server_probe.py) between ``since`` and ``until`` (``time.time()``:
    the play, not the set-up): its handling time per message beside the clients' end-to-end latency,
    the commit's wait, how late its event loop woke, its collections, and what held the loop in the
    stalls."""

    def cut(rows: list[Any]) -> list[Any]:
        return [r for r in rows if since <= r[0] <= until]

    hd = sorted(ms for _, ms in cut(pr["handle"]))
    sd = sorted(ms for _, ms in cut(pr["send"]))
    lag = sorted(ms for _, ms in cut(pr["lag"]))
    print(
        f"server side: handling ms p50 {_q(hd, 0.5):.1f} p99 {_q(hd, 0.99):.1f} max {_q(hd, 1):.1f} "
        f"({len(hd)} messages); queued to sent ms p50 {_q(sd, 0.5):.1f} p99 {_q(sd, 0.99):.1f}; "
        f"event loop late ms p50 {_q(lag, 0.5):.1f} p99 {_q(lag, 0.99):.1f} max {_q(lag, 1):.1f}"
    )
    st = sorted(ms for _, ms in cut(pr.get("settle", [])))
    if st and st[-1] > 0.05:
        print(
            f"  of it waiting for the commit (Server.settled) ms p50 {_q(st, 0.5):.1f} p99 {_q(st, 0.99):.1f} "
            f"max {st[-1]:.1f}, {sum(st):.0f} ms in all ({len(st)} waits)"
        )
    ticks = sorted(ms for _, ms in cut(pr["ticks"]))
    if ticks:  # (wall time of a pass over the tables, the loop let go between slices of them)
        print(
            f"  timer tick pass ms p50 {_q(ticks, 0.5):.1f} p99 {_q(ticks, 0.99):.1f} max {_q(ticks, 1):.1f}"
        )
    gcs = cut(pr["gcs"])
    for gen in (0, 1, 2):
        g = sorted(r[2] for r in gcs if r[1] == gen)
        c = sorted(r[3] for r in gcs if r[1] == gen)
        if g:
            print(
                f"  GC generation {gen}: {len(g)} collections, {sum(g):.0f} ms in all (CPU {sum(c):.0f}), "
                f"p99 {_q(g, 0.99):.1f} max {g[-1]:.1f} ms (CPU p99 {_q(c, 0.99):.1f} max {c[-1]:.1f})"
            )
        k = [r[4] for r in gcs if r[1] == gen and len(r) > 4]
        if g and k:
            print(f"    objects freed per collection: mean {sum(k) / len(k):,.0f}, max {max(k):,}")
    for gen in (0, 1, 2):  # PROBE_GC_CENSUS=1: what the collections scanned, by type
        cs = [c for c in cut(pr.get("census", [])) if c[1] == gen]
        if cs:
            tot: Counter[str] = Counter()
            for c in cs:
                tot.update(c[3])
            top = ", ".join(f"{t} {n / len(cs):,.0f}" for t, n in tot.most_common(12))
            print(
                f"  census, generation {gen} ({len(cs)} collections): scanned mean "
                f"{sum(c[2] for c in cs) / len(cs):,.0f} objects; by type, mean: {top}"
            )
    o0, o1, frozen = pr.get("objects", [0, 0, 0])
    print(
        f"  objects the GC tracks: {o0:,} at start, {o1:,} at the exit besides {frozen:,} frozen (a full "
        f"collection there, freeing the closed server's garbage too, took {pr.get('full_ms', float('nan')):.0f} ms)"
    )
    big = sorted((ms for _, ms in cut(pr["lag"]) if ms > 50), reverse=True)[:8]
    if big:
        print("  longest loop stalls ms: " + ", ".join(f"{m:.0f}" for m in big))
    where = Counter(k for _, k in cut(pr["stalls"]))
    for k, n in where.most_common(5):
        print(f"  loop held ({n} samples of 10 ms in stalls over {STALL * 1000:.0f} ms): {k}")
