"""PostgreSQL's group commit as ONE simple-query text of ``EXECUTE``s of statements ``PREPARE``d once per
connection (``batchsql.run`` on PostgreSQL).

One statement a kind of row (``rowsql._STATEMENTS``' own, ``_unnest_sql``: the shoes', rounds',
events', ledger rows' INSERTs, the balances' upsert, the round ends' and chain heads' UPDATEs, the
heads' inside the server's count of the heads moved, ``rowsql.STALE``), each taking ONE
array a column (``unnest``; a value the statement takes twice or more, the events' and ledger rows'
table, round and seq, is one column referenced again: ``rowsql._PG_COLUMNS``): any number of rows in
one statement, eight statements in all, prepared
on the server once per connection (``PREPARE pontoon_<kind>_<crc> (integer[], text[], ...) AS ...``:
a name per text, so a changed statement, a new schema revision's, is a new name and prepared anew)
and planned once
(``plan_cache_mode = force_generic_plan``, ``engines._pg_connect``). A commit is then ONE text sent
with libpq's ``PQexec`` (``pgconn.exec_``, no psycopg cursor): ``BEGIN; EXECUTE pontoon_event_..(
'{..}', '{..}', ...); ...; COMMIT``. The server runs its statements in order and stops at the first
failure, the rest of the text (its COMMIT) not run: the transaction is left failed and rolled back by
the caller, as with the pipeline before. psycopg's pipeline cost the writer ~30 us of Python a
statement (183-221 us a one-table commit of six statements); this text costs a few us a statement,
and the server parses an array's elements with ``array_in`` (cheaper than as parameters of their own)
with its plans prepared (the plain text of INSERTs with literals was planned every time:
docs/scale-log.md, "PostgreSQL's commit in one round trip", and "PostgreSQL's commit as one text of
prepared statements" for the measures).

**Values.** Each value is an ``int`` (written in digits), ``None`` (``NULL``) or a ``str``. A column's
array (``_ints``, ``_texts``) is written by ``array_in``'s rule: an integer element in digits, a text
element between double quotes with its backslashes and double quotes escaped by a backslash, NULL
plain. The array, like the transaction's time (``literal``), is then a string constant by the
server's own rule for ``standard_conforming_strings = on`` (the only rule since PostgreSQL 9.1,
checked on every commit from the value the server reports, and set when it is off): between single
quotes, each single quote doubled, backslashes plain characters. Any other type is refused
(``TypeError``: ``int.__repr__`` and ``str.replace`` take nothing else), and a text holding NUL (which
no PostgreSQL text may hold, and which libpq would take for the text's end) is refused with a
``HistoryError``. The prepared statement declares each parameter's type, so a constant is read as that
type's value, never as SQL.

**Prepared once per connection.** The names prepared on a server session are remembered per psycopg
connection (``_prepared``): a reconnect is a new connection (none prepared), and one given back to the
pool and lent to the writer again keeps its statements. A ``PREPARE`` is not undone by a rollback (it
is not transactional): a failed transaction leaves the statements in place. psycopg deallocates every
prepared statement of a connection (``DEALLOCATE ALL``) at a rollback after it prepared statements of
its own, so the PostgreSQL engine turns psycopg's own preparing off (``engines.make_engine``:
``prepare_threshold = None``). Should a statement still be missing (SQLSTATE 26000: a ``DISCARD ALL``
by someone else), the names are read again from ``pg_prepared_statements`` and, in the writer's own
transaction (``commit`` given: the text holds BEGIN and COMMIT), the transaction is rolled back and
the text sent again once; in a transaction of SQLAlchemy's (the lease fences, whose locks the rollback
lets go) the error is raised: the group commit writes each call of a shared commit alone again (then
prepared), and a commit of one call fails its table as any failed write does (refused until its
records rebuild it: ``GroupCommitter.failed``). So a ``DISCARD ALL`` run on the store's connections by
something else can cost a fenced table; nothing of pontoon runs one.
"""

from __future__ import annotations

import weakref
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from pontoon.history import rowsql
from pontoon.history.engines import HistoryError

# Each kind's statement is ``rowsql._STATEMENTS``' own (one truth for both databases: a schema
# revision that changes them changes these), its rows from ONE array a column (``unnest``): any number
# of rows in one statement, one a kind whatever the commit's size. ``INSERT ... VALUES (row)`` becomes
# ``INSERT ... SELECT row FROM unnest($1, ...) AS v(column1, ...)``, each ``?`` of the row the next
# column, and ``UPDATE ... FROM (VALUES ...) AS v`` becomes ``UPDATE ... FROM unnest(...) AS v(...)``;
# the heads' UPDATE inside the server's count of the heads moved (``rowsql.STALE``).
# Written as ``EXECUTE``'s constants, an array is parsed by the server's ``array_in`` (a few us an
# element less than a parameter of its own: 2026-11-28, docs/scale-log.md, "PostgreSQL's commit as
# one text of prepared statements"). A column's type is its values' (``int``: ``integer[]``, ``str``:
# ``text[]``; a column of NULLs only, a round's shoe, ``integer[]``).
_INT, _TEXT = "integer[]", "text[]"


def _unnest_sql(kind: str) -> str:
    """``rowsql._STATEMENTS[kind]`` with its rows from arrays ``$1``... (one a column of the row:
    ``rowsql._PG_COLUMNS`` names the column of each ``?`` where a value is taken twice or more)."""
    head, one, tail = rowsql._STATEMENTS[kind]
    cols = rowsql._PG_COLUMNS.get(kind) or tuple(range(1, one.count("?") + 1))  # (the column of each ``?``)
    k = max(cols)
    src = f"unnest({', '.join(f'${i}' for i in range(1, k + 1))}) AS v({', '.join(f'column{i}' for i in range(1, k + 1))})"
    if head.endswith("VALUES ") and head.startswith("INSERT"):
        parts = one.strip()[1:-1].split("?")  # (the row between its parentheses)
        row = "".join(f"{p}v.column{c}" for c, p in zip(cols, parts[:-1], strict=True)) + parts[-1]
        sql = f"{head[: -len('VALUES ')]}SELECT {row} FROM {src}{tail}"
    elif head.endswith("FROM (VALUES ") and tail.startswith(") AS v "):
        sql = f"{head[: -len('(VALUES ')]}{src}{tail[len(') AS v') :]}"
    else:
        raise ValueError(f"batchsql's {kind} statement has no form that pgprep knows: {head!r}")
    if kind == "head":
        sql = (
            f"WITH moved AS ({sql} RETURNING 1) SELECT CAST(CASE WHEN count(*) = cardinality($1) THEN '1' "
            f"ELSE '{rowsql.STALE}' END AS integer) FROM moved"
        )
    return sql


_NAMES: dict[tuple[str, tuple[str, ...]], tuple[str, str]] = {}  # (kind, types) -> (name, PREPARE)
# psycopg connection -> the names prepared in its server session
_prepared: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
_IDLE, _FATAL = 0, 7  # psycopg.pq.TransactionStatus.IDLE, ExecStatus.FATAL_ERROR
_MISSING = "26000"  # invalid_sql_statement_name: no such prepared statement


def prepared(kind: str, types: tuple[str, ...]) -> tuple[str, str]:
    """The name of ``kind``'s statement with columns of ``types`` and the ``PREPARE`` that makes it (a
    name per text: a changed statement is another name, prepared anew)."""
    key = (kind, types)
    got = _NAMES.get(key)
    if got is None:
        sql = _unnest_sql(kind)
        name = f"pontoon_{kind}_{zlib.crc32((' '.join(types) + sql).encode()):08x}"
        got = _NAMES[key] = (name, f"PREPARE {name} ({', '.join(types)}) AS {sql}")
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


def _ints(col: Sequence[Any]) -> str:
    """An ``integer[]`` constant: digits and NULLs (``int.__repr__`` refuses anything but an int). A
    column with no NULL (most) is written by one ``map`` in C, not an element at a time in Python."""
    if None not in col:
        return "'{" + ",".join(map(int.__repr__, col)) + "}'"
    return "'{" + ",".join(["NULL" if v is None else int.__repr__(v) for v in col]) + "}'"


def _texts(col: Sequence[Any]) -> str:
    """A ``text[]`` constant: each element between double quotes, its backslashes and double quotes
    escaped by a backslash (``array_in``'s rule), NULLs plain; the whole a string constant
    (``literal``'s rule). ``str.replace`` (``str.join``) refuses anything but a str.
    A column with no NULL and no NUL (most: the writer's Python spent ~150 us a commit of 12 calls
    here, element by element) is joined first, with NUL between its elements, and escaped as one text:
    the escapes are made character by character, so escaping the joined text and then turning each NUL
    into ``","`` writes the very same constant (a text holding NUL goes the element-by-element way, to
    be refused by ``run``)."""
    if col and None not in col:
        joined = "\x00".join(col)
        if joined.count("\x00") == len(col) - 1:
            esc = str.replace(str.replace(joined, "\\", "\\\\"), '"', '\\"')
            return "'{\"" + str.replace(str.replace(esc, "\x00", '","'), "'", "''") + "\"}'"
    els = [
        "NULL" if v is None else '"' + str.replace(str.replace(v, "\\", "\\\\"), '"', '\\"') + '"'
        for v in col
    ]
    return "'{" + str.replace(",".join(els), "'", "''") + "}'"


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


def _type(col: Sequence[Any]) -> str:
    """A column's array type: its first value's (a column of NULLs only: ``integer[]``)."""
    v = col[0]  # (most: the first value is not NULL)
    if v is not None:
        return _TEXT if isinstance(v, str) else _INT
    for v in col:
        if v is not None:
            return _TEXT if isinstance(v, str) else _INT
    return _INT


def text(steps: dict[str, list[tuple[Any, ...]]], stamp: str) -> tuple[list[tuple[str, str]], list[str], int]:
    """The statements ``steps`` needs (name, PREPARE), their ``EXECUTE``s in ``rowsql.ORDER`` (one
    a kind of row, its columns as arrays) and how many heads they move."""
    want: list[tuple[str, str]] = []
    execs: list[str] = []
    for kind in rowsql.ORDER:
        rows = steps.get(kind)
        if not rows:
            continue
        wide = rowsql._WIDE.get(kind)
        if wide is not None:
            rows = [wide(r, stamp) for r in rows]
        cols = list(zip(*rows, strict=True))  # (each column a tuple: no list of its own)
        types = tuple([_type(c) for c in cols])
        name, prep = prepared(kind, types)
        args = [_texts(c) if t == _TEXT else _ints(c) for t, c in zip(types, cols, strict=True)]
        want.append((name, prep))
        execs.append(f"EXECUTE {name}({','.join(args)})")
    return want, execs, len(steps.get("head", ()))


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
        if state == b"22P02" and rowsql.STALE.encode() in (res.error_field(0x4D) or b""):  # MESSAGE
            return 0  # a head had moved: the transaction failed (rolled back by the caller)
        if state != _MISSING.encode():
            raise _error(raw, res)
        raw.rollback()  # (a statement was deallocated by someone else: prepared again)
        _resync(raw, names)
        if commit is None:  # the caller's transaction (its fences) is lost: the caller writes again
            raise _error(raw, res)
    raise HistoryError("the PostgreSQL server lost the writer's prepared statements twice in a row")


__all__ = ["literal", "prepared", "run", "text"]
