"""The table server's calls queued together share one Future (``GroupCommitter.enqueue``, ``Shared``).

- The calls of several tables queued while the writer cannot take the queue (the test holds its lock)
  share ONE Future: ``pending`` of every table is it until they are committed, then None. Every
  table's events keep their order (ids ascending in order) and their hash chain, and the running
  balances (``accounts``, written in the same transaction) equal the sums of the table's ledger rows;
  the audit agrees. SQLite (one statement per kind of row, the rows as a JSON array) and PostgreSQL.
- A share taken by the writer in two commits (``max_items``) completes only once its last call is
  committed: at its completion every call of it is durable (read by another connection).
- One table's refused call in a share (its unique key) fails that table only: the other tables'
  calls are committed, the share completes without an error, and the refused table is in ``failed``
  (where the table server reads it after the wait) and stays refused.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from decimal import Decimal

import pytest

from pontoon.history import Store, open_store
from pontoon.history.audit import audit
from pontoon.history.chain import account_key
from pontoon.history.store import Batch, Row
from tests.history.pg import create_db, module_cluster

HOUSE = {"system": "house"}


def _call(k: int, seq: int, amount: str) -> Batch:
    """Event ``seq`` of round 0 moving ``amount`` from the house to ann, and a part of it on to bob."""
    pay = {"source": HOUSE, "dest": "ann", "amount": amount, "kind": "win", "player": "ann", "reason": "r"}
    tip = {"source": "ann", "dest": "bob", "amount": "0.10", "kind": "tip", "player": "ann", "reason": "t"}
    return Batch(rows=[Row(0, seq, "pay", {"n": seq, "k": k, "note": "é\u2028\x01"}, "004 1.1", [pay, tip])])


def _tables(store: Store, n: int) -> list[int]:
    return [store.create_table("casino", "mbs", {"preset": "mbs"}) for _ in range(n)]


def _ledger_sums(store: Store, tid: int) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for r in store.ledger_(tid):
        src, dst, amount = account_key(r["source"]), account_key(r["dest"]), Decimal(r["amount"])
        out[src] = out.get(src, Decimal(0)) - amount
        out[dst] = out.get(dst, Decimal(0)) + amount
    return out


def check_one_share(url: str) -> None:
    store = open_store(url)
    try:
        group = store.start_group()
        tids = _tables(store, 6)
        with group.cv:  # the writer cannot take the queue meanwhile: every call joins one share
            futs = [
                store.enqueue(t, [_call(k, seq, f"{k + 1}.{seq}5")])
                for seq in range(3)
                for k, t in enumerate(tids)
            ]
            share = futs[0]
            assert all(f is share for f in futs)
            assert all(group.pending(t) is share for t in tids)
            assert not share.done()
        assert share.result(30) == ""
        assert all(group.pending(t) is None for t in tids)
        assert group.groups >= 1 and group.items == 18
        for k, tid in enumerate(tids):
            evs = store.events_(tid)
            assert [e["seq"] for e in evs] == [0, 1, 2]
            assert [e["data"]["k"] for e in evs] == [k] * 3
            assert [e["id"] for e in evs] == sorted(e["id"] for e in evs)
            assert [e["prev_hash"] for e in evs] == ["", *(e["hash"] for e in evs[:-1])]
            assert evs[-1]["hash"] == store.table(tid)["last_hash"]
            sums = _ledger_sums(store, tid)
            assert store.balances(tid) == sums
            assert sums[account_key("ann")] == sum(
                Decimal(f"{k + 1}.{s}5") - Decimal("0.10") for s in range(3)
            )
        audit(store)
    finally:
        store.close()


def test_calls_queued_together_share_one_future_sqlite(db_url: str) -> None:
    check_one_share(db_url)


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.postgres
def test_calls_queued_together_share_one_future_postgres(pg: str) -> None:
    check_one_share(create_db(pg, "t_group_share"))


def test_a_share_written_in_two_commits_completes_after_the_last(db_url: str) -> None:
    store = open_store(db_url)
    try:
        group = store.start_group()
        group.max_items = 2  # five calls: three commits
        (tid,) = _tables(store, 1)
        seen: list[int] = []
        called = threading.Event()

        def completed(_f: Future[str]) -> None:  # the writer thread, at the completion
            seen.append(len(store.events_(tid)))  # what another connection reads then
            called.set()

        with group.cv:
            share = [store.enqueue(tid, [_call(0, seq, "1.00")]) for seq in range(5)][0]
            share.add_done_callback(completed)
        share.result(30)
        assert called.wait(30)
        assert seen == [5]
        assert group.groups >= 3 and group.pending(tid) is None
        audit(store)
    finally:
        store.close()


def test_a_refused_call_in_a_share_fails_its_table_only(db_url: str) -> None:
    store = open_store(db_url)
    try:
        group = store.start_group()
        a, b, c = _tables(store, 3)
        store.enqueue(a, [_call(0, 0, "1.00")]).result(30)
        twice = Batch(rows=[*_call(0, 1, "1.00").rows, *_call(0, 1, "1.00").rows])  # seq 1 twice
        with group.cv:
            futs: list[Future[str]] = [
                store.enqueue(b, [_call(1, 0, "2.00")]),
                store.enqueue(a, [twice]),
                store.enqueue(c, [_call(2, 0, "3.00")]),
            ]
        assert futs[0].result(30) == "" and futs[0].exception() is None
        assert a in group.failed and b not in group.failed and c not in group.failed
        assert [e["seq"] for e in store.events_(a)] == [0]  # nothing of the refused call
        assert [len(store.events_(t)) for t in (b, c)] == [1, 1]
        store.enqueue(a, [_call(0, 1, "1.00")]).result(30)  # refused from then on: its chain skips nothing
        assert [e["seq"] for e in store.events_(a)] == [0] and a in group.failed
        audit(store)
    finally:
        store.close()


def test_a_nul_character_in_a_text_is_written_whole_sqlite(db_url: str) -> None:
    """SQLite's JSON functions cut a text at a NUL: rows holding one go the multi-row way, whole."""
    store = open_store(db_url)
    try:
        group = store.start_group()
        a, b = _tables(store, 2)
        odd = {
            "source": HOUSE,
            "dest": "a\x00b",
            "amount": "1.00",
            "kind": "win",
            "player": "a\x00b",
            "reason": "r\x00",
        }
        with group.cv:  # one share: a table with NUL characters beside a plain one
            share = store.enqueue(a, [Batch(rows=[Row(0, 0, "pay\x00", {"n": "\x00"}, "c\x00", [odd])])])
            store.enqueue(b, [_call(1, 0, "2.00")])
        share.result(30)
        assert not group.failed
        (led,) = store.ledger_(a)
        assert (led["player"], led["reason"], led["dest"]) == ("a\x00b", "r\x00", "a\x00b")
        (ev,) = store.events_(a)
        assert (ev["kind"], ev["clause"], ev["data"]) == ("pay\x00", "c\x00", {"n": "\x00"})
        assert store.balances(a) == _ledger_sums(store, a)
        assert len(store.events_(b)) == 1
        audit(store)
    finally:
        store.close()
