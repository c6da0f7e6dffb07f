"""Group commit: the writes of every table that arrive within a short window, in ONE transaction.

``write_items(store, conn, items)`` writes the batches of several tables with multi-row statements
(the events of all of them in one multi-row ``INSERT``, their ids taken beforehand in one statement, one
for their ledger rows, one upsert of the running account balances, one update of the chain heads): a handful of round
trips per transaction whatever the number of tables, on SQLite and on PostgreSQL alike. Each table's
events keep their order and their hash chain (``prev_hash`` is the head the transaction read, locked
``FOR UPDATE`` on PostgreSQL), and each table's head is sealed (``seal.py``) as before.

``GroupCommitter`` is a writer thread: ``submit(table_id, batches)`` queues one table call's batches and
returns a ``Future`` that completes once they are COMMITTED (durable: ``synchronous=FULL`` on SQLite,
fsync on PostgreSQL). The thread takes everything queued (what arrived while the previous commit was
being fsynced, plus ``window_s``), writes it in one transaction and completes the futures in order.
A caller that shows an event waits for its future first, so an event is shown only once it is durable.
If the shared transaction fails (a lease lost by one table: its fence), each item is retried alone, so
one table's refusal is that table's only. A table whose write failed is refused from then on (its
chain must not skip the lost events) until a recorder is attached to it again (``forgive``).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from pontoon.history import schema as s
from pontoon.history.chain import account_key, canon, chain_hash, event_body, now
from pontoon.history.engines import HistoryError

Batch = Any  # ``store.Batch`` (store.py imports this module)
Item = tuple[int, Sequence[Batch]]


class Store(Protocol):
    """What the group commit needs of ``store.Store``."""

    def seal_of(self, table_id: int, head: str) -> str: ...

    def _round_id(self, conn: Connection, table_id: int, number: int) -> int | None: ...

    def write_group(self, items: Sequence[Item]) -> list[str]: ...


_INS_ROUNDS = insert(s.rounds)
_INS_SHOES = insert(s.shoes)
_END_ROUND = (
    update(s.rounds)
    .where(s.rounds.c.table_id == bindparam("t_id"), s.rounds.c.number == bindparam("r_no"))
    .values(status=bindparam("r_status"), ended=bindparam("r_ended"), result=bindparam("r_result"))
)
_SET_HEAD = (
    update(s.tables)
    .where(s.tables.c.id == bindparam("t_id"))
    .values(last_hash=bindparam("t_hash"), seal=bindparam("t_seal"))
)
_SET_HEAD_STATE = _SET_HEAD.values(state=bindparam("t_state"), state_event=bindparam("t_event"))


_UPSERTS: dict[str, Any] = {}


def _upsert(dialect: str) -> Any:
    """The running balances' multi-row upsert, built once per dialect."""
    if dialect not in _UPSERTS:
        ins = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(s.accounts)
        _UPSERTS[dialect] = ins.on_conflict_do_update(
            index_elements=[s.accounts.c.table_id, s.accounts.c.account],
            set_={"balance": ins.excluded.balance},
        )
    return _UPSERTS[dialect]


_EVENT_COLS = (
    "id",
    "table_id",
    "round_id",
    "round_no",
    "seq",
    "kind",
    "payload",
    "clause",
    "created",
    "prev_hash",
    "hash",
)
_LEDGER_COLS = (
    "table_id",
    "round_id",
    "event_id",
    "idem",
    "source",
    "dest",
    "amount",
    "kind",
    "player",
    "reason",
)


def _insert_rows(conn: Connection, table: str, cols: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    """Rows of the write path's two big tables by the driver's ``executemany`` (one prepared statement;
    psycopg pipelines it), without building SQLAlchemy parameters per row."""
    mark = "%s" if conn.dialect.name == "postgresql" else "?"
    sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join([mark] * len(cols))})"
    conn.exec_driver_sql(sql, [tuple(r[c] for c in cols) for r in rows])


def _new_ids(conn: Connection, table: str, n: int) -> list[int]:
    """``n`` new increasing ids of ``table`` (events, rounds), so that the rows are inserted with one
    plain multi-row statement (no RETURNING, which SQLite answers row by row). PostgreSQL: the
    column's sequence, in one round trip; SQLite: after the largest id, safe because the writer holds
    the database's write lock from BEGIN IMMEDIATE (ids are rowids: the next would be the same)."""
    if conn.dialect.name == "postgresql":
        q = f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, {int(n)})"
        return sorted(int(r[0]) for r in conn.exec_driver_sql(q))
    base = int(conn.exec_driver_sql(f"SELECT coalesce(max(id), 0) FROM {table}").scalar() or 0)
    return list(range(base + 1, base + n + 1))


def write_items(
    store: Store, conn: Connection, items: Sequence[Item], rounds: dict[tuple[int, int], int]
) -> list[str]:
    """The statements of ``items`` (each: a table id and its batches, in order) on ``conn``, the caller's
    transaction; returns each item's new chain head. ``rounds`` receives the round ids made here (the
    caller adds them to its cache once the transaction commits)."""
    pg = conn.dialect.name == "postgresql"
    tids = sorted({t for t, _ in items})
    q = select(s.tables.c.id, s.tables.c.last_hash).where(s.tables.c.id.in_(tids)).order_by(s.tables.c.id)
    heads: dict[int, str] = {int(i): str(h) for i, h in conn.execute(q.with_for_update() if pg else q)}
    for tid in tids:
        if tid not in heads:
            raise HistoryError(f"table {tid} is not in the history")
    stamp = now()
    # the shoes first used now, and the rounds that start now (their ids: the events point at them)
    shoes: list[dict[str, Any]] = []
    new_rounds: list[dict[str, Any]] = []
    for tid, batches in items:
        for b in batches:
            if b.shoe is not None:
                n, cards, cut = b.shoe
                shoes.append({"table_id": tid, "number": n, "cards": cards, "cut": cut, "created": stamp})
            for row in b.rows:
                if row.kind == "round_start" and row.round_no > 0 and row.seq == 0:
                    new_rounds.append(
                        {
                            "table_id": tid,
                            "number": row.round_no,
                            "shoe": row.data.get("shoe", b.round_shoe),
                            "status": "open",
                            "started": stamp,
                        }
                    )
    if shoes:
        conn.execute(_INS_SHOES, shoes)
    if new_rounds:
        for r, rid in zip(new_rounds, _new_ids(conn, "rounds", len(new_rounds)), strict=True):
            r["id"] = rid
            rounds[(int(r["table_id"]), int(r["number"]))] = rid
        conn.execute(_INS_ROUNDS, new_rounds)

    def round_id(tid: int, number: int) -> int | None:
        if number <= 0:
            return None
        rid = rounds.get((tid, number))
        if rid is None:
            rid = store._round_id(conn, tid, number)
        return rid

    # the events of every table, each table's chained from its head
    events: list[dict[str, Any]] = []
    for tid, batches in items:
        prev = heads[tid]
        for b in batches:
            for row in b.rows:
                body = event_body(row.round_no, row.seq, row.kind, row.data, row.clause, row.transfers)
                h = chain_hash(prev, body)
                events.append(
                    {
                        "table_id": tid,
                        "round_id": round_id(tid, row.round_no),
                        "round_no": row.round_no,
                        "seq": row.seq,
                        "kind": row.kind,
                        "payload": canon(row.data),
                        "clause": row.clause,
                        "created": stamp,
                        "prev_hash": prev,
                        "hash": h,
                    }
                )
                prev = h
        heads[tid] = prev
    event_ids = _new_ids(conn, "events", len(events)) if events else []
    for ev, eid in zip(events, event_ids, strict=True):
        ev["id"] = eid
    if events:
        _insert_rows(conn, "events", _EVENT_COLS, events)
    # the ledger rows, and the running balances of the accounts they move (read once, written once)
    ledger: list[dict[str, Any]] = []
    moves: list[tuple[int, str, Decimal]] = []
    k = 0
    out: list[str] = []
    head_rows: dict[int, dict[str, Any]] = {}
    ends: list[dict[str, Any]] = []
    for tid, batches in items:
        for b in batches:
            last_id = state_event = 0
            for i, row in enumerate(b.rows):
                eid = event_ids[k]
                ev = events[k]
                k += 1
                last_id = eid
                if i == b.state_at:
                    state_event = eid - 1  # the snapshot holds before rows[state_at]
                for j, t in enumerate(row.transfers):
                    amount = Decimal(t["amount"])
                    src, dst = account_key(t["source"]), account_key(t["dest"])
                    ledger.append(
                        {
                            "table_id": tid,
                            "round_id": ev["round_id"],
                            "event_id": eid,
                            "idem": f"{tid}:{row.round_no}:{row.seq}:{j}",
                            "source": src,
                            "dest": dst,
                            "amount": str(amount),
                            "kind": t["kind"],
                            "player": t["player"],
                            "reason": t["reason"],
                        }
                    )
                    moves += [(tid, src, -amount), (tid, dst, amount)]
            if b.round_end is not None:
                rno, status, result = b.round_end
                ends.append(
                    {
                        "t_id": tid,
                        "r_no": rno,
                        "r_status": status,
                        "r_ended": stamp,
                        "r_result": canon(result),
                    }
                )
            hr = head_rows.setdefault(tid, {"t_id": tid})
            if b.state is not None:
                hr["t_state"] = canon(b.state)
                hr["t_event"] = last_id if b.state_at is None else state_event
        out.append(heads[tid])
    if ledger:
        try:
            _insert_rows(conn, "ledger", _LEDGER_COLS, ledger)
        except IntegrityError:
            raise HistoryError(_twice(conn, [r["idem"] for r in ledger])) from None
        touched = sorted({m[0] for m in moves})
        cur = {
            (int(r.table_id), str(r.account)): Decimal(r.balance)
            for r in conn.execute(
                select(s.accounts.c.table_id, s.accounts.c.account, s.accounts.c.balance).where(
                    s.accounts.c.table_id.in_(touched)
                )
            )
        }
        changed: dict[tuple[int, str], Decimal] = {}
        for tid, acct, amount in moves:
            key = (tid, acct)
            changed[key] = changed.get(key, cur.get(key, Decimal(0))) + amount
        conn.execute(
            _upsert(conn.dialect.name),
            [{"table_id": t, "account": a, "balance": str(v)} for (t, a), v in changed.items()],
        )
    if ends:
        conn.execute(_END_ROUND, ends)
    plain: list[dict[str, Any]] = []
    with_state: list[dict[str, Any]] = []
    for tid, hr in head_rows.items():
        hr.update(t_hash=heads[tid], t_seal=store.seal_of(tid, heads[tid]))
        (with_state if "t_state" in hr else plain).append(hr)
    if plain:
        conn.execute(_SET_HEAD, plain)
    if with_state:
        conn.execute(_SET_HEAD_STATE, with_state)
    return out


def _twice(conn: Connection, idems: list[str]) -> str:
    """The refusal of a ledger row booked twice, naming the first such row."""
    seen: set[str] = set()
    for i in idems:
        if i in seen:
            return f"ledger row {i} is already written: a transfer is booked once"
        seen.add(i)
    found = conn.execute(select(s.ledger.c.idem).where(s.ledger.c.idem.in_(idems)).limit(1)).scalar()
    return f"ledger row {found or idems[0]} is already written: a transfer is booked once"


class GroupCommitter:
    """The writer thread of a ``Store`` (see the module's text)."""

    def __init__(self, store: Store, *, window_s: float = 0.0, max_items: int = 2000) -> None:
        self.store = store
        self.window_s = window_s
        self.max_items = max_items
        self.queue: deque[tuple[int, Sequence[Batch], Future[str]]] = deque()
        self.cv = threading.Condition()
        self.closed = False
        self.failed: dict[int, BaseException] = {}  # table id -> why its write failed (refused from then on)
        self.last: dict[int, Future[str]] = {}  # each table's newest submission not yet completed
        self.groups = 0  # transactions committed (for the benchmarks)
        self.items = 0
        self.thread = threading.Thread(target=self._run, name="pontoon-group-commit", daemon=True)
        self.thread.start()

    def submit(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        fut: Future[str] = Future()
        with self.cv:
            if self.closed:
                raise HistoryError("the history store is closed: nothing more can be written")
            self.queue.append((table_id, list(batches), fut))
            self.last[table_id] = fut
            self.cv.notify()
        return fut

    def pending(self, table_id: int) -> Future[str] | None:
        """The newest write of ``table_id`` not yet completed (None: everything is committed)."""
        with self.cv:
            return self.last.get(table_id)

    def drain(self) -> None:
        """Wait until everything submitted so far is committed (or failed)."""
        with self.cv:
            futs = list(self.last.values())
        for f in futs:
            f.exception()

    def forgive(self, table_id: int) -> None:
        """A recorder attached to ``table_id`` again (recovered from the committed records)."""
        with self.cv:
            self.failed.pop(table_id, None)

    def close(self) -> None:
        with self.cv:
            self.closed = True
            self.cv.notify()
        self.thread.join()

    def _run(self) -> None:
        while True:
            with self.cv:
                while not self.queue and not self.closed:
                    self.cv.wait()
                if not self.queue:
                    return
            if self.window_s > 0:
                time.sleep(self.window_s)
            with self.cv:
                n = min(len(self.queue), self.max_items)
                group = [self.queue.popleft() for _ in range(n)]
            self._commit(group)

    def _commit(self, group: list[tuple[int, Sequence[Batch], Future[str]]]) -> None:
        live = []
        for tid, batches, fut in group:
            err = self.failed.get(tid)
            if err is not None:
                self._done(tid, fut, error=err)
            else:
                live.append((tid, batches, fut))
        if not live:
            return
        try:
            heads = self.store.write_group([(t, b) for t, b, _ in live])
        except BaseException as err:  # noqa: BLE001 (every error goes to the callers)
            if len(live) == 1:
                self.failed[live[0][0]] = err
                self._done(live[0][0], live[0][2], error=err)
                return
            for one in live:  # one table's refusal (its lease lost) must not fail the others
                self._commit([one])
            return
        self.groups += 1
        self.items += len(live)
        for (tid, _b, fut), head in zip(live, heads, strict=True):
            self._done(tid, fut, head=head)

    def _done(
        self, tid: int, fut: Future[str], *, head: str = "", error: BaseException | None = None
    ) -> None:
        with self.cv:
            if self.last.get(tid) is fut:
                del self.last[tid]
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(head)


__all__ = ["GroupCommitter", "write_items"]
