"""The same store code on a real PostgreSQL server (a throwaway cluster on a unix socket)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from pontoon.history import HistoryError, open_store, recover, schema
from pontoon.history.audit import audit, replay_round
from pontoon.history.chain import account_key
from tests.history.conftest import dump, run_driver
from tests.history.driver import BRITISH, CASINO, new_table, play
from tests.history.pg import cluster, create_db, pg_bin

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin); run make sysdeps"
    ),
]


@pytest.fixture(scope="module")
def pg() -> Iterator[str]:
    try:
        with cluster() as base:
            yield base
    except (RuntimeError, OSError) as err:
        pytest.skip(f"cannot start a PostgreSQL cluster: {err}")


@pytest.fixture
def pg_url(pg: str, request: pytest.FixtureRequest) -> str:
    name = "t_" + "".join(ch if ch.isalnum() else "_" for ch in request.node.name)[:50].lower()
    return create_db(pg, name)


def test_record_replay_audit_every_preset(pg_url: str) -> None:
    s = open_store(pg_url)
    assert s.engine.dialect.name == "postgresql"
    for i, preset in enumerate(CASINO + BRITISH):
        t, rec = new_table(s, preset, i)
        play(t, i, 6)
        rec.close()
    for r in s.rounds_():
        replay_round(s, int(r["id"]))
    rep = audit(s)
    assert rep["checked"]["tables"] == 7 and rep["checked"]["events"] > 200
    s.close()


def test_recovery_equals_uninterrupted(pg_url: str, tmp_path: Path) -> None:
    ref = open_store(f"sqlite:///{tmp_path / 'ref.sqlite'}")
    t, rec = new_table(ref, "rws-pandemonium", 3)
    play(t, 3, 8)
    rec.close()
    want = dump(ref)
    s = open_store(pg_url)
    t, rec = new_table(s, "rws-pandemonium", 3)

    class Stop(Exception):
        pass

    n = [0]

    def stop(_r: object) -> None:
        n[0] += 1
        if n[0] == 40:
            raise Stop

    t.subscribe(stop)
    with pytest.raises(Stop):
        play(t, 3, 8)
    rec.detach()
    got = recover(s)
    play(got[0].table, 3, 8)
    got[0].recorder.close()
    assert dump(s) == want  # the same events, hashes, ledger and balances as on SQLite
    audit(s)
    s.close()


def test_kill_inside_a_transaction(pg_url: str, tmp_path: Path) -> None:
    ref = open_store(f"sqlite:///{tmp_path / 'ref.sqlite'}")
    t, rec = new_table(ref, "mbs", 6)
    play(t, 6, 10)
    rec.close()
    p = run_driver(pg_url, "--preset", "mbs", "--seed", "6", "--rounds", "10", crash="inside:20")
    assert p.returncode == -signal.SIGKILL, p.stderr[-1500:]
    p = run_driver(pg_url, "--seed", "6", "--rounds", "10", "--resume")
    assert p.returncode == 0, p.stderr[-1500:]
    s = open_store(pg_url)
    assert dump(s) == dump(ref)
    audit(s)
    s.close()


def test_ledger_row_twice_is_refused(pg_url: str) -> None:
    s = open_store(pg_url)
    t, rec = new_table(s, "mbs", 1)
    row = s.ledger_(rec.table_id)[0]
    with pytest.raises(IntegrityError), s.engine.begin() as conn:  # the idem is unique: booked once
        conn.execute(insert(schema.ledger), stored_row(row))
    assert len(s.ledger_(rec.table_id)) == 2  # ann's and bob's deposits, once each
    s.close()


def test_unreachable_server_is_a_one_line_error(pg: str) -> None:
    with pytest.raises(HistoryError, match="cannot open the history database"):
        open_store(pg.replace("{db}", "no_such_db"))


def test_fair_table_killed_verifies_and_drills_on_postgres(pg_url: str, tmp_path: Path) -> None:
    """A fair table (test mode, short shoe) killed inside a transaction on PostgreSQL: equal to the
    run on SQLite, commitments and reveals included; each stored shoe verifies through the store's
    record; a drill summary round-trips as exact text."""
    from decimal import Decimal

    from pontoon.fair import verify_record
    from pontoon.history import shoe_record
    from pontoon.history.drills import list_drills, save_drill
    from tests.history.driver import finish

    ref = open_store(f"sqlite:///{tmp_path / 'fair-ref.sqlite'}")
    t, rec = new_table(ref, "rws-plus", 4, fair=True, short_shoe=True)
    play(t, 4, 12)
    finish(t, rec)
    p = run_driver(
        pg_url, "--preset", "rws-plus", "--seed", "4", "--rounds", "12", "--fair", crash="inside:30"
    )
    assert p.returncode == -signal.SIGKILL, p.stderr[-1500:]
    p = run_driver(pg_url, "--seed", "4", "--rounds", "12", "--resume")
    assert p.returncode == 0, p.stderr[-1500:]
    s = open_store(pg_url)
    tid = int(s.tables_()[-1]["id"])
    want = dump(ref)
    got = dump(s, tid)
    assert got["events"] == want["events"] and got["shoes"] == want["shoes"]
    shoes = s.shoes_(tid)
    assert len(shoes) >= 2
    for sh in shoes:
        assert verify_record(shoe_record(s, int(sh["id"]))["record"]).ok
    did = save_drill(
        s,
        {
            "rules": "mbs",
            "only": "all",
            "hands": 3,
            "decisions": 4,
            "correct": 3,
            "accuracy": 0.75,
            "cost": 0.1234567,
            "cost_per_100_hands": 4.115223,
            "worst": [],
        },
        seed=2**70,
    )
    row = [r for r in list_drills(s) if r["id"] == did][0]
    assert (
        row["cost"] == Decimal("0.123457")
        and row["accuracy"] == Decimal("0.750000")
        and row["seed"] == str(2**70)
    )
    audit(s)
    s.close()


def stored_row(row: dict) -> dict:  # type: ignore[type-arg]
    """A ledger row as ``ledger_`` read it, as the table stores it (its accounts as their key text)."""
    return {k: account_key(v) if k in ("source", "dest") else v for k, v in row.items() if k != "id"}
