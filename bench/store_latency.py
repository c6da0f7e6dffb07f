"""Where one table call's wait for its commit goes, at ONE table (the server's path, no sockets).

``python bench/store_latency.py [CALLS] [--store sqlite,sqlite-off,pg] [--poll S|off]``: one mbs table with two players
recorded by the server's ``StorePersistence`` (``Recorder(defer=True)``, group commit), on one asyncio
loop, each table call followed by ``await settle`` as the server does before it shows anything. Each call
is time-stamped (``time.perf_counter``, one clock for both threads) at its stages:
- ``call``: the engine and the recorder's rows, up to the call queued (``GroupCommitter.enqueue``);
- ``handoff``: queued -> the writer thread starts its commit (its wake-up from ``cv.wait``, the GIL);
- ``python``: the writer's Python in the transaction (rows, canonical text, hashes, seals), the GIL held;
- ``statements``: ``batchsql.run`` (SQLite/psycopg stepping the multi-row statements);
- ``begin``/``commit``: the transaction's BEGIN and COMMIT (SQLite: the WAL written and fsynced);
- ``after``: the commit done -> the writer completes the Future (the heads' cache, ``last``);
- ``wakeup``: the Future completed -> the awaiting coroutine runs again (``Wakeups``: the loop's
  self-pipe, the GIL back from the writer).
Prints p50 and mean per stage in microseconds, and the wall time per call against the same calls with
no store. ``--poll``: the loop's keep-awake timer while it awaits (web/wakeups.py ``POLL_S``; ``off``: none,
the server before 2026-11-28 06:20). Not a timed test.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.history.driver import casino_calls  # noqa: E402

from pontoon.history import batchsql, open_store  # noqa: E402
from pontoon.history import group as group_mod  # noqa: E402
from pontoon.history import store as store_mod  # noqa: E402
from pontoon.web.wakeups import POLL_S as POLL_DEFAULT  # noqa: E402

STAMPS: dict[str, float] = {}
STAGES = ("call", "handoff", "begin", "python", "statements", "commit", "after", "wakeup")


def _patch() -> None:
    """Time stamps at the writer's stages (``STAMPS``: the last call's, one table: one call a commit)."""
    commit, run, transaction = group_mod.GroupCommitter._commit, batchsql.run, store_mod.transaction
    set_result = group_mod.Shared.set_result

    def timed_commit(self: Any, group: Any) -> None:
        STAMPS["taken"] = time.perf_counter()
        commit(self, group)

    def timed_run(*args: Any) -> int:
        STAMPS["run0"] = time.perf_counter()
        try:
            return run(*args)
        finally:
            STAMPS["run1"] = time.perf_counter()

    @contextlib.contextmanager
    def timed_transaction(*args: Any) -> Any:
        cm = transaction(*args)
        conn = cm.__enter__()
        STAMPS["begun"] = time.perf_counter()
        yield conn
        STAMPS["exit0"] = time.perf_counter()
        cm.__exit__(None, None, None)
        STAMPS["committed"] = time.perf_counter()

    def timed_set(self: Any, head: str) -> None:
        STAMPS["done"] = time.perf_counter()
        set_result(self, head)

    group_mod.GroupCommitter._commit = timed_commit  # type: ignore[method-assign]
    batchsql.run = timed_run
    store_mod.transaction = timed_transaction
    group_mod.Shared.set_result = timed_set  # type: ignore[method-assign]


POLL_S: float | None = (
    POLL_DEFAULT  # ``--poll S|off``: ``Wakeups.poll_s`` (the loop's wake-ups while it awaits)
)


def run(url: str | None, calls: int, sync: str = "FULL") -> dict[str, list[float]]:
    from pontoon.casino.table import CasinoTable
    from pontoon.rules import resolve_rules
    from pontoon.web.store_persistence import StorePersistence
    from pontoon.web.transport import tune_gc, untune_gc

    out: dict[str, list[float]] = {k: [] for k in (*STAGES, "total")}
    t = CasinoTable(resolve_rules("mbs"), rng=1)
    sp = None
    if url is not None:
        store = open_store(url, synchronous=sync)
        store.start_group()
        sp = StorePersistence(store)
        sp.attach("bench-1", t, "bench-1")
        sp.wakeups.poll_s = POLL_S
    t.join("ann", 10**6)
    t.join("bob", 10**6)
    if sp is not None:
        sp.group.drain()
    tune_gc()

    async def play() -> None:
        n = 0
        while n < calls:
            it = casino_calls(t, 1)
            while n < calls:
                STAMPS.clear()
                t0 = time.perf_counter()
                if next(it, None) is None and t0 and not t.in_round:
                    break
                t1 = time.perf_counter()
                if sp is not None:
                    await sp.settle("bench-1")
                t2 = time.perf_counter()
                n += 1
                out["total"].append(t2 - t0)
                out["call"].append(t1 - t0)
                s = STAMPS
                if "done" in s:
                    out["handoff"].append(s["taken"] - t1)
                    out["begin"].append(s["begun"] - s["taken"])
                    out["python"].append(s["exit0"] - s["begun"] - (s["run1"] - s["run0"]))
                    out["statements"].append(s["run1"] - s["run0"])
                    out["commit"].append(s["committed"] - s["exit0"])
                    out["after"].append(s["done"] - s["committed"])
                    out["wakeup"].append(t2 - s["done"])

    try:
        asyncio.run(play())
    finally:
        untune_gc()
        if sp is not None:
            sp.detach("bench-1")
            sp.store.close()
    return out


def main() -> None:
    args = [
        a
        for i, a in enumerate(sys.argv[1:])
        if not a.startswith("--") and sys.argv[i] not in ("--store", "--poll")
    ]
    calls = int(args[0]) if args else 2000
    kinds = ["sqlite", "sqlite-off"]
    if "--store" in sys.argv:
        kinds = sys.argv[sys.argv.index("--store") + 1].split(",")
    global POLL_S
    if "--poll" in sys.argv:
        v = sys.argv[sys.argv.index("--poll") + 1]
        POLL_S = None if v == "off" else float(v)
    _patch()
    rows = [("memory (no store)", run(None, calls))]
    with tempfile.TemporaryDirectory() as d:
        for k in kinds:
            if k == "pg":
                from tests.history.pg import cluster, create_db

                with cluster() as base:
                    rows.append(("PostgreSQL", run(create_db(base, "lat"), calls)))
            else:
                sync = "OFF" if k == "sqlite-off" else "FULL"
                rows.append((f"SQLite {sync}", run(f"sqlite:///{d}/{k}.sqlite", calls, sync)))
    print(
        f"{calls} table calls at one table; the loop kept awake every {POLL_S} s; microseconds per call, p50 / mean"
    )
    print(f"{'store':<20} " + " ".join(f"{k:>13}" for k in (*STAGES, "total")))
    for name, o in rows:
        cells = []
        for k in (*STAGES, "total"):
            v = o[k]
            cells.append(
                f"{statistics.median(v) * 1e6:>6.0f}/{statistics.fmean(v) * 1e6:<6.0f}" if v else f"{'-':>13}"
            )
        print(f"{name:<20} " + " ".join(cells))


if __name__ == "__main__":
    main()
