"""History write throughput: durable events per second, one table and many tables at once.

Usage: ``python bench/bench_history.py [ROUNDS] [--tables 1,100] [--driver threads,loop]
[--switch-interval S] [--profile] [--no-pg] [--gc-default]``.

Each table plays ROUNDS rounds of ``mbs`` with two players (the scripted, deterministic policy of
tests/history/driver.py) and every table call waits for its events to be committed (``synchronous=
FULL``: the WAL fsynced at commit; PostgreSQL: fsync on, a throwaway cluster on a unix socket).
- ``1 table, each call its own transaction``: the store without group commit (the old write path);
- ``T tables, group commit``: T tables played by T threads at once on one store with group commit
  (``history/group.py``): the calls of every table that arrive while a commit is being fsynced are
  written together in the next transaction, with multi-row inserts;
Two drivers play the group-commit tables (``--driver``, ``threads`` by default, several by commas):
- ``threads``: one thread per table, each table call waiting for its commit in its thread
  (``Store.append``, a ``Waiter``);
- ``loop``: the server's way (``pontoon serve``): every table on ONE asyncio loop, recorded by the
  server's own ``StorePersistence`` (``Recorder(defer=True)``: a call's batches queued to the same
  group-commit writer thread, the calls queued together sharing one Future: ``GroupCommitter.
  enqueue``), each table awaiting ``StorePersistence.settle`` (its commit) after
  every call before it takes its next action, as the server does before it shows anything.
``--profile``: the loop driver's loop thread CPU split into the table calls (the engine, the
recorder's rows, the hand-off ``submit``) and the awaiting of the commits (``time.thread_time``); with
the loop and paced drivers, the writer thread's CPU split into SQLite's statements, BEGIN/COMMIT (the
GIL released while SQLite and the kernel work) and its Python (the GIL held): ``_writer_timed``.
With ``--profile`` the loop driver also prints the collector's CPU per event by generation.
``--switch-interval S``: ``sys.setswitchinterval(S)`` for the whole run (Python's default: 0.005).
The loop and paced drivers run with ``pontoon serve``'s collector tuning (``web/transport.py``
``tune_gc``: what exists frozen, young collections at 2,500 new objects, survivors frozen), as the
server they stand for does; ``--gc-default`` leaves CPython's collector as it starts (the loop driver's
way before 2026-11-28: its middle and full collections scanned the whole heap, about 10 us an event).
``--driver paced`` (``--seconds S --every S --burn-us N``): the loop driver at a human pace: each table's
next call ``--every`` s after its last commit, ``--burn-us`` of loop CPU per call (the server's frames),
for ``--seconds``: the commit's wait p50/p99, the loop's lateness and the young collections
(``run_paced``), without the web server's sockets (``bench_human.py`` has them).
Beside them ``synchronous=OFF`` and no recording at all (the engine alone), in the same run. The store's
figure is events per second of wall time with every event durable before its table goes on; beside
it the process's CPU per event (user + system, ``os.times``: every thread of this process, not a
PostgreSQL server's), steadier than the wall time when other jobs share the cores.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.history.driver import casino_calls, new_table, play  # noqa: E402

from pontoon.history import open_store  # noqa: E402
from pontoon.history.seal import SealKeyError, history_key  # noqa: E402
from pontoon.history.store import Store  # noqa: E402

PROFILE = "--profile" in sys.argv  # the loop driver's loop thread CPU split by part (``_timed``)
STOP = object()


def _timed(parts: dict[str, float]) -> Callable[[], None]:
    """``--profile``: the loop thread's CPU (``time.thread_time``) in the recorder's handling of a table
    call (``Recorder._on_call``, the hand-off included) and in the hand-off itself
    (``GroupCommitter.enqueue``), added to ``parts``; returns what puts the two methods back."""
    from pontoon.history.group import GroupCommitter
    from pontoon.history.recorder import Recorder

    enqueue, on_call = GroupCommitter.enqueue, Recorder._on_call

    def timed_submit(self: GroupCommitter, *args: Any) -> Any:
        c = time.thread_time()
        out = enqueue(self, *args)
        parts["submit"] += time.thread_time() - c
        return out

    def timed_on_call(self: Recorder, recs: Any) -> None:
        c = time.thread_time()
        on_call(self, recs)
        parts["recorder"] += time.thread_time() - c

    GroupCommitter.enqueue = timed_submit  # type: ignore[method-assign]
    Recorder._on_call = timed_on_call  # type: ignore[method-assign]

    def restore() -> None:
        GroupCommitter.enqueue = enqueue  # type: ignore[method-assign]
        Recorder._on_call = on_call  # type: ignore[method-assign]

    return restore


def _writer_timed(parts: dict[str, float]) -> Callable[[], None]:
    """``--profile``: the group-commit writer's CPU (``time.thread_time``, in its thread) split into its
    commits in all (``GroupCommitter._commit``), the statements (``batchsql.run``: the parameters bound
    with the GIL held, SQLite stepping them without it) and BEGIN and COMMIT (``transaction``'s entry
    and exit: SQLite and the kernel, the WAL's write and fsync, the GIL released); the rest of a commit
    is Python with the GIL held (the rows, their JSON, the hash chain, the seals, the wake-ups).
    Returns what puts the three back."""
    import contextlib

    import pontoon.history.store as store_mod
    from pontoon.history import batchsql
    from pontoon.history.group import GroupCommitter

    commit, run, transaction = GroupCommitter._commit, batchsql.run, store_mod.transaction

    def timed_commit(self: GroupCommitter, group: Any) -> None:
        c = time.thread_time()
        try:
            commit(self, group)
        finally:
            parts["commit"] += time.thread_time() - c

    def timed_run(*args: Any) -> int:
        c = time.thread_time()
        try:
            return run(*args)
        finally:
            parts["statements"] += time.thread_time() - c

    @contextlib.contextmanager
    def timed_transaction(*args: Any) -> Any:
        cm = transaction(*args)
        c = time.thread_time()
        conn = cm.__enter__()
        parts["begin_commit"] += time.thread_time() - c
        try:
            yield conn
        except BaseException:
            if not cm.__exit__(*sys.exc_info()):
                raise
            return
        c = time.thread_time()
        cm.__exit__(None, None, None)
        parts["begin_commit"] += time.thread_time() - c

    GroupCommitter._commit = timed_commit  # type: ignore[method-assign]
    batchsql.run = timed_run
    store_mod.transaction = timed_transaction

    def restore() -> None:
        GroupCommitter._commit = commit  # type: ignore[method-assign]
        batchsql.run = run
        store_mod.transaction = transaction

    return restore


GC_SPENT: dict[int, list[float]] = {}


def _gc_timed() -> Callable[[], None]:
    """``--profile``: each collection's thread CPU by generation (``gc.callbacks``) into ``GC_SPENT``
    (generation -> [collections, seconds]); returns what removes the hook."""
    import gc

    GC_SPENT.clear()
    GC_SPENT.update({0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]})
    started = threading.local()

    def hook(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.at = time.thread_time()
        elif hasattr(started, "at"):
            got = GC_SPENT[info["generation"]]
            got[0] += 1
            got[1] += time.thread_time() - started.at

    gc.callbacks.append(hook)
    return lambda: gc.callbacks.remove(hook)


def _writer_split(parts: dict[str, float], events: int) -> str:
    """The writer's split (``_writer_timed``) per event, as one line."""
    us = {k: v / max(1, events) * 1e6 for k, v in parts.items()}
    free = us["statements"] + us["begin_commit"]
    return (
        f"writer thread CPU per event: {us['commit']:.1f} us = SQLite's statements {us['statements']:.1f} "
        f"(their parameters bound with the GIL held) + BEGIN/COMMIT {us['begin_commit']:.1f} (WAL write, "
        f"fsync: no GIL) + Python {us['commit'] - free:.1f} (the GIL held: rows, JSON, hashes, seals, wake-ups)"
    )


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def thread_cpu(native_id: int | None) -> float:
    """CPU seconds (user + system) of one thread of this process (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def engine_only(rounds: int) -> tuple[int, float, float]:
    from pontoon.casino.table import CasinoTable
    from pontoon.rules import resolve_rules

    t = CasinoTable(resolve_rules("mbs"), rng=1)
    n = [0]
    t.subscribe(lambda _r: n.__setitem__(0, n[0] + 1))
    t.join("ann", 10**6)
    t.join("bob", 10**6)
    c0, t0 = cpu(), time.perf_counter()
    play(t, 1, rounds)
    return n[0], time.perf_counter() - t0, cpu() - c0


def run(store: Store, rounds: int, tables: int) -> tuple[int, float, float, str]:
    """(events, seconds, CPU seconds, groups note) for ``tables`` tables of ``rounds`` rounds, one thread each."""
    made = [new_table(store, "mbs", seed, balance=10**6) for seed in range(1, tables + 1)]
    g0 = (store.group.groups, store.group.items) if store.group else (0, 0)
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            play(made[i][0], i + 1, rounds)
        except BaseException as err:  # noqa: BLE001 (reported below)
            errors.append(err)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(tables)]
    writer = store.group.thread.native_id if store.group else None
    c0, t0, w0 = cpu(), time.perf_counter(), thread_cpu(writer)
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    dt, dc = time.perf_counter() - t0, cpu() - c0
    writer_s = thread_cpu(writer) - w0
    if errors:
        raise errors[0]
    note = ""
    if store.group:
        groups, items = store.group.groups - g0[0], store.group.items - g0[1]
    events = sum(len(store.events_(rec.table_id)) for _t, rec in made)
    if store.group:
        note = f"{items / max(1, groups):.1f} calls/commit; writer {writer_s / events * 1e6:.1f} us/event"
    for _t, rec in made:
        rec.close()
    return events, dt, dc, note


def _attach_tables(sp: Any, tables: int) -> list[tuple[str, Any]]:
    """``tables`` mbs tables (ann and bob seated) attached to the store's ``StorePersistence``, their
    set-up written (the loop and paced drivers' common start)."""
    from pontoon.casino.table import CasinoTable
    from pontoon.rules import resolve_rules

    made: list[tuple[str, Any]] = []
    for seed in range(1, tables + 1):
        t = CasinoTable(resolve_rules("mbs"), rng=seed)
        wid = f"bench-{seed}"
        sp.attach(wid, t, wid)
        t.join("ann", 10**6)
        t.join("bob", 10**6)
        made.append((wid, t))
    sp.group.drain()
    return made


def run_loop(store: Store, rounds: int, tables: int) -> tuple[int, float, float, str]:
    """``run`` with the server's driver: the ``tables`` tables on one asyncio loop, recorded by
    ``StorePersistence`` (group commit, ``Recorder(defer=True)``), each awaiting its commit
    (``settle``) after every table call before its next one."""
    from pontoon.casino.table import CasinoTable
    from pontoon.web.store_persistence import StorePersistence

    parts = {"call": 0.0, "recorder": 0.0, "submit": 0.0}
    restore = _timed(parts) if PROFILE else None  # before the recorders subscribe their method
    wparts = {"commit": 0.0, "statements": 0.0, "begin_commit": 0.0}
    wrestore = _writer_timed(wparts) if PROFILE else None
    sp = StorePersistence(store)
    made = _attach_tables(sp, tables)
    tuned = "--gc-default" not in sys.argv
    if tuned:  # the server's collector (``pontoon serve``: ``tune_gc`` once it has started)
        from pontoon.web.transport import tune_gc

        tune_gc()
    g0 = (sp.group.groups, sp.group.items)
    parts.update(call=0.0, recorder=0.0, submit=0.0)
    wparts.update(commit=0.0, statements=0.0, begin_commit=0.0)

    async def one(seed: int, wid: str, t: CasinoTable) -> None:
        while t.rounds_played < rounds:
            for _ in casino_calls(t, seed):
                await sp.settle(wid)  # durable before anything of it is shown or played on

    async def one_timed(seed: int, wid: str, t: CasinoTable) -> None:  # ``one``, its calls timed
        while t.rounds_played < rounds:
            calls = casino_calls(t, seed)
            while True:
                c = time.thread_time()
                done = next(calls, STOP) is STOP
                parts["call"] += time.thread_time() - c
                if done:
                    break
                await sp.settle(wid)

    async def every() -> None:
        play = one_timed if PROFILE else one
        await asyncio.gather(*(play(i + 1, wid, t) for i, (wid, t) in enumerate(made)))

    writer = sp.group.thread.native_id
    collected = _gc_timed() if PROFILE else None
    c0, t0, l0, w0 = cpu(), time.perf_counter(), time.thread_time(), thread_cpu(writer)
    try:
        asyncio.run(every())
    finally:
        if collected is not None:
            collected()
        if tuned:
            from pontoon.web.transport import untune_gc

            untune_gc()
    dt, dc = time.perf_counter() - t0, cpu() - c0
    loop_s, writer_s = time.thread_time() - l0, thread_cpu(writer) - w0
    groups, items = sp.group.groups - g0[0], sp.group.items - g0[1]
    events = sum(len(store.events_(rec.table_id)) for rec in sp.recorders.values())
    for wid, _t in made:
        sp.detach(wid)
    split = f"loop thread {loop_s / events * 1e6:.1f}, writer {writer_s / events * 1e6:.1f} us/event"
    if restore is not None:
        restore()
        us = {k: v / events * 1e6 for k, v in parts.items()}
        print(
            f"loop thread CPU per event: {loop_s / events * 1e6:.1f} us = the table calls "
            f"{us['call']:.1f} (engine and publishing {us['call'] - us['recorder']:.1f}, recorder's rows "
            f"{us['recorder'] - us['submit']:.1f}, submit {us['submit']:.1f}) + awaiting the commits "
            f"(settle, asyncio's wake-ups) {(loop_s / events * 1e6) - us['call']:.1f}"
        )
    if wrestore is not None:
        wrestore()
        print(_writer_split(wparts, events))
    if collected is not None:
        gens = GC_SPENT
        print(
            "the collector's CPU per event (thread CPU, every thread): "
            + ", ".join(f"gen{g} {n} collections {t / events * 1e6:.2f} us" for g, (n, t) in gens.items())
            + ("" if tuned else " (--gc-default)")
        )
    return events, dt, dc, f"{items / max(1, groups):.1f} calls/commit; {split}"


def run_paced(store: Store, seconds: float, tables: int) -> tuple[int, float, float, str]:
    """``run_loop`` at a human pace (``--driver paced``): each table takes its next call ``--every`` s
    after its last one was committed (the first at a random offset), and each committed call costs the
    loop ``--burn-us`` us of CPU (the server's frames for it), for ``seconds``. The note: the commit's
    wait (``settle``) p50/p99/max, how late the loop woke (a 5 ms ticker) p99, and the young
    collections (with ``pontoon serve``'s collector tuning, ``tune_gc``): their count and p99 CPU."""
    import gc
    import random

    from pontoon.casino.table import CasinoTable
    from pontoon.web.store_persistence import StorePersistence
    from pontoon.web.transport import tune_gc, untune_gc

    every, burn = float(_opt("--every", "1.0")), float(_opt("--burn-us", "0")) / 1e6
    sp = StorePersistence(store)
    made = _attach_tables(sp, tables)
    g0 = (sp.group.groups, sp.group.items)
    wparts = {"commit": 0.0, "statements": 0.0, "begin_commit": 0.0}
    wrestore = _writer_timed(wparts) if PROFILE else None
    waits: list[float] = []
    lag: list[float] = []
    gcs: list[float] = []
    gc_at = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if info["generation"] == 0:
            if phase == "start":
                gc_at[0] = time.thread_time()
            else:
                gcs.append(time.thread_time() - gc_at[0])

    async def one(seed: int, wid: str, t: CasinoTable, until: float) -> None:
        rng = random.Random(seed)
        await asyncio.sleep(rng.uniform(0, every))
        while time.perf_counter() < until:
            for _ in casino_calls(t, seed):
                w = time.perf_counter()
                await sp.settle(wid)  # durable before anything of it is shown or played on
                waits.append(time.perf_counter() - w)
                end = time.perf_counter() + burn
                while time.perf_counter() < end:  # the frames of the call (the server's CPU for it)
                    pass
                await asyncio.sleep(every)
                if time.perf_counter() >= until:
                    break

    async def ticker(until: float) -> None:
        while time.perf_counter() < until:
            at = time.perf_counter()
            await asyncio.sleep(0.005)
            lag.append(time.perf_counter() - at - 0.005)

    async def every_table() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(ticker(until), *(one(i + 1, wid, t, until) for i, (wid, t) in enumerate(made)))

    writer = sp.group.thread.native_id
    if "--gc-default" not in sys.argv:
        tune_gc()
    gc.callbacks.append(on_gc)
    e0 = sum(len(store.events_(rec.table_id)) for rec in sp.recorders.values())
    c0, t0, w0 = cpu(), time.perf_counter(), thread_cpu(writer)
    try:
        asyncio.run(every_table())
    finally:
        gc.callbacks.remove(on_gc)
        untune_gc()
    dt, dc = time.perf_counter() - t0, cpu() - c0
    writer_s = thread_cpu(writer) - w0
    groups, items = sp.group.groups - g0[0], sp.group.items - g0[1]
    events = sum(len(store.events_(rec.table_id)) for rec in sp.recorders.values()) - e0
    for wid, _t in made:
        sp.detach(wid)
    if wrestore is not None:
        wrestore()
        print(_writer_split(wparts, events))
    q = lambda xs, f: sorted(xs)[min(len(xs) - 1, int(f * len(xs)))] * 1000 if xs else float("nan")  # noqa: E731
    note = (
        f"{items / max(1, groups):.1f} calls/commit; commit wait ms p50 {q(waits, 0.5):.1f} p99 "
        f"{q(waits, 0.99):.1f} max {q(waits, 1):.1f}; loop late p99 {q(lag, 0.99):.1f} ms; young GCs "
        f"{len(gcs)} CPU p99 {q(gcs, 0.99):.1f} ms, {1000 * sum(gcs):.0f} ms in all; writer {writer_s / max(1, events) * 1e6:.1f} us/event"
    )
    return events, dt, dc, note


def _opt(name: str, default: str) -> str:
    """The value after ``name`` on the command line (``default`` when absent)."""
    for i, a in enumerate(sys.argv[:-1]):
        if a == name:
            return sys.argv[i + 1]
    return default


def main() -> None:
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        return
    known = (
        "--tables",
        "--driver",
        "--switch-interval",
        "--profile",
        "--no-pg",
        "--every",
        "--burn-us",
        "--seconds",
        "--gc-default",
    )
    unknown = [a for a in sys.argv[1:] if a.startswith("-") and a not in known]
    if unknown:
        print(f"error: {unknown[0]}: the options are {', '.join(known)} (and ROUNDS first)", file=sys.stderr)
        sys.exit(2)
    valued = {"--tables", "--driver", "--switch-interval", "--every", "--burn-us", "--seconds"}
    args = [a for i, a in enumerate(sys.argv[1:]) if not a.startswith("--") and sys.argv[i] not in valued]
    rounds = int(args[0]) if args else 200
    counts = [1, 100]
    drivers = ["threads"]
    for i, a in enumerate(sys.argv):
        if a == "--tables" and i + 1 < len(sys.argv):
            counts = [int(x) for x in sys.argv[i + 1].split(",") if x]
        if a == "--driver" and i + 1 < len(sys.argv):
            drivers = [x for x in sys.argv[i + 1].split(",") if x]
        if a == "--switch-interval" and i + 1 < len(sys.argv):
            sys.setswitchinterval(float(sys.argv[i + 1]))
    bad = [x for x in drivers if x not in ("threads", "loop", "paced")]
    if bad:
        print(
            f"error: --driver {','.join(bad)}: the drivers are threads, loop and paced (by commas)",
            file=sys.stderr,
        )
        sys.exit(2)
    try:  # the seal key before any run: a key file that cannot be read is one line, not a traceback
        history_key(create=True)
    except SealKeyError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    rows = []
    ev, dt, dc = engine_only(rounds)
    rows.append(("engine only (no history), 1 table", ev, dt, dc, ""))

    def measure(url_of: Callable[[str], str], kind: str, sync: str = "FULL") -> None:
        for tables in counts:
            ways = [(False, "threads")] if tables == 1 else []
            for driver in drivers:
                ways.append((True, driver))
            for grouped, driver in ways:
                s = open_store(url_of(f"{kind}{sync}{tables}{grouped}{driver}"), synchronous=sync)
                if grouped:
                    s.start_group()
                per = max(1, rounds // tables) if tables > 1 else rounds
                if driver == "paced":
                    e, d, c, note = run_paced(s, float(_opt("--seconds", "20")), tables)
                else:
                    e, d, c, note = (run_loop if driver == "loop" else run)(s, per, tables)
                how = f"group commit, {driver}" if grouped else "each call its own transaction"
                rows.append(
                    (
                        f"{kind} {'synchronous=' + sync if kind == 'SQLite' else ''} {tables} table(s), {how}",
                        e,
                        d,
                        c,
                        note,
                    )
                )
                s.close()

    with tempfile.TemporaryDirectory() as d:
        measure(lambda n: f"sqlite:///{d}/bench-{n}.sqlite", "SQLite")
        counts_full = counts
        counts = counts[:1]
        if drivers != ["paced"]:  # (the paced driver measures a commit's wait: with fsync only)
            measure(lambda n: f"sqlite:///{d}/bench-{n}.sqlite", "SQLite", "OFF")
        counts = counts_full
    if "--no-pg" not in sys.argv:
        from tests.history.pg import cluster, create_db, pg_bin

        if pg_bin() is None:
            print("PostgreSQL: not installed (make sysdeps), skipped")
        else:
            with cluster() as base:
                measure(lambda n: create_db(base, "b" + n.lower()), "PostgreSQL")
    full = next((r for r in rows if "FULL 1 table(s), each" in r[0]), None)  # absent without 1 table
    print(
        f"{rounds} rounds of mbs per run (split over the tables), two players per table; "
        f"switch interval {sys.getswitchinterval()} s"
    )
    base = rows[0][1] / rows[0][2]  # the engine alone
    print(
        f"{'store':<64} {'events':>7} {'seconds':>8} {'events/s':>10} {'vs engine':>9} "
        f"{'CPU us/event':>12} {'vs 1-table FULL':>15}  note"
    )
    for name, ev, dt, dc, note in rows:
        rate = ev / dt
        vs = f"{rate / (full[1] / full[2]):>14.2f}x" if full else f"{'-':>15}"
        print(
            f"{name:<64} {ev:>7} {dt:>8.2f} {rate:>10.0f} {rate / base:>9.3f} {dc / ev * 1e6:>12.1f} {vs}  {note}"
        )


if __name__ == "__main__":
    main()
