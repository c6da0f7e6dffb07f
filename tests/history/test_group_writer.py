"""The group commit's writer thread (history/group.py): when it waits, and its own connection.

- An idle writer commits a lone call at once, whatever its window: the window (``window_s``) is
  waited only after a commit that carried several calls (load), so at one table every action's
  commit starts as soon as it is queued. The calls queued while the writer was held (a second writer
  holding the SQLite file's lock) are committed together, and only then is the window waited.
- One transaction of many tables' calls (PostgreSQL: one statement per kind of row, the rows sent as
  one JSON array) writes every row in its order: each table's events have ascending ids in their
  order, each ledger row names its own event and round, every chain links.
- Callers that wait in their own thread (``Store.append``: a ``Waiter``, a lock, not a ``Future``)
  each get their own call's new head, from many threads at once.
- The writer keeps one connection between its transactions; a failed transaction (an event written
  twice: its unique key) is rolled back whole, that connection is given up, and the next commit (of
  another table) takes a new one and is durable. SQLite and PostgreSQL (the driver's own
  transaction: ``BEGIN IMMEDIATE``/``COMMIT`` on SQLite, psycopg's on PostgreSQL). On PostgreSQL a
  connection idle for a while is given back before the next commit, so a server that dropped it
  (here: its backend terminated) costs no write.
"""

from __future__ import annotations

import sqlite3
import threading

import psycopg
import pytest

from pontoon.history import HistoryError, Store, open_store
from pontoon.history.audit import audit
from pontoon.history.dbfile import parse_sqlite
from pontoon.history.store import Batch, Row
from tests.history.pg import create_db, module_cluster


def _move(seq: int) -> Batch:
    t = {"source": {"system": "house"}, "dest": "ann", "amount": "1.25", "kind": "win", "player": "ann"}
    return Batch(rows=[Row(0, seq, "pay", {"n": seq}, "", [{**t, "reason": "r"}])])


def _tables(store: Store, n: int) -> list[int]:
    return [store.create_table("casino", "mbs", {"preset": "mbs"}) for _ in range(n)]


def test_an_idle_writer_commits_a_lone_call_at_once(db_url: str) -> None:
    store = open_store(db_url)
    try:
        group = store.start_group(window_s=60.0)  # a window no test could wait for
        (tid,) = _tables(store, 1)
        done = threading.Event()

        def write() -> None:
            for seq in range(3):  # one call after another: the writer is idle at each
                store.append(tid, _move(seq))
            done.set()

        threading.Thread(target=write, daemon=True).start()
        assert done.wait(20), "an idle writer waited its window before committing a lone call"
        assert group.waited == 0
        assert [e["seq"] for e in store.events_(tid)] == [0, 1, 2]
    finally:
        store.close()


def test_the_window_is_waited_only_after_a_shared_commit(db_url: str) -> None:
    store = open_store(db_url)
    try:
        group = store.start_group(window_s=0.05)
        a, b, c, d = _tables(store, 4)
        path = parse_sqlite(db_url)
        assert path is not None
        lock = sqlite3.connect(path.path, isolation_level=None, timeout=30)
        lock.execute("BEGIN IMMEDIATE")  # another writer holds the file: the writer waits in its BEGIN
        first = store.submit(a, [_move(0)])
        for _ in range(200):  # the writer has taken the first call (and waits for the lock)
            with group.cv:
                if not group.queue:
                    break
            threading.Event().wait(0.01)
        rest = [store.submit(t, [_move(0)]) for t in (b, c, d)]  # queued together meanwhile
        lock.execute("COMMIT")
        lock.close()
        first.result(30)
        for f in rest:
            f.result(30)
        assert group.waited == 0  # the lone first call and the three queued: no window waited yet
        assert group.busy  # the last commit carried the three calls
        store.append(a, _move(1))  # after a shared commit the writer waits its window once
        assert group.waited == 1
        store.append(a, _move(2))  # a lone call again: idle, at once
        assert group.waited == 1
        assert group.groups >= 3 and group.items == 6
        audit(store)
    finally:
        store.close()


REFUSED = (HistoryError, sqlite3.IntegrityError, psycopg.IntegrityError)  # the driver's unique violation


def check_failed_transaction(url: str) -> None:
    store = open_store(url)
    try:
        group = store.start_group()
        a, b = _tables(store, 2)
        store.append(a, _move(0))
        conn = group.conn
        assert conn is not None
        store.append(b, _move(0))
        assert group.conn is conn  # kept between commits
        with pytest.raises(REFUSED):
            store.append(a, Batch(rows=[*_move(1).rows, *_move(1).rows]))  # seq 1 twice: refused whole
        assert group.conn is None  # given up after the failed transaction
        store.append(b, _move(1))  # another table: a new connection, committed
        assert group.conn is not None and group.conn is not conn
        assert [e["seq"] for e in store.events_(a)] == [0]  # nothing of the failed call
        assert [e["seq"] for e in store.events_(b)] == [0, 1]
        with pytest.raises(REFUSED):  # the failed table is refused from then on
            store.append(a, _move(2))
        audit(store)
    finally:
        store.close()
    again = open_store(url)  # what is committed is durable: a new store reads it
    try:
        assert [e["seq"] for e in again.events_(b)] == [0, 1]
        audit(again)
    finally:
        again.close()


def test_many_threads_waiting_each_get_their_own_head(db_url: str) -> None:
    store = open_store(db_url)
    try:
        group = store.start_group()
        tids = _tables(store, 20)
        got: dict[int, list[str]] = {}
        errors: list[BaseException] = []

        def play(tid: int) -> None:
            try:
                got[tid] = [store.append(tid, _move(seq)) for seq in range(5)]
            except BaseException as err:  # noqa: BLE001 (asserted below)
                errors.append(err)

        threads = [threading.Thread(target=play, args=(t,)) for t in tids]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        assert not errors
        for tid in tids:
            assert got[tid] == [e["hash"] for e in store.events_(tid)]
            assert group.pending(tid) is None
        assert group.items == 100
        audit(store)
    finally:
        store.close()


def check_many_tables_in_order(url: str) -> None:
    store = open_store(url)
    try:
        tids = _tables(store, 40)
        items = []
        for k, tid in enumerate(tids):  # each table: 3 batches of 1 to 3 rows, a round among them
            rnd = [Row(1, 0, "round_start", {"shoe": 1}, "004 3.1"), *_move(1).rows]
            rnd[1] = Row(1, 1, "pay", {"n": k, "note": "é\u2028"}, "", rnd[1].transfers)
            items.append((tid, [_move(0), Batch(rows=rnd, round_end=(1, "settled", {"k": k})), _move(2)]))
        heads = store.write_group(items)
        for (tid, _b), head in zip(items, heads, strict=True):
            evs = store.events_(tid)
            assert [(e["round_no"], e["seq"]) for e in evs] == [(0, 0), (1, 0), (1, 1), (0, 2)]
            assert [e["id"] for e in evs] == sorted(e["id"] for e in evs)
            assert [e["prev_hash"] for e in evs] == ["", *(e["hash"] for e in evs[:-1])]
            assert evs[-1]["hash"] == head == store.table(tid)["last_hash"]
            (rnd_row,) = store.rounds_(table_id=tid)
            assert evs[1]["round_id"] == evs[2]["round_id"] == rnd_row["id"]
            assert evs[0]["round_id"] is None and rnd_row["status"] == "settled"
            led = store.ledger_(tid)
            assert [(r["event_id"], r["round_id"]) for r in led] == [
                (evs[0]["id"], None),
                (evs[2]["id"], rnd_row["id"]),
                (evs[3]["id"], None),
            ]
        audit(store)
    finally:
        store.close()


def test_many_tables_in_one_transaction_keep_their_order_sqlite(db_url: str) -> None:
    check_many_tables_in_order(db_url)


def test_a_failed_transaction_gives_up_the_writers_connection_sqlite(db_url: str) -> None:
    check_failed_transaction(db_url)


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.postgres
def test_a_failed_transaction_gives_up_the_writers_connection_postgres(pg: str) -> None:
    check_failed_transaction(create_db(pg, "t_group_writer"))


@pytest.mark.postgres
def test_many_tables_in_one_transaction_keep_their_order_postgres(pg: str) -> None:
    check_many_tables_in_order(create_db(pg, "t_group_order"))


@pytest.mark.postgres
def test_an_idle_writer_connection_dropped_by_the_server_costs_no_write(pg: str) -> None:
    url = create_db(pg, "t_group_idle")
    store = open_store(url)
    try:
        group = store.start_group()
        group.idle_s = 0.2
        (tid,) = _tables(store, 1)
        store.append(tid, _move(0))
        store.append(tid, _move(1))  # back to back: the same connection
        conn = group.conn
        assert conn is not None
        pid = conn.connection.driver_connection.info.backend_pid
        other = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))
        other.close()
        threading.Event().wait(0.3)  # idle past idle_s
        store.append(tid, _move(2))  # a new connection from the pool: written
        assert group.conn is not conn
        assert [e["seq"] for e in store.events_(tid)] == [0, 1, 2]
        audit(store)
    finally:
        store.close()
