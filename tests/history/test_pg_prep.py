"""PostgreSQL's group commit as one text of EXECUTEs of statements prepared once per connection
(``history/pgprep.py``), on a real server:

- a value is a constant read back byte for byte by the server, whatever its text (hypothesis), and
  never SQL; NUL and other types are refused with a clear error;
- the statements are prepared once per connection: later commits, a failed transaction and its
  rollback keep them; a new connection (the old one's server session ended) prepares them anew;
- statements deallocated behind the writer's back (``DEALLOCATE ALL``) are prepared again and the
  commit goes through; a column added meanwhile (a schema change) is planned anew by the server;
- the lease fences' path (SQLAlchemy's transaction) writes through the same text.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, text

from pontoon.history import HistoryError, open_store, pgprep
from pontoon.history.audit import audit
from pontoon.history.store import Batch, Row, Store
from tests.history.pg import create_db, module_cluster

pg = pytest.fixture(scope="module", name="pg")(module_cluster)
pytestmark = pytest.mark.postgres
HOUSE = {"system": "house"}


def _pay(seq: int, who: str = "ann") -> Batch:
    t = {"source": HOUSE, "dest": who, "amount": "1.10", "kind": "win", "player": who, "reason": "r"}
    return Batch(rows=[Row(0, seq, "pay", {"n": seq}, "c", [t])])


def _raw(url: str) -> psycopg.Connection[Any]:
    host, port = url.split("host=")[1].split("&")[0], url.split("port=")[1]
    db = url.split("/")[3].split("?")[0]
    return psycopg.connect(host=host, port=port, user="postgres", dbname=db, autocommit=True)


def _start(url: str) -> tuple[Store, int]:
    """A store with its group commit, one table; the writer keeps its connection between commits."""
    s = open_store(url)
    s.start_group()
    assert s.group is not None
    s.group.idle_s = 600.0  # (not given back after a second without a commit: the same session)
    return s, s.create_table("casino", "mbs", {"preset": "mbs"})


def _writer(s: Store) -> Any:
    assert s.group is not None and s.group.conn is not None
    return s.group.conn.connection.driver_connection


def _server_names(raw: Any) -> dict[str, Any]:
    """The writer session's prepared statements of ours, by name, with the time each was prepared."""
    res = raw.pgconn.exec_(
        b"SELECT name, prepare_time FROM pg_prepared_statements WHERE name LIKE 'pontoon%'"
    )
    return {res.get_value(i, 0).decode(): res.get_value(i, 1) for i in range(res.ntuples)}


@pytest.fixture(scope="module")
def lit_conn(pg: str) -> Any:
    with _raw(create_db(pg, "t_lit")) as c:
        yield c


@settings(max_examples=300, deadline=None)
@given(value=st.text(max_size=60).filter(lambda x: "\x00" not in x))
def test_a_literal_is_one_constant_read_back_byte_for_byte(lit_conn: Any, value: str) -> None:
    got = lit_conn.execute(f"SELECT {pgprep.literal(value)}::text, 1").fetchall()
    assert got == [(value, 1)]  # one constant, then the next column: nothing of it read as SQL


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(st.one_of(st.none(), st.text(max_size=30).filter(lambda x: "\x00" not in x)), max_size=6),
    ints=st.lists(st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)), max_size=6),
)
def test_arrays_are_read_back_element_for_element(
    lit_conn: Any, texts: list[str | None], ints: list[int | None]
) -> None:
    """A column's array (``_texts``, ``_ints``): each element comes back as it was, NULL as NULL,
    and the constant ends where it should (the next column is read as such)."""
    got = lit_conn.execute(
        f"SELECT {pgprep._texts(texts)}::text[], {pgprep._ints(ints)}::integer[], 1"
    ).fetchall()
    assert got == [(texts, ints, 1)]


def test_array_elements_of_another_type_are_refused() -> None:
    for bad in ("1", 1.5, b"x", Decimal(1)):
        with pytest.raises(TypeError):
            pgprep._ints([1, bad])
    for bad_text in (1, b"x", 1.5):
        with pytest.raises(TypeError):
            pgprep._texts(["a", bad_text])


def test_hostile_literals_and_integers(lit_conn: Any) -> None:
    hostile = ["'", "''", "\\", "\\'", "E'\\x27'", "$1", "$$", "$a$", "'; DROP TABLE x; --", "/*", "é😀"]
    hostile += ['"', '\\"', "{", "}", ",", "NULL", "null", " a ", "", "\"}'); DROP TABLE x; --"]
    for value in hostile:
        assert lit_conn.execute(f"SELECT {pgprep.literal(value)}::text, 1").fetchall() == [(value, 1)]
    assert lit_conn.execute(f"SELECT {pgprep._texts(hostile)}::text[], 1").fetchall() == [(hostile, 1)]
    assert lit_conn.execute(f"SELECT {pgprep.literal(-(10**15))}::bigint").fetchone() == (-(10**15),)
    assert pgprep.literal(None) == "NULL"
    for bad in (True, 1.5, b"x", Decimal(1)):
        with pytest.raises(TypeError, match="only int, str, None"):
            pgprep.literal(bad)


def test_standard_conforming_strings_is_set_when_off(pg: str) -> None:
    s, tid = _start(create_db(pg, "t_scs"))
    try:
        s.append(tid, _pay(0, "a\\'b"))
        raw = _writer(s)
        raw.pgconn.exec_(b"SET standard_conforming_strings = off")
        s.append(tid, _pay(1, "c\\'d"))  # the writer sets it back before its text
        assert raw.pgconn.parameter_status(b"standard_conforming_strings") == b"on"
        assert [r["player"] for r in s.ledger_(tid)] == ["a\\'b", "c\\'d"]
        audit(s)
    finally:
        s.close()


def test_nul_is_refused_with_a_clear_error(pg: str) -> None:
    s, tid = _start(create_db(pg, "t_nul"))
    try:
        with pytest.raises(HistoryError, match="NUL"):
            s.append(tid, _pay(0, "a\x00b"))
        assert s.events_(tid) == []
    finally:
        s.close()


def test_prepared_once_per_connection_kept_across_a_rollback(pg: str) -> None:
    s, tid = _start(create_db(pg, "t_once"))
    try:
        s.append(tid, _pay(0))
        raw = _writer(s)
        assert raw.prepare_threshold is None  # psycopg prepares nothing of its own (its DEALLOCATE ALL)
        first = _server_names(raw)
        assert {n.split("_")[1] for n in first} >= {"event", "ledger", "balance", "head"}
        s.append(tid, _pay(1))
        s.append(tid, _pay(2))
        assert _writer(s) is raw and _server_names(raw) == first  # none prepared again (the same times)
        twice = Batch(rows=[*_pay(3).rows, *_pay(3).rows])  # a unique key twice: the transaction fails
        with pytest.raises(Exception, match="unique|duplicate"):
            s.append(tid, twice)
        assert first.items() <= _server_names(raw).items()  # rolled back on this session: all kept
        s.group.forgive(tid)  # (the recorder attached again)
        s.append(tid, _pay(3))
        assert [e["seq"] for e in s.events_(tid)] == [0, 1, 2, 3]
        audit(s)
    finally:
        s.close()


def test_a_new_session_prepares_again(pg: str) -> None:
    url = create_db(pg, "t_reconnect")
    s, tid = _start(url)
    try:
        s.append(tid, _pay(0))
        pid = _writer(s).info.backend_pid
        with _raw(url) as admin:  # the writer's server session ends (a server restart's effect)
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(psycopg.OperationalError):
            s.append(tid, _pay(1))  # the commit on the dead session fails as before
        s.group.forgive(tid)
        s.append(tid, _pay(1))  # a new connection: its statements prepared on it
        raw = _writer(s)
        assert raw.info.backend_pid != pid and _server_names(raw)
        assert [e["seq"] for e in s.events_(tid)] == [0, 1]
        audit(s)
    finally:
        s.close()


def test_deallocated_statements_are_prepared_again(pg: str) -> None:
    s, tid = _start(create_db(pg, "t_dealloc"))
    try:
        s.append(tid, _pay(0))
        raw = _writer(s)
        raw.pgconn.exec_(b"DEALLOCATE ALL")  # behind the writer's back
        s.append(tid, _pay(1))  # SQLSTATE 26000: read again, rolled back, prepared, sent again
        assert _writer(s) is raw and _server_names(raw)
        raw.pgconn.exec_(b"ALTER TABLE events ADD COLUMN extra integer")  # a schema change meanwhile
        s.append(tid, _pay(2))
        assert [e["seq"] for e in s.events_(tid)] == [0, 1, 2]
        assert s.balances(tid)['"ann"'] == Decimal("3.30")
        audit(s)
    finally:
        s.close()


def test_the_fenced_transaction_writes_through_the_same_text(pg: str) -> None:
    s, tid = _start(create_db(pg, "t_fenced"))
    seen: list[int] = []

    def fence(conn: Connection, tid: int) -> None:  # a lease's fence: a statement in the transaction
        seen.append(
            int(conn.execute(text("SELECT id FROM tables WHERE id = :t FOR UPDATE"), {"t": tid}).scalar_one())
        )

    try:
        s.fences.append(fence)
        s.append(tid, _pay(0))
        raw = _writer(s)
        names = _server_names(raw)
        assert names
        raw.pgconn.exec_(b"DEALLOCATE ALL")
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            s.append(tid, _pay(1))  # the fences' transaction cannot be sent again: raised, nothing written
        assert s.group is not None
        s.group.forgive(tid)  # (the recorder attached again)
        s.append(tid, _pay(1))  # the names were read again: prepared, written
        s.append(tid, _pay(2))
        assert seen == [tid] * 4
        assert [e["seq"] for e in s.events_(tid)] == [0, 1, 2]
        audit(s)
    finally:
        s.close()
