"""The group commit's statements (``writeitems.write_items``): multi-row SQL text sent by the driver.

Each kind of row (shoes, rounds, events, ledger rows, balances, round ends, chain heads) goes in
multi-row statements (``INSERT ... VALUES (...), (...)``, ``UPDATE ... FROM (VALUES ...)``), chunked
into a few fixed sizes so the driver's statement cache reuses them. One statement is one call into the
driver whatever its rows: ``sqlite3``'s ``executemany`` steps (and releases the GIL) once per row, so
a batch of a hundred tables' events by ``executemany`` waits for the GIL hundreds of times while the
tables' threads play; PostgreSQL executes each row's statement separately on the server.

On PostgreSQL ids are the columns' defaults; an event's round and a ledger row's event are found by
their unique keys inside the statement, so a batch needs no id from the database before its statements:
the whole batch goes as one text of ``EXECUTE``s of statements prepared once per connection (one round
trip, ``pgprep.py``: one statement a kind, its rows from arrays), the COMMIT in it when the
transaction is the writer thread's own. On SQLite (revision 0012 on) the writer, which holds the write
lock, gives the rounds and events their ids itself (the largest stored plus one, read once a commit:
the ids the rowid would give) and every row names its round row and event by id (``rowsql._SQLITE``,
``writeitems._Ids``): no look-up of a round row an event, nor three a ledger row. The chain heads move only from the head the transaction
chained from (``heads.last_hash = old``): the count of heads moved tells a stale head (``StaleHead`` in
``group.py``; on PostgreSQL counted by the server, ``STALE``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from pontoon.history.rowsql import (
    _SQLITE,
    _SQLITE_ONE,
    _STATEMENTS,
    _WIDE,
    LEDGER_IDEM,
    ORDER,
    SQLITE_LEDGER_IDEM,
    STALE,
)

# chunk sizes: few distinct statements (9 kinds x 12 sizes: within sqlite3's cache of 128 prepared
# statements a connection), each prepared once and reused; any count under 8 is ONE statement (a
# commit of a call or two: the human-paced server's), any under 128 at most five. Each statement is a
# release and retake of the GIL by the writer (``group.py``, ``COMMIT_SWITCH_S``)
_SIZES = (128, 64, 32, 16, 8, 7, 6, 5, 4, 3, 2, 1)
_CACHE: dict[tuple[str, int], str] = {}


def statement(name: str, n: int) -> str:
    """The SQL of ``n`` rows of ``name`` on SQLite (``?`` marks, sqlite3's; ``rowsql._SQLITE``'s rows,
    by ids, where it has the kind; PostgreSQL's statements are made from ``_STATEMENTS`` by
    ``pgprep.py``)."""
    key = (name, n)
    sql = _CACHE.get(key)
    if sql is None:
        head, one, tail = _SQLITE.get(name) or _STATEMENTS[name]
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
            if wide is not None:
                got = [wide(r, stamp) for r in got]
            n = len(got)
            if n <= _ONE:  # (most kinds of most commits: one statement, no chunks made)
                cur.execute(_one(name, n), got[0] if n == 1 else [v for r in got for v in r])
                if name == "head":
                    moved += cur.rowcount
                continue
            for n, params in chunks(got):
                cur.execute(statement(name, n), params)
                if name == "head":
                    moved += cur.rowcount
    finally:
        cur.close()
    return moved


_ONE = 8  # up to this many rows (every size from 1 to it is one of ``_SIZES``): one statement
# name -> its statements of 1 to ``_ONE`` rows (index n): ``statement``'s, looked up without a key made
_SMALL: dict[str, list[str]] = {}


def _one(name: str, n: int) -> str:
    """``statement(name, n)`` for ``n`` from 1 to ``_ONE``; of one row, ``rowsql._SQLITE_ONE``'s where
    it has the kind (the same row, its parameters by number)."""
    got = _SMALL.get(name)
    if got is None:
        first = _SQLITE_ONE.get(name) or statement(name, 1)
        got = _SMALL[name] = ["", first, *(statement(name, k) for k in range(2, _ONE + 1))]
    return got[n]


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


__all__ = ["LEDGER_IDEM", "ORDER", "SQLITE_LEDGER_IDEM", "STALE", "chunks", "run", "statement"]
