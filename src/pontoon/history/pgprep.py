"""PostgreSQL's group commit as ONE simple-query text of ``EXECUTE``s of statements ``PREPARE``d once per
connection (``batchsql.run`` on PostgreSQL).

The group commit's statements (``batchsql.statement``: multi-row INSERTs and UPDATEs, the heads' UPDATE
inside the server's count check ``_PG_HEAD_CHECK``) are prepared on the server once per connection
(``PREPARE pontoon_<kind>_<rows>_<crc> (types) AS ...``: a name per text, so a changed statement, a new
schema revision's, is a new name and prepared anew), and a commit is then ONE text sent with libpq's
``PQexec`` (``pgconn.exec_``, no psycopg cursor): ``BEGIN; EXECUTE a(...); EXECUTE b(...); ...; COMMIT``.
The server runs its statements in order and stops at the first failure, the rest of the text (its
COMMIT) not run: the transaction is left failed and rolled back by the caller, as with the pipeline
before. psycopg's pipeline cost the writer ~30 us of Python a statement (183-221 us a one-table commit
of six statements); this text costs a few us a statement and keeps the server's prepared plans (the
plain text of INSERTs with literals was re-planned every time: docs/scale-log.md, "PostgreSQL's commit
in one round trip").

**Values.** Each value is an ``int`` (written in digits), ``None`` (``NULL``) or a ``str`` written as a
string constant by the server's own rule for ``standard_conforming_strings = on`` (the only rule since
PostgreSQL 9.1, checked on every commit from the value the server reports, and set when it is off):
between single quotes, each single quote doubled, backslashes plain characters. Any other type is
refused (``TypeError``), and a text holding NUL (which no PostgreSQL text may hold, and which libpq
would take for the text's end) is refused with a ``HistoryError``. The prepared statement declares each
parameter's type (``_TYPES``), so a constant is read as that type, never as SQL.

**Prepared once per connection.** The names prepared on a server session are remembered per psycopg
connection (``_prepared``): a reconnect is a new connection (none prepared), and one given back to the
pool and lent to the writer again keeps its statements. A ``PREPARE`` is not undone by a rollback (it
is not transactional): a failed transaction leaves the statements in place. psycopg deallocates every
prepared statement of a connection (``DEALLOCATE ALL``) at a rollback after it prepared statements of
its own, so the PostgreSQL engine turns psycopg's own preparing off (``engines.make_engine``:
``prepare_threshold = None``). Should a statement still be missing (SQLSTATE 26000: a ``DISCARD ALL``
by someone else), the names are read again from ``pg_prepared_statements`` and, in the writer's own
transaction (``commit`` given: the text holds BEGIN and COMMIT), the transaction is rolled back and
the text sent again once; in a transaction of SQLAlchemy's (the lease fences) the error is raised and
the group commit writes each call alone again.
"""

from __future__ import annotations

import weakref
import zlib
from collections.abc import Callable
from typing import Any

from pontoon.history import batchsql
from pontoon.history.engines import HistoryError

# one row's parameter types, by kind (``batchsql``'s wide rows: the round's and the event's keys inside)
_INT, _TEXT = "integer", "text"
_TYPES: dict[str, tuple[str, ...]] = {
    "shoe": (_INT, _INT, _TEXT, _INT, _TEXT),
    "round": (_INT, _INT, _INT, _TEXT),
    "event": (_INT, _INT, _INT, _INT, _INT, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT),
    "ledger": (_INT, _INT, _INT, _INT, _INT, _INT, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT),
    "balance": (_INT, _TEXT, _TEXT),
    "end": (_TEXT, _TEXT, _TEXT, _INT, _INT),
    "head": (_INT, _TEXT, _TEXT, _TEXT),
    "state": (_INT, _TEXT, _INT, _INT, _INT),
}
_NAMES: dict[tuple[str, int], tuple[str, str]] = {}  # (kind, rows) -> (name, its PREPARE)
# psycopg connection -> the names prepared in its server session
_prepared: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
_IDLE, _FATAL = 0, 7  # psycopg.pq.TransactionStatus.IDLE, ExecStatus.FATAL_ERROR
_MISSING = "26000"  # invalid_sql_statement_name: no such prepared statement


def prepared(kind: str, n: int) -> tuple[str, str]:
    """The name of ``n`` rows of ``kind``'s statement and the ``PREPARE`` that makes it."""
    key = (kind, n)
    got = _NAMES.get(key)
    if got is None:
        sql = batchsql.statement(kind, n, True)
        types = ", ".join(_TYPES[kind] * n)
        name = f"pontoon_{kind}_{n}_{zlib.crc32((types + sql).encode()):08x}"
        got = _NAMES[key] = (name, f"PREPARE {name} ({types}) AS {sql}")
    return got


def literal(v: object) -> str:
    """``v`` as a constant of the text (see the module's text): digits, NULL, or a quoted string."""
    if isinstance(v, str):
        return "'" + str.replace(v, "'", "''") + "'"  # (str's own replace, whatever the class)
    if isinstance(v, int) and not isinstance(v, bool):
        return int.__repr__(v)
    if v is None:
        return "NULL"
    raise TypeError(f"a {type(v).__name__} is not written into PostgreSQL's text (only int, str, None)")


def _conforming(pgconn: Any) -> None:
    """The server reads backslashes in string constants as plain characters (``literal``'s rule)."""
    if pgconn.parameter_status(b"standard_conforming_strings") == b"on":
        return
    pgconn.exec_(b"SET standard_conforming_strings = on")
    if pgconn.parameter_status(b"standard_conforming_strings") != b"on":
        raise HistoryError(
            "the PostgreSQL server refused standard_conforming_strings = on, which the history's "
            "writer needs: give a server that accepts it (PostgreSQL 9.1 or newer)"
        )


def _error(raw: Any, res: Any) -> Exception:
    """psycopg's exception for a failed result (its class by SQLSTATE, its diagnostics)."""
    from psycopg import OperationalError
    from psycopg.errors import error_from_result

    if not res.error_field(0x43):  # PG_DIAG_SQLSTATE: none (the connection is lost)
        msg = (res.error_message or raw.pgconn.error_message).decode("utf-8", "replace").strip()
        return OperationalError(msg or "the PostgreSQL connection failed")
    return error_from_result(res, encoding=raw.info.encoding)


def _prepare(raw: Any, names: set[str], want: list[tuple[str, str]]) -> None:
    """The statements of ``want`` not yet prepared on this connection, in one text (one round trip)."""
    new = {name: sql for name, sql in want if name not in names}
    if not new:
        return
    res = raw.pgconn.exec_("; ".join(new.values()).encode())
    if res.status == _FATAL:
        raise _error(raw, res)
    names.update(new)


def _resync(raw: Any, names: set[str]) -> None:
    """The names this connection's server session really holds (after SQLSTATE 26000)."""
    res = raw.pgconn.exec_(b"SELECT name FROM pg_prepared_statements WHERE name LIKE 'pontoon\\_%'")
    names.clear()
    if res.status != _FATAL:
        names.update(res.get_value(i, 0).decode() for i in range(res.ntuples))


def text(steps: dict[str, list[tuple[Any, ...]]], stamp: str) -> tuple[list[tuple[str, str]], list[str], int]:
    """The statements ``steps`` needs (name, PREPARE), the ``EXECUTE``s in ``batchsql.ORDER`` and
    how many heads they move."""
    want: list[tuple[str, str]] = []
    execs: list[str] = []
    heads = 0
    for kind in batchsql.ORDER:
        rows = steps.get(kind)
        if not rows:
            continue
        wide = batchsql._WIDE.get(kind)
        if wide is not None:
            rows = [wide(r, stamp) for r in rows]
        for n, params in batchsql.chunks(rows, pg=True):
            name, prep = prepared(kind, n)
            want.append((name, prep))
            execs.append(f"EXECUTE {name}({','.join(map(literal, params))})")
            if kind == "head":
                heads += n
    return want, execs, heads


def run(
    raw: Any, steps: dict[str, list[tuple[Any, ...]]], stamp: str, commit: Callable[[], None] | None
) -> int:
    """``batchsql.run`` on PostgreSQL: prepares what this connection lacks, then sends the commit's
    ``EXECUTE``s as one text (``BEGIN`` before them when no transaction is open; ``COMMIT`` after them
    when ``commit`` is given: ``commit()`` is called just before the text is sent). Returns how many
    heads moved (0: a stale head, counted by the server; the transaction failed)."""
    want, execs, heads = text(steps, stamp)
    pgconn = raw.pgconn
    names = _prepared.get(raw)
    if names is None:
        names = _prepared[raw] = set()
    _conforming(pgconn)
    for _attempt in (1, 2):
        _prepare(raw, names, want)
        parts = ["BEGIN"] if pgconn.transaction_status == _IDLE else []
        parts += execs
        if commit is not None:
            parts.append("COMMIT")
        sql = ";\n".join(parts)
        if "\x00" in sql:
            raise HistoryError("a text to write holds the character NUL, which PostgreSQL does not store")
        if commit is not None:
            commit()
        res = pgconn.exec_(sql.encode(raw.info.encoding))
        if res.status != _FATAL:
            return heads
        state = res.error_field(0x43)  # PG_DIAG_SQLSTATE
        if state == b"22P02" and batchsql.STALE.encode() in (res.error_field(0x4D) or b""):  # MESSAGE
            return 0  # a head had moved: the transaction failed (rolled back by the caller)
        if state != _MISSING.encode():
            raise _error(raw, res)
        raw.rollback()  # (a statement was deallocated by someone else: prepared again)
        _resync(raw, names)
        if commit is None:  # the caller's transaction (its fences) is lost: the caller writes again
            raise _error(raw, res)
    raise HistoryError("the PostgreSQL server lost the writer's prepared statements twice in a row")


__all__ = ["literal", "prepared", "run", "text"]
