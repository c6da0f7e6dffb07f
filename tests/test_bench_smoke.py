"""The benchmark scripts still run (tiny sizes): ``make bench`` must not rot between releases.
They print figures, not assertions about speed (speed is measured, not unit-tested)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.parametrize(
    "script,args,needle",
    [
        ("bench_sim.py", ["20000"], "ratio simulator/engine"),
        ("bench_engine.py", ["300"], "rounds/s"),
        ("bench_british_sim.py", ["20000", "0.1"], "kernel/engine"),
        ("bench_ratio.py", ["1"], "interleaved pairs"),
        ("bench_count.py", ["mbs", "20000", "1"], "per CPU second"),
        ("bench_report.py", ["blackjack", "--runs", "1"], "target 2 s"),
        ("bench_loop_lag.py", ["--quick", "--only", "hint"], "loop late at most"),
        ("report_agreement.py", ["--rounds", "20000", "--presets", "blackjack"], "| net | exact probability"),
    ],
)
def test_bench_script_runs(script: str, args: list[str], needle: str) -> None:
    out = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert needle in out.stdout
