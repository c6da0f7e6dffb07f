"""The group commit's statements (``group.write_items``): multi-row SQL text sent by the driver.

Each kind of row (shoes, rounds, events, ledger rows, balances, round ends, chain heads) goes in
multi-row statements (``INSERT ... VALUES (...), (...)``, ``UPDATE ... FROM (VALUES ...)``), chunked
into a few fixed sizes so the driver's statement cache reuses them. One statement is one call into the
driver whatever its rows: ``sqlite3``'s ``executemany`` steps (and releases the GIL) once per row, so
a batch of a hundred tables' events by ``executemany`` waits for the GIL hundreds of times while the
tables' threads play; PostgreSQL executes each row's statement separately on the server.

Ids are the columns' defaults; an event's round and a ledger row's event are found by their unique keys
inside the statement, so a batch needs no id from the database before its statements: on PostgreSQL
the whole batch goes in one pipeline (one round trip). The chain heads move only from the head the
transaction chained from (``last_hash = old``): the count of heads moved tells a stale head
(``StaleHead`` in ``group.py``).

On PostgreSQL each kind of row is ONE statement whatever the number of rows (``_PG``): the rows go as
one JSON array parameter (``json.dumps``, in C) expanded by ``jsonb_array_elements ... WITH
ORDINALITY``, the rounds and events found by a join instead of a subquery per row, the rows inserted
in their order (``ORDER BY`` the ordinal: the ids follow it). The SQL never changes, so each
statement is planned once per connection (psycopg prepares it); a multi-row ``VALUES`` with a
subquery per row had the server plan and start hundreds of subplans per statement (a third of its
CPU per event), and one array parameter per column cost the client twice the CPU in psycopg.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import chain
from typing import Any

_ROUND = "(SELECT id FROM rounds WHERE table_id = ? AND number = ?)"
_EVENT = "(SELECT id FROM events WHERE table_id = ? AND round_no = ? AND seq = ?)"

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
    # (table id, new head, seal, snapshot or NULL, its event's round_no, seq, less, old head): the
    # snapshot's ``state_event`` is that event's id less ``less`` (0 when there is no such event)
    "head": (
        "UPDATE tables SET last_hash = v.column2, seal = v.column3, "
        "state = CASE WHEN v.column4 IS NULL THEN tables.state ELSE v.column4 END, "
        "state_event = CASE WHEN v.column4 IS NULL THEN tables.state_event ELSE coalesce(("
        "SELECT e.id FROM events e WHERE e.table_id = v.column1 AND e.round_no = v.column5 "
        "AND e.seq = v.column6) - v.column7, 0) END FROM (VALUES ",
        "(?, ?, ?, ?, ?, ?, ?, ?)",
        ") AS v WHERE tables.id = v.column1 AND tables.last_hash = v.column8",
    ),
}
ORDER = ("shoe", "round", "event", "ledger", "balance", "end", "head")


def _rows(types: str) -> str:
    """The columns ``c1, c2, ...`` of the JSON array of rows ``$1`` (each row an array) with ``ord``."""
    cols = ", ".join(
        f"(x->>{i}){'::int' if t == 'int' else ''} AS c{i + 1}" for i, t in enumerate(types.split())
    )
    return f"(SELECT {cols}, ord FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS j(x, ord)) AS v"


# PostgreSQL: name -> one statement for any number of rows (the same tuples as ``_STATEMENTS``); a
# missing round gives a NULL round_id, a missing event a NULL event_id (refused by its NOT NULL, as
# the subquery's NULL was)
_PG: dict[str, str] = {
    "shoe": "INSERT INTO shoes (table_id, number, cards, cut, created) "
    f"SELECT c1, c2, c3, c4, c5 FROM {_rows('int int text int text')} ORDER BY ord",
    "round": "INSERT INTO rounds (table_id, number, shoe, status, started) "
    f"SELECT c1, c2, c3, 'open', c4 FROM {_rows('int int int text')} ORDER BY ord",
    "event": "INSERT INTO events (table_id, round_id, round_no, seq, kind, payload, clause, created, "
    "prev_hash, hash) SELECT c1, r.id, c4, c5, c6, c7, c8, c9, c10, c11 "
    f"FROM {_rows('int int int int int text text text text text text')} "
    "LEFT JOIN rounds r ON r.table_id = c2 AND r.number = c3 ORDER BY ord",
    "ledger": "INSERT INTO ledger (table_id, round_id, event_id, idem, source, dest, amount, kind, player, "
    "reason) SELECT c1, r.id, e.id, c7, c8, c9, c10, c11, c12, c13 "
    f"FROM {_rows('int int int int int int text text text text text text text')} "
    "LEFT JOIN rounds r ON r.table_id = c2 AND r.number = c3 "
    "LEFT JOIN events e ON e.table_id = c4 AND e.round_no = c5 AND e.seq = c6 ORDER BY ord",
    "balance": "INSERT INTO accounts (table_id, account, balance) "
    f"SELECT c1, c2, c3 FROM {_rows('int text text')} ORDER BY ord "
    "ON CONFLICT (table_id, account) DO UPDATE SET balance = excluded.balance",
    "end": "UPDATE rounds SET status = v.c1, ended = v.c2, result = v.c3 "
    f"FROM {_rows('text text text int int')} WHERE rounds.table_id = v.c4 AND rounds.number = v.c5",
    "head": "UPDATE tables SET last_hash = v.c2, seal = v.c3, "
    "state = CASE WHEN v.c4 IS NULL THEN tables.state ELSE v.c4 END, "
    "state_event = CASE WHEN v.c4 IS NULL THEN tables.state_event ELSE coalesce(("
    "SELECT e.id FROM events e WHERE e.table_id = v.c1 AND e.round_no = v.c5 AND e.seq = v.c6) - v.c7, 0) "
    f"END FROM {_rows('int text text text int int int text')} "
    "WHERE tables.id = v.c1 AND tables.last_hash = v.c8 RETURNING tables.id",
}
_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode  # exact: ints, text, null
_SIZES = (128, 32, 8, 2, 1)  # chunk sizes: few distinct statements, each prepared once and reused
_CACHE: dict[tuple[str, int, bool], str] = {}


def statement(name: str, n: int, pg: bool) -> str:
    """The SQL of ``n`` rows of ``name`` (``$1`` marks for psycopg's ``RawCursor``, ``?`` for sqlite3)."""
    key = (name, n, pg)
    sql = _CACHE.get(key)
    if sql is None:
        head, one, tail = _STATEMENTS[name]
        sql = head + ", ".join([one] * n) + tail
        if pg:  # numbered parameters for psycopg's RawCursor (it parses no long query in Python)
            parts = sql.split("?")
            sql = "".join(f"{p}${i}" for i, p in enumerate(parts[:-1], 1)) + parts[-1]
        _CACHE[key] = sql
    return sql


def chunks(rows: Sequence[tuple[Any, ...]]) -> list[tuple[int, list[Any]]]:
    """``rows`` cut into chunks of the fixed sizes: (size, the chunk's parameters flattened)."""
    out = []
    i = 0
    for size in _SIZES:
        while len(rows) - i >= size:
            out.append((size, list(chain.from_iterable(rows[i : i + size]))))
            i += size
    return out


def run(raw: Any, pg: bool, steps: dict[str, list[tuple[Any, ...]]]) -> int:
    """Every statement of ``steps`` (name -> rows) on the driver connection ``raw`` in the open
    transaction, in ``ORDER``; returns how many chain heads moved."""
    moved = 0
    if pg:
        from psycopg import RawCursor

        cur, heads = RawCursor(raw), None
        with raw.pipeline():  # one round trip for every statement
            for name in ORDER:
                rows = steps.get(name)
                if not rows:
                    continue
                if name == "head":  # a pipeline sums no rowcount: the moved heads are returned
                    heads = RawCursor(raw)
                    heads.execute(_PG[name], [_json(rows)], prepare=True)
                else:
                    cur.execute(_PG[name], [_json(rows)], prepare=True)
        if heads is not None:
            moved = len(heads.fetchall())
            heads.close()
        cur.close()
        return moved
    cur = raw.cursor()
    try:
        for name in ORDER:
            for n, params in chunks(steps.get(name, [])):
                cur.execute(statement(name, n, pg), params)
                if name == "head":
                    moved += cur.rowcount
    finally:
        cur.close()
    return moved


__all__ = ["ORDER", "chunks", "run", "statement"]
