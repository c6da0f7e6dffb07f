"""Revision 0012: the recovery snapshot of each round's start in a row of its own (``snapshots``, keyed by
the round row), not an UPDATE of the table's row; the round rows keyed by (number, table_id)
(``uq_round_number``), a table's rounds read by its numbers up to ``heads.rounds``; and SQLite's writer
naming rounds and events by the ids it gives them (``writeitems._Ids``), with no look-up of a round an event.

- the writer leaves ``tables.state`` as the table's first snapshot and inserts one snapshot a round,
  held before the round's ``round_start``; ``Store.table`` gives the newest, and the tables recover from it;
- a store of revision 0011 (each table's latest snapshot in its row) is upgraded with its rows kept: its
  tables recover from their rows' snapshots, play on (their new rounds' snapshots in ``snapshots``) and
  recover again; the downgrade puts the latest snapshot back into the row (SQLite and PostgreSQL);
- a table's rounds, events, ledger and latest snapshot are read by ``uq_round_number``, a look-up a
  number (no scan of the rounds, with statistics or none), and are exactly the table's;
- a writer that starts cold (a new process) in the middle of a round finds the round's row once by its
  key: every event and ledger row names the right round row and event, and the table recorded across the
  restart is the same as one recorded in one go.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event, inspect, text

from pontoon.history import open_store, recover
from pontoon.history.audit import audit
from pontoon.history.engines import SCHEMA_HEAD, HistoryError
from pontoon.history.store import canon
from tests.history.conftest import alembic as _alembic
from tests.history.conftest import dump
from tests.history.driver import casino_calls, new_table, play
from tests.history.pg import cluster, create_db, pg_bin
from tests.history.test_events_round_index import _played  # the same two tables (TABLES)

TABLES = (("mbs", 3), ("british", 4))


def _rows(url: str, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        out = [tuple(r) for r in conn.execute(text(sql), params or {})]
    engine.dispose()
    return out


def _has_snapshots(url: str) -> bool:
    engine = create_engine(url)
    with engine.connect() as conn:
        got = inspect(conn).has_table("snapshots")
    engine.dispose()
    return got


def _round_keys(url: str) -> list[tuple[str, ...]]:
    """The rounds' unique keys (constraints and unique indexes)."""
    engine = create_engine(url)
    with engine.connect() as conn:
        insp = inspect(conn)
        keys = [u["column_names"] for u in insp.get_unique_constraints("rounds")]
        keys += [i["column_names"] for i in insp.get_indexes("rounds") if i.get("unique")]
    engine.dispose()
    return sorted({tuple(str(c) for c in k) for k in keys})


NEWEST = (
    "SELECT h.table_id, h.rounds, (SELECT coalesce(max(number), 0) FROM rounds r WHERE r.table_id = "
    "h.table_id) FROM heads h ORDER BY h.table_id"
)


def _latest(url: str) -> list[tuple[Any, ...]]:
    """Each table's latest snapshot as ``Store.table`` gives it (state text, the event it holds after)."""
    s = open_store(url, readonly=True)
    out = [(canon(s.table(i)["state"]), s.table(i)["state_event"]) for i in (1, 2)]
    s.close()
    return out


def _snapshots_are_rows_of_their_own(url: str, rounds: int) -> None:
    assert _played(url, rounds)[0]["rounds"]
    by_round = _rows(
        url,
        "SELECT r.table_id, r.number, s.state, (SELECT e.id FROM events e WHERE e.round_id = r.id AND "
        "e.seq = 0 AND e.kind = 'round_start') FROM rounds r LEFT JOIN snapshots s ON s.round_id = r.id "
        "ORDER BY r.id",
    )
    assert len(by_round) == 2 * rounds and all(st is not None and ev is not None for *_, st, ev in by_round)
    s = open_store(url, readonly=True)
    for t in (1, 2):
        newest = max((r for r in by_round if r[0] == t), key=lambda r: r[1])
        row = s.table(t)
        assert canon(row["state"]) == newest[2] and row["state_event"] == newest[3] - 1
        # the row keeps the table's first snapshot, as of before its first round
        ((state, state_event),) = _rows(url, "SELECT state, state_event FROM tables WHERE id = :t", {"t": t})
        first = min((r for r in by_round if r[0] == t), key=lambda r: r[1])
        assert state != newest[2] and state_event <= first[3] - 1
    s.close()


def test_the_writer_inserts_a_snapshot_a_round_and_leaves_the_table_row(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    _snapshots_are_rows_of_their_own(url, 3)
    s = open_store(url)
    got = recover(s)  # from the newest round's snapshot: the events after it re-made and checked
    assert len(got) == 2 and all(g.replayed > 0 for g in got)
    assert audit(s)["checked"]["sealed"] == 2
    s.close()


def _upgraded_keeps_its_rows(url: str, rounds: int) -> None:
    before = _played(url, rounds)
    latest = _latest(url)
    _alembic(url, "downgrade", "0011")  # each table's latest snapshot back in its row, as 0011 kept it
    assert not _has_snapshots(url)
    assert _round_keys(url) == [("table_id", "number")]  # uq_round
    assert _rows(url, "SELECT state, state_event FROM tables ORDER BY id") == latest
    r = open_store(url, readonly=True)  # a reader of the old revision: nothing migrated
    assert r.revision == "0011" and [dump(r, i) for i in (1, 2)] == before
    assert [(canon(r.table(i)["state"]), r.table(i)["state_event"]) for i in (1, 2)] == latest
    r.close()

    s = open_store(url)  # the next writer upgrades it: the snapshots stay in the rows until a round starts
    assert s.revision == SCHEMA_HEAD == "0012" and _has_snapshots(url)
    assert _rows(url, "SELECT count(*) FROM snapshots") == [(0,)]
    assert _round_keys(url) == [("number", "table_id")]  # uq_round_number
    assert [(t, got) for t, got, _want in _rows(url, NEWEST)] == [(1, rounds), (2, rounds)]
    assert [dump(s, i) for i in (1, 2)] == before and _latest(url) == latest
    assert audit(s)["checked"]["sealed"] == 2
    got = recover(s)  # from the rows' snapshots
    assert len(got) == 2
    for (_preset, seed), g in zip(TABLES, got, strict=True):
        play(g.table, seed, rounds + 2)  # two rounds more: their snapshots in rows of their own
        g.recorder.detach()
    assert _rows(url, "SELECT count(*) FROM snapshots") == [(4,)]
    assert [(t, got) for t, got, _want in _rows(url, NEWEST)] == [(1, rounds + 2), (2, rounds + 2)]
    assert _rows(url, "SELECT state, state_event FROM tables ORDER BY id") == latest  # not rewritten
    after = [dump(s, i) for i in (1, 2)]
    assert audit(s)["checked"]["sealed"] == 2
    s.close()
    s = open_store(url)
    again = recover(s)  # from the new rounds' snapshots
    assert len(again) == 2 and [dump(s, i) for i in (1, 2)] == after
    for g in again:
        g.recorder.detach()
    s.close()
    _alembic(url, "downgrade", "0011")
    assert _rows(url, "SELECT state, state_event FROM tables ORDER BY id") != latest  # the newest back
    r = open_store(url, readonly=True)
    assert [dump(r, i) for i in (1, 2)] == after
    r.close()


def test_a_revision_0011_sqlite_store_is_upgraded_keeps_its_rows_and_recovers(tmp_path: Path) -> None:
    _upgraded_keeps_its_rows(f"sqlite:///{tmp_path / 'old.sqlite'}", 3)


@pytest.mark.skipif(pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin)")
def test_a_revision_0011_postgresql_store_is_upgraded_keeps_its_rows_and_recovers() -> None:
    with cluster() as base:
        _upgraded_keeps_its_rows(create_db(base, "old"), 2)
        _snapshots_are_rows_of_their_own(create_db(base, "new"), 2)


def _mid_round(url: str, split: bool) -> dict[str, object]:
    """Table 2 (mbs) plays three rounds and then half of the fourth beside table 1; with ``split`` the
    process ends there and a new store (a cold writer) recovers it and plays the round out."""
    s = open_store(url)
    s.start_group()
    other, orec = new_table(s, "mbs", 11)
    play(other, 11, 2)
    orec.detach()
    t, rec = new_table(s, "mbs", 5)
    play(t, 5, 3)
    calls = casino_calls(t, 5)
    for _ in range(3):
        next(calls)
    if split:
        rec.detach()
        s.close()
        s = open_store(url)
        s.start_group()
        (g,) = [g for g in recover(s) if g.table_id == 2]
        assert g.open_round == 4
        t = g.table
        calls = casino_calls(t, 5)  # the round in play, from where it is
    for _ in calls:
        pass
    assert t.rounds_played == 4
    out = dump(s, 2)
    assert not s.event_strays() and not s.ledger_strays()
    assert audit(s)["checked"]["sealed"] == 2
    s.close()
    return out


def test_a_cold_writer_in_the_middle_of_a_round_names_its_round_row(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'split.sqlite'}"
    assert _mid_round(url, split=True) == _mid_round(f"sqlite:///{tmp_path / 'one.sqlite'}", split=False)
    wrong = _rows(
        url,
        "SELECT e.id FROM events e LEFT JOIN rounds r ON r.id = e.round_id WHERE (e.round_no > 0 AND "
        "(r.table_id IS NOT e.table_id OR r.number IS NOT e.round_no)) OR (e.round_no = 0 AND "
        "e.round_id IS NOT NULL) UNION ALL SELECT l.id FROM ledger l JOIN events e ON e.id = l.event_id "
        "WHERE l.round_id IS NOT e.round_id OR l.table_id <> e.table_id OR l.idem NOT LIKE "
        "(e.table_id || ':' || e.round_no || ':' || e.seq || ':%')",
    )
    assert wrong == []
    ended = _rows(url, "SELECT table_id, number, status FROM rounds WHERE status <> 'settled'")
    assert ended == []  # each round's end found its row (by id)


@pytest.mark.parametrize("tables", [2, 12])
def test_a_tables_rounds_are_read_by_their_numbers(tmp_path: Path, tables: int) -> None:
    """A table's rounds, events and ledger, and its latest snapshot, are found by ``uq_round_number``
    (number, table_id), a look-up of each of its numbers up to ``heads.rounds``: never a scan of the
    rounds, with the statistics of a grown store or none; the rounds read are exactly the table's."""
    path = tmp_path / "plan.sqlite"
    url = f"sqlite:///{path}"
    s = open_store(url)
    for i in range(1, tables + 1):
        t, rec = new_table(s, "mbs" if i % 2 else "british", i)
        play(t, i, 2 + i % 3)
        rec.detach()
    s.close()
    assert all(got == want > 0 for _t, got, want in _rows(url, NEWEST))
    sent: list[tuple[str, Any]] = []
    s = open_store(url, readonly=True)
    for engine in {s.engine, s.reader}:
        event.listen(engine, "before_cursor_execute", lambda _c, _cur, st, p, _x, _m: sent.append((st, p)))
    for t in range(1, tables + 1):
        want = _rows(url, "SELECT id FROM rounds WHERE table_id = :t ORDER BY id", {"t": t})
        assert [(r["id"],) for r in s.rounds_(table_id=t)] == want
        assert [r["id"] for r in s.rounds_(table_id=t, last=2)] == [i for (i,) in want[-2:]]
        evs = _rows(url, "SELECT id FROM events WHERE table_id = :t ORDER BY id", {"t": t})
        assert [(e["id"],) for e in s.events_(t)] == evs
        assert (
            len(s.ledger_(t)) == _rows(url, "SELECT count(*) FROM ledger WHERE table_id = :t", {"t": t})[0][0]
        )
        assert s.table(t)["state_event"] > 0
    s.close()
    reads = {(st, tuple(p)) for st, p in sent if "rounds" in st and "SELECT" in st}
    assert len(reads) >= 4
    for stats in (False, True):
        with closing(sqlite3.connect(path)) as c:
            c.execute("ANALYZE" if stats else "DROP TABLE IF EXISTS sqlite_stat1")
            c.commit()
            for st, p in reads:
                plan = " | ".join(str(r[-1]) for r in c.execute(f"EXPLAIN QUERY PLAN {st}", p))
                assert "SCAN rounds" not in plan and "SCAN r " not in plan, (stats, st, plan)
                assert "uq_round_number (number=? AND table_id=?)" in plan, (stats, st, plan)


def test_a_round_beyond_the_tables_newest_number_is_named_by_the_audit(tmp_path: Path) -> None:
    """A table's read finds its rounds numbered 1 to ``heads.rounds``: a round row beyond it (none is
    written: the number moves with the round's first event) would hide its events from the table's
    chain; the audit names the first of them."""
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    _played(url, 3)
    s = open_store(url)
    assert audit(s)["checked"]["sealed"] == 2 and not s.event_strays()
    with s.engine.begin() as conn:
        conn.execute(text("UPDATE heads SET rounds = 2 WHERE table_id = 2"))
    strays = s.event_strays()
    assert strays and {(e["table_id"], e["round_no"]) for e in strays} == {(2, 3)}
    with pytest.raises(HistoryError, match=r"table 2: event \d+ \(round 3 #0\).*heads.rounds"):
        audit(s)
    s.close()
