"""The parentcpu lane's measuring scripts run and refuse bad input with one line and exit 2:
``bench/store_stages/loop_store.py`` (the store's loop CPU a table call, a real writer process and
SQLite, against the same play with no store; ``--once`` for callgrind), ``handoff_cpu.py`` (the
recorder and its hand-off, deterministic) and ``settle_cpu.py --here`` (the commit completed on the
loop's own thread)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "store_stages"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)


def test_loop_store_measures_plays_once_and_refuses_bad_counts() -> None:
    ok = _run(str(BENCH / "loop_store.py"), "--tables", "3", "--rounds", "2", "--reps", "1")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert ok.stdout.startswith("loop CPU us a table call (") and "the store's share" in ok.stdout
    calls = int(ok.stdout.split(" calls): ")[0].rsplit(", ", 1)[1])
    assert calls > 3 * 2 * 5  # (every table call of two rounds at three tables)
    played = []
    for mode in ("store", "memory"):
        once = _run(str(BENCH / "loop_store.py"), "--tables", "3", "--rounds", "2", "--once", mode)
        assert once.returncode == 0, once.stderr[-2000:]
        assert once.stdout.startswith(f"loop_store --once {mode}: "), once.stdout
        played.append(int(once.stdout.split(": ")[1].split()[0]))
    assert played[0] == played[1] > 3 * 2 * 5  # (the same play, with and without the store)
    for bad in (["--tables", "0"], ["--rounds", "1001"], ["--reps", "0"], ["--src", "/nonexistent"]):
        r = _run(str(BENCH / "loop_store.py"), *bad)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "refused" in r.stderr, bad


def test_settle_cpu_here_measures() -> None:
    ok = _run(str(BENCH / "settle_cpu.py"), "3", "--tables", "2", "--passes", "2", "--here")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert "(2 passes of 3 commits of 2 waits)" in ok.stdout


def test_handoff_cpu_measures_plays_once_and_refuses_bad_counts() -> None:
    ok = _run(str(BENCH / "handoff_cpu.py"), "3", "--reps", "1")
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert (
        ok.stdout.startswith("recorder + hand-off CPU us a table call (")
        and "(1 reps of 3 rounds" in ok.stdout
    )
    rec = _run(str(BENCH / "handoff_cpu.py"), "3", "--once", "rec")
    bare = _run(str(BENCH / "handoff_cpu.py"), "3", "--once", "bare")
    assert rec.returncode == 0 and bare.returncode == 0, rec.stderr[-2000:] + bare.stderr[-2000:]
    assert int(rec.stdout.split(", ")[1].split()[0]) > 3 * 5  # every call of three rounds handed off
    assert bare.stdout.strip() == "handoff_cpu --once bare: 3 rounds, 0 table calls handed off"
    for bad in (["0"], ["3", "--reps", "0"], ["3", "--src", "/nonexistent"]):
        r = _run(str(BENCH / "handoff_cpu.py"), *bad)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "refused" in r.stderr, bad
