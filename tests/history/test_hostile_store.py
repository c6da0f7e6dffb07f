"""A hostile store (issue 29, items 1-4 and 6's stored rows): two writers on one table, audits beside
live writers, readers on foreign and empty files, read-only URLs, a hand-edited store with its chain
recomputed, and corrupted stored values. Real processes, a real SQLite file, a real PostgreSQL server."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pontoon.cli.app import run
from pontoon.history import HistoryError, open_store
from pontoon.history.audit import audit, replay_round
from pontoon.history.store import chain_hash, event_body
from tests.history.conftest import ROOT
from tests.history.driver import new_table, play


def _env() -> dict[str, str]:
    """The environment of a child process, read when it starts (the suite's fixtures point the
    history, the data directory and the seal key's config directory into a temporary directory)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]), COLUMNS="100")


def _pontoon(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=timeout,
    )


def _player(db: str, *args: str) -> subprocess.Popen[str]:
    """`pontoon play` waiting on its standard input (a pipe kept open): a live session."""
    return subprocess.Popen(
        [sys.executable, "-m", "pontoon.cli.app", "play", "--db", db, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )


def _lock_row(path: Path) -> tuple[str, ...] | None:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as c:
        try:
            row = c.execute("SELECT owner FROM table_leases WHERE web_id='term:1'").fetchone()
        except sqlite3.OperationalError:
            return None
    return None if row is None else tuple(row)


def _has_table(path: Path) -> bool:
    if not path.is_file():
        return False
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as c:
        try:
            return c.execute("SELECT count(*) FROM tables").fetchone()[0] > 0
        except sqlite3.OperationalError:
            return False


def _wait_for_table(path: Path, p: subprocess.Popen[str], timeout: float = 60) -> None:
    """Until the session's table is recorded (its lock is taken right after, in the same start-up)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert p.poll() is None, p.communicate()[1][-2000:]
        if _has_table(path):
            time.sleep(0.3)
            return
        time.sleep(0.05)
    raise AssertionError("the session never recorded its table")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _one_line_error(
    p: subprocess.CompletedProcess[str] | tuple[int, str, str], code: int, needle: str
) -> None:
    rc, err = (p.returncode, p.stderr) if isinstance(p, subprocess.CompletedProcess) else (p[0], p[2])
    assert rc == code, (rc, err[-2000:])
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert needle in err, err
    assert "internal error" not in err and "Traceback" not in err


# --------------------------------------------------------------------------------------------
# 3. readers never write; foreign and empty files; read-only URLs
def _foreign_file(path: Path, tables: list[str]) -> None:
    with contextlib.closing(sqlite3.connect(path)) as c:
        for i, name in enumerate(tables):
            c.execute(f'CREATE TABLE "{name}" (x INTEGER, y TEXT)')
            c.execute(f'INSERT INTO "{name}" VALUES (?, ?)', (i, "theirs"))
        c.commit()


def test_a_foreign_sqlite_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    _foreign_file(path, ["customers", "orders"])
    before = _sha(path)
    db = f"sqlite:///{path}"
    for args in (
        ["history"],
        ["history", "--audit"],
        ["replay", "1"],
        ["verify", "1"],
        ["play", "--rules", "mbs"],
    ):
        _one_line_error(_cli([*args, "--db", db]), 2, "is not a pontoon history")
    assert _sha(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]  # no -wal or -shm left
    with contextlib.closing(sqlite3.connect(path)) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(
        st.sampled_from(
            [
                "tables",
                "events",
                "ledger",
                "accounts",
                "rounds",
                "shoes",
                "drills",
                "alembic_version",
                "notes",
            ]
        ),
        min_size=1,
        max_size=6,
        unique=True,
    ).filter(
        lambda ns: (
            not ({"tables", "events", "ledger", "accounts", "rounds", "shoes", "alembic_version"} <= set(ns))
        )
    )
)
def test_any_foreign_schema_is_refused_by_reader_and_writer(tmp_path: Path, names: list[str]) -> None:
    d = tmp_path / hashlib.sha1(repr(names).encode()).hexdigest()[:10]
    d.mkdir()
    path = d / "x.sqlite"
    _foreign_file(path, names)
    before = _sha(path)
    for readonly in (True, False):
        with pytest.raises(HistoryError, match="is not a pontoon history"):
            open_store(f"sqlite:///{path}", readonly=readonly)
    assert _sha(path) == before


def test_readers_write_nothing_and_empty_files_stay_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    _one_line_error(_cli(["history", "--db", f"sqlite:///{empty}"]), 2, "the file is empty")
    assert empty.stat().st_size == 0
    path = tmp_path / "h.sqlite"
    s = open_store(f"sqlite:///{path}")
    t, rec = new_table(s, "mbs", 1)
    play(t, 1, 3)
    rec.close()
    s.close()
    with contextlib.closing(sqlite3.connect(path)) as c:  # a checkpointed file, as a closed writer leaves it
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = _sha(path)
    for args in (
        ["history"],
        ["history", "--audit"],
        ["history", "1"],
        ["replay", "1"],
        ["history", "--drills"],
    ):
        code, _out, err = _cli([*args, "--db", f"sqlite:///{path}"])
        assert code == 0, err
    assert _sha(path) == before


def test_read_only_urls_are_honoured(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    s = open_store(f"sqlite:///{path}")
    t, rec = new_table(s, "mbs", 1)
    play(t, 1, 2)
    rec.close()
    s.close()
    for url in (
        f"sqlite:///{path}?mode=ro",
        f"file:{path}?mode=ro",
        f"sqlite:///file:{path}?mode=ro&uri=true",
    ):
        code, out, err = _cli(["history", "--db", url, "--json"])
        assert code == 0 and err == "", err
        assert len(json.loads(out)) == 2
    _one_line_error(
        _cli(["play", "--db", f"sqlite:///{path}?mode=ro", "--rules", "mbs"]), 2, "is read-only (mode=ro)"
    )


def test_a_store_of_an_earlier_pontoon_still_opens_and_is_sealed_by_the_next_writer(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    url = f"sqlite:///{path}"
    s = open_store(url)
    t, rec = new_table(s, "mbs", 2)
    play(t, 2, 2)
    rec.close()
    s.close()
    with contextlib.closing(sqlite3.connect(path)) as c:  # as revision 0004 left it: no marker, no seals
        c.execute("ALTER TABLE tables ADD COLUMN last_hash VARCHAR(64) DEFAULT '' NOT NULL")  # before 0008
        c.execute("UPDATE tables SET last_hash = (SELECT last_hash FROM heads WHERE table_id = tables.id)")
        c.execute("DROP TABLE heads")
        c.execute("DROP TABLE pontoon_meta")
        c.execute("DROP TABLE web_sessions")  # revision 0006's (web logins), after 0005
        c.execute("DROP TABLE web_logins")
        c.execute("DROP INDEX ix_ledger_cashier")  # revision 0010's (0007's ix_ledger_player before it)
        c.execute("CREATE INDEX ix_events_round ON events (round_id)")  # dropped by revision 0009
        newest = (  # revision 0012's: the newest round's snapshot back in the table's row, as before it
            "FROM snapshots s JOIN rounds r ON r.id = s.round_id WHERE r.table_id = tables.id ORDER BY r.number "
            "DESC LIMIT 1"
        )
        c.execute(
            f"UPDATE tables SET state = (SELECT s.state {newest}), state_event = (SELECT (SELECT e.id FROM "
            f"events e WHERE e.round_id = r.id AND e.seq = 0) - 1 {newest})"
        )
        c.execute("DROP TABLE snapshots")
        c.execute("DROP INDEX uq_round_number")
        c.execute("CREATE UNIQUE INDEX uq_round ON rounds (table_id, number)")
        c.execute("UPDATE alembic_version SET version_num='0004'")
        c.execute("PRAGMA application_id=0")
        c.commit()
    r = open_store(url, readonly=True)
    assert not r.sealed and len(r.rounds_()) == 2
    with pytest.raises(HistoryError, match="predates sealed chains"):
        audit(r)
    r.close()
    open_store(url).close()  # a writer: revision 0005, the marker and the seals
    r = open_store(url, readonly=True)
    assert r.sealed and audit(r)["checked"]["sealed"] == 1
    r.close()


# --------------------------------------------------------------------------------------------
# 4. tamper evidence: a hand edit with the chain recomputed
def _fair_store(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'fair.sqlite'}"
    s = open_store(url)
    t, rec = new_table(s, "mbs", 7, fair=True, short_shoe=True)
    play(t, 7, 6)
    t.close()  # the shoe is retired: its seed revealed
    rec.close()
    s.close()
    return url


def _forge(url: str, round_no: int, *, key: object = None) -> None:
    """Change the first card dealt in ``round_no`` and that round's result, then recompute the hash
    chain and the head as someone editing the file would (and, with ``key``, the seal too)."""
    from sqlalchemy import text

    s = open_store(url)
    with s.engine.begin() as conn:
        e = conn.execute(
            text(
                "SELECT id, payload FROM events WHERE table_id=1 AND round_no=:r AND kind='card' ORDER BY id LIMIT 1"
            ),
            {"r": round_no},
        ).one()
        data = json.loads(e.payload)
        data["card"] = "AS" if data["card"] != "AS" else "KH"
        conn.execute(text("UPDATE events SET payload=:p WHERE id=:i"), {"p": json.dumps(data), "i": e.id})
        res = json.loads(
            conn.execute(text("SELECT result FROM rounds WHERE number=:r"), {"r": round_no}).scalar()
        )
        res["status"] = "settled"
        conn.execute(
            text("UPDATE rounds SET result=:x WHERE number=:r"), {"x": json.dumps(res), "r": round_no}
        )
    _rechain(s)
    if key is not None:
        with s.engine.begin() as conn:
            head = conn.execute(text("SELECT last_hash FROM heads WHERE table_id=1")).scalar()
            conn.execute(text("UPDATE heads SET seal=:s WHERE table_id=1"), {"s": key.seal(1, head)})  # type: ignore[attr-defined]
    s.close()


def _rechain(s: object) -> None:
    from sqlalchemy import text

    from pontoon.history.audit import _with_transfers

    store = s  # type: ignore[assignment]
    evs = store.events_(1)  # type: ignore[attr-defined]
    _with_transfers(store, 1, evs, None)  # type: ignore[arg-type]
    prev = ""
    with store.engine.begin() as conn:  # type: ignore[attr-defined]
        for e in evs:
            h = chain_hash(
                prev, event_body(e["round_no"], e["seq"], e["kind"], e["data"], e["clause"], e["transfers"])
            )
            conn.execute(
                text("UPDATE events SET prev_hash=:p, hash=:h WHERE id=:i"), {"p": prev, "h": h, "i": e["id"]}
            )
            prev = h
        conn.execute(text("UPDATE heads SET last_hash=:h WHERE table_id=1"), {"h": prev})


def test_a_hand_edit_with_the_chain_recomputed_is_caught_by_audit_and_replay(tmp_path: Path) -> None:
    url = _fair_store(tmp_path)
    s = open_store(url, readonly=True)
    rid = int(s.rounds_(table_id=1)[1]["id"])
    s.close()
    _forge(url, 2)
    a = _pontoon("history", "--audit", "--db", url)
    assert a.returncode == 1 and "seal of its chain head does not verify" in a.stderr, a.stderr
    r = _pontoon("replay", str(rid), "--db", url)
    assert r.returncode == 1 and "replay differs" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_an_operator_with_the_key_still_cannot_forge_a_fair_shoes_cards(tmp_path: Path) -> None:
    from pontoon.history.seal import history_key

    url = _fair_store(tmp_path)
    s = open_store(url, readonly=True)
    rid = int(s.rounds_(table_id=1)[1]["id"])
    s.close()
    _forge(url, 2, key=history_key(create=False))
    s = open_store(url, readonly=True)
    audit(s)  # with the key the chain and its seal can be remade: the audit alone cannot tell
    with pytest.raises(Exception, match="not the shoe's committed order"):
        replay_round(s, rid)
    s.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pick=st.integers(0, 10**6), value=st.one_of(st.integers(-5, 10**6), st.text(max_size=8)))
def test_any_forged_event_with_a_recomputed_chain_fails_the_audit(
    tmp_path: Path, base_store: Path, pick: int, value: object
) -> None:
    from sqlalchemy import text

    path = tmp_path / f"f{pick}-{abs(hash(value))}.sqlite"
    shutil.copy(base_store, path)
    s = open_store(f"sqlite:///{path}")
    with s.engine.begin() as conn:
        rows = conn.execute(text("SELECT id, payload FROM events WHERE table_id=1 ORDER BY id")).all()
        eid, payload = rows[pick % len(rows)]
        data = json.loads(payload)
        key = sorted(data)[pick % len(data)] if data else "forged"
        if data.get(key) == value:
            value = [value]
        data[key] = value
        conn.execute(text("UPDATE events SET payload=:p WHERE id=:i"), {"p": json.dumps(data), "i": eid})
    _rechain(s)
    s.close()
    r = open_store(f"sqlite:///{path}", readonly=True)
    with pytest.raises(HistoryError, match="seal of its chain head does not verify"):
        audit(r)
    r.close()


# --------------------------------------------------------------------------------------------
# 6 (stored rows): corrupted values are one named error, never an internal one
@pytest.fixture(scope="module")
def base_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pontoon.history.drills import save_drill

    d = tmp_path_factory.mktemp("base")
    path = d / "base.sqlite"
    s = open_store(f"sqlite:///{path}")
    t, rec = new_table(s, "mbs", 11)
    play(t, 11, 3)
    rec.close()
    save_drill(
        s,
        {
            "rules": "mbs",
            "only": "all",
            "hands": 3,
            "decisions": 4,
            "correct": 3,
            "accuracy": 0.75,
            "cost": 0.1,
            "cost_per_100_hands": 3.3,
            "worst": [{"spot": "16 v 10", "answer": "stand", "best": "hit", "cost": 0.1}],
        },
        seed=1,
    )
    s.close()
    with contextlib.closing(sqlite3.connect(path)) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


FIELDS = [
    ("events", "payload"),
    ("ledger", "amount"),
    ("ledger", "source"),
    ("accounts", "balance"),
    ("rounds", "result"),
    ("drills", "accuracy"),
    ("drills", "cost_per_100"),
    ("drills", "worst"),
    ("tables", "meta"),
    ("tables", "rules"),
]
BAD = st.one_of(
    st.sampled_from(
        [
            "",
            "{",
            "NaN",
            "Infinity",
            "-inf",
            "1e999999999",
            "9" * 5000,
            "[]",
            "null",
            '"x"',
            "{}",
            "[1]",
            '{"net": 5}',
            '{"total": "x"}',
        ]
    ),
    st.text(max_size=12),
)


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(args)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=BAD, row=st.integers(0, 50))
@example(field=("ledger", "source"), value="{}", row=48)  # an empty mapping as an account (found by CI)
def test_corrupted_stored_values_are_one_named_error(
    tmp_path: Path, base_store: Path, field: tuple[str, str], value: str, row: int
) -> None:
    path = tmp_path / f"c-{hashlib.sha1(repr((field, value, row)).encode()).hexdigest()[:12]}.sqlite"
    shutil.copy(base_store, path)
    table, col = field
    with contextlib.closing(sqlite3.connect(path)) as c:
        ids = [r[0] for r in c.execute(f"SELECT rowid FROM {table} ORDER BY rowid")]
        c.execute(f"UPDATE {table} SET {col}=? WHERE rowid=?", (value, ids[row % len(ids)]))
        c.commit()
    db = f"sqlite:///{path}"
    for args in (
        ["history"],
        ["history", "1"],
        ["history", "--audit"],
        ["replay", "1"],
        ["history", "--drills"],
        ["history", "--json"],
    ):
        code, _out, err = _cli([*args, "--db", db])
        assert "internal error" not in err, (args, err)
        assert code in (0, 1, 2), (args, code, err)
        if code:
            assert err.count("\n") == 1, (args, err)


@pytest.mark.parametrize(
    "column,value,needle",
    [
        ("meta", "[]", "tables row 1: meta"),
        ("meta", '{"game": "casino", "boxes": "x"}', "tables row 1: meta: boxes"),
        ("meta", '{"game": "casino", "boxes": 1, "bet": "NaN", "balance": "10", "player": "p"}', "meta: bet"),
        ("state", '{"shoe": 5}', "tables row 1: state"),
        ("state", "not json", "tables row 1: state"),
    ],
)
def test_resume_of_a_session_that_is_not_ours_is_one_named_error(
    tmp_path: Path, column: str, value: str, needle: str
) -> None:
    path = tmp_path / "h.sqlite"
    db = f"sqlite:///{path}"
    live = _player(db, "--rules", "mbs", "--seed", "3", "--rounds", "3")
    _wait_for_table(path, live)
    live.send_signal(signal.SIGKILL)
    live.communicate()
    with contextlib.closing(sqlite3.connect(path)) as c:
        c.execute(f"UPDATE tables SET {column}=? WHERE id=1", (value,))
        if column == "state":  # revision 0012: the latest snapshot is the newest round's, if any
            c.execute("UPDATE snapshots SET state=? WHERE round_id=(SELECT max(id) FROM rounds)", (value,))
        played = c.execute("SELECT count(*) FROM snapshots").fetchone()[0]
        c.commit()
    if column == "state" and played:
        needle = "snapshot of table 1's round"
    code, _out, err = _cli(["play", "--db", db, "--resume"])
    assert code == 2 and err.count("\n") == 1 and needle in err, err


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pick=st.integers(0, 10**6), value=JSONISH)
def test_an_event_of_the_wrong_shape_sealed_with_the_key_is_one_named_error(
    tmp_path: Path, base_store: Path, pick: int, value: object
) -> None:
    """Even a store whose seal verifies (remade by someone with the key) cannot crash a reader: an
    event field of the wrong shape is a replay difference or one named error, never an internal one."""
    from sqlalchemy import text

    from pontoon.history.seal import history_key

    path = tmp_path / f"w-{hashlib.sha1(repr((pick, value)).encode()).hexdigest()[:12]}.sqlite"
    shutil.copy(base_store, path)
    s = open_store(f"sqlite:///{path}")
    with s.engine.begin() as conn:
        rows = conn.execute(
            text("SELECT id, payload, round_no FROM events WHERE table_id=1 ORDER BY id")
        ).all()
        eid, payload, round_no = rows[pick % len(rows)]
        data = json.loads(payload)
        key = sorted(data)[pick % len(data)] if data else "x"
        data[key] = value
        conn.execute(text("UPDATE events SET payload=:p WHERE id=:i"), {"p": json.dumps(data), "i": eid})
        rid = conn.execute(text("SELECT id FROM rounds WHERE number=:r"), {"r": max(round_no, 1)}).scalar()
    _rechain(s)
    k = history_key(create=False)
    assert k is not None
    with s.engine.begin() as conn:
        head = conn.execute(text("SELECT last_hash FROM heads WHERE table_id=1")).scalar()
        conn.execute(text("UPDATE heads SET seal=:s WHERE table_id=1"), {"s": k.seal(1, head)})
    s.close()
    db = f"sqlite:///{path}"
    for args in (["history", str(rid)], ["replay", str(rid)], ["history", "--audit"], ["history", "--json"]):
        code, _out, err = _cli([*args, "--db", db])
        assert "internal error" not in err, (args, err)
        assert code in (0, 1, 2) and (code == 0 or err.count("\n") == 1), (args, code, err)
