"""Revision 0010: the ledger's idem unique per event (``uq_ledger_idem`` (event_id, idem): a commit
appends to it; a table's ledger is read through its events) and only the cashier rows indexed by player
(``ix_ledger_cashier``): fewer pages written per event.

A store written at revision 0009 is upgraded by the next writer: every row stays with its id, the audit
verifies the chains and seals, the tables recover and play on, and a ledger row is still booked once.
The reads of a table's ledger (and of one round's) and of an account's cashier rows are planned on the
new indexes (no scan of the ledger, on a store of 2 tables and of 12), and a round's rows (stakes,
payouts) are not in the cashier index. A row that belongs to no event of its table is named by the audit.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, insert, inspect, text
from sqlalchemy.exc import IntegrityError

from pontoon.history import open_store, recover, schema
from pontoon.history.audit import audit
from pontoon.history.engines import SCHEMA_HEAD, HistoryError
from tests.history.conftest import alembic as _alembic
from tests.history.conftest import dump
from tests.history.driver import play
from tests.history.pg import cluster, create_db, pg_bin
from tests.history.test_events_round_index import _counts, _played, _statements_of_reads
from tests.history.test_store import stored_row

TABLES = (("mbs", 3), ("british", 4))


def _ledger_keys(url: str) -> tuple[set[str], list[tuple[str, ...]]]:
    """The ledger's index names (unique constraints' backing indexes excluded) and its unique keys."""
    engine = create_engine(url)
    with engine.connect() as conn:
        insp = inspect(conn)
        names = {str(i["name"]) for i in insp.get_indexes("ledger") if not i.get("unique")}
        keys = [u["column_names"] for u in insp.get_unique_constraints("ledger")]
        keys += [i["column_names"] for i in insp.get_indexes("ledger") if i.get("unique")]
        uniques = sorted({tuple(str(c) for c in k) for k in keys})  # (PostgreSQL lists a constraint twice)
    engine.dispose()
    return names, uniques


def _booked_once(s: Any, table_id: int) -> None:
    row = s.ledger_(table_id)[0]
    with pytest.raises(IntegrityError), s.engine.begin() as conn:  # the same idem again: refused
        conn.execute(insert(schema.ledger), stored_row(row))


def _upgraded_keeps_its_rows(url: str, rounds: int) -> None:
    before = _played(url, rounds)
    _alembic(url, "downgrade", "0009")  # the store as revision 0009 left it
    names, uniques = _ledger_keys(url)
    assert {"ix_ledger_table", "ix_ledger_player"} <= names and ("idem",) in uniques
    counts = _counts(url)
    ids = _ids(url)
    r = open_store(url, readonly=True)  # a reader of the old revision: nothing migrated
    assert r.revision == "0009" and audit(r)["checked"]["sealed"] == 2
    r.close()

    s = open_store(url)  # the next writer upgrades it
    assert s.revision == SCHEMA_HEAD  # 0010 and on (0011: the events' keys, test_event_keys.py)
    names, uniques = _ledger_keys(url)
    assert names == {"ix_ledger_cashier"} and uniques == [("event_id", "idem")]  # uq_ledger_idem
    assert _counts(url) == counts and counts["ledger"] > 20
    assert _ids(url) == ids  # every ledger row kept with its id
    assert [dump(s, i) for i in (1, 2)] == before
    assert audit(s)["checked"]["sealed"] == 2
    _booked_once(s, 1)
    got = recover(s)
    assert len(got) == 2
    for (_preset, seed), g in zip(TABLES, got, strict=True):
        play(g.table, seed, rounds + 2)  # two rounds more
        g.recorder.detach()
    assert _counts(url)["ledger"] > counts["ledger"]
    assert audit(s)["checked"]["sealed"] == 2
    s.close()


def _ids(url: str) -> list[tuple[Any, ...]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        out = [
            tuple(r)
            for r in conn.execute(text("SELECT id, table_id, event_id, idem FROM ledger ORDER BY id"))
        ]
    engine.dispose()
    return out


def test_a_revision_0009_sqlite_store_is_upgraded_keeps_its_rows_and_verifies(tmp_path: Path) -> None:
    _upgraded_keeps_its_rows(f"sqlite:///{tmp_path / 'old.sqlite'}", 4)


@pytest.mark.skipif(pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin)")
def test_a_revision_0009_postgresql_store_is_upgraded_keeps_its_rows_and_verifies() -> None:
    with cluster() as base:
        url = create_db(base, "old")
        _upgraded_keeps_its_rows(url, 3)
        s = open_store(url)  # the refusal names the row booked twice (PostgreSQL's detail names the key)
        from pontoon.history.writeitems import _twice

        with s.engine.connect() as conn:
            try:
                conn.execute(insert(schema.ledger), stored_row(s.ledger_(1)[0]))
            except IntegrityError as err:
                msg = _twice(conn, err.orig, [s.ledger_(1)[1]["idem"], s.ledger_(1)[0]["idem"]])
            conn.rollback()
        assert msg == f"ledger row {s.ledger_(1)[0]['idem']} is already written: a transfer is booked once"
        s.close()


@pytest.mark.parametrize("tables", [2, 12])
def test_the_reads_use_the_new_indexes_and_a_round_is_not_in_the_cashier_index(
    tmp_path: Path, tables: int
) -> None:
    path = tmp_path / "plan.sqlite"
    url = f"sqlite:///{path}"
    many = tuple(("mbs" if i % 2 else "british", i) for i in range(1, tables + 1))
    _played(url, 3, many)
    sent = _statements_of_reads(path)
    selects = {(st, tuple(p) if isinstance(p, list | tuple) else ()) for st, p in sent if "FROM ledger" in st}
    plans: dict[str, list[str]] = {}
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as c:
        for st, p in selects:
            plans[st] = [str(r[-1]) for r in c.execute(f"EXPLAIN QUERY PLAN {st}", p)]
        cashier = c.execute("SELECT count(*) FROM ledger WHERE kind IN ('deposit', 'withdrawal')").fetchone()[
            0
        ]
        indexed = c.execute(
            "SELECT sum(ncell) FROM dbstat WHERE name = 'ix_ledger_cashier' AND pagetype = 'leaf'"
        )
        in_index = indexed.fetchone()[0]
        rows = c.execute("SELECT count(*) FROM ledger").fetchone()[0]
    by_table = [st for st in plans if "FROM ledger INDEXED BY uq_ledger_idem WHERE event_id IN" in st]
    assert len(by_table) >= 2  # a table's ledger, a round's
    for st in by_table:  # through the table's events, then uq_ledger_idem by event (revision 0010)
        steps = " | ".join(plans[st])
        assert "SEARCH ledger USING INDEX uq_ledger_idem (event_id=?)" in steps, steps
        # the events by revision 0011's keys: a round's by its round row, the table's own by its table
        assert "USING COVERING INDEX uq_event_round (round_id=?)" in steps, steps
        assert "SCAN events" not in steps and "SCAN ledger" not in steps, steps
    assert not [st for st in plans if "WHERE ledger.table_id" in st]  # (no read by the ledger's table alone)
    by_name = [st for st in plans if "ledger.player = ?" in st]
    assert by_name and all(any("ix_ledger_cashier (player=?" in x for x in plans[st]) for st in by_name)
    assert 0 < cashier == in_index < rows  # the cashier rows alone are in the player index


@pytest.mark.parametrize("moved_to", ["another table's event", "no event"])
def test_a_ledger_row_of_no_event_of_its_table_is_in_no_ledger_and_named_by_the_audit(
    tmp_path: Path, moved_to: str
) -> None:
    path = tmp_path / "stray.sqlite"
    url = f"sqlite:///{path}"
    _played(url, 2)
    with closing(sqlite3.connect(path)) as c:  # a hand edit (foreign keys are off for a plain connection)
        lid = c.execute("SELECT id FROM ledger WHERE table_id = 1 ORDER BY id DESC LIMIT 1").fetchone()[0]
        other = c.execute("SELECT max(id) FROM events WHERE table_id = 2").fetchone()[0]
        c.execute(
            "UPDATE ledger SET event_id = ? WHERE id = ?", (other if moved_to != "no event" else 10**6, lid)
        )
        c.commit()
    s = open_store(url, readonly=True)
    assert lid not in {r["id"] for t in (1, 2) for r in s.ledger_(t)}
    assert [r["id"] for r in s.ledger_strays()] == [lid]
    with pytest.raises(HistoryError, match=f"table 1: ledger row {lid} .*belongs to no event of the table"):
        audit(s)
    s.close()
