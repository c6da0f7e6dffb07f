"""Revision 0011: the events keyed by their round row (``uq_event_round`` (round_id, seq): a commit appends
to it) and the table's own events (round 0, no round row) by table (``uq_event_table``, partial), instead
of ``uq_event`` (table_id, round_no, seq), which took a leaf page per table in every group commit.

A store written at revision 0010 is upgraded by the next writer (foreign keys on: the ledger's rows
name the events the upgrade copies): every row stays with its id, the audit verifies the chains and
seals, the tables recover and play on. A table's events read through its round rows are exactly its
events by table (every table, every round, after any id). An event is still written once per (table,
round, seq): a copy of a round's event or of a table's own event is refused. The reads of a table's
events and of its ledger are planned on the new keys (no scan of the events), on 2 tables and 12.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.history.engines import SCHEMA_HEAD
from tests.history.conftest import alembic as _alembic
from tests.history.conftest import dump
from tests.history.pg import cluster, create_db, pg_bin
from tests.history.test_events_round_index import (
    _counts,
    _played,
    _recovers_and_plays_on,
    _statements_of_reads,
)

TABLES = (("mbs", 3), ("british", 4))
COLUMNS = "id, table_id, round_id, round_no, seq, kind, payload, clause, created, prev_hash, hash"


def _event_keys(url: str) -> list[tuple[str, ...]]:
    """The events' unique keys (constraints and unique indexes)."""
    engine = create_engine(url)
    with engine.connect() as conn:
        insp = inspect(conn)
        keys = [u["column_names"] for u in insp.get_unique_constraints("events")]
        keys += [i["column_names"] for i in insp.get_indexes("events") if i.get("unique")]
    engine.dispose()
    return sorted({tuple(str(c) for c in k) for k in keys})  # (PostgreSQL lists a constraint twice)


def _rows(url: str, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        out = [tuple(r) for r in conn.execute(text(sql), params or {})]
    engine.dispose()
    return out


def _upgraded_keeps_its_rows(url: str, rounds: int) -> None:
    before = _played(url, rounds)
    _alembic(url, "downgrade", "0010")  # the store as revision 0010 left it
    assert _event_keys(url) == [("table_id", "round_no", "seq")]  # uq_event
    counts = _counts(url)
    events = _rows(url, f"SELECT {COLUMNS} FROM events ORDER BY id")
    r = open_store(url, readonly=True)  # a reader of the old revision: nothing migrated
    assert r.revision == "0010" and audit(r)["checked"]["sealed"] == 2
    assert [dump(r, i) for i in (1, 2)] == before
    r.close()

    s = open_store(url)  # the next writer upgrades it
    assert s.revision == SCHEMA_HEAD
    assert _event_keys(url) == [("round_id", "seq"), ("table_id", "round_no", "seq")]
    assert _counts(url) == counts and counts["events"] > 100
    assert _rows(url, f"SELECT {COLUMNS} FROM events ORDER BY id") == events  # every row, its id kept
    assert [dump(s, i) for i in (1, 2)] == before
    _recovers_and_plays_on(s, url, counts, rounds)


def test_a_revision_0010_sqlite_store_is_upgraded_keeps_its_rows_and_verifies(tmp_path: Path) -> None:
    _upgraded_keeps_its_rows(f"sqlite:///{tmp_path / 'old.sqlite'}", 4)


@pytest.mark.skipif(pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin)")
def test_a_revision_0010_postgresql_store_is_upgraded_keeps_its_rows_and_verifies() -> None:
    with cluster() as base:
        url = create_db(base, "old")
        _upgraded_keeps_its_rows(url, 3)
        _each_read_is_every_event_by_table(url)
        _a_copy_is_refused(url)


def _each_read_is_every_event_by_table(url: str) -> None:
    s = open_store(url, readonly=True)
    by_table = "SELECT id FROM events WHERE table_id = :t AND id > :a{r} ORDER BY id"
    seen: set[int] = set()
    for t in (1, 2):
        ids = [i for (i,) in _rows(url, by_table.format(r=""), {"t": t, "a": 0})]
        numbers = [
            n for (n,) in _rows(url, "SELECT DISTINCT round_no FROM events WHERE table_id = :t", {"t": t})
        ]
        assert len(numbers) > 3
        seen.update(numbers)
        for after in (0, ids[0], ids[len(ids) // 2], ids[-1]):
            want = [i for (i,) in _rows(url, by_table.format(r=""), {"t": t, "a": after})]
            assert [e["id"] for e in s.events_(t, after_id=after)] == want
            for n in numbers:
                q = by_table.format(r=" AND round_no = :n")
                want = [i for (i,) in _rows(url, q, {"t": t, "a": after, "n": n})]
                assert [e["id"] for e in s.events_(t, after_id=after, round_no=n)] == want
    assert 0 in seen  # (the fair table's shoes: its own events, round 0)
    s.close()


def _a_copy_is_refused(url: str) -> None:
    """A second event of a round's (table, round, seq), and of the table's own (round 0), is refused."""
    from sqlalchemy.exc import IntegrityError

    engine = create_engine(url)
    for where in ("round_no > 0", "round_no = 0"):
        with engine.connect() as conn:
            row = conn.execute(text(f"SELECT {COLUMNS} FROM events WHERE {where} ORDER BY id LIMIT 1")).one()
            copy = dict(row._mapping)
            copy.pop("id")
            names = ", ".join(copy)
            with pytest.raises(IntegrityError):
                conn.execute(text(f"INSERT INTO events ({names}) VALUES (:{', :'.join(copy)})"), copy)
            conn.rollback()
    engine.dispose()


def test_each_read_is_every_event_of_the_table_and_a_copy_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'reads.sqlite'}"
    _played(url, 4)
    _each_read_is_every_event_by_table(url)
    _a_copy_is_refused(url)


@pytest.mark.parametrize("tables", [2, 12])
def test_the_reads_of_events_use_the_new_keys(tmp_path: Path, tables: int) -> None:
    path = tmp_path / "plan.sqlite"
    url = f"sqlite:///{path}"
    _played(url, 3, tuple(("mbs" if i % 2 else "british", i) for i in range(1, tables + 1)))
    sent = _statements_of_reads(path)
    # (the audit's one pass of the events for those of no table's read, ``EVENT_STRAYS``, is a scan)
    selects = {
        (st, tuple(p) if isinstance(p, list | tuple) else ())
        for st, p in sent
        if "FROM events" in st and "LEFT JOIN rounds" not in st
    }
    assert any("LEFT JOIN rounds" in st for st, _p in sent)  # (the audit asked for them)
    plans: dict[str, str] = {}
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as c:
        for st, p in selects:
            plans[st] = " | ".join(str(r[-1]) for r in c.execute(f"EXPLAIN QUERY PLAN {st}", p))
    assert len(plans) >= 4  # the table's events, a round's, after an id; the ledger's through them
    for st, steps in plans.items():
        assert "SCAN events" not in steps and "SCAN e " not in steps, (st, steps)
        assert "uq_event_round (round_id=?" in steps, (st, steps)
    whole = [st for st in plans if "UNION ALL" in st]
    assert whole and all("uq_event_table (table_id=?" in plans[st] for st in whole)
