"""``bench/bench_writer.py`` (the writer's CPU per event, replaying the loop driver's recorded commits):
its replay writes exactly the rows the recorded run wrote (the digests of both databases agree), and a
kept recording replays to the same rows again (``--save`` / ``--load``), also regrouped (``--calls``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_writer.py"


def _run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--tables", "3", "--rounds", "3", "--reps", "1", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_replay_writes_what_the_run_wrote(tmp_path: Path) -> None:
    out = _run("--save", str(tmp_path / "rec"))
    m = re.search(r"(\d+) events replayed; rows' digest (\w+) \(the recording's own: (\w+)\)", out)
    assert m is not None, out
    assert int(m.group(1)) > 3 * 3 * 5
    assert m.group(2) == m.group(3)
    again = _run("--load", str(tmp_path / "rec"), "--frames", "--tenths")
    assert f"rows' digest {m.group(2)}" in again
    assert re.search(r"write_group thread CPU per event: median \d+\.\d+ us", again)
    t = re.search(r"write_group thread CPU per event by tenth of the replay \(us\): (.*)", again)
    assert t is not None and len(t.group(1).split()) == 10, again  # (a tenth of no commit reads 0.0)
    # the WAL's frames, each mapped to its b-tree: the events' own pages among them, no unknown page
    f = re.search(r"WAL frames written \(never checkpointed\): (\d+\.\d+) an event.*by b-tree: (.*)", again)
    assert f is not None, again
    assert 0 < float(f.group(1)) < 20 and "events " in f.group(2) and "? " not in f.group(2)
    # ``--calls 2``: the same calls regrouped two a commit write the same rows, and the CPU a commit
    two = _run("--load", str(tmp_path / "rec"), "--calls", "2")
    assert f"rows' digest {m.group(2)}" in two
    c = re.search(r"write_group thread CPU per commit: median \d+\.\d+ us; .* \((\d+\.\d+) calls, ", two)
    assert c is not None and 1.0 < float(c.group(1)) <= 2.0, two
    # PostgreSQL's Python (no server): its line, and the same texts (digest) on a second replay
    p = re.search(r"PostgreSQL's Python a commit \(best of 1\): rows \d+\.\d+ us, .* digest (\w+)", two)
    assert p is not None, two
    assert f"the texts' digest {p.group(1)}" in _run("--load", str(tmp_path / "rec"), "--calls", "2")


def test_an_unknown_option_is_refused() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--bogus"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: --bogus: the options are --calls, --frames, --load, --reps, --rounds, --save, --tables, --tenths"
    )
