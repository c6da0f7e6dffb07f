"""The loop lane's measuring scripts run and refuse bad input with one line and exit 2:
``bench/store_stages/settle_cpu.py`` (the loop's CPU a wait for a commit) and ``bench/recorder_cpu.py
--once`` (one play, recorded or not, for callgrind)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)


def test_settle_cpu_measures_and_refuses_bad_counts() -> None:
    ok = _run(str(BENCH / "store_stages" / "settle_cpu.py"), "3", "--tables", "5", "--passes", "2")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert (
        ok.stdout.startswith("settle CPU us a wait (") and "(2 passes of 3 commits of 5 waits)" in ok.stdout
    )
    for bad in (["0"], ["3", "--tables", "0"], ["3", "--passes", "101"], ["3", "--src", "/nonexistent"]):
        r = _run(str(BENCH / "store_stages" / "settle_cpu.py"), *bad)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "refused" in r.stderr, bad


def test_recorder_cpu_once_plays_recorded_or_bare() -> None:
    rec = _run(str(BENCH / "recorder_cpu.py"), "3", "--once", "rec")
    bare = _run(str(BENCH / "recorder_cpu.py"), "3", "--once", "bare")
    assert rec.returncode == 0 and bare.returncode == 0, rec.stderr[-2000:] + bare.stderr[-2000:]
    got = int(rec.stdout.split(", ")[1].split()[0])
    assert got > 3 * 5, rec.stdout  # every event of three rounds recorded
    assert bare.stdout.strip() == "recorder_cpu --once bare: 3 rounds, 0 events recorded"
