"""History write throughput: durable events per second, one table and many tables at once.

Usage: ``python bench/bench_history.py [ROUNDS] [--tables 1,100] [--driver threads,loop]
[--switch-interval S] [--profile] [--no-pg]``.

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
  group-commit writer thread), each table awaiting ``StorePersistence.settle`` (its commit) after
  every call before it takes its next action, as the server does before it shows anything.
``--profile``: the loop driver's loop thread under cProfile (its own time per function).
``--switch-interval S``: ``sys.setswitchinterval(S)`` for the whole run (Python's default: 0.005).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.history.driver import casino_calls, new_table, play  # noqa: E402

from pontoon.history import open_store  # noqa: E402
from pontoon.history.store import Store  # noqa: E402

PROFILE = "--profile" in sys.argv  # cProfile of the loop driver's loop thread (slows it down)


def _part(path: str, func: str) -> str:
    """The part of the loop driver a profiled function belongs to (``--profile``)."""
    if "select.epoll" in func:
        return "waiting for commits (epoll: idle)"
    for key, part in (
        ("history/recorder", "recorder (rows of the events)"),
        ("history/chain", "recorder (rows of the events)"),
        ("history/group", "hand-off to the writer (submit, futures, locks)"),
        ("concurrent/futures", "hand-off to the writer (submit, futures, locks)"),
        ("threading", "hand-off to the writer (submit, futures, locks)"),
        ("web/store_persistence", "settle (await the commit)"),
        ("asyncio", "asyncio (wake-ups, tasks, wrap_future)"),
        ("_socket", "asyncio (wake-ups, tasks, wrap_future)"),
        ("pontoon/", "engine (table, round, events, rules)"),
        ("tests/history/driver", "driver's decisions"),
    ):
        if key in path or key in func:
            return part
    return "other (bench, builtins)"


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


def run_loop(store: Store, rounds: int, tables: int) -> tuple[int, float, float, str]:
    """``run`` with the server's driver: the ``tables`` tables on one asyncio loop, recorded by
    ``StorePersistence`` (group commit, ``Recorder(defer=True)``), each awaiting its commit
    (``settle``) after every table call before its next one."""
    from pontoon.casino.table import CasinoTable
    from pontoon.rules import resolve_rules
    from pontoon.web.store_persistence import StorePersistence

    sp = StorePersistence(store)
    made: list[tuple[str, CasinoTable]] = []
    for seed in range(1, tables + 1):
        t = CasinoTable(resolve_rules("mbs"), rng=seed)
        wid = f"bench-{seed}"
        sp.attach(wid, t, wid)
        t.join("ann", 10**6)
        t.join("bob", 10**6)
        made.append((wid, t))
    sp.group.drain()
    g0 = (sp.group.groups, sp.group.items)

    async def one(seed: int, wid: str, t: CasinoTable) -> None:
        while t.rounds_played < rounds:
            for _ in casino_calls(t, seed):
                await sp.settle(wid)  # durable before anything of it is shown or played on

    async def every() -> None:
        await asyncio.gather(*(one(i + 1, wid, t) for i, (wid, t) in enumerate(made)))

    writer = sp.group.thread.native_id
    c0, t0, l0, w0 = cpu(), time.perf_counter(), time.thread_time(), thread_cpu(writer)
    if PROFILE:  # the loop thread's functions (cProfile sees this thread only), by own time
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.runcall(asyncio.run, every())
        stats = pstats.Stats(prof)
        stats.sort_stats("tottime").print_stats(15)
        by: dict[str, float] = {}
        for (path, _line, func), row in stats.stats.items():  # type: ignore[attr-defined]
            by[_part(path, func)] = by.get(_part(path, func), 0.0) + row[2]
        n = sum(len(store.events_(rec.table_id)) for rec in sp.recorders.values())
        print("loop thread's own time per event, by part (under cProfile):")
        for part, secs in sorted(by.items(), key=lambda kv: -kv[1]):
            print(f"  {part:<44} {secs / n * 1e6:7.1f} us")
    else:
        asyncio.run(every())
    dt, dc = time.perf_counter() - t0, cpu() - c0
    loop_s, writer_s = time.thread_time() - l0, thread_cpu(writer) - w0
    groups, items = sp.group.groups - g0[0], sp.group.items - g0[1]
    events = sum(len(store.events_(rec.table_id)) for rec in sp.recorders.values())
    for wid, _t in made:
        sp.detach(wid)
    split = f"loop thread {loop_s / events * 1e6:.1f}, writer {writer_s / events * 1e6:.1f} us/event"
    return events, dt, dc, f"{items / max(1, groups):.1f} calls/commit; {split}"


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
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
    bad = [x for x in drivers if x not in ("threads", "loop")]
    if bad:
        sys.exit(f"error: --driver {','.join(bad)}: the drivers are threads and loop (by commas)")
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
