"""The loop's CPU to await a commit: ``StorePersistence.settle`` with ``Wakeups``, one waiter a table.

``python bench/store_stages/settle_cpu.py [REPS] [--tables N] [--src DIR]``: N tasks on one event loop
each await ``settle`` of its own table while one Future (a commit shared by every table's call, as
``GroupCommitter.enqueue`` shares one) is pending; a thread completes it; the loop's thread CPU from
the tasks' first step to the last one's end, less the same tasks awaiting nothing (the tasks' own
cost), over the waits: what a wait costs the loop (settle's lines, the waiter, the wake-up, the
resumption). No database and no writer: the group commit is a stand-in with ``pending`` and ``failed``.
Prints the minimum and the median of 5 passes. ``--here``: the commit completed on the loop's own
thread (a writer process's acknowledgements are read by the loop), not by a thread. ``--src DIR``: another tree's ``src`` (an old commit's,
from ``git archive``). Deterministic enough for ``valgrind --tool=callgrind`` (instructions: the
difference of two REPS, the start-up cancelled). Not a timed test: run old and new one after the other.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import threading
import time
from concurrent.futures import Future
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Rec:
    def __init__(self, table_id: int) -> None:
        self.table_id = table_id


class Group:
    """What ``settle`` asks of the group commit: each table's pending Future, the failed tables."""

    def __init__(self) -> None:
        self.last: dict[int, Future[str]] = {}
        self.failed: dict[int, BaseException] = {}

    def pending(self, table_id: int) -> Future[str] | None:
        return self.last.get(table_id)


async def one_pass(reps: int, tables: int, wait: bool, here: bool = False) -> float:
    """Seconds of the loop thread's CPU per wait (``wait`` False: the same tasks, nothing pending)."""
    from pontoon.web.store_persistence import StorePersistence
    from pontoon.web.wakeups import Wakeups

    sp: Any = StorePersistence.__new__(StorePersistence)  # (no store: only what settle reads)
    sp.recorders = {str(i): Rec(i) for i in range(tables)}
    sp.group = group = Group()
    sp.wakeups = Wakeups()
    cpu = 0.0
    for _ in range(reps):
        fut: Future[str] = Future()
        if wait:
            for i in range(tables):
                group.last[i] = fut
        tasks = [asyncio.ensure_future(sp.settle(str(i))) for i in range(tables)]
        t0 = time.thread_time()
        await asyncio.sleep(0)  # every task's first step: waiting (or done)
        t1 = time.thread_time()

        def commit(fut: Future[str]) -> None:
            group.last.clear()
            fut.set_result("")

        if here:  # (the loop's own thread: a writer process's acknowledgement, read by the loop)
            t2 = time.thread_time()
            commit(fut)
        else:
            writer = threading.Thread(target=commit, args=(fut,))
            writer.start()
            writer.join()
            t2 = time.thread_time()
        await asyncio.gather(*tasks)
        cpu += (t1 - t0) + (time.thread_time() - t2)
    return cpu / (reps * tables)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reps", nargs="?", type=int, default=300, help="commits per pass (1 to 100000)")
    ap.add_argument("--tables", type=int, default=100, help="waiters a commit (1 to 10000)")
    ap.add_argument("--passes", type=int, default=5, help="passes (1 to 100)")
    ap.add_argument("--src", default=os.path.join(ROOT, "src"), help="the source tree to measure")
    ap.add_argument(
        "--here",
        action="store_true",
        help="the commit completed on the loop's own thread (the writer process's)",
    )
    a = ap.parse_args()
    if not 1 <= a.reps <= 100_000:
        ap.exit(2, f"settle_cpu: REPS {a.reps} refused: give 1 to 100000\n")
    if not 1 <= a.tables <= 10_000:
        ap.exit(2, f"settle_cpu: --tables {a.tables} refused: give 1 to 10000\n")
    if not 1 <= a.passes <= 100:
        ap.exit(2, f"settle_cpu: --passes {a.passes} refused: give 1 to 100\n")
    if not os.path.isdir(os.path.join(a.src, "pontoon")):
        ap.exit(2, f"settle_cpu: --src {a.src} refused: no pontoon package in it\n")
    sys.path[:0] = [os.path.abspath(a.src)]
    got = []
    for _ in range(a.passes):
        waits = asyncio.run(one_pass(a.reps, a.tables, True, a.here))
        bare = asyncio.run(one_pass(a.reps, a.tables, False, a.here))
        got.append((waits - bare) * 1e6)
    import pontoon

    print(
        f"settle CPU us a wait ({pontoon.__file__}): min {min(got):.2f} median {statistics.median(got):.2f} "
        f"({a.passes} passes of {a.reps} commits of {a.tables} waits)"
    )


if __name__ == "__main__":
    main()
