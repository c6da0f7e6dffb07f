"""What 100 tables' next shoes, shuffled ahead all at once, cost a burst of messages on the event loop.

``python bench/shoes_burst.py [--tables 100] [--handlings 200] [--handling-us 200] [--runs 8]``

In one process: an event loop handles a burst of H messages (each ``--handling-us`` of the loop
thread's CPU, a task step apiece: the burst of wagers when 100 tables' 200 players bet at once, as in
bench_server.py) while the tables' T next shoes are shuffled ahead (``FairShuffler.prepare`` of mbs's 6
packs) in worker threads, either all handed over at once as the burst begins (``at once``: as a casino
table did after each new shoe before web/shoes_ahead.py) or queued one every ``GAP_S``
(``shoes_ahead.shuffle_ahead``). Printed for each, alternately run by run: the burst's wall time and
the loop thread's CPU in it; the difference is the time the loop waited for the interpreter lock (and,
on a loaded machine, for a core). Not a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import time

from pontoon.fair import FairShuffler
from pontoon.web.shoes_ahead import GAP_S, shuffle_ahead


def spin(cpu_s: float) -> None:
    """Busy for ``cpu_s`` of this thread's CPU."""
    end = time.thread_time() + cpu_s
    while time.thread_time() < end:
        pass


async def burst(
    tables: int, handlings: int, handling_s: float, queued: bool, seed: int
) -> tuple[float, float]:
    loop = asyncio.get_running_loop()
    fairs = [FairShuffler(test_seed=seed * 1000 + i) for i in range(tables)]
    t0, c0 = time.perf_counter(), time.thread_time()
    for f in fairs:
        job = functools.partial(f.prepare, "pontoon48", 6)
        if queued:
            shuffle_ahead(job)
        else:
            loop.run_in_executor(None, job)
    for _ in range(handlings):
        spin(handling_s)
        await asyncio.sleep(0)
    wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
    while any(f.prepared != 1 for f in fairs):  # (every shoe shuffled before the next run)
        await asyncio.sleep(0.005)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--handlings", type=int, default=200)
    ap.add_argument("--handling-us", type=float, default=200.0)
    ap.add_argument("--runs", type=int, default=8)
    a = ap.parse_args()
    got: dict[str, list[tuple[float, float]]] = {"at once": [], "queued": []}

    async def all_runs() -> None:
        await burst(4, 4, 0.0001, False, 999)  # (the worker threads started)
        for r in range(a.runs):
            for name in ("at once", "queued") if r % 2 == 0 else ("queued", "at once"):
                got[name].append(await burst(a.tables, a.handlings, a.handling_us / 1e6, name == "queued", r))

    asyncio.run(all_runs())
    print(
        f"shoes_burst: {a.tables} next shoes, a burst of {a.handlings} handlings of {a.handling_us:g} us CPU, "
        f"GAP_S {GAP_S}, {a.runs} runs each, alternately"
    )
    for name, rows in got.items():
        walls = [1000 * w for w, _ in rows]
        waits = [1000 * (w - c) for w, c in rows]
        print(
            f"{name:>8}: the burst's wall ms median {statistics.median(walls):.1f} (min {min(walls):.1f}, "
            f"max {max(walls):.1f}); the loop not running ms median {statistics.median(waits):.1f} "
            f"(min {min(waits):.1f}, max {max(waits):.1f})"
        )


if __name__ == "__main__":
    main()
