"""``bench/writer_process.py`` (would a writer process lift the 100-table ratio: a measurement): run tiny on
a ``bench_writer.py --save`` recording, its three model writers write the recording's rows (the script
checks the digests and exits 1 if one differs), and each bad flag is refused with one line (exit 2)."""

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
def test_a_tiny_run_measures_and_writes_the_recorded_rows(tmp_path: Path) -> None:
    rec = tmp_path / "rec"
    made = _run("bench_writer.py", "--tables", "3", "--rounds", "2", "--reps", "1", "--save", str(rec))
    assert made.returncode == 0, made.stderr
    want = re.search(r"rows' digest (\w+)", made.stdout)
    assert want is not None, made.stdout
    args = [
        "--load",
        str(rec),
        "--reps",
        "1",
        "--calls",
        "4",
        "--burst",
        "3",
        "--window",
        "3",
        "--busy-us",
        "50",
        "--encoding",
        "marshal",  # (the child turns the tuples back into batches: the digest checks them)
    ]
    done = _run("writer_process.py", *args)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"in-thread writer .* median \d+\.\d+ us a commit", out), out
    for kind in ("pickle", "marshal", "json"):
        for via in ("pipe", "socket"):
            assert re.search(rf"ship {kind} +over {via} *: sender CPU median \d+\.\d+ us a commit", out), out
    for writer in ("none", "thread", "process"):
        assert re.search(rf"model {writer} *: \d+ actions/s median", out), out
    # the thread and process writers wrote the recording's rows (both burst and window kept small)
    assert re.search(r"ratio to no writer: thread \d+\.\d+x, process \d+\.\d+x .*, marshal, ", out), out
    assert re.search(rf"\); digests {want.group(1)}\n", out), out
    assert re.search(r"one core's cap as a ratio .*: thread \d+\.\d+x, process \d+\.\d+x\n$", out), out


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--bogus"],
            "error: --bogus: the options are --actions, --burst, --busy-us, --calls, --encoding, --extra-us, "
            "--load, --part, --reps, --window",
        ),
        ([], "error: --load '': a directory made by bench_writer.py --save DIR (commits.pkl, base.sqlite)"),
        (
            ["--load", "/nonexistent"],
            "error: --load '/nonexistent': a directory made by bench_writer.py --save "
            "DIR (commits.pkl, base.sqlite)",
        ),
    ],
)
def test_bad_flags_are_refused(args: list[str], line: str) -> None:
    done = _run("writer_process.py", *args)
    assert (done.returncode, done.stderr.strip(), done.stdout) == (2, line, "")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--calls", "0"], "error: --calls '0': a whole number >= 1"),
        (["--window", "x"], "error: --window 'x': a whole number >= 1"),
        (["--busy-us", "-3"], "error: --busy-us '-3': microseconds from 0 to 1000000"),
        (["--extra-us", "lots"], "error: --extra-us 'lots': microseconds from 0 to 1000000"),
        (["--part", "all"], "error: --part 'all': one of ship, model, both"),
        (["--encoding", "json"], "error: --encoding 'json': one of pickle, marshal"),
    ],
)
def test_bad_values_are_refused(tmp_path: Path, args: list[str], line: str) -> None:
    (tmp_path / "commits.pkl").write_bytes(b"")  # (the values are checked before anything is read)
    (tmp_path / "base.sqlite").write_bytes(b"")
    done = _run("writer_process.py", "--load", str(tmp_path), *args)
    assert (done.returncode, done.stderr.strip(), done.stdout) == (2, line, "")
