"""The same store code on a real PostgreSQL server (a throwaway cluster on a unix socket)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from pontoon.history import HistoryError, open_store, recover
from pontoon.history.audit import audit, replay_round
from tests.history.conftest import dump, run_driver
from tests.history.driver import BRITISH, CASINO, new_table, play
from tests.history.pg import cluster, create_db, pg_bin

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin); run make sysdeps"),
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
    with s.engine.begin() as conn, pytest.raises(HistoryError, match="already written"):
        s.write_ledger(conn, rec.table_id, None, int(row["event_id"]), row["idem"],
                       {k: row[k] for k in ("source", "dest", "amount", "kind", "player", "reason")})
    assert len(s.ledger_(rec.table_id)) == 2  # ann's and bob's deposits, once each
    s.close()


def test_unreachable_server_is_a_one_line_error(pg: str) -> None:
    with pytest.raises(HistoryError, match="cannot open the history database"):
        open_store(pg.replace("{db}", "no_such_db"))
