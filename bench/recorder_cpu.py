"""The recorder's CPU per event on the loop thread (history/recorder.py), without a writer beside it.

``python bench/recorder_cpu.py [ROUNDS] [--reps N] [--src DIR]``: a casino table (``mbs``, two players,
tests/history/driver.py's policy) plays ROUNDS rounds recorded by a ``Recorder(defer=True)`` whose store
only counts the calls handed to it (no writer thread, no database: the recorder's own work, its rows,
snapshots and round results, and the call of ``enqueue``), then a twin table plays the same rounds with
no recorder; the difference of their thread CPU over the events recorded, for each of N reps, collector
off. Prints the minimum and the median. ``--src DIR``: another source tree (an old commit's ``src``
from ``git archive``). Not a timed test: run old and new one after the other.

``--once rec|bare``: no timing: the table plays ROUNDS rounds once, recorded (``rec``) or not (``bare``),
and the events recorded are printed: for ``valgrind --tool=callgrind`` (instructions, whatever the
machine's load: the recorder's per event is (rec - bare) / events, the start-up the same in both).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class CountingStore:
    """What ``Recorder(defer=True)`` calls on a store, counting the calls; nothing is written."""

    group = object()  # (a group commit: the recorder defers its writes)
    calls = 0

    def create_table(self, *args: Any, **kwargs: Any) -> int:
        return 1

    def enqueue(self, table_id: int, batches: Any) -> None:
        self.calls += 1


def one(rounds: int, seed: int) -> float:
    """Microseconds of the recorder's thread CPU per event for ``rounds`` rounds."""
    from tests.history.driver import casino_calls

    from pontoon.casino.table import CasinoTable
    from pontoon.history.recorder import Recorder
    from pontoon.rules import resolve_rules

    def table() -> CasinoTable:
        t = CasinoTable(resolve_rules("mbs"), rng=seed)
        t.join("ann", 10**6)
        t.join("bob", 10**6)
        return t

    recorded = table()
    rec = Recorder(CountingStore(), recorded, label="bench", defer=True)  # type: ignore[arg-type]
    bare = table()
    w0 = rec.written
    gc.disable()
    try:
        c0 = time.thread_time()
        for i in range(rounds):
            for _ in casino_calls(recorded, i):
                pass
        c1 = time.thread_time()
        for i in range(rounds):
            for _ in casino_calls(bare, i):
                pass
        c2 = time.thread_time()
    finally:
        gc.enable()
    events = rec.written - w0
    return ((c1 - c0) - (c2 - c1)) / max(1, events) * 1e6


def once(rounds: int, recorded: bool) -> int:
    """ROUNDS rounds of one table, recorded or not, collector off; the events recorded."""
    from tests.history.driver import casino_calls

    from pontoon.casino.table import CasinoTable
    from pontoon.history.recorder import Recorder
    from pontoon.rules import resolve_rules

    t = CasinoTable(resolve_rules("mbs"), rng=1)
    t.join("ann", 10**6)
    t.join("bob", 10**6)
    rec = Recorder(CountingStore(), t, label="bench", defer=True) if recorded else None  # type: ignore[arg-type]
    w0 = 0 if rec is None else rec.written
    gc.disable()
    for i in range(rounds):
        for _ in casino_calls(t, i):
            pass
    gc.enable()
    return 0 if rec is None else rec.written - w0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rounds", nargs="?", type=int, default=200, help="rounds per rep (1 to 100000)")
    ap.add_argument("--reps", type=int, default=15, help="repetitions (1 to 1000)")
    ap.add_argument("--src", default=os.path.join(ROOT, "src"), help="the source tree to measure")
    ap.add_argument("--once", choices=("rec", "bare"), help="one play, recorded or not (for callgrind)")
    a = ap.parse_args()
    if not 1 <= a.rounds <= 100_000:
        ap.exit(2, f"recorder_cpu: ROUNDS {a.rounds} refused: give 1 to 100000\n")
    if not 1 <= a.reps <= 1000:
        ap.exit(2, f"recorder_cpu: --reps {a.reps} refused: give 1 to 1000\n")
    if not os.path.isdir(os.path.join(a.src, "pontoon")):
        ap.exit(2, f"recorder_cpu: --src {a.src} refused: no pontoon package in it\n")
    sys.path[:0] = [os.path.abspath(a.src), ROOT]
    if a.once:
        print(
            f"recorder_cpu --once {a.once}: {a.rounds} rounds, {once(a.rounds, a.once == 'rec')} events recorded"
        )
        return
    got = [one(a.rounds, rep % 3) for rep in range(a.reps)]
    import pontoon

    print(
        f"recorder CPU us an event ({pontoon.__file__}): min {min(got):.2f} median "
        f"{statistics.median(got):.2f} ({a.reps} reps of {a.rounds} rounds)"
    )


if __name__ == "__main__":
    main()
