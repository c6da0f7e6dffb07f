"""PostgreSQL's commit text sends each value of a row once (``rowsql._PG_COLUMNS``): the events'
statement takes the table and the round number twice (the round row found by its key), the ledger's the
table four times and the round and seq three and two; each is now one array of the text, referenced
where the statement needs it. The rows written are the same: a table played on PostgreSQL links its
events to their round rows and its ledger rows to their rounds and events exactly as on SQLite (whose
writer gives the ids itself), and the audit agrees."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from pontoon.history import open_store, pgprep
from pontoon.history.audit import audit
from pontoon.history.store import Store
from tests.history.driver import new_table, play
from tests.history.pg import create_db, module_cluster

pg = pytest.fixture(scope="module", name="pg")(module_cluster)

_EVENTS = (
    "SELECT e.round_no, e.seq, e.kind, e.payload, e.clause, e.prev_hash, e.hash, r.number FROM events e "
    "LEFT JOIN rounds r ON r.id = e.round_id ORDER BY e.id"
)
_LEDGER = (
    "SELECT l.idem, l.source, l.dest, l.amount, l.kind, l.player, l.reason, r.number, e.round_no, e.seq "
    "FROM ledger l LEFT JOIN rounds r ON r.id = l.round_id JOIN events e ON e.id = l.event_id ORDER BY l.id"
)


def _rows(s: Store, sql: str) -> list[tuple[Any, ...]]:
    with s.engine.connect() as c:
        return [tuple(r) for r in c.execute(text(sql))]


def _played(s: Store) -> None:
    s.start_group()
    for seed in (1, 2):
        t, rec = new_table(s, "mbs", seed)
        play(t, seed, 6)
        rec.close()


def test_each_value_is_one_array_of_the_text() -> None:
    assert "unnest($1, $2, $3, $4, $5, $6, $7, $8, $9) AS" in pgprep._unnest_sql("event")
    assert "unnest($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS" in pgprep._unnest_sql("ledger")


@pytest.mark.postgres
def test_postgres_links_rounds_events_and_ledger_as_sqlite_does(pg: str, tmp_path: Any) -> None:
    ref = open_store(f"sqlite:///{tmp_path / 'ref.sqlite'}")
    s = open_store(create_db(pg, "t_columns_once"))
    try:
        _played(ref)
        _played(s)
        events, ledger = _rows(s, _EVENTS), _rows(s, _LEDGER)
        assert len(events) > 100 and len(ledger) > 20
        assert any(r[-1] is not None for r in events) and any(r[-3] is not None for r in ledger)
        assert events == _rows(ref, _EVENTS)
        assert ledger == _rows(ref, _LEDGER)
        audit(s)
    finally:
        s.close()
        ref.close()
