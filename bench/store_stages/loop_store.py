"""The event loop's CPU a table call for the history store, end to end, without the web server.

``python bench/store_stages/loop_store.py [--tables N] [--rounds R] [--reps K] [--store sqlite|pg-url]
[--src DIR]``: N casino tables (``mbs``, two players, tests/history/driver.py's policy) on one event
loop (uvloop, as ``pontoon serve``), each a task that makes one table call at a time and then awaits
``StorePersistence.settle`` (the server's every action: its calls recorded, handed to the writer
process, the loop's wait for the acknowledgement); the same tasks again with no store (memory: no
recorder, no wait). Prints the loop thread's CPU a table call with the store, without it, and their
difference (what the store costs the server's loop: the recorder, the hand-off, the sends, the
acknowledgements read, the waits and the tasks' resumptions), min and median of K reps. The writer
process's own CPU is its own (another core) and is not counted here. ``--src DIR``: another tree's
``src`` (an old commit's, from ``git archive``): old against new, one after the other.

``--once store|memory``: one play, no timing, for ``valgrind --tool=callgrind`` (instructions whatever
the load; the child is not traced; no keep-awake timer, whose ticks follow the wall clock): the
difference of two plays' instructions (``--rounds`` 3 and 6: the set-up cancelled) over their calls'
is a call's. Not quite deterministic still: how many calls share a commit depends on the child's pace.
Not a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tables(n: int, seed: int) -> list[Any]:
    from pontoon.casino.table import CasinoTable
    from pontoon.rules import resolve_rules

    out = []
    for i in range(n):
        t = CasinoTable(resolve_rules("mbs"), rng=seed * 1000 + i)
        t.join("ann", 10**6)
        t.join("bob", 10**6)
        out.append(t)
    return out


async def play(ts: list[Any], rounds: int, sp: Any) -> tuple[float, int]:
    """Every table's rounds, one task a table; the loop thread's CPU and the table calls made."""
    from tests.history.driver import casino_calls

    calls = [0]

    async def one(i: int, t: Any) -> None:
        wid = str(i)
        n = 0
        for r in range(rounds):
            for _ in casino_calls(t, r):
                n += 1
                if sp is not None:
                    await sp.settle(wid)
        calls[0] += n

    if sp is not None:
        sp.on_loop(asyncio.get_running_loop())
    gc.collect()
    gc.freeze()
    t0 = time.thread_time()
    await asyncio.gather(*(one(i, t) for i, t in enumerate(ts)))
    cpu = time.thread_time() - t0
    gc.unfreeze()
    return cpu, calls[0]


def run(n: int, rounds: int, seed: int, url: str | None, poll: bool = True) -> tuple[float, int]:
    """One play: (CPU seconds of the loop thread, table calls). ``poll`` False: no keep-awake timer
    (``Wakeups.poll_s``: its ticks come with the wall clock, so under callgrind they would count the
    instructions of a slower run)."""
    import uvloop

    ts = tables(n, seed)
    sp = None
    if url is not None:
        from pontoon.history import open_store
        from pontoon.web.store_persistence import StorePersistence

        store = open_store(url)
        sp = StorePersistence(store, writer="process")
        if not poll:
            sp.wakeups.poll_s = None
        for i, t in enumerate(ts):
            sp.attach(str(i), t, f"t{i}")
    try:
        return uvloop.run(play(ts, rounds, sp))
    finally:
        if sp is not None:
            sp.group.close()
            sp.store.engine.dispose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100, help="tables (1 to 2000)")
    ap.add_argument("--rounds", type=int, default=10, help="rounds a table (1 to 1000)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions (1 to 100)")
    ap.add_argument("--store", default="sqlite", help="sqlite (a temporary file, FULL) or a database URL")
    ap.add_argument("--src", default=os.path.join(ROOT, "src"), help="the source tree to measure")
    ap.add_argument("--once", choices=("store", "memory"), help="one play, not timed (for callgrind)")
    a = ap.parse_args()
    for name, v, hi in (("--tables", a.tables, 2000), ("--rounds", a.rounds, 1000), ("--reps", a.reps, 100)):
        if not 1 <= v <= hi:
            ap.exit(2, f"loop_store: {name} {v} refused: give 1 to {hi}\n")
    if not os.path.isdir(os.path.join(a.src, "pontoon")):
        ap.exit(2, f"loop_store: --src {a.src} refused: no pontoon package in it\n")
    sys.path[:0] = [os.path.abspath(a.src), ROOT]
    os.environ["PYTHONPATH"] = os.pathsep.join([os.path.abspath(a.src), os.environ.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory() as tmp:

        def url(rep: int) -> str:
            if a.store == "sqlite":
                return f"sqlite:///{tmp}/h{rep}.db"
            return a.store

        if a.once:
            cpu, calls = run(a.tables, a.rounds, 1, url(0) if a.once == "store" else None, poll=False)
            print(f"loop_store --once {a.once}: {calls} table calls")
            return
        store, memory = [], []
        for rep in range(a.reps):
            cpu, calls = run(a.tables, a.rounds, rep, url(rep))
            store.append(cpu / calls * 1e6)
            cpu, calls = run(a.tables, a.rounds, rep, None)
            memory.append(cpu / calls * 1e6)
    diff = [s - m for s, m in zip(store, memory, strict=True)]
    import pontoon

    print(
        f"loop CPU us a table call ({pontoon.__file__}, {a.tables} tables, {a.rounds} rounds, {calls} calls): "
        f"store min {min(store):.2f} median {statistics.median(store):.2f}; memory min {min(memory):.2f} "
        f"median {statistics.median(memory):.2f}; the store's share min {min(diff):.2f} median "
        f"{statistics.median(diff):.2f} ({a.reps} reps)"
    )


if __name__ == "__main__":
    main()
