"""The group commit's transaction content (``GroupCommitter``'s writer thread, ``Store.write_group``,
``Store.create_table``): each table's rows from its batches (the hash chain, the ledger rows, the running
balances, the round rows, ends and snapshots, the chain heads and seals), sent by ``batchsql.run``.

``write_items`` is the entry: the heads and balances the writer remembers (``load_heads`` for the others),
the rows of every kind (``_rows``: PostgreSQL's find their round row and event by key inside the
statement; SQLite's name them by the ids the writer gives, ``_Ids``, revision 0012), the statements, the
heads moved checked (``StaleHead``) and a ledger row booked twice named (``_twice``). (Split from
``group.py``, which keeps the writer thread, its queue and its wake-ups.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, Protocol

from sqlalchemy import Connection

from pontoon.history import batchsql
from pontoon.history.chain import account_key, amount_of, canon, event_hash, now
from pontoon.history.engines import HistoryError

Batch = Any  # ``store.Batch`` (store.py imports this module)
Item = tuple[int, Sequence[Batch]]
Heads = dict[int, tuple[str, dict[str, Decimal]]]  # table id -> (chain head, running balances)


class Store(Protocol):
    """What the group commit needs of ``store.Store``."""

    def seal_of(self, table_id: int, head: str) -> str: ...

    def write_group(self, items: Sequence[Item], conn: Connection | None = None) -> list[str]: ...

    def writer_connection(self) -> Connection: ...

    def release_writer(self, conn: Connection) -> None: ...


class StaleHead(HistoryError):
    """A table's chain head is not the one the writer remembered (another process wrote it): the
    transaction is rolled back and written again from the stored heads (``Store.write_group``)."""


def load_heads(conn: Connection, tids: Sequence[int]) -> Heads:
    """The stored chain heads and balances of ``tids`` (two statements)."""
    pg = conn.dialect.name == "postgresql"
    mark = ", ".join(["%s" if pg else "?"] * len(tids))
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    cur.execute(f"SELECT table_id, last_hash FROM heads WHERE table_id IN ({mark})", tuple(tids))
    out: Heads = {int(i): (str(h), {}) for i, h in cur.fetchall()}
    for tid in tids:
        if tid not in out:
            raise HistoryError(f"table {tid} is not in the history")
    cur.execute(f"SELECT table_id, account, balance FROM accounts WHERE table_id IN ({mark})", tuple(tids))
    for tid, acct, bal in cur.fetchall():
        out[int(tid)][1][str(acct)] = Decimal(bal)
    cur.close()
    return out


def _state_ref(b: Batch) -> tuple[int, int, int]:
    """(round_no, seq, minus) of the event whose id, less ``minus``, is the snapshot's ``state_event``:
    the batch's last row (the snapshot holds after it) or the row it holds before (id - 1)."""
    if not b.rows:
        return (-1, -1, 0)  # no event: state_event 0
    if b.state_at is None:
        r = b.rows[-1]
        return (r.round_no, r.seq, 0)
    r = b.rows[b.state_at]
    return (r.round_no, r.seq, 1)


def _round_snapshot(b: Batch) -> int:
    """The round number whose start ``b``'s snapshot holds before (its ``state_at`` row is the round's
    ``round_start``, seq 0, written in this batch with its round row: revision 0012's ``snapshots``),
    else 0 (the table's first snapshot, written with its row: ``tables.state``)."""
    if b.state_at is None:
        return 0
    r = b.rows[b.state_at]
    return r.round_no if r.kind == "round_start" and r.round_no > 0 and r.seq == 0 else 0


_ZERO = Decimal(0)
Rounds = dict[int, tuple[int, int]]  # table id -> (number, id) of its newest round row the writer knows


class _Ids:
    """SQLite's ids (``rowsql._SQLITE``): the writer holds the write lock (``BEGIN IMMEDIATE``), so the
    next round and event ids are the largest stored plus one (read once a commit: what the rowid would
    be), and a round row started before this commit is found once by its key and then remembered
    (``rounds``: a table's newest, kept by ``Store`` once the transaction commits): no look-up of a
    round an event, nor of an event and its round a ledger row."""

    __slots__ = ("cur", "event", "round", "rounds")

    def __init__(self, cur: Any, rounds: Rounds) -> None:
        self.cur = cur
        ev, rd = cur.execute("SELECT (SELECT max(id) FROM events), (SELECT max(id) FROM rounds)").fetchone()
        self.event = int(ev or 0) + 1
        self.round = int(rd or 0) + 1
        self.rounds = rounds

    def find(self, tid: int, rno: int) -> int | None:
        """The id of ``tid``'s round ``rno`` (None: no such row; the event is then one of no round row,
        as the look-up inside the statement made it before)."""
        got = self.rounds.get(tid)
        if got is not None and got[0] == rno:
            return got[1]
        row = self.cur.execute(
            "SELECT id FROM rounds WHERE table_id = ? AND number = ?", (tid, rno)
        ).fetchone()
        if row is None:
            return None
        rid = int(row[0])
        if got is None or got[0] < rno:
            self.rounds[tid] = (rno, rid)
        return rid

    def start(self, tid: int, rno: int) -> int:
        rid = self.round
        self.round += 1
        self.rounds[tid] = (rno, rid)
        return rid


def write_items(
    store: Store,
    conn: Connection,
    items: Sequence[Item],
    cached: Heads,
    commit: Callable[[], None] | None = None,
    rounds: Rounds | None = None,
) -> tuple[list[str], Heads]:
    """The statements of ``items`` (each: a table id and its batches, in order) on ``conn``, the caller's
    transaction. ``cached``: the heads and balances the writer remembers (those missing are read).
    Returns each item's new chain head and the tables' new heads and balances (for the caller's cache
    once the transaction commits). Raises ``StaleHead`` when a remembered head is no longer stored.
    ``commit`` (PostgreSQL, a transaction of the driver's own): the transaction is committed in the
    statements' pipeline (one round trip, ``batchsql.run``), ``commit()`` called just before.
    ``rounds`` (SQLite): the round rows the writer remembers, updated here with those it finds and
    starts (the caller keeps them once the transaction commits: ``_Ids``).
    Each event's data is written to JSON once: that text is its row's payload and, inside the event's
    canonical text (``event_hash``), what its hash is taken of."""
    tids = list(dict.fromkeys(t for t, _ in items))
    missing = [t for t in tids if t not in cached]
    read = load_heads(conn, missing) if missing else {}
    start = {t: (cached[t] if t in cached else read[t]) for t in tids}
    heads = {t: start[t][0] for t in tids}
    bals = {t: dict(start[t][1]) for t in tids}
    raw = conn.connection.driver_connection
    pg = conn.dialect.name == "postgresql"
    ids = None if pg else _Ids(raw.cursor(), {} if rounds is None else rounds)  # type: ignore[union-attr]
    stamp = now()
    steps = _rows(store, items, heads, bals, start, stamp, ids)
    out = [r[0] for r in steps.pop("out")]
    try:
        if commit is None:
            moved = batchsql.run(raw, pg, steps, stamp)
        else:
            moved = batchsql.run(raw, pg, steps, stamp, commit)
    except Exception as err:  # noqa: BLE001 (a driver's unique violation: a ledger row booked twice)
        if "ledger" in str(err) and "idem" in str(err):
            at = batchsql.LEDGER_IDEM if pg else batchsql.SQLITE_LEDGER_IDEM
            raise HistoryError(_twice(conn, err, [r[at] for r in steps["ledger"]])) from None
        raise
    finally:
        if ids is not None:
            ids.cur.close()
    if moved != len(tids):
        raise StaleHead("a table's chain head moved under this writer (another process wrote it)")
    return out, {t: (heads[t], bals[t]) for t in tids}


def _rows(
    store: Store,
    items: Sequence[Item],
    heads: dict[int, str],
    bals: dict[int, dict[str, Decimal]],
    start: Heads,
    stamp: str,
    ids: _Ids | None,
) -> dict[str, list[tuple[Any, ...]]]:
    """``write_items``' rows of each kind (``rowsql``: PostgreSQL's by keys, SQLite's by the ids of
    ``ids``); ``heads`` and ``bals`` moved to the items' ends. Also ``out`` (each item's new head), taken
    out by the caller."""
    shoes: list[tuple[Any, ...]] = []
    new_rounds: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    ledger: list[tuple[Any, ...]] = []
    ends: list[tuple[Any, ...]] = []
    snaps: list[tuple[Any, ...]] = []
    changed: set[tuple[int, str]] = set()
    newest: dict[int, int] = {}  # table -> the newest round it starts here (``heads.rounds``)
    states: dict[int, tuple[Any, ...]] = {}
    out: list[tuple[Any, ...]] = []
    add_event, zero = events.append, _ZERO
    sq = ids is not None
    next_eid = ids.event if ids is not None else 0  # (SQLite: the next event's id)
    for tid, batches in items:
        prev = heads[tid]
        bal = bals[tid]
        cur_no, cur_rid = -1, None  # (SQLite: the round of the table's last event, its row's id)
        for b in batches:
            if b.shoe is not None:
                shoes.append((tid, *b.shoe))
            first = next_eid
            started: dict[int, int] = {}
            for row in b.rows:
                rno = row.round_no
                seq = row.seq
                kind = row.kind
                data = row.data
                clause = row.clause
                transfers = row.transfers
                if kind == "round_start" and rno > 0 and seq == 0:
                    newest[tid] = rno
                    if ids is not None:
                        cur_no, cur_rid = rno, ids.start(tid, rno)
                        started[rno] = cur_rid
                        new_rounds.append((cur_rid, tid, rno, data.get("shoe", b.round_shoe)))
                    else:
                        new_rounds.append((tid, rno, data.get("shoe", b.round_shoe)))
                elif ids is not None and rno != cur_no:
                    cur_no, cur_rid = rno, (ids.find(tid, rno) if rno > 0 else None)
                payload = canon(data)
                h = event_hash(prev, rno, seq, kind, data, payload, clause, transfers)
                eid = next_eid
                if sq:
                    next_eid += 1
                    add_event((eid, tid, cur_rid, rno, seq, kind, payload, clause, stamp, prev, h))
                else:  # (the round found by its key inside the statement: ``rowsql._PG_COLUMNS``)
                    add_event((tid, rno, seq, kind, payload, clause, stamp, prev, h))
                prev = h
                for j, t in enumerate(transfers):
                    amount, amount_text = amount_of(t["amount"])
                    src, dst = account_key(t["source"]), account_key(t["dest"])
                    idem = f"{tid}:{rno}:{seq}:{j}"
                    kd, pl, why = t["kind"], t["player"], t["reason"]
                    if sq:
                        ledger.append((tid, cur_rid, eid, idem, src, dst, amount_text, kd, pl, why))
                    else:  # (its round and event found by their keys: ``rowsql._PG_COLUMNS``)
                        ledger.append((tid, rno, seq, idem, src, dst, amount_text, kd, pl, why))
                    bal[src] = bal.get(src, zero) - amount
                    bal[dst] = bal.get(dst, zero) + amount
                    changed.add((tid, src))
                    changed.add((tid, dst))
            if b.round_end is not None:
                rno, status, result = b.round_end
                if ids is not None:
                    rid = cur_rid if rno == cur_no else ids.find(tid, rno)
                    ends.append((status, canon(result), rid))
                else:
                    ends.append((status, canon(result), tid, rno))
            if b.state is not None:
                snap_no = _round_snapshot(b)
                if snap_no:  # (revision 0012: a row of its own, keyed by the round row)
                    key = (started[snap_no],) if ids is not None else (tid, snap_no)
                    snaps.append((*key, canon(b.state)))
                elif ids is not None:  # (the id of the row it holds after or, less one, before)
                    at = len(b.rows) - 1 if b.state_at is None else b.state_at - 1
                    states[tid] = (tid, canon(b.state), first + at if b.rows else 0)
                else:
                    states[tid] = (tid, canon(b.state), *_state_ref(b))
        heads[tid] = prev
        out.append((prev,))
    tids = list(heads)
    return {
        "shoe": shoes,
        "round": new_rounds,
        "snapshot": snaps,
        "event": events,
        "ledger": ledger,
        "balance": [(t, a, str(bals[t][a])) for t, a in sorted(changed)],
        "end": ends,
        "head": [(t, heads[t], store.seal_of(t, heads[t]), start[t][0], newest.get(t)) for t in tids],
        "state": list(states.values()),
        "out": out,
    }


def _twice(conn: Connection, err: BaseException, idems: list[str]) -> str:
    """The refusal of a ledger row booked twice, naming the first such row: PostgreSQL names it in the
    error's detail (its transaction is aborted); SQLite undid only the statement, so it is looked up."""
    seen: set[str] = set()
    for i in idems:
        if i in seen:
            return f"ledger row {i} is already written: a transfer is booked once"
        seen.add(i)
    detail = str(getattr(getattr(err, "diag", None), "message_detail", "") or "")
    found = next((i for i in idems if f", {i})" in detail), None)  # "Key (event_id, idem)=(9, 7:1:4:0)"
    if found is None and conn.dialect.name == "sqlite" and idems:
        cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        marks = ", ".join("?" * len(idems))
        row = cur.execute(f"SELECT idem FROM ledger WHERE idem IN ({marks}) LIMIT 1", idems).fetchone()
        cur.close()
        found = str(row[0]) if row else None
    found = found or (idems[0] if idems else "?")
    return f"ledger row {found} is already written: a transfer is booked once"


__all__ = ["Batch", "Heads", "Item", "Rounds", "StaleHead", "Store", "load_heads", "write_items"]
