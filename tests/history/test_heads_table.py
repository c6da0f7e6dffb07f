"""Revision 0008: the chain heads and seals in ``heads``, out of ``tables`` (issue 25, the write path).

A store written at revision 0007 (heads in ``tables``) is upgraded by the next writer: the heads and
seals move as they are, the audit verifies the chains and seals, and the tables recover and play on
to exactly the records of a table never interrupted. The ``heads`` row always equals the table's last
event (and a head edited by hand is caught).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect

from pontoon.history import open_store, recover
from pontoon.history.audit import audit
from pontoon.history.engines import SCHEMA_HEAD, HistoryError
from tests.history.conftest import alembic as _alembic
from tests.history.conftest import dump
from tests.history.driver import new_table, play
from tests.history.pg import cluster, create_db, pg_bin

SEEDS = (3, 4)


def _columns(url: str) -> dict[str, set[str]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        insp = inspect(conn)
        out = {t: {c["name"] for c in insp.get_columns(t)} for t in insp.get_table_names()}
    engine.dispose()
    return out


def _fks(url: str) -> set[tuple[str, tuple[str, ...]]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        insp = inspect(conn)
        out = {
            (t, tuple(fk["constrained_columns"]))
            for t in insp.get_table_names()
            for fk in insp.get_foreign_keys(t)
        }
    engine.dispose()
    return out


def _reference(url: str, rounds: int) -> list[dict[str, object]]:
    s = open_store(url)
    for seed in SEEDS:
        t, rec = new_table(s, "mbs", seed, fair=True)
        play(t, seed, rounds)
        rec.detach()
    out = [dump(s, i) for i in (1, 2)]
    s.close()
    return out


def _upgrade_and_play_on(url: str, fresh_0007: str, want: list[dict[str, object]], rounds: int) -> None:
    s = open_store(url)
    for seed in SEEDS:  # half the rounds, at the newest revision
        t, rec = new_table(s, "mbs", seed, fair=True)
        play(t, seed, rounds // 2)
        rec.detach()
    heads = {i: s.table(i)["last_hash"] for i in (1, 2)}
    seals = {i: s.table(i)["seal"] for i in (1, 2)}
    s.close()

    _alembic(url, "downgrade", "0007")  # the store as revision 0007 left it: heads in ``tables``
    _alembic(fresh_0007, "upgrade", "0007")
    assert _columns(url) == _columns(fresh_0007) and _fks(url) == _fks(fresh_0007)
    assert ("ledger", ("event_id",)) in _fks(url)
    assert "heads" not in _columns(url) and {"last_hash", "seal"} <= _columns(url)["tables"]

    r = open_store(url, readonly=True)  # a reader of the old revision: nothing migrated
    assert r.revision == "0007" and r.sealed
    assert {i: r.table(i)["last_hash"] for i in (1, 2)} == heads
    assert audit(r)["checked"]["sealed"] == 2
    r.close()

    s = open_store(url)  # the next writer upgrades it
    assert s.revision == SCHEMA_HEAD  # 0008 and on (0009: an unread index dropped)
    cols = _columns(url)
    heads_cols = {"table_id", "last_hash", "seal", "rounds"}  # (0012: each table's newest round number)
    assert cols["heads"] == heads_cols and not {"last_hash", "seal"} & cols["tables"]
    assert {i: s.table(i)["last_hash"] for i in (1, 2)} == heads
    assert {i: s.table(i)["seal"] for i in (1, 2)} == seals
    links = {f for f in _fks(url) if f[0] in ("events", "ledger")}
    if url.startswith("postgresql"):  # revision 0008 drops them there: the audit checks the links
        assert not links
    else:
        assert len(links) == 5
    assert audit(s)["checked"]["sealed"] == 2
    got = recover(s)
    assert len(got) == 2
    for seed, g in zip(SEEDS, got, strict=True):
        play(g.table, seed, rounds)
        g.recorder.detach()
    assert [dump(s, i) for i in (1, 2)] == want
    for i in (1, 2):
        assert s.table(i)["last_hash"] == s.events_(i)[-1]["hash"]
    assert audit(s)["checked"]["sealed"] == 2
    s.close()


def test_a_revision_0007_sqlite_store_is_upgraded_verified_and_plays_on(tmp_path: Path) -> None:
    rounds = 6
    want = _reference(f"sqlite:///{tmp_path / 'ref.sqlite'}", rounds)
    _upgrade_and_play_on(
        f"sqlite:///{tmp_path / 'old.sqlite'}", f"sqlite:///{tmp_path / 'fresh.sqlite'}", want, rounds
    )


@pytest.mark.skipif(pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin)")
def test_a_revision_0007_postgresql_store_is_upgraded_verified_and_plays_on(tmp_path: Path) -> None:
    rounds = 4
    want = _reference(f"sqlite:///{tmp_path / 'ref.sqlite'}", rounds)
    with cluster() as base:
        _upgrade_and_play_on(create_db(base, "old"), create_db(base, "fresh"), want, rounds)


def test_the_heads_row_follows_every_write_and_a_moved_head_is_caught(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    s = open_store(url)
    s.start_group()
    made = [new_table(s, "mbs", seed) for seed in SEEDS]
    for n in range(1, 4):
        for seed, (t, _rec) in zip(SEEDS, made, strict=True):
            play(t, seed, n)
            tid = _rec.table_id
            assert s.table(tid)["last_hash"] == s.events_(tid)[-1]["hash"]
    heads: dict[int, Any] = {int(r[0]): r for r in _rows(tmp_path / "h.sqlite")}
    assert set(heads) == {1, 2}  # one row a table, no more
    for _t, rec in made:
        rec.detach()
    s.close()
    with closing(sqlite3.connect(tmp_path / "h.sqlite")) as c:  # the head moved back one event by hand
        prev = c.execute("SELECT prev_hash FROM events WHERE table_id=1 ORDER BY id DESC LIMIT 1").fetchone()[
            0
        ]
        c.execute("UPDATE heads SET last_hash=? WHERE table_id=1", (prev,))
        c.commit()
    r = open_store(url, readonly=True)
    with pytest.raises(HistoryError, match="table 1"):
        audit(r)
    r.close()


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as c:
        return list(c.execute("SELECT table_id, last_hash, seal FROM heads"))


def _two_tables(tmp_path: Path) -> Path:
    path = tmp_path / "links.sqlite"
    s = open_store(f"sqlite:///{path}")
    for seed in SEEDS:
        t, rec = new_table(s, "mbs", seed)
        play(t, seed, 2)
        rec.detach()
    audit(s)
    s.close()
    return path


def test_a_ledger_row_moved_to_another_tables_event_is_named_by_the_audit(tmp_path: Path) -> None:
    path = _two_tables(tmp_path)
    with closing(sqlite3.connect(path)) as c:  # foreign keys satisfied: the event exists (table 2's)
        lid = c.execute("SELECT id FROM ledger WHERE table_id=1 ORDER BY id DESC LIMIT 1").fetchone()[0]
        other = c.execute("SELECT id FROM events WHERE table_id=2 ORDER BY id DESC LIMIT 1").fetchone()[0]
        c.execute("UPDATE ledger SET event_id=? WHERE id=?", (other, lid))
        c.commit()
    r = open_store(f"sqlite:///{path}", readonly=True)
    with pytest.raises(HistoryError, match=f"ledger row {lid} .*belongs to no event of the table"):
        audit(r)
    r.close()


def test_an_event_naming_another_round_row_is_caught_by_the_audit(tmp_path: Path) -> None:
    path = _two_tables(tmp_path)
    with closing(sqlite3.connect(path)) as c:  # the round row of table 2's round 1: it exists
        other = c.execute("SELECT id FROM rounds WHERE table_id=2 AND number=1").fetchone()[0]
        eid = c.execute(  # (a seq that round has not: revision 0011's key (round_id, seq) refuses one it has)
            "SELECT id FROM events WHERE table_id=1 AND round_no=2 AND seq NOT IN "
            "(SELECT seq FROM events WHERE round_id=?) LIMIT 1",
            (other,),
        ).fetchone()[0]
        c.execute("UPDATE events SET round_id=? WHERE id=?", (other, eid))
        c.commit()
    r = open_store(f"sqlite:///{path}", readonly=True)
    with pytest.raises(HistoryError, match=f"event {eid} .*names round row {other}"):
        audit(r)
    r.close()
