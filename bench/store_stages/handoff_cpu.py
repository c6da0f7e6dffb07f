"""The recorder and its hand-off to the writer process, on the event loop's thread: CPU or instructions
a table call, deterministic (no child, no socket, no event loop).

``python bench/store_stages/handoff_cpu.py [ROUNDS] [--reps N] [--src DIR] [--once rec|bare]``: a casino
table (``mbs``, two players, tests/history/driver.py's policy) plays ROUNDS rounds recorded by a
``Recorder(defer=True)`` whose store's group is a real ``ProcessCommitter`` taken as the loop's thread
sees it (its ``enqueue`` or ``enqueue_plain``: the call made plain and marshalled, queued for the turn's
flush), with no child behind it: the queued calls are dropped every 64 calls, as a flush would; then a
twin table plays the same rounds with no recorder. Prints the thread CPU difference over the table
calls, min and median of N reps (collector off). ``--once``: one play, no timing, the calls printed:
for ``valgrind --tool=callgrind`` ((rec - bare) / calls, whatever the load). ``--src DIR``: another
tree's ``src`` (old against new). Not a timed test.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import threading
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Store:
    """What ``Recorder(defer=True)`` asks of a store, its group a ``ProcessCommitter`` with no child."""

    def __init__(self) -> None:
        from pontoon.history.store import _Crash
        from pontoon.history.writer_proc import ProcessCommitter

        g: Any = ProcessCommitter.__new__(ProcessCommitter)
        g.store, g.lock, g.closed, g.dead, g.seq = self, threading.RLock(), False, None, 0
        g.failed, g.inflight, g.last, g.restarts, g.web_of, g.share = {}, {}, {}, 0, None, None
        g.loop, g.loop_thread, g.out, g.flushing = object(), threading.get_ident(), [], True
        self.group = g
        self._crash = _Crash()
        self.calls = 0

    def create_table(self, *args: Any, **kwargs: Any) -> int:
        return 1

    def forget(self, table_id: int) -> None:
        pass

    def enqueue(self, table_id: int, batches: Any) -> Any:
        return self.group.enqueue(table_id, batches)

    def flush(self) -> None:
        """What ``_flush`` leaves: nothing queued, every call acknowledged."""
        g = self.group
        self.calls += len(g.out)
        g.out.clear()
        g.inflight.clear()
        g.last.clear()
        g.share = None


def play(rounds: int, seed: int, recorded: bool) -> tuple[float, int]:
    from tests.history.driver import casino_calls

    from pontoon.casino.table import CasinoTable
    from pontoon.history.recorder import Recorder
    from pontoon.rules import resolve_rules

    t = CasinoTable(resolve_rules("mbs"), rng=seed)
    t.join("ann", 10**6)
    t.join("bob", 10**6)
    store = Store()
    if recorded:
        Recorder(store, t, label="bench", defer=True)  # type: ignore[arg-type]
    gc.disable()
    try:
        c0 = time.thread_time()
        for i in range(rounds):
            for _ in casino_calls(t, i):
                if len(store.group.out) >= 64:
                    store.flush()
        store.flush()
        cpu = time.thread_time() - c0
    finally:
        gc.enable()
    return cpu, store.calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rounds", nargs="?", type=int, default=200, help="rounds per rep (1 to 100000)")
    ap.add_argument("--reps", type=int, default=9, help="repetitions (1 to 1000)")
    ap.add_argument("--src", default=os.path.join(ROOT, "src"), help="the source tree to measure")
    ap.add_argument("--once", choices=("rec", "bare"), help="one play, recorded or not (for callgrind)")
    a = ap.parse_args()
    if not 1 <= a.rounds <= 100_000:
        ap.exit(2, f"handoff_cpu: ROUNDS {a.rounds} refused: give 1 to 100000\n")
    if not 1 <= a.reps <= 1000:
        ap.exit(2, f"handoff_cpu: --reps {a.reps} refused: give 1 to 1000\n")
    if not os.path.isdir(os.path.join(a.src, "pontoon")):
        ap.exit(2, f"handoff_cpu: --src {a.src} refused: no pontoon package in it\n")
    sys.path[:0] = [os.path.abspath(a.src), ROOT]
    if a.once:
        _cpu, calls = play(a.rounds, 1, a.once == "rec")
        print(f"handoff_cpu --once {a.once}: {a.rounds} rounds, {calls} table calls handed off")
        return
    got = []
    for rep in range(a.reps):
        rec, calls = play(a.rounds, rep % 3, True)
        bare, _ = play(a.rounds, rep % 3, False)
        got.append((rec - bare) / max(1, calls) * 1e6)
    import pontoon

    print(
        f"recorder + hand-off CPU us a table call ({pontoon.__file__}): min {min(got):.2f} median "
        f"{statistics.median(got):.2f} ({a.reps} reps of {a.rounds} rounds, {calls} calls)"
    )


if __name__ == "__main__":
    main()
