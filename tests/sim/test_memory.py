"""Peak memory does not grow with the rounds (issue 10 item 7): a long British simulation and
``pontoon simulate --plot``, each run at two sizes 10x apart in fresh subprocesses, peak RSS from
``resource.getrusage`` (``ru_maxrss``, KiB on Linux).

``--plot`` runs with sessions of one round, so every round is a session: keeping the sessions
instead of streaming them into the fixed-size histogram would cost 8 bytes a round as int64 (and
far more as Python objects) -- 140 MB more at the slow test's larger size, 21 MB in CI, against a
tolerance of 12 MiB. The British table drops its ledger transfers once they are published (the
history store keeps them); before that it kept every transfer, about 1.6 KB a round, and this test
failed on it (+8.7 MiB from 600 to 6,000 rounds).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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

SRC = str(Path(__file__).resolve().parents[2] / "src")
# what the larger run may add to the smaller one's peak: --plot 12 MiB; British 5 MiB (a table that
# kept its transfers added 8.7 MiB from 600 to 6,000 rounds)
TOLERANCE_KIB = {"plot": 12 * 1024, "british": 5 * 1024}


def peak_rss_kib(kind: str, rounds: int) -> int:
    """Peak RSS of a fresh process that plays ``rounds`` rounds of ``kind`` (plot or british)."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-c", PROBE, kind, str(rounds)], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.strip().splitlines()[-1].split()[1])


def _check(kind: str, small: int) -> None:
    if kind == "plot":
        peak_rss_kib(kind, 2_000)  # compile or load the kernels first: the cache is warm for both sizes
    a = peak_rss_kib(kind, small)
    b = peak_rss_kib(kind, 10 * small)
    assert b - a <= TOLERANCE_KIB[kind], (
        f"{kind}: peak RSS {a} KiB at {small} rounds, {b} KiB at {10 * small}"
    )


def test_plot_memory_does_not_grow_with_rounds_ci() -> None:
    _check("plot", 300_000)


def test_british_memory_does_not_grow_with_rounds_ci() -> None:
    _check("british", 500)


@pytest.mark.slow
def test_plot_memory_does_not_grow_with_rounds() -> None:
    _check("plot", 2_000_000)


@pytest.mark.slow
def test_british_memory_does_not_grow_with_rounds() -> None:
    _check("british", 2_500)
