"""Peak memory against rounds (issue 10 item 7): ``pontoon simulate --plot`` (mbs, sessions of one
round, so every round is a session) and the British simulation, each size in a fresh process,
peak RSS from ``resource.getrusage`` (``ru_maxrss``).

    .venv/bin/python bench/bench_memory.py [--quick]

Prints one line per run: kind, rounds, seconds, peak RSS in MiB, and the growth over the smallest
run of its kind. Flat columns mean memory does not grow with the rounds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

PROBE = r"""
import os, resource, sys, tempfile
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "plot":
    from pontoon.cli.app import run
    with tempfile.TemporaryDirectory() as d:
        rc = run(["simulate", "--rules", "mbs", "--rounds", str(n), "--seed", "1", "--json",
                  "--plot", os.path.join(d, "s.png"), "--session-length", "1"])
    assert rc in (0, None), rc
else:
    from pontoon.rules import find_rules
    from pontoon.sim.british import simulate_british
    simulate_british(find_rules("british"), n, 1)
print("PEAK_KIB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
SRC = str(Path(__file__).resolve().parents[1] / "src")


def peak(kind: str, rounds: int) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of a fresh process playing ``rounds`` rounds."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", PROBE, kind, str(rounds)], env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    kib = int(out.stdout.strip().splitlines()[-1].split()[1])
    return time.perf_counter() - t0, kib / 1024


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    plan = {
        "plot": [100_000, 1_000_000] if quick else [100_000, 1_000_000, 10_000_000, 30_000_000],
        "british": [300, 3_000] if quick else [300, 3_000, 10_000],
    }
    peak("plot", 1_000)  # compile or load the kernels once, outside the table
    print(f"{'kind':8} {'rounds':>12} {'seconds':>8} {'peak RSS MiB':>13} {'growth MiB':>11}")
    for kind, sizes in plan.items():
        base = None
        for n in sizes:
            sec, mib = peak(kind, n)
            base = mib if base is None else base
            print(f"{kind:8} {n:12,} {sec:8.1f} {mib:13.1f} {mib - base:+11.1f}", flush=True)


if __name__ == "__main__":
    main()
