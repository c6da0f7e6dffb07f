"""The store on a real SQLite file: round trip, durability settings, hash chain, idempotent ledger,
migrations, and one-line errors for bad URLs and files."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import insert, text
from sqlalchemy.exc import IntegrityError

from pontoon.casino.table import CasinoTable
from pontoon.history import HistoryError, Recorder, open_store, schema
from pontoon.history.audit import audit, replay_round
from pontoon.history.chain import account_key
from pontoon.history.store import Batch, Row
from pontoon.rules import resolve_rules
from tests.history.driver import casino_round, new_table, play


def test_pragmas_are_read_back_on_every_connection(store):  # type: ignore[no-untyped-def]
    for _ in range(3):
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            conn.rollback()


def test_schema_is_at_alembic_head(store):  # type: ignore[no-untyped-def]
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from pontoon.history.store import SCHEMA_HEAD

    here = Path(__file__).resolve().parents[2] / "src" / "pontoon" / "history"
    cfg = Config(str(here / "alembic.ini"))
    assert ScriptDirectory.from_config(cfg).get_current_head() == SCHEMA_HEAD
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == SCHEMA_HEAD
        conn.rollback()
    # the tables Alembic made are the ones schema.py describes
    from sqlalchemy import inspect

    from pontoon.history.schema import metadata

    insp = inspect(store.engine)
    for name, table in metadata.tables.items():
        assert {c["name"] for c in insp.get_columns(name)} == {c.name for c in table.columns}


def test_round_trip_equals_the_table(store):  # type: ignore[no-untyped-def]
    t, rec = new_table(store, "rws-plus", 7)
    play(t, 7, 12)
    assert isinstance(t, CasinoTable)
    tid = rec.table_id
    rounds = store.rounds_(table_id=tid)
    assert [r["number"] for r in rounds] == list(range(1, 13)) and all(r["status"] != "open" for r in rounds)
    # the balances kept by the store are the table's, and each round's events are the round's own log
    bal = store.balances(tid)
    for p in ("ann", "bob"):
        assert bal[f'"{p}"'] == t.balance(p)
    last = store.events_(tid, round_no=12)
    assert t.round is not None
    assert [(e["seq"], e["kind"], e["data"]) for e in last] == [
        (e.seq, e.kind, e.data) for e in t.round.log.events
    ]
    ledger = store.ledger_(tid, round_id=int(rounds[-1]["id"]))
    assert [{k: r[k] for k in ("source", "dest", "amount", "kind", "player", "reason")} for r in ledger] == [
        x.to_json() for x in t.round.ledger.transfers
    ]
    # the shoe's full order is stored privately and is the table's shoe
    shoes = store.shoes_(tid)
    assert shoes[-1]["cards"].split() == [str(c) for c in t.shoe.dealt_cards() + t.shoe.remaining_cards()]
    rep = audit(store)
    assert rep["checked"]["events"] == len(store.events_(tid))
    assert replay_round(store, int(rounds[0]["id"]))["events"] > 3


def test_a_ledger_row_is_written_once(store):  # type: ignore[no-untyped-def]
    t = CasinoTable(resolve_rules("mbs"), rng=1)
    rec = Recorder(store, t)
    t.join("ann", 100)
    row = store.ledger_(rec.table_id)[0]
    with pytest.raises(IntegrityError), store.engine.begin() as conn:  # the idem is unique: booked once
        conn.execute(insert(schema.ledger), stored_row(row))
    assert len(store.ledger_(rec.table_id)) == 1
    # an event written twice (same table, round, seq) is refused too, and nothing of its batch stays
    with pytest.raises(Exception, match="UNIQUE|unique"):
        store.append(
            rec.table_id,
            Batch(
                rows=[
                    Row(
                        0,
                        1,
                        "join",
                        {"player": "x", "balance": "1"},
                        "",
                        [
                            {
                                "source": {"cashier": "cage"},
                                "dest": "x",
                                "amount": "1",
                                "kind": "deposit",
                                "player": "x",
                                "reason": "again",
                            }
                        ],
                    )
                ]
            ),
        )
    assert len(store.ledger_(rec.table_id)) == 1
    assert store.balances(rec.table_id)['"ann"'] == Decimal(100)


def test_hash_chain_catches_an_altered_event(store, db_url):  # type: ignore[no-untyped-def]
    t, rec = new_table(store, "mbs", 3)
    play(t, 3, 3)
    rounds = store.rounds_(table_id=rec.table_id)
    audit(store)
    with store.engine.begin() as conn:  # someone edits a stored card
        eid = conn.execute(text("SELECT id FROM events WHERE kind='card' ORDER BY id LIMIT 1")).scalar()
        conn.execute(
            text('UPDATE events SET payload=replace(payload, \'"card":"\', \'"card":"A\') WHERE id=:i'),
            {"i": eid},
        )
    with pytest.raises(HistoryError, match="hash chain breaks"):
        audit(store)
    from pontoon.replay import ReplayMismatch

    with pytest.raises(ReplayMismatch, match="hash"):
        replay_round(store, int(rounds[0]["id"]))


def test_audit_finds_a_balance_that_is_not_its_ledger_sum(store):  # type: ignore[no-untyped-def]
    t, rec = new_table(store, "mbs", 4)
    casino_round(t, 4)  # type: ignore[arg-type]
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE accounts SET balance='5000' WHERE account='\"ann\"'"))
    with pytest.raises(HistoryError, match='account "ann" holds 5000'):
        audit(store)


def test_bad_urls_and_files_are_one_line_errors(tmp_path: Path) -> None:
    for url, msg in [
        ("nothing", "give sqlite"),
        ("mysql://x/y", "accepted are"),
        ("sqlite://", "in-memory"),
        ("sqlite:///:memory:", "in-memory"),
    ]:
        with pytest.raises(HistoryError, match=msg):
            open_store(url)
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(HistoryError, match="not a database"):
        open_store(f"sqlite:///{bad}")


def test_a_database_that_refuses_wal_is_refused(tmp_path: Path) -> None:
    """A read-only database file cannot switch to WAL: the store says so instead of running unsafely."""
    p = tmp_path / "ro.sqlite"
    c = sqlite3.connect(p)
    c.execute("create table x(a)")
    c.commit()
    c.close()
    p.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        import os

        if os.geteuid() == 0:
            pytest.skip("root writes read-only files")
        with pytest.raises(HistoryError):
            open_store(f"sqlite:///{p}")
    finally:
        tmp_path.chmod(0o755)


def test_bench_history_runs() -> None:
    """bench/bench_history.py still runs (tiny size); it prints figures, it asserts no speed."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, str(root / "bench" / "bench_history.py"), "5", "--no-pg"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "synchronous=FULL" in out.stdout and "events/s" in out.stdout


def test_shoe_record_gives_the_cards_dealt_in_order(store):  # type: ignore[no-untyped-def]
    from pontoon.history import shoe_record

    rules = resolve_rules("mbs").model_copy(update={"decks": 1, "penetration": 0.5})
    t = CasinoTable(rules, rng=3)
    rec = Recorder(store, t)
    t.join("ann", 10_000)
    t.join("bob", 10_000)
    from tests.history.driver import play as play_

    play_(t, 3, 12)  # a one-pack shoe cut at half: several shoes
    rec.close()
    shoes = store.shoes_(rec.table_id)
    assert len(shoes) >= 2
    first = shoe_record(store, int(shoes[0]["id"]))
    assert first["retired"] and first["events"][0]["kind"] == "new_shoe"
    assert first["dealt"] == first["cards"][: len(first["dealt"])] and len(first["dealt"]) >= 24
    last = shoe_record(store, int(shoes[-1]["id"]))
    assert not last["retired"] and "cards" not in last  # never the cards to come of a shoe in play
    with pytest.raises(HistoryError, match="no shoe 999"):
        shoe_record(store, 999)


def test_a_database_from_a_newer_pontoon_is_one_line(tmp_path: Path) -> None:
    """A schema revision this code does not know (written by a newer pontoon): a clear refusal naming
    the revision, never Alembic's 'Can't locate revision' as an internal error."""
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    open_store(url).close()
    with sqlite3.connect(tmp_path / "h.sqlite") as c:
        c.execute("UPDATE alembic_version SET version_num = '0099'")
    with pytest.raises(HistoryError, match="schema revision 0099, which this pontoon does not know"):
        open_store(url)


def stored_row(row: dict) -> dict:  # type: ignore[type-arg]
    """A ledger row as ``ledger_`` read it, as the table stores it (its accounts as their key text)."""
    return {k: account_key(v) if k in ("source", "dest") else v for k, v in row.items() if k != "id"}
