"""The group commit's write path (history/group.py, batchsql.py): the same bytes as before, heads
remembered by the writer but never trusted past another writer.

- The hash chain's bytes are those of the code before the raw write path: events written now get the
  very hashes (constants below) that the SQLAlchemy path wrote for the same events, so a store written
  by the old code still verifies and an old store's chain goes on unchanged.
- ``event_text`` (the body built around the already-encoded payload) is ``canon(event_body(...))``
  for any data, and ``canon`` is the ``json.dumps`` it replaced.
- Two writers on one table (another process wrote it after this writer remembered its head): the
  remembered head is found stale inside the transaction, read again, and the write goes on the real
  head; the chain stays one chain and every balance its ledger sum (audit). SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.history import Store, open_store
from pontoon.history.audit import audit
from pontoon.history.chain import (
    account_key,
    amount_of,
    canon,
    chain_text_hash,
    event_body,
    event_hash,
    event_text,
)
from pontoon.history.store import Batch, Row
from tests.history.pg import create_db, module_cluster

HOUSE = {"system": "house"}

# the chain heads the SQLAlchemy write path (before the raw DBAPI one) gave these batches
OLD_HASHES = [
    "3be5389a3a7f58bca97be29a28f40308a3e1bd35f47ae9c671d5e927111ba777",
    "ed3d890c895960a9bf3ea78d41272f93ea40cf2e68a9854c55eff3c5c6da46c5",
    "f18e7abf1c3ba271828d8478af2f61a1b06822b1da9f6610c65153ac3b1c277a",
]


def known_batches() -> list[Batch]:
    deposit = {
        "source": {"cashier": "cage"},
        "dest": "ann",
        "amount": "100.50",
        "kind": "deposit",
        "player": "ann",
        "reason": "sits down",
    }
    wager = {
        "source": "ann",
        "dest": HOUSE,
        "amount": "5",
        "kind": "wager",
        "player": "ann",
        "reason": "main bet",
    }
    note = 'ünï “q” \u2028 \\ "x"'
    return [
        Batch(
            rows=[Row(0, 0, "join", {"player": "ann", "balance": "100.50"}, "", [deposit])],
            state={"z": 1, "a": ["é", {"y": None, "b": True}]},
        ),
        Batch(
            rows=[
                Row(1, 0, "round_start", {"shoe": 1, "seats": ["ann"]}, "004 3.1"),
                Row(
                    1,
                    1,
                    "bet",
                    {"player": "ann", "amount": "5", "note": note, "n": 3, "f": [1, 2.5]},
                    "004 3.2 bet",
                    [wager],
                ),
            ],
            state={"k": "v"},
            state_at=0,
            round_end=(1, "settled", {"net": {"ann": "-5"}}),
        ),
    ]


def check_known(store: Store) -> None:
    tid = store.create_table("casino", "mbs", {"preset": "mbs"})
    store.start_group()
    assert store.append_many(tid, known_batches()) == OLD_HASHES[-1]
    evs = store.events_(tid)
    assert [e["hash"] for e in evs] == OLD_HASHES
    assert [e["prev_hash"] for e in evs] == ["", *OLD_HASHES[:-1]]
    assert [e["round_id"] for e in evs] == [None, 1, 1]
    t = store.table(tid)
    assert t["last_hash"] == OLD_HASHES[-1]
    assert t["state"] == {"k": "v"}
    assert t["state_event"] == evs[1]["id"] - 1  # the snapshot holds before the round's start
    assert store.balances(tid) == {
        '"ann"': Decimal("95.50"),
        '{"cashier":"cage"}': Decimal("-100.50"),
        '{"system":"house"}': Decimal("5"),
    }
    led = store.ledger_(tid)
    assert [(r["idem"], r["event_id"], r["round_id"], r["amount"]) for r in led] == [
        (f"{tid}:0:0:0", evs[0]["id"], None, "100.50"),
        (f"{tid}:1:1:0", evs[2]["id"], 1, "5"),
    ]
    (rnd,) = store.rounds_(table_id=tid)
    assert (rnd["status"], rnd["result"], rnd["shoe"]) == ("settled", {"net": {"ann": "-5"}}, 1)
    audit(store)


def test_known_events_keep_their_hashes_sqlite(store: Store) -> None:
    check_known(store)


json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    data=st.dictionaries(st.text(max_size=8), json_data, max_size=5),
    kind=st.text(max_size=12),
    clause=st.text(max_size=12),
    round_no=st.integers(0, 10**6),
    seq=st.integers(0, 10**4),
    transfers=st.lists(st.dictionaries(st.sampled_from(["source", "dest", "amount"]), json_data), max_size=3),
)
def test_event_text_is_the_canonical_body(
    data: dict[str, Any], kind: str, clause: str, round_no: int, seq: int, transfers: list[dict[str, Any]]
) -> None:
    payload = canon(data)
    assert payload == json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    body = event_body(round_no, seq, kind, data, clause, transfers)
    assert event_text(round_no, seq, kind, data, payload, clause, transfers) == canon(body)
    prev = "ab" * 32
    want = chain_text_hash(prev, canon(body))
    assert event_hash(prev, round_no, seq, kind, data, payload, clause, transfers) == want
    assert canon(body) == json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# what orjson refuses somewhere inside (a 128-bit int: a table snapshot's generator state; a key that
# is not text; a lone surrogate) or writes otherwise (a tuple, a small float, an infinity): ``canon``
# writes it by parts or by ``json``, the same text as ``json`` for the whole
awkward = st.recursive(
    st.integers(2**64, 2**130)
    | st.integers(-(2**70), -(2**64))
    | st.floats(allow_nan=False)
    | st.sampled_from([1e-5, 1e-9, 0.00001234, "\ud800", "e-", "0.0000x"])
    | json_data,
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.tuples(kids, kids)
        | st.dictionaries(st.text(max_size=4), kids, max_size=4)
        | st.dictionaries(st.integers(0, 9), kids, max_size=2)
    ),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(obj=st.dictionaries(st.text(max_size=6) | st.sampled_from(["\udc80", "rng"]), awkward, max_size=5))
def test_canon_is_json_for_what_orjson_refuses(obj: dict[str, Any]) -> None:
    want = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canon(obj) == want
    assert canon([obj]) == "[" + want + "]"


def test_canon_of_a_snapshot_and_of_what_json_refuses() -> None:
    """A table's snapshot (its generator's state past 64 bits) is written as ``json`` writes it; a
    cycle and a key ``json`` cannot sort still raise ``json``'s errors."""
    snap = {"shoe": {"cards": "AS KD"}, "rng": {"state": {"state": 2**127 + 5, "inc": 7}}, "log_seq": 3}
    assert canon(snap) == json.dumps(snap, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    loop: dict[str, Any] = {"big": 2**70}
    loop["me"] = loop
    with pytest.raises(ValueError, match="Circular reference"):
        canon(loop)
    with pytest.raises(TypeError):
        canon({"a": 2**70, 1: 2})


@settings(max_examples=200, deadline=None)
@given(
    text=st.decimals(allow_nan=False, allow_infinity=False).map(str)
    | st.sampled_from(["5", "10.50", "-0", "1E+2"])
)
def test_a_ledger_amount_is_its_decimal_and_its_text_every_time(text: str) -> None:
    """``amount_of`` (a text amount's pair made once, then remembered) is ``Decimal`` of it and the
    text of that, the first time and every later time."""
    for _ in range(2):
        amount, stored = amount_of(text)
        assert (amount, stored) == (Decimal(text), str(Decimal(text)))
        assert stored == str(amount)


def _move(seq: int, amount: str) -> Batch:
    t = {"source": HOUSE, "dest": "ann", "amount": amount, "kind": "win", "player": "ann", "reason": "r"}
    return Batch(rows=[Row(0, seq, "pay", {"n": seq}, "", [t])])


def check_two_writers(url: str) -> None:
    a, b = open_store(url), open_store(url)
    try:
        a.start_group()
        tid = a.create_table("casino", "mbs", {"preset": "mbs"})
        a.append(tid, _move(0, "1.10"))  # a remembers the head and the balances
        b.append(tid, _move(1, "2.20"))  # another writer moves them
        a.append(tid, _move(2, "3.30"))  # a's remembered head is stale: read again, written on b's
        b.append(tid, _move(3, "4.40"))
        evs = a.events_(tid)
        assert [e["seq"] for e in evs] == [0, 1, 2, 3]
        assert [e["prev_hash"] for e in evs[1:]] == [e["hash"] for e in evs[:-1]]
        assert a.table(tid)["last_hash"] == evs[-1]["hash"]
        assert a.balances(tid) == {'"ann"': Decimal("11.00"), '{"system":"house"}': Decimal("-11.00")}
        audit(a)
    finally:
        a.close()
        b.close()


def test_a_stale_remembered_head_is_read_again_sqlite(db_url: str) -> None:
    check_two_writers(db_url)


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.postgres
def test_known_events_keep_their_hashes_postgres(pg: str) -> None:
    s = open_store(create_db(pg, "t_known"))
    try:
        check_known(s)
    finally:
        s.close()


@pytest.mark.postgres
def test_a_stale_remembered_head_is_read_again_postgres(pg: str) -> None:
    check_two_writers(create_db(pg, "t_stale"))


def test_the_writer_checks_no_foreign_keys_and_gives_its_connection_back_checking(db_url: str) -> None:
    """SQLite: the group writer's own connection runs without foreign-key checks (its statements find
    every linked row by key; the audit checks the links), and the pool gets it back with them on."""
    s = open_store(db_url)
    try:
        check_known(s)  # written by the group writer: every link right, the audit clean
        conn = s.writer_connection()
        raw: Any = conn.connection.driver_connection
        assert raw.execute("PRAGMA foreign_keys").fetchone()[0] == 0
        s.release_writer(conn)
        assert raw.execute("PRAGMA foreign_keys").fetchone()[0] == 1  # back in the pool: checks on
        with s.engine.begin() as c:  # any pool connection refuses a dangling link
            with pytest.raises(Exception, match="FOREIGN KEY"):
                c.exec_driver_sql(
                    "INSERT INTO events (table_id, round_id, round_no, seq, kind, payload, created, prev_hash, "
                    "hash) VALUES (999, NULL, 0, 0, 'x', '{}', '', '', '')"
                )
    finally:
        s.close()


_ACCOUNT = st.text(max_size=8) | st.dictionaries(
    st.sampled_from(["player", "system", "cashier", "x"]),
    st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none()),
    min_size=1,
    max_size=2,
)


@settings(max_examples=200, deadline=None)
@given(accounts=st.lists(_ACCOUNT, min_size=1, max_size=6))
def test_an_accounts_key_is_its_canonical_json_every_time(accounts: list[Any]) -> None:
    """``account_key`` (text and one-field accounts encoded once, then remembered) is ``canon`` of the account,
    the first time and every later time, whatever the field's value (``True`` and ``1`` apart)."""
    for _ in range(2):
        for a in accounts:
            assert account_key(a) == canon(a)
