"""``bench/child_cpu.py`` (the writer process's CPU a commit, fed as the server feeds it): run tiny on a
``bench_writer.py --save`` recording, the real ``writer_child.Child`` writes the recording's rows (the
script checks the digest and exits 1 if it differs), and a bad flag is refused with one line (exit 2)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_a_tiny_run_writes_the_recorded_rows(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    made = _run("bench_writer.py", "--tables", "3", "--rounds", "2", "--reps", "1", "--save", str(rec))
    assert made.returncode == 0, made.stderr
    want = re.search(r"rows' digest (\w+)", made.stdout)
    assert want is not None, made.stdout
    prof = tmp_path / "child.prof"
    done = _run("child_cpu.py", "--load", str(rec), "--calls", "1,5", "--reps", "2", "--profile", str(prof))
    assert done.returncode == 0, done.stderr
    for per in (1, 5):
        line = rf"--calls +{per}: \d+ commits, child CPU a commit median \d+\.\d+ us .* FULL; digest {want.group(1)}"
        assert re.search(line, done.stdout), done.stdout
    assert prof.stat().st_size > 0


def test_a_bad_flag_is_refused_in_one_line(tmp_path: Path) -> None:
    for args in (["--calls", "1"], ["--load", str(tmp_path)], ["--load", str(tmp_path), "--sync", "x"]):
        got = _run("child_cpu.py", *args)
        assert got.returncode == 2 and got.stderr.count("\n") == 1 and got.stderr.startswith("error: "), got
