"""The hostile store's concurrent half (issue 29, items 1 and 2): two writers on one table in real
processes (a second `play --resume` beside a live session, two at once after a kill, an expired lock of
another host), and `history --audit` / `replay` in a loop beside writing processes on SQLite and on
PostgreSQL. The stored-row half is ``test_hostile_store.py``, whose helpers these tests share."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pontoon.history import open_store
from pontoon.history.audit import audit, replay_round
from tests.history.conftest import DRIVER
from tests.history.pg import module_cluster
from tests.history.test_hostile_store import (
    _env,
    _lock_row,
    _one_line_error,
    _player,
    _pontoon,
    _wait_for_table,
)


# --------------------------------------------------------------------------------------------
# 1. one writer per table
def test_resume_while_the_session_plays_elsewhere_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    db = f"sqlite:///{path}"
    live = _player(db, "--rules", "mbs", "--seed", "3", "--rounds", "2")
    try:
        _wait_for_table(path, live)
        second = _pontoon("play", "--db", db, "--resume", stdin="\n" * 50)
        _one_line_error(second, 2, f"session 1 is in use by process {live.pid}")
        owner = _lock_row(path)
        assert owner is not None and f":{live.pid}:" in owner[0]
        # the live session was not disturbed: it plays on and ends normally
        out, err = live.communicate("\ns\n" * 20, timeout=120)
        assert live.returncode == 0, err[-2000:]
        assert "internal error" not in err and "IntegrityError" not in err
    finally:
        if live.poll() is None:
            live.kill()
            live.communicate()
    s = open_store(db)
    audit(s)
    assert s.table(1)["status"] == "closed"
    s.close()
    assert _lock_row(path) is None  # released at the end


def test_two_resumes_at_once_one_wins_and_a_dead_writers_lock_is_recovered(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    db = f"sqlite:///{path}"
    first = _player(db, "--rules", "mbs", "--seed", "5", "--rounds", "4")
    _wait_for_table(path, first)
    first.send_signal(signal.SIGKILL)  # a dead writer: its lock row stays, naming a dead pid
    first.communicate()
    assert _lock_row(path) is not None
    both = [_player(db, "--resume") for _ in range(2)]
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and all(p.poll() is None for p in both):
            time.sleep(0.05)
        refused = [p for p in both if p.poll() is not None]
        assert len(refused) == 1, [p.poll() for p in both]
        err = refused[0].communicate()[1]
        assert refused[0].returncode == 2 and err.count("\n") == 1 and "is in use by process" in err, err
        winner = next(p for p in both if p is not refused[0])
        owner = _lock_row(path)  # the dead process's lock was recovered by the winner
        assert owner is not None and f":{winner.pid}:" in owner[0]
        _out, err = winner.communicate("\ns\n" * 40, timeout=120)
        assert winner.returncode == 0, err[-2000:]
    finally:
        for p in both:
            if p.poll() is None:
                p.kill()
                p.communicate()
    s = open_store(db)
    audit(s)
    s.close()


def test_an_expired_lock_of_another_host_is_taken_and_its_holder_fenced(tmp_path: Path) -> None:
    from sqlalchemy import insert, update

    from pontoon.history.accounts import table_leases
    from pontoon.history.leases import LeaseLost
    from pontoon.history.locks import SessionInUse, SessionLock
    from pontoon.history.store import Batch, Row

    s = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    tid = s.create_table("casino", "mbs", {}, label="terminal")
    with s.engine.begin() as conn:
        conn.execute(
            insert(table_leases).values(
                web_id=f"term:{tid}", owner="elsewhere:4242:1", epoch=3, address="", expires=time.time() + 60
            )
        )
    lock = SessionLock(s, tid)
    with pytest.raises(SessionInUse, match="in use by process 4242 on elsewhere"):
        lock.acquire()
    with s.engine.begin() as conn:  # its holder went quiet past the expiry
        conn.execute(update(table_leases).values(expires=time.time() - 1))
    lock.attach()
    assert lock.epoch == 4
    s.append(tid, Batch(rows=[Row(0, 0, "note", {})]))  # our write passes the fence
    with s.engine.begin() as conn:  # and another process takes it over in turn
        conn.execute(update(table_leases).values(owner="elsewhere:4243:1", epoch=5))
    with pytest.raises(LeaseLost):
        s.append(tid, Batch(rows=[Row(0, 1, "note", {})]))
    assert len(s.events_(tid)) == 1
    s.close()


# --------------------------------------------------------------------------------------------
# 2. audits beside live writers read one snapshot
def _audit_beside_writers(url: str, jobs: list[tuple[str, int]], rounds: int) -> int:
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(DRIVER),
                "--db",
                url,
                "--preset",
                p,
                "--seed",
                str(s),
                "--rounds",
                str(rounds),
            ],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p, s in jobs
    ]
    audits = 0
    try:
        while any(p.poll() is None for p in procs):
            s = open_store(url, readonly=True)
            try:
                audit(s)  # raises HistoryError on any discrepancy: there must be none
                rounds_seen = [r["id"] for r in s.rounds_() if r["status"] != "open"]
                if rounds_seen:
                    replay_round(s, rounds_seen[-1])
            finally:
                s.close()
            audits += 1
    finally:
        for p in procs:
            _out, err = p.communicate(timeout=180)
            assert p.returncode == 0, err[-2000:]
    return audits


def test_audit_in_a_loop_beside_two_writers_never_cries_wolf(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    open_store(url).close()
    n = _audit_beside_writers(url, [("mbs", 1), ("british", 2)], 14)
    assert n >= 3  # the audits really ran while the writers wrote


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.postgres
def test_audit_beside_writers_on_postgresql(pg: str) -> None:
    from tests.history.pg import create_db

    url = create_db(pg, "hostile_audit")
    open_store(url).close()
    assert _audit_beside_writers(url, [("federal", 3), ("shoot", 4)], 10) >= 3


@pytest.mark.postgres
def test_a_foreign_or_empty_postgresql_database_is_refused_and_left_alone(pg: str) -> None:
    import psycopg

    from pontoon.history import HistoryError
    from tests.history.pg import create_db

    url = create_db(pg, "hostile_foreign")
    host, port = url.split("host=")[1].split("&")[0], url.split("port=")[1]
    with pytest.raises(HistoryError, match="no history in the database"):
        open_store(url, readonly=True)  # empty: a reader writes no schema into it
    with psycopg.connect(
        host=host, port=port, user="postgres", dbname="hostile_foreign", autocommit=True
    ) as c:
        assert c.execute("SELECT count(*) FROM pg_tables WHERE schemaname='public'").fetchone() == (0,)
        c.execute("CREATE TABLE customers (id int)")
    for readonly in (True, False):
        with pytest.raises(HistoryError, match="is not a pontoon history"):
            open_store(url, readonly=readonly)
    with psycopg.connect(host=host, port=port, user="postgres", dbname="hostile_foreign") as c:
        names = [r[0] for r in c.execute("SELECT tablename FROM pg_tables WHERE schemaname='public'")]
    assert names == ["customers"]
