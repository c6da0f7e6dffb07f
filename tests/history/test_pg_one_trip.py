"""PostgreSQL's group commit in ONE round trip (batchsql.py ``_run_pg``): the writer thread's
transaction, its statements and its COMMIT, goes to the server as one pipeline, synced once.

- Values come back byte for byte (quotes, backslashes, ``$1``, ``?``, ``%s``, ``--``, SQL, any unicode)
  and the chain verifies (audit).
- A failed statement fails the whole transaction: the COMMIT queued after it is not run, nothing of it
  is committed, the caller's write fails with the driver's error, and the writer goes on.
- A head moved by another writer is caught by the server inside the transaction (the heads' UPDATE
  counted: its COMMIT is not run) and the write is made again on the real head (``StaleHead``,
  ``Store.write_group``).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.history.store import Batch, Row
from tests.history.pg import create_db, module_cluster

pg = pytest.fixture(scope="module", name="pg")(module_cluster)

HOUSE = {"system": "house"}
HOSTILE = [
    "it's",
    "a\\b",
    "\\'",
    "''",
    "$1",
    "?",
    "-- x",
    "'); DROP TABLE events; --",
    "é€😀",
    "\t\n",
    "%s",
    "%(x)s",
    "E'\\x'",
]


def _pay(seq: int, text: str, amount: str = "1.10") -> Batch:
    t = {"source": HOUSE, "dest": text, "amount": amount, "kind": "win", "player": text, "reason": text}
    return Batch(rows=[Row(0, seq, "pay", {"text": text, "n": seq}, text, [t])])


@pytest.mark.postgres
def test_values_as_literals_come_back_byte_for_byte_and_verify(pg: str) -> None:
    s = open_store(create_db(pg, "t_literals"))
    try:
        s.start_group()
        tid = s.create_table("casino", "mbs", {"preset": "mbs"})
        for i, text in enumerate(HOSTILE):
            s.append(tid, _pay(i, text))
        evs = s.events_(tid)
        assert [e["data"]["text"] for e in evs] == HOSTILE
        assert [e["clause"] for e in evs] == HOSTILE
        assert [r["reason"] for r in s.ledger_(tid)] == HOSTILE
        assert s.group is not None and s.group.groups == len(HOSTILE)  # written by the writer thread
        audit(s)
    finally:
        s.close()


@pytest.mark.postgres
@settings(max_examples=30, deadline=None)
@given(text=st.text(min_size=0, max_size=40).filter(lambda x: "\x00" not in x))
def test_any_text_comes_back(pg: str, text: str) -> None:
    s = open_store(create_db(pg, "t_any"))
    try:
        s.start_group()
        tid = s.create_table("casino", "mbs", {"preset": "mbs"})
        s.append(tid, _pay(0, text))
        (ev,) = s.events_(tid)
        assert (ev["data"]["text"], ev["clause"]) == (text, text)
    finally:
        s.close()


@pytest.mark.postgres
def test_a_failed_transaction_commits_nothing_and_the_writer_goes_on(pg: str) -> None:
    s = open_store(create_db(pg, "t_failed"))
    try:
        s.start_group()
        a = s.create_table("casino", "mbs", {"preset": "mbs"})
        b = s.create_table("casino", "mbs", {"preset": "mbs"})
        s.append(a, _pay(0, "ann"))
        twice = Batch(rows=[*_pay(1, "ann").rows, *_pay(1, "bob").rows])  # seq 1 twice: a unique key
        with pytest.raises(Exception, match="unique|duplicate"):
            s.append(a, twice)
        assert [e["seq"] for e in s.events_(a)] == [0]  # nothing of the failed transaction
        assert s.balances(a) == {'"ann"': Decimal("1.10"), '{"system":"house"}': Decimal("-1.10")}
        s.append(b, _pay(0, "bob"))  # the writer goes on (a new connection or the same, in transactions)
        s.append(b, _pay(1, "bob"))
        assert [e["seq"] for e in s.events_(b)] == [0, 1]
        assert s.group is not None and s.group.conn is not None
        assert not s.group.conn.connection.driver_connection.autocommit  # type: ignore[union-attr]
        audit(s)
    finally:
        s.close()


@pytest.mark.postgres
def test_a_moved_head_is_caught_by_the_server_and_written_again(pg: str) -> None:
    url = create_db(pg, "t_moved")
    a, b = open_store(url), open_store(url)
    try:
        a.start_group()
        tid = a.create_table("casino", "mbs", {"preset": "mbs"})
        a.append(tid, _pay(0, "ann"))  # a remembers the head
        b.append(tid, _pay(1, "ann"))  # b moves it
        a.append(tid, _pay(2, "ann"))  # a's transaction fails on the server, then is written on b's head
        evs = a.events_(tid)
        assert [e["seq"] for e in evs] == [0, 1, 2]
        assert [e["prev_hash"] for e in evs[1:]] == [e["hash"] for e in evs[:-1]]
        assert a.balances(tid)['"ann"'] == Decimal("3.30")
        assert a.group is not None and a.group.groups == 2
        assert not a.group.conn.connection.driver_connection.autocommit  # type: ignore[union-attr]
        audit(a)
    finally:
        a.close()
        b.close()
