"""``bench/bench_history.py --driver loop`` (the server's way of playing tables: one asyncio loop,
``StorePersistence`` with group commit, each table awaiting its commit after every call) on a real
SQLite file with ``synchronous=FULL``: it plays every round, its records audit clean, and they are
exactly the events the thread driver records of the same tables (the same decisions, the same events
in the same order), so its figures are of the same work."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pontoon.history import open_store
from pontoon.history.audit import audit

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_history.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_history", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_history"] = mod
    spec.loader.exec_module(mod)
    return mod


def _records(url: str, tables: int) -> list[list[tuple[object, ...]]]:
    s = open_store(url)
    try:
        audit(s)
        return [
            [(e["round_no"], e["seq"], e["kind"], e["data"], e["clause"]) for e in s.events_(tid)]
            for tid in range(1, tables + 1)
        ]
    finally:
        s.close()


@pytest.mark.parametrize("profile", [False, True])
def test_the_loop_driver_plays_and_records_what_the_threads_do(
    tmp_path: Path, profile: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _bench()
    bench.PROFILE = profile  # ``--profile``: the loop thread's CPU split by part, printed
    tables, rounds = 3, 4
    got = {}
    for driver, play in (("loop", bench.run_loop), ("threads", bench.run)):
        url = f"sqlite:///{tmp_path / driver}.sqlite"
        s = open_store(url, synchronous="FULL")
        s.start_group()
        events, seconds, cpu_s, note = play(s, rounds, tables)
        s.close()
        assert events > tables * rounds * 5 and seconds > 0 and cpu_s >= 0
        assert "calls/commit; " in note and "writer" in note
        got[driver] = _records(url, tables)
        for evs in got[driver]:
            assert sum(1 for e in evs if e[2] == "round_start" and e[0] > 0) == rounds
        assert sum(len(e) for e in got[driver]) == events
    assert got["loop"] == got["threads"]
    out = capsys.readouterr().out
    assert ("loop thread CPU per event" in out) is profile
    from pontoon.history.group import GroupCommitter

    assert GroupCommitter.enqueue.__name__ == "enqueue"  # the timed methods were put back


def test_the_paced_driver_plays_at_its_pace_and_audits_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--driver paced``: every table's calls spaced ``--every`` s apart for ``--seconds``; the
    records it made audit clean and its note has the commit's wait and the young collections."""
    bench = _bench()
    monkeypatch.setattr(sys, "argv", ["bench_history.py", "--every", "0.05", "--burn-us", "100"])
    url = f"sqlite:///{tmp_path / 'paced'}.sqlite"
    s = open_store(url, synchronous="FULL")
    s.start_group()
    events, seconds, _cpu, note = bench.run_paced(s, 1.0, 3)
    s.close()
    # a call at most every 0.05 s a table, after its commit: at most 3 x 20 calls (a call is 1-3 events)
    assert 3 * 5 <= events <= 3 * 21 * 3 and seconds >= 1.0
    assert "commit wait ms p50 " in note and "young GCs " in note and "loop late p99 " in note
    s = open_store(url)
    try:
        audit(s)
    finally:
        s.close()


def test_a_key_file_that_cannot_be_read_is_one_line_and_exit_2(tmp_path: Path) -> None:
    import os
    import subprocess

    missing = tmp_path / "no-such-key"
    env = {
        **os.environ,
        "PONTOON_HISTORY_KEY_FILE": str(missing),
        "PYTHONPATH": str(BENCH.parents[1] / "src"),
    }
    got = subprocess.run(
        [sys.executable, str(BENCH), "2", "--tables", "1", "--no-pg"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 2
    assert got.stdout == ""
    assert got.stderr.splitlines() == [
        f"error: cannot read the history key file {missing} (PONTOON_HISTORY_KEY_FILE): No such file or directory"
    ]
