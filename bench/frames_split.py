"""A change's frames in one process, split: the views, the diffs, the texts, the rest of ``broadcast``.

``python bench/frames_split.py [--rounds 300] [--spectators 0] [--runs 2] [--deltas 1|2] [--src DIR ...]``

For each source tree (``--src``, repeatable; default this checkout's ``src``), in a process of its own
and the trees alternately: ``bench_frames_count.play`` (a casino table of ``mbs``, seed 7, two seats and
S spectators asking for deltas, ``--deltas 2``: split deltas, no sockets), its first 20 rounds left
out, then R rounds with ``time.perf_counter`` around ``frames.Change.view`` (a kind's view built),
``frames.Change.own`` less the views inside it (a split kind's own part), ``frames.diff``,
``frames.dumps`` and ``frames.broadcast``; printed in µs per change (``rest``: the broadcast less the
four). The timers' own cost is in the figures, alike for every tree. Not a timed test: a loaded
machine moves these by a third; compare the trees' lines of one run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def split(rounds: int, spectators: int, deltas: int = 1) -> dict[str, float]:
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import bench_frames_count

    from pontoon.web import frames

    acc = {"view": 0.0, "own": 0.0, "diff": 0.0, "dumps": 0.0, "broadcast": 0.0}
    n = [0]

    def timed(name: str, fn: Any) -> Any:
        def wrapper(*a: Any, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                acc[name] += time.perf_counter() - t0

        return wrapper

    real_view = frames.Change.view

    def view(self: Any, kind: Any) -> Any:
        if kind in self.views:
            return self.views[kind]
        t0 = time.perf_counter()
        try:
            return real_view(self, kind)
        finally:
            acc["view"] += time.perf_counter() - t0

    frames.Change.view = view  # type: ignore[method-assign]
    real_own = getattr(frames.Change, "own", None)
    if real_own is not None:  # (a tree with split deltas)

        def own(self: Any, kind: Any) -> Any:
            if kind in self.owns:
                return self.owns[kind]
            t0, v0, d0 = time.perf_counter(), acc["view"], acc["diff"]
            try:
                return real_own(self, kind)
            finally:
                acc["own"] += time.perf_counter() - t0 - (acc["view"] - v0) - (acc["diff"] - d0)

        frames.Change.own = own  # type: ignore[method-assign]
    frames.diff = timed("diff", frames.diff)  # type: ignore[assignment]
    frames.dumps = timed("dumps", frames.dumps)  # type: ignore[assignment]
    real_bc = frames.broadcast

    def broadcast(*a: Any) -> None:
        t0 = time.perf_counter()
        real_bc(*a)
        acc["broadcast"] += time.perf_counter() - t0
        n[0] += 1

    frames.broadcast = broadcast
    bench_frames_count.play(20, spectators, deltas)
    for k in acc:
        acc[k] = 0.0
    n[0] = 0
    bench_frames_count.play(rounds, spectators, deltas)
    out = {k: 1e6 * v / max(1, n[0]) for k, v in acc.items()}
    out["rest"] = out["broadcast"] - out["view"] - out["own"] - out["diff"] - out["dumps"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--spectators", type=int, default=0)
    ap.add_argument("--runs", type=int, default=2, help="runs of each tree, alternately")
    ap.add_argument("--src", action="append", default=[], help="a source tree (repeatable)")
    ap.add_argument("--deltas", type=int, default=1, choices=(1, 2), help="1: deltas, 2: split deltas")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:
        got = split(a.rounds, a.spectators, a.deltas)
        print(" ".join(f"{k} {got[k]:.1f}" for k in ("broadcast", "view", "own", "diff", "dumps", "rest")))
        return 0
    srcs = a.src or [os.path.join(ROOT, "src")]
    print(
        f"frames_split: mbs, 2 seats, {a.spectators} spectators, deltas {a.deltas}, {a.rounds} rounds, µs a change"
    )
    for _ in range(a.runs):
        for src in srcs:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
            cmd = [sys.executable, os.path.abspath(__file__), "--one", "--rounds", str(a.rounds)]
            cmd += ["--spectators", str(a.spectators), "--deltas", str(a.deltas)]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
            print(f"{src}: {out.stdout.strip()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
