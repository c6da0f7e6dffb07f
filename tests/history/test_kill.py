"""Kill tests: scripted play in a subprocess, SIGKILL at event boundaries (after a commit), inside a
write transaction (after its statements, before COMMIT), and at a random moment from outside; then
restart with --resume and finish. The result must equal an uninterrupted run with the same seeds:
the same events (hash chain), the same ledger rows (none lost or doubled), the same balances, and
``PRAGMA integrity_check`` ok and the audit clean.

``PONTOON_CRASH_AT=inside:N|after:N`` (store.py) is the test-only fault injection: the N-th write
transaction of the process. A few kills run in CI; ``-m slow`` runs many seeds and prints the figures.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from pontoon.fair import records_from_events, verify_record
from pontoon.history import open_store
from pontoon.history.audit import audit
from tests.history.conftest import DRIVER, ROOT, dump, run_driver
from tests.history.driver import BRITISH, CASINO, finish, new_table, play


def _reference(tmp: Path, preset: str, seed: int, rounds: int, fair: bool = False) -> dict[str, object]:
    s = open_store(f"sqlite:///{tmp / f'ref-{preset}-{seed}-{fair}.sqlite'}")
    t, rec = new_table(s, preset, seed, fair=fair, short_shoe=fair)  # as driver.py --fair
    play(t, seed, rounds)
    finish(t, rec)
    out = dump(s)
    s.close()
    return out


def _killed_run(
    tmp: Path,
    preset: str,
    seed: int,
    rounds: int,
    crashes: list[str],
    stats: Counter[str],
    fair: bool = False,
) -> dict[str, object]:
    url = f"sqlite:///{tmp / f'kill-{preset}-{seed}-{fair}.sqlite'}"
    first = True
    finished = False
    for crash in crashes:
        args = ["--preset", preset, "--seed", str(seed), "--rounds", str(rounds)] + (
            [] if first else ["--resume"]
        )
        args += ["--fair"] if fair else []
        p = run_driver(url, *args, crash=crash)
        if p.returncode == 0:
            finished = True  # the run finished before the crash point
            break
        assert p.returncode == -signal.SIGKILL, p.stderr[-2000:]
        first = False
        stats["kills"] += 1
        stats[crash.split(":")[0]] += 1
        s = open_store(url)
        evs = s.events_(1)
        stats[f"last:{evs[-1]['kind'] if evs else 'none'}"] += 1
        s.close()
    if not finished:
        p = run_driver(
            url,
            "--preset",
            preset,
            "--seed",
            str(seed),
            "--rounds",
            str(rounds),
            *([] if first else ["--resume"]),
            *(["--fair"] if fair else []),
        )
        assert p.returncode == 0, p.stderr[-2000:]
    s = open_store(url)
    assert s.integrity() == "ok"
    audit(s)
    out = dump(s)
    assert s.tables_(status="open") == []
    s.close()
    return out


@pytest.mark.parametrize("preset", ["rws-pandemonium", "shoot"])
def test_kills_at_boundaries_and_inside_transactions(tmp_path: Path, preset: str) -> None:
    stats: Counter[str] = Counter()
    want = _reference(tmp_path, preset, 3, 12)
    first = "inside:1" if preset == "shoot" else "inside:4"  # inside:1: the new table's own transaction
    got = _killed_run(tmp_path, preset, 3, 12, [first, "after:9", "inside:15"], stats)
    assert got == want
    assert stats["kills"] == 3


@pytest.mark.parametrize("preset", ["mbs", "british"])
def test_kills_on_a_fair_table_equal_the_uninterrupted_run(tmp_path: Path, preset: str) -> None:
    """A fair table (FairShuffler in test mode) killed three times: the same shoes, commitments,
    next commitments and revealed seeds as the uninterrupted run, and every shoe verifies."""
    stats: Counter[str] = Counter()
    want = _reference(tmp_path, preset, 6, 14, fair=True)
    kinds = [e[2] for e in want["events"]]  # type: ignore[attr-defined]
    assert kinds.count("new_shoe") >= 2 and kinds.count("shoe_retired") == kinds.count("new_shoe")
    got = _killed_run(tmp_path, preset, 6, 14, ["inside:2", "after:8", "inside:20"], stats, fair=True)
    assert got == want
    assert stats["kills"] == 3
    events = [(e[2], e[3]) for e in got["events"]]  # type: ignore[attr-defined]
    records = records_from_events(events)
    assert len(records) == kinds.count("shoe_retired")
    assert all(verify_record(r).ok for r in records)


def test_sigkill_from_outside_at_a_random_moment(tmp_path: Path) -> None:
    rng = np.random.default_rng(2026)
    want = _reference(tmp_path, "federal", 8, 60)
    url = f"sqlite:///{tmp_path / 'outside.sqlite'}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    p = subprocess.Popen(
        [sys.executable, str(DRIVER), "--db", url, "--preset", "federal", "--seed", "8", "--rounds", "60"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # wait until the table is recording, then kill at a random moment
    deadline = time.time() + 60
    while time.time() < deadline and p.poll() is None:
        try:
            s = open_store(url)
            n = len(s.events_(1)) if s.tables_() else 0
            s.close()
        except Exception:
            n = 0
        if n > 5:
            break
        time.sleep(0.05)
    time.sleep(float(rng.uniform(0.0, 0.3)))
    killed = p.poll() is None
    if killed:
        p.send_signal(signal.SIGKILL)
    p.communicate(timeout=60)
    s = open_store(url)
    finished = bool(s.tables_()) and not s.tables_(status="open")  # the kill came after the table's close
    s.close()
    if not finished:  # killed mid-play (or before the first commit): resume, or start, and finish
        more = ["--resume"] if _has_table(url) else ["--preset", "federal"]
        q = run_driver(url, "--seed", "8", "--rounds", "60", *more)
        assert q.returncode == 0, q.stdout[-500:] + q.stderr[-2000:]
    s = open_store(url)
    assert s.integrity() == "ok"
    audit(s)
    assert dump(s) == want
    s.close()


def _has_table(url: str) -> bool:
    s = open_store(url)
    try:
        return bool(s.tables_())
    finally:
        s.close()


def _play(db: str, args: list[str], text: str, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="100")
    env.pop("PONTOON_CRASH_AT", None)
    if crash:
        env["PONTOON_CRASH_AT"] = crash
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", "play", "--db", db, *args],
        input=text,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize("rules,answers", [("mbs", "\ns\n"), ("british", "\n")])
def test_pontoon_play_resume_after_a_kill(tmp_path: Path, rules: str, answers: str) -> None:
    """A killed `pontoon play` resumes with nothing lost: the same rounds, balance and chain head."""
    text = answers * 200
    ref_db = f"sqlite:///{tmp_path / 'ref.sqlite'}"
    ref = _play(ref_db, ["--rules", rules, "--seed", "4", "--rounds", "6"], text)
    assert ref.returncode == 0, ref.stderr
    db = f"sqlite:///{tmp_path / 'play.sqlite'}"
    killed = _play(db, ["--rules", rules, "--seed", "4", "--rounds", "6"], text, crash="after:12")
    assert killed.returncode == -signal.SIGKILL
    resumed = _play(db, ["--resume", "--rounds", "6"], text)
    assert resumed.returncode == 0, resumed.stderr
    a, b = open_store(ref_db), open_store(db)
    assert dump(a) == dump(b)
    assert a.table(1)["status"] == b.table(1)["status"] == "closed"
    audit(b)
    last = [ln for ln in ref.stdout.splitlines() if ln.strip()][-1]
    assert last.split("(")[0].split(";")[-1] in resumed.stdout  # the same final balance line
    a.close()
    b.close()


def test_resume_without_a_killed_session_is_a_one_line_error(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    p = _play(db, ["--resume"], "")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no unfinished terminal session" in p.stderr
    p = _play(db, ["--resume", "--bet", "5"], "")
    assert p.returncode == 2 and "leave out --bet" in p.stderr


@pytest.mark.slow
def test_many_seeds_many_kills(tmp_path: Path) -> None:
    rng = np.random.default_rng(12)
    stats: Counter[str] = Counter()
    runs = 0
    for preset in CASINO + BRITISH:
        for seed, fair in [(0, False), (1, False), (2, False), (3, False), (4, True), (5, True), (6, True)]:
            want = _reference(tmp_path, preset, seed, 15, fair=fair)
            n = len(want["events"])  # type: ignore[arg-type]
            points = sorted(int(x) for x in rng.integers(2, max(3, n // 2), size=3))
            crashes = [f"{'inside' if rng.random() < 0.5 else 'after'}:{p}" for p in points]
            assert _killed_run(tmp_path, preset, seed, 15, crashes, stats, fair=fair) == want
            runs += 1
            stats["fair_runs"] += fair
    report = {"runs": runs, **stats}
    (tmp_path / "kill-figures.json").write_text(json.dumps(report))
    print("kill figures:", json.dumps(report, sort_keys=True))
    assert stats["kills"] >= runs
