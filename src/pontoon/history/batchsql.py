"""The group commit's statements (``group.write_items``): multi-row SQL text sent by the driver.

Each kind of row (shoes, rounds, events, ledger rows, balances, round ends, chain heads) goes in
multi-row statements (``INSERT ... VALUES (...), (...)``, ``UPDATE ... FROM (VALUES ...)``), chunked
into a few fixed sizes so the driver's statement cache reuses them. One statement is one call into the
driver whatever its rows: ``sqlite3``'s ``executemany`` steps (and releases the GIL) once per row, so
a batch of a hundred tables' events by ``executemany`` waits for the GIL hundreds of times while the
tables' threads play; PostgreSQL executes each row's statement separately on the server.

Ids are the columns' defaults; an event's round and a ledger row's event are found by their unique keys
inside the statement, so a batch needs no id from the database before its statements: on PostgreSQL
the whole batch goes as one text of ``EXECUTE``s of statements prepared once per connection (one round
trip, ``pgprep.py``: one statement a kind, its rows from arrays), the COMMIT in it when the
transaction is the writer thread's own. The chain heads move only from the head the transaction
chained from (``heads.last_hash = old``): the count of heads moved tells a stale head (``StaleHead`` in
``group.py``; on PostgreSQL counted by the server, ``STALE``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

_ROUND = "(SELECT id FROM rounds WHERE table_id = ? AND number = ?)"
# an event by its table, round number and seq (revision 0011's keys): a round's by its round row
# (``uq_event_round``), else one of no round row, round 0 (``uq_event_table``); (table, round, seq) twice
_EVENT = (
    f"coalesce((SELECT id FROM events WHERE round_id = {_ROUND} AND seq = ?), "
    "(SELECT id FROM events WHERE table_id = ? AND round_no = ? AND seq = ? AND round_id IS NULL))"
)

# name -> (head, one row's VALUES, tail)
_STATEMENTS: dict[str, tuple[str, str, str]] = {
    "shoe": ("INSERT INTO shoes (table_id, number, cards, cut, created) VALUES ", "(?, ?, ?, ?, ?)", ""),
    "round": (
        "INSERT INTO rounds (table_id, number, shoe, status, started) VALUES ",
        "(?, ?, ?, 'open', ?)",
        "",
    ),
    "event": (
        "INSERT INTO events (table_id, round_id, round_no, seq, kind, payload, clause, created, prev_hash, "
        "hash) VALUES ",
        f"(?, {_ROUND}, ?, ?, ?, ?, ?, ?, ?, ?)",
        "",
    ),
    "ledger": (
        "INSERT INTO ledger (table_id, round_id, event_id, idem, source, dest, amount, kind, player, reason) "
        "VALUES ",
        f"(?, {_ROUND}, {_EVENT}, ?, ?, ?, ?, ?, ?, ?)",
        "",
    ),
    "balance": (
        "INSERT INTO accounts (table_id, account, balance) VALUES ",
        "(?, ?, ?)",
        " ON CONFLICT (table_id, account) DO UPDATE SET balance = excluded.balance",
    ),
    # (status, ended, result, table id, round number)
    "end": (
        "UPDATE rounds SET status = v.column1, ended = v.column2, result = v.column3 FROM (VALUES ",
        "(?, ?, ?, ?, ?)",
        ") AS v WHERE rounds.table_id = v.column4 AND rounds.number = v.column5",
    ),
    # (table id, new head, seal, old head): a head moves only from the head it was chained from
    "head": (
        "UPDATE heads SET last_hash = v.column2, seal = v.column3 FROM (VALUES ",
        "(?, ?, ?, ?)",
        ") AS v WHERE heads.table_id = v.column1 AND heads.last_hash = v.column4",
    ),
    # (table id, snapshot, its event's round_no, seq, less): the snapshot's ``state_event`` is that
    # event's id less ``less`` (0 when there is no such event); once a round, in the ``tables`` row
    "state": (
        "UPDATE tables SET state = v.column2, state_event = coalesce(coalesce(("
        "SELECT e.id FROM events e WHERE e.round_id = (SELECT r.id FROM rounds r WHERE r.table_id = "
        "v.column1 AND r.number = v.column3) AND e.seq = v.column4), (SELECT e.id FROM events e WHERE "
        "e.table_id = v.column1 AND e.round_no = v.column3 AND e.seq = v.column4 AND e.round_id IS NULL)) "
        "- v.column5, 0) FROM (VALUES ",
        "(?, ?, ?, ?, ?)",
        ") AS v WHERE tables.id = v.column1",
    ),
}
# The rows as ``group.write_items`` makes them (``stamp``: the transaction's time, one parameter):
#   shoe (table, number, cards, cut)            round (table, number, shoe)
#   event (table, table, round, round, seq, kind, payload, clause, stamp, prev hash, hash): already
#     ``_STATEMENTS``' row (one per event: made once, in that order)
#   ledger (table, table, round, table, round, seq, table, round, seq, idem, source, dest, amount, kind,
#     player, reason):
#     already ``_STATEMENTS``' row too (``LEDGER_IDEM``: where its idem is)
#   balance (table, account, balance)           end (status, result, table, round)
#   head (table, new head, seal, old head)      state (table, snapshot, round, seq, less)
# ``_STATEMENTS``' rows (the multi-row form) from the others (a few a commit):
_WIDE: dict[str, Callable[[tuple[Any, ...], str], tuple[Any, ...]]] = {
    "shoe": lambda r, st: (*r, st),
    "round": lambda r, st: (*r, st),
    "end": lambda r, st: (r[0], st, r[1], r[2], r[3]),
}
LEDGER_IDEM = 9


ORDER = ("shoe", "round", "event", "ledger", "balance", "end", "head", "state")
# chunk sizes: few distinct statements (8 kinds x 12 sizes: within sqlite3's cache of 128 prepared
# statements a connection), each prepared once and reused; any count under 8 is ONE statement (a
# commit of a call or two: the human-paced server's), any under 128 at most five. Each statement is a
# release and retake of the GIL by the writer (``group.py``, ``COMMIT_SWITCH_S``)
_SIZES = (128, 64, 32, 16, 8, 7, 6, 5, 4, 3, 2, 1)
_CACHE: dict[tuple[str, int], str] = {}
# PostgreSQL: the heads' UPDATE is checked by the server (``pgprep._unnest_sql``): the n heads of a
# commit must move n rows, else the statement fails (a text that is no integer: SQLSTATE 22P02, naming
# STALE) and with it the transaction, so that the COMMIT sent in the same text is not run (``run``'s
# ``commit``): a stale head is found with no round trip of its own. (The CASE is not constant: the
# planner cannot fold the failing cast.)
STALE = "stale head"


def statement(name: str, n: int) -> str:
    """The SQL of ``n`` rows of ``name`` (``?`` marks, sqlite3's; PostgreSQL's statements are made from
    ``_STATEMENTS`` by ``pgprep.py``)."""
    key = (name, n)
    sql = _CACHE.get(key)
    if sql is None:
        head, one, tail = _STATEMENTS[name]
        sql = _CACHE[key] = head + ", ".join([one] * n) + tail
    return sql


def chunks(rows: Sequence[tuple[Any, ...]]) -> list[tuple[int, list[Any]]]:
    """``rows`` cut into chunks of the fixed sizes (``_SIZES``): (size, the chunk's parameters
    flattened)."""
    out = []
    i, n = 0, len(rows)
    for size in _SIZES:
        while n - i >= size:
            out.append((size, list(chain.from_iterable(rows[i : i + size]))))
            i += size
        if i == n:  # (a small commit: done at its first size)
            break
    return out


def run(
    raw: Any,
    pg: bool,
    steps: dict[str, list[tuple[Any, ...]]],
    stamp: str,
    commit: Callable[[], None] | None = None,
) -> int:
    """Every statement of ``steps`` (name -> rows in the compact form above) on the driver connection
    ``raw`` in the open transaction, in ``ORDER``; ``stamp``: the rows' time. Returns how many chain
    heads moved (on PostgreSQL checked by the server: 0 when one did not move, the transaction failed).
    ``commit`` (PostgreSQL, a transaction of the driver's own: ``group.transaction``): the COMMIT is
    sent in the statements' text (``pgprep.run``), ``commit()`` called just before it is sent; the whole
    transaction is then ONE round trip. The server runs the COMMIT only if every statement succeeded
    (after a failure it skips the rest of the text: the transaction is left failed, rolled back by
    the caller); a failure is raised here as before."""
    if pg:
        return _run_pg(raw, steps, stamp, commit)
    moved = 0
    cur = raw.cursor()
    try:
        for name in ORDER:
            got = steps.get(name)
            if not got:
                continue
            wide = _WIDE.get(name)
            for n, params in chunks([wide(r, stamp) for r in got] if wide is not None else got):
                cur.execute(statement(name, n), params)
                if name == "head":
                    moved += cur.rowcount
    finally:
        cur.close()
    return moved


def _run_pg(
    raw: Any, steps: dict[str, list[tuple[Any, ...]]], stamp: str, commit: Callable[[], None] | None
) -> int:
    """``run`` on PostgreSQL: one text of ``EXECUTE``s of statements prepared once per connection, its
    COMMIT in it when ``commit`` is given: one round trip (``pgprep.py``). (psycopg's pipeline of
    prepared statements cost the writer ~30 us of Python a statement; the statements as one text with
    the values as literals cost the server a plan each time: docs/scale-log.md, "PostgreSQL's commit
    in one round trip".)"""
    from pontoon.history import pgprep

    return pgprep.run(raw, steps, stamp, commit)


__all__ = ["LEDGER_IDEM", "ORDER", "STALE", "chunks", "run", "statement"]
