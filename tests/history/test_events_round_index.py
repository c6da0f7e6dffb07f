"""Revision 0009: the index of events by round row (``ix_events_round``) dropped; no read uses it.

A store written at revision 0008 (the index there) is upgraded by the next writer: the index goes,
every row stays, the audit verifies the chains and seals, and the tables recover and play on. Every
query the reads send (audit, round detail, replay, hold, export, recovery, the web's history reads, an
account's balance) is planned by SQLite on a store that still has the index: none uses it.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event, inspect

from pontoon.history import open_store, recover
from pontoon.history.accounts import balances_on
from pontoon.history.audit import audit, list_rounds, replay_round, round_detail
from pontoon.history.engines import SCHEMA_HEAD
from pontoon.history.export import session_export
from pontoon.history.hold import recorded_hold
from pontoon.web.store_reads import rounds_of
from tests.history.conftest import alembic as _alembic
from tests.history.conftest import dump
from tests.history.driver import new_table, play
from tests.history.pg import cluster, create_db, pg_bin

TABLES = (("mbs", 3), ("british", 4))
HISTORY = ("tables", "heads", "shoes", "rounds", "events", "ledger", "accounts")


def _indexes(url: str) -> dict[str, set[str]]:
    engine = create_engine(url)
    with engine.connect() as conn:
        insp = inspect(conn)
        out = {t: {str(i["name"]) for i in insp.get_indexes(t)} for t in ("events", "ledger")}
    engine.dispose()
    return out


def _counts(url: str) -> dict[str, int]:
    from sqlalchemy import text

    engine = create_engine(url)
    with engine.connect() as conn:
        out = {t: int(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()) for t in HISTORY}
    engine.dispose()
    return out


def _played(url: str, rounds: int, tables: tuple[tuple[str, int], ...] = TABLES) -> list[dict[str, object]]:
    """A store at ``url`` with ``tables`` played ``rounds`` rounds each: their dumps."""
    s = open_store(url)
    for preset, seed in tables:
        t, rec = new_table(s, preset, seed, fair=preset == "mbs")
        play(t, seed, rounds)
        rec.detach()
    out = [dump(s, i) for i in range(1, len(tables) + 1)]
    s.close()
    return out


def _recovers_and_plays_on(s: Any, url: str, counts: dict[str, int], rounds: int) -> None:
    """An upgraded store ``s`` audits clean, recovers both tables, and they play on, audited again."""
    assert audit(s)["checked"]["sealed"] == 2
    got = recover(s)
    assert len(got) == 2
    for (_preset, seed), g in zip(TABLES, got, strict=True):
        play(g.table, seed, rounds + 2)  # two rounds more
        g.recorder.detach()
    assert _counts(url)["events"] > counts["events"]
    assert audit(s)["checked"]["sealed"] == 2
    s.close()


def _upgraded_keeps_its_rows(url: str, rounds: int) -> None:
    before = _played(url, rounds)
    _alembic(url, "downgrade", "0008")  # the store as revision 0008 left it: the index there
    assert "ix_events_round" in _indexes(url)["events"]
    counts = _counts(url)
    r = open_store(url, readonly=True)  # a reader of the old revision: nothing migrated
    assert r.revision == "0008" and audit(r)["checked"]["sealed"] == 2
    r.close()

    s = open_store(url)  # the next writer upgrades it
    assert s.revision == SCHEMA_HEAD  # 0009 and on (0010: the ledger's indexes, test_ledger_indexes.py)
    idx = _indexes(url)
    assert "ix_events_round" not in idx["events"]
    assert "ix_ledger_cashier" in idx["ledger"]
    assert _counts(url) == counts and counts["events"] > 100
    assert [dump(s, i) for i in (1, 2)] == before
    _recovers_and_plays_on(s, url, counts, rounds)


def test_a_revision_0008_sqlite_store_is_upgraded_keeps_its_rows_and_verifies(tmp_path: Path) -> None:
    _upgraded_keeps_its_rows(f"sqlite:///{tmp_path / 'old.sqlite'}", 4)


@pytest.mark.skipif(pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin)")
def test_a_revision_0008_postgresql_store_is_upgraded_keeps_its_rows_and_verifies() -> None:
    with cluster() as base:
        _upgraded_keeps_its_rows(create_db(base, "old"), 3)


def _reads(s: Any) -> None:
    """What the history's readers ask: the audit, every round's detail and replay, the hold, the
    export, the recovery's reads, the web's history lists and an account's balance."""
    audit(s)
    for t in (1, 2):
        recorded_hold(s, t)
        s.events_(t, round_no=1)
        s.events_(t, after_id=3)
    for r in list_rounds(s, last=None):
        round_detail(s, int(r["id"]))
        replay_round(s, int(r["id"]))
    session_export(s, [1, 2])
    rounds_of(s, [1, 2], 5)
    with s.engine.connect() as conn:
        balances_on(conn, "ann")
        balances_on(conn)


def _statements_of_reads(path: Path, revision: str | None = None) -> list[tuple[str, Any]]:
    """Every statement (and its parameters) that ``_reads`` and the recovery send to the SQLite store at
    ``path`` (of ``revision`` when given), after ``ANALYZE``: the planner's statistics of a store with
    rows, as a grown store has them."""
    with closing(sqlite3.connect(path)) as c:
        c.execute("ANALYZE")
        c.commit()
    sent: list[tuple[str, Any]] = []
    s = open_store(f"sqlite:///{path}", readonly=True)
    if revision is not None:
        assert s.revision == revision
    for engine in {s.engine, s.reader}:
        event.listen(
            engine, "before_cursor_execute", lambda _c, _cur, st, p, _ctx, _many: sent.append((st, p))
        )
    _reads(s)
    recover(s)
    s.close()
    return sent


def test_no_read_is_planned_on_the_dropped_index(tmp_path: Path) -> None:
    path = tmp_path / "plan.sqlite"
    url = f"sqlite:///{path}"
    _played(url, 3)
    _alembic(url, "downgrade", "0008")
    sent = _statements_of_reads(path, "0008")
    selects = {(st, tuple(p) if isinstance(p, list | tuple) else ()) for st, p in sent if "SELECT" in st}
    assert len(selects) >= 10
    used: dict[str, str] = {}
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as c:
        for st, p in selects:
            for row in c.execute(f"EXPLAIN QUERY PLAN {st}", p):
                for name in ("ix_events_round", "ix_ledger_table", "ix_ledger_player"):
                    if name in str(row[-1]):
                        used[name] = st
    assert "ix_events_round" not in used, used.get("ix_events_round")
    assert "ix_ledger_table" in used  # the check sees an index that is read
