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

``PROBE_TRACEMALLOC=S`` (seconds): the server's allocations traced (``tracemalloc``, 6 frames deep; it
slows the server: a run for the memory's growth only, not for its times): a snapshot every S seconds,
and at the exit what grew most between the first snapshot taken after ``PROBE_TRACEMALLOC_FROM`` seconds
(30 by default: the set-up and the first rounds past) and the last, by traceback (``growth``).

Written as JSON to FILE when the server stops (SIGTERM).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import json
import os
import signal
import sys
import threading
import time
import traceback
import tracemalloc
from array import array
from collections import Counter
from typing import Any

TICK = 0.005
STALL = 0.05


class Rows:
    """The probe's rows of ``n`` numbers each, kept flat in an array of doubles: 8 bytes a number, where a
    tuple of floats in a list took about 110 bytes a row of two. At 1,000 human-paced tables the rows
    of a 6-minute run (every message's handling, commit wait and frames sent) took some 250 MB of the
    server's RSS as tuples, and the RSS curve was mostly the probe's (docs/scale.md, 2026-11-28 11:00).
    Read back as lists of floats (``tolist``: the JSON written at the exit, as before)."""

    __slots__ = ("a", "n")

    def __init__(self, n: int) -> None:
        self.n = n
        self.a = array("d")

    def append(self, row: tuple[Any, ...]) -> None:
        self.a.extend(row)  # (one C call: atomic under the GIL, the threads may append at once)

    def __len__(self) -> int:
        return len(self.a) // self.n

    def tolist(self) -> list[list[float]]:
        flat, n = self.a.tolist(), self.n
        return [flat[i : i + n] for i in range(0, len(flat) - n + 1, n)]

    def nbytes(self) -> int:
        return self.a.buffer_info()[1] * self.a.itemsize


class Probe:
    def __init__(self) -> None:
        self.gcs = Rows(5)  # (at, generation, ms, CPU ms, objects collected); at: time.time()
        self.lag = Rows(2)  # (at, ms late)
        self.handle = Rows(2)  # (at, ms) per message
        self.send = Rows(2)  # (at, ms from queued to sent)
        self.settle = Rows(2)  # (at, ms) waiting for the table's commit (``Server.settled``)
        self.ticks = Rows(2)  # (at, ms) per timer tick
        self.stalls: list[tuple[float, str]] = []
        self.commits = Rows(13)  # one per group commit (``_install_commits``)
        # (at, ms: the wait, taken - called, the commit, after it, the wake-up's lateness, resumed - woken,
        # calls in that commit) of each wait of a table call for its commit (``StorePersistence.settle``)
        self.waits = Rows(8)
        self.checkpointer: Any = None
        self.finishes = Rows(2)  # (at, ms) the idle writer's end of a checkpoint
        self.passes = Rows(4)  # (at, ms, WAL frames, copied) per checkpoint pass
        self.wakes = Rows(2)  # (at, ms) the writer's wake-up of the loop: how late it ran
        self.collected = 0
        self.toggles: list[tuple[float, bool]] = []  # PROBE_CHECKPOINTER_AB: (at, the checkpointer on after)
        self.ckpt_stores: list[Any] = []
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
        self._install_commits()
        if os.environ.get("PROBE_NO_CHECKPOINTER"):  # (the SQLite store without history/checkpoints.py)
            from pontoon.history import checkpoints

            for cp in list(checkpoints._RUNNING.values()):
                cp.close()
        if os.environ.get("PROBE_CHECKPOINTER_AB"):  # (bench_human.py --checkpointer-ab: SIGUSR1 toggles it)
            from pontoon.history import checkpoints

            self.ckpt_stores = list(checkpoints._RUNNING.keys())
            signal.signal(signal.SIGUSR1, lambda *_: threading.Thread(target=self._toggle).start())
        threading.Thread(target=self._watch, daemon=True).start()
        if os.environ.get("PROBE_TRACEMALLOC"):
            tracemalloc.start(6)
            threading.Thread(target=self._trace, daemon=True).start()

    def _trace(self) -> None:
        """(PROBE_TRACEMALLOC: the module's text.) The first snapshot after the warm-up and the latest,
        with the traced memory and the RSS at each snapshot (``traced``)."""
        every = float(os.environ["PROBE_TRACEMALLOC"])
        warm = float(os.environ.get("PROBE_TRACEMALLOC_FROM", "30"))
        self.traced: list[tuple[float, float, float]] = []  # (s since start, traced MB, RSS MB)
        self.snaps: list[Any] = []
        while True:
            time.sleep(every)
            snap = tracemalloc.take_snapshot()
            at = time.perf_counter() - self.t0
            with open("/proc/self/statm") as f:
                rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
            self.traced.append((at, tracemalloc.get_traced_memory()[0] / 2**20, rss))
            if at >= warm:
                self.snaps = [self.snaps[0] if self.snaps else snap, snap]

    def growth(self, top: int = 25) -> list[str]:
        """What grew most between the first snapshot after the warm-up and the last (PROBE_TRACEMALLOC)."""
        snaps = getattr(self, "snaps", [])
        if len(snaps) < 2:
            return []
        stats = snaps[1].compare_to(snaps[0], "traceback")
        out = []
        for st in stats[:top]:
            frames = " < ".join(
                f"{fr.filename.rsplit('/', 2)[-1]}:{fr.lineno}" for fr in reversed(st.traceback)
            )
            out.append(
                f"{st.size_diff / 2**20:+.2f} MB ({st.count_diff:+,} blocks, now {st.size / 2**20:.2f} MB): {frames}"
            )
        return out

    def _toggle(self) -> None:
        """(SIGUSR1, PROBE_CHECKPOINTER_AB.) The store's checkpointer (history/checkpoints.py) closed if it
        runs, else started again; noted in ``toggles`` (time.time(), running after)."""
        from pontoon.history import checkpoints

        for store in self.ckpt_stores:
            cp = checkpoints._RUNNING.get(store)
            if cp is not None and cp.thread.is_alive() and not cp.stop.is_set():
                cp.close()
                self.toggles.append((time.time(), False))
            else:
                checkpoints.start_checkpointer(store)
                self.toggles.append((time.time(), True))

    def _install_commits(self) -> None:
        """Every commit of the group-commit writer (history/group.py) time-stamped at its stages
        (``commits``), ``time.perf_counter`` for both threads: the oldest call's wait from its queueing
        to the writer taking it (and whether the writer was idle then: a hand-off, else a wait behind
        the commit in flight), BEGIN, the writer's Python, ``batchsql.run``, COMMIT (its wall time and the
        writer thread's CPU in it: the rest is the fsync and the GIL taken back) and whether a WAL
        checkpoint ran in it (the WAL left at 1,000 frames or more: SQLite's automatic checkpoint), the futures completed;
        and the event loop's lateness to run the wake-up the writer scheduled (``wakes``)."""
        from pontoon.history import batchsql, group
        from pontoon.history import store as store_mod
        from pontoon.web import wakeups

        probe = self
        queued: collections.deque[tuple[float, bool]] = collections.deque()
        st: dict[str, float] = {}
        depth = [0]
        gc_cls = group.GroupCommitter

        def stamp(orig: Any) -> Any:
            def queue(self: Any, *a: Any, **k: Any) -> Any:
                queued.append((time.perf_counter(), bool(self.idle)))
                return orig(self, *a, **k)

            return queue

        for name in ("enqueue", "submit", "write"):
            setattr(gc_cls, name, stamp(getattr(gc_cls, name)))
        commit, run, transaction = gc_cls._commit, batchsql.run, store_mod.transaction

        def timed_commit(self: Any, grp: Any) -> None:
            depth[0] += 1
            top = depth[0] == 1
            t0, c0 = time.perf_counter(), time.thread_time()
            if top:
                st.clear()
            try:
                commit(self, grp)
            finally:
                depth[0] -= 1
            if not top:
                return
            t1 = time.perf_counter()
            for item in grp:  # (the server's calls: ``StorePersistence.settle`` reads it)
                fut = getattr(item[2], "future", item[2])
                with contextlib.suppress(AttributeError):
                    fut.probe_at = (t0, st.get("committed", t1), t1, len(grp))
            got = [queued.popleft() for _ in range(min(len(grp), len(queued)))]
            if not got or "committed" not in st:
                return
            ms = 1000.0
            probe.commits.append(
                (
                    time.time(),
                    len(grp),
                    (t0 - got[0][0]) * ms,
                    got[0][1],
                    (st["begun"] - t0) * ms,
                    (st["exit0"] - st["begun"] - (st["run1"] - st["run0"])) * ms,
                    (st["run1"] - st["run0"]) * ms,
                    (st["committed"] - st["exit0"]) * ms,
                    st["commit_cpu"] * ms,
                    st["ckpt"],
                    (t1 - st["committed"]) * ms,
                    (time.thread_time() - c0) * ms,
                    (t1 - got[0][0]) * ms,
                )
            )

        def timed_run(*a: Any) -> int:
            st["run0"] = time.perf_counter()
            try:
                return run(*a)
            finally:
                st["run1"] = time.perf_counter()

        def wal_frames(conn: Any) -> int:
            """The WAL's length in frames (``mxFrame`` of the wal-index header in the -shm file: one
            read): after a COMMIT, 1,000 or more means that COMMIT ran SQLite's automatic checkpoint."""
            path = conn.engine.url.database if conn is not None and conn.dialect.name == "sqlite" else None
            try:
                with open(f"{path}-shm", "rb") as f:
                    return int.from_bytes(f.read(20)[16:20], sys.byteorder)
            except (OSError, TypeError):
                return 0

        @contextlib.contextmanager
        def timed_transaction(engine: Any, held: Any, fenced: bool) -> Any:
            with transaction(engine, held, fenced) as conn:
                st["begun"] = time.perf_counter()
                yield conn
                st["exit0"], c0 = time.perf_counter(), time.thread_time()
            st["committed"] = time.perf_counter()
            st["commit_cpu"] = time.thread_time() - c0
            st["ckpt"] = wal_frames(held) >= 1000  # (``wal_autocheckpoint``'s default)

        gc_cls._commit = timed_commit  # type: ignore[method-assign]
        batchsql.run = timed_run
        store_mod.transaction = timed_transaction  # type: ignore[assignment]
        fired, wake = wakeups.Wakeups._fired, wakeups.Wakeups._wake
        at: dict[Any, float] = {}
        woke = [0.0]  # when a ``_wake`` last ran
        from pontoon.web.store_persistence import StorePersistence

        settle = StorePersistence.settle

        async def timed_settle(self: Any, table_id: str) -> None:
            rec = self.recorders.get(table_id)
            fut = None if rec is None else self.group.pending(rec.table_id)
            t0 = time.perf_counter()
            await settle(self, table_id)
            t1 = time.perf_counter()
            p = getattr(fut, "probe_at", None)
            if p is None:
                return
            taken, committed, done, n = p
            w = woke[0] if woke[0] >= done else t1
            ms = 1000.0
            probe.waits.append(
                (
                    time.time(),
                    (t1 - t0) * ms,
                    (taken - t0) * ms,
                    (committed - taken) * ms,
                    (done - committed) * ms,
                    (w - done) * ms,
                    (t1 - w) * ms,
                    n,
                )
            )

        StorePersistence.settle = timed_settle  # type: ignore[method-assign]
        try:  # (history/checkpoints.py: an older tree has none)
            from pontoon.history import checkpoints
        except ImportError:
            return
        once = checkpoints.Checkpointer.run_once

        def timed_once(self: Any) -> tuple[int, int, int]:
            probe.checkpointer = self
            t = time.perf_counter()
            got = once(self)
            probe.passes.append((time.time(), (time.perf_counter() - t) * 1000, got[1], got[2]))
            return got

        checkpoints.Checkpointer.run_once = timed_once  # type: ignore[method-assign]
        finish = checkpoints.Checkpointer.finish

        def timed_finish(self: Any, conn: Any) -> None:
            if not self.finish_wanted:
                return
            t = time.perf_counter()
            finish(self, conn)
            probe.finishes.append((time.time(), (time.perf_counter() - t) * 1000))

        checkpoints.Checkpointer.finish = timed_finish  # type: ignore[method-assign]

        def timed_fired(self: Any, fut: Any) -> None:
            t = time.perf_counter()
            with self.lock:
                # (a waiter, or an older tree's (loop, waiter) pair)
                got = self.watching.get(fut, ())
                loops = {w[0] if isinstance(w, tuple) else w.get_loop() for w in got} - set(self.ready)
            for lp in loops:
                at.setdefault(lp, t)
            fired(self, fut)

        def timed_wake(self: Any, loop: Any) -> None:
            woke[0] = time.perf_counter()
            t = at.pop(loop, None)
            if t is not None:
                probe.wakes.append((time.time(), (time.perf_counter() - t) * 1000))
            wake(self, loop)

        wakeups.Wakeups._fired = timed_fired  # type: ignore[method-assign]
        wakeups.Wakeups._wake = timed_wake  # type: ignore[method-assign]

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
                    "gcs": self.gcs.tolist(),
                    "lag": self.lag.tolist(),
                    "handle": self.handle.tolist(),
                    "send": self.send.tolist(),
                    "settle": self.settle.tolist(),
                    "cpu": time.process_time(),
                    "ticks": self.ticks.tolist(),
                    "stalls": self.stalls,
                    "objects": [self.objects0, n, gc.get_freeze_count()],
                    "full_ms": full,
                    "collected": self.collected,
                    "census": self.census,
                    "commits": self.commits.tolist(),
                    "wakes": self.wakes.tolist(),
                    "waits": self.waits.tolist(),
                    "passes": self.passes.tolist(),
                    "finishes": self.finishes.tolist(),
                    "growth": self.growth(),
                    "toggles": self.toggles,
                    "rows_mb": sum(r.nbytes() for r in vars(self).values() if isinstance(r, Rows)) / 2**20,
                    "traced": getattr(self, "traced", []),
                    "stall_ms": STALL * 1000,
                    "checkpoint_cpu": [
                        getattr(self.checkpointer, "cpu", 0.0),
                        getattr(self.checkpointer, "finish_cpu", 0.0),
                    ],
                },
                f,
            )


from probe_report import COMMIT_COLS, WAIT_COLS, report_commits, report_probe, report_waits  # noqa: E402

__all__ = [
    "COMMIT_COLS",
    "STALL",
    "TICK",
    "WAIT_COLS",
    "Probe",
    "Rows",
    "report_commits",
    "report_probe",
    "report_waits",
]
