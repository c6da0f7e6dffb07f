"""The store lane's measuring scripts run and refuse bad input with one line and exit 2:
``bench/recorder_cpu.py`` (the recorder's CPU per event) and ``bench/store_stages/report.py`` (the
report of the server's store stages, here on marks written as ``sitecustomize.py`` writes them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)


def test_recorder_cpu_measures_and_refuses_bad_counts() -> None:
    ok = _run(str(BENCH / "recorder_cpu.py"), "3", "--reps", "2")
    assert ok.returncode == 0, ok.stderr
    assert "recorder CPU us an event" in ok.stdout and "2 reps of 3 rounds" in ok.stdout
    for bad, word in ((["0"], "ROUNDS 0 refused"), (["--reps", "0"], "--reps 0 refused")):
        r = _run(str(BENCH / "recorder_cpu.py"), *bad)
        assert r.returncode == 2 and word in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_store_stages_report(tmp_path: Path) -> None:
    stem = tmp_path / "ss"
    mark = {"record": [0.0, 0], "settle": [0.0, 0], "gc": [0.0, 0], "loop": 1.0, "commits": 10, "calls": 40}
    end = {
        "record": [0.010, 100],
        "settle": [0.005, 100],
        "gc": [0.002, 3],
        "loop": 1.1,
        "commits": 30,
        "calls": 240,
    }
    mark["threads"] = {"pontoon-group-commit": 0.5}
    end["threads"] = {"pontoon-group-commit": 0.52}
    (tmp_path / "ss.123.json").write_text(json.dumps([mark, end]))
    r = _run(str(BENCH / "store_stages" / "report.py"), str(stem), "100")
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    assert "loop 1000" in line and "record 100.0" in line and "settle 50.0" in line and "gc 20.0" in line
    assert "group-commit 200" in line and "commits 20 (10.0 calls each, the writer 1000 us each)" in line
    bad = _run(str(BENCH / "store_stages" / "report.py"), str(tmp_path / "none"), "100")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    usage = _run(str(BENCH / "store_stages" / "report.py"), str(stem), "many")
    assert usage.returncode == 2 and "usage" in usage.stderr
