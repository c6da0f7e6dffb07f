"""Opening a history database: URLs, engines and their SQLite pragmas, the schema's revision and
migration, whether a database is ours (``dbfile.py``), the seal key's adoption, and the parsing of
stored values with named errors. ``store.py`` builds the ``Store`` on these (``open_store``).

SQLite connections of a writer are opened with ``journal_mode=WAL``, ``synchronous=FULL``,
``foreign_keys=ON`` and a busy timeout, read back at start (a database where they do not take is
refused), and every write transaction begins ``IMMEDIATE`` so two writers queue on the lock instead of
failing. A reader's connections open the file read-only (``mode=ro``, ``query_only``) and set nothing
that writes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, insert, select, update
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from pontoon.errors import PontoonError
from pontoon.history import schema as s
from pontoon.history.dbfile import (
    classify,
    describe_foreign,
    identify,
    meta_value,
    parse_sqlite,
    sqlite_names,
)
from pontoon.history.seal import SealKey

BUSY_TIMEOUT_MS = 30_000


class HistoryError(PontoonError):
    """A bad database URL, a missing or corrupt database, an unknown round or table."""


def default_url() -> str:
    env = os.environ.get("PONTOON_DB")
    if env:
        return env
    from platformdirs import user_data_dir

    d = Path(user_data_dir("pontoon"))
    return f"sqlite:///{d / 'history.sqlite'}"


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (IMMEDIATE)
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _sqlite_begin(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _sqlite_begin_read(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN")  # a reader: a WAL snapshot, never the write lock


def make_engine(
    url: str, *, synchronous: str = "FULL", reader: bool = False, readonly: bool = False
) -> Engine:
    """An engine for ``url`` with the pragmas set on every SQLite connection. ``readonly``: every
    connection opens the file read-only (``mode=ro``) and sets nothing that writes (no WAL switch)."""
    if not isinstance(url, str) or ("://" not in url and not url.startswith("file:")):
        raise HistoryError(f"database URL {url!r:.80}: give sqlite:///PATH or postgresql://USER@HOST/DB")
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    try:
        target = parse_sqlite(url)
        if target is not None or url.startswith("sqlite"):
            if target is None or not target.path or target.path == ":memory:" or "mode=memory" in url:
                raise HistoryError("an in-memory SQLite database keeps no history: give sqlite:///PATH")
            if target.readonly and not readonly:
                raise HistoryError(
                    f"database URL {url!r:.80} is read-only (mode=ro): this command writes the history; "
                    "give a writable URL (or --no-history)"
                )
            ro = readonly or target.readonly
            if not ro:
                Path(target.path).parent.mkdir(parents=True, exist_ok=True)
            uri = target.uri(readonly=ro)
            engine = create_engine(
                f"sqlite:///{target.path}",
                creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False),
            )

            @event.listens_for(engine, "connect")
            def _connect(dbapi_conn: Any, rec: Any) -> None:
                if ro:
                    _sqlite_reader_pragmas(dbapi_conn)
                    return
                _sqlite_pragmas(dbapi_conn, rec)
                if synchronous != "FULL":  # the benchmark's baseline only
                    dbapi_conn.execute(f"PRAGMA synchronous={synchronous}")

            event.listen(engine, "begin", _sqlite_begin_read if (reader or ro) else _sqlite_begin)
        elif url.startswith("postgresql"):
            engine = create_engine(
                url,
                pool_pre_ping=True,
                execution_options={"postgresql_readonly": True} if readonly else {},
            )
            event.listen(engine, "connect", _pg_connect)
        else:
            raise HistoryError(
                f"database URL {url.split(':', 1)[0]!r}: accepted are sqlite:///PATH and postgresql://..."
            )
    except (ArgumentError, NoSuchModuleError, ValueError, OSError) as err:
        if isinstance(err, HistoryError):
            raise
        raise HistoryError(
            f"database URL {url!r:.80} is not valid ({err}); give sqlite:///PATH or postgresql://..."
        ) from None
    return engine


def _pg_connect(dbapi_conn: Any, _record: Any) -> None:
    """psycopg prepares nothing of its own on our connections: at a rollback after it prepared some, it
    deallocates every prepared statement of the session (``DEALLOCATE ALL``), the group commit's too,
    which are prepared once per connection (``pgprep.py``). Those are planned once (a generic plan):
    their arrays' lengths would make the server plan them again at every commit (a custom plan for
    each, its estimate lower than the generic plan's for a few rows)."""
    dbapi_conn.prepare_threshold = None
    dbapi_conn.pgconn.exec_(b"SET plan_cache_mode = force_generic_plan")  # (outside a transaction: kept)


def _sqlite_reader_pragmas(dbapi_conn: Any) -> None:
    dbapi_conn.isolation_level = None  # we issue BEGIN ourselves: one snapshot per read transaction
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA query_only=1")  # belt and braces: this connection never writes
    cur.close()


def _check_sqlite(conn: Connection) -> None:
    mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
    if str(mode).lower() != "wal" or int(sync or 0) != 2:
        raise HistoryError(
            f"the SQLite database refused the durability settings (journal_mode={mode}, synchronous={sync}); "
            "need journal_mode=WAL and synchronous=FULL (2): is it on a file system that supports WAL?"
        )


SCHEMA_HEAD = "0012"  # the newest Alembic revision (tests check it against migrations/versions)


def _known_revision(current: object) -> None:
    here = Path(__file__).resolve().parent
    known = {f.name.split("_", 1)[0] for f in (here / "migrations" / "versions").glob("[0-9]*_*.py")}
    if current is not None and current not in known:
        raise HistoryError(
            f"the history database is at schema revision {str(current)[:40]}, which this pontoon does not "
            f"know (it knows up to {SCHEMA_HEAD}): use a newer pontoon, or another --db / PONTOON_DB"
        )


def _migrate(engine: Engine) -> None:
    """Upgrade to the newest schema with Alembic (not even imported when the database is at head)."""
    from sqlalchemy import inspect

    with engine.connect() as conn:
        current = None
        if inspect(conn).has_table("alembic_version"):
            current = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        conn.rollback()
    if current == SCHEMA_HEAD:
        return
    _known_revision(current)
    here = Path(__file__).resolve().parent
    from alembic import command
    from alembic.config import Config

    cfg = Config(str(here / "alembic.ini"))
    cfg.set_main_option("script_location", str(here / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def _foreign(url: str, names: list[str]) -> HistoryError:
    return HistoryError(
        f"the database at {url:.200} is not a pontoon history ({describe_foreign(names)}): "
        "pontoon neither reads nor writes it; give another --db / PONTOON_DB"
    )


def _sqlite_kind(url: str) -> str | None:
    """``empty``/``ours``/``foreign`` of the SQLite file ``url`` names, read without writing it
    (``None``: no such file, or an empty one)."""
    target = parse_sqlite(url)
    if target is None:
        return None
    try:
        got = sqlite_names(target.path)
    except sqlite3.DatabaseError as err:
        raise HistoryError(f"the file at {target.path:.200} is not a SQLite database ({err})") from None
    except OSError as err:
        raise HistoryError(f"cannot read {target.path:.200}: {err.strerror or err}") from None
    if got is None:
        return None
    kind = classify(*got)
    if kind == "foreign":
        raise _foreign(url, got[0])
    return kind


def _kind(engine: Engine, url: str) -> str:
    from sqlalchemy import inspect

    with engine.connect() as conn:
        kind = identify(conn)
        names = inspect(conn).get_table_names()
        conn.rollback()
    if kind == "foreign":
        raise _foreign(url, names)
    return kind


def _adopt_key(engine: Engine, key: SealKey, url: str) -> None:
    """The first writer with a seal key records its id and seals every table as it stands (a store
    written before revision 0005: trust on first use); a later writer must hold the same key."""
    with engine.begin() as conn:
        have = meta_value(conn, "seal_key")
        if have == key.key_id:
            return
        if have is not None:
            raise HistoryError(
                f"the history at {url:.200} is sealed with key {have}; the key configured here "
                f"({key.source:.120}) is {key.key_id}: give the key that sealed it "
                "(PONTOON_HISTORY_KEY_FILE, docs/history.md)"
            )
        conn.execute(insert(s.pontoon_meta).values(key="seal_key", value=key.key_id))
        for tid, head in conn.execute(select(s.heads.c.table_id, s.heads.c.last_hash)).all():
            conn.execute(
                update(s.heads).where(s.heads.c.table_id == tid).values(seal=key.seal(int(tid), str(head)))
            )


def parse_amount(text_: str) -> Decimal:
    return stored_amount(text_, "an amount in the ledger")


MAX_STORED_EXPONENT = 30  # |amount| < 10^30: far above any table's money (money.MAX_AMOUNT is 10^12)


def stored_amount(value: object, where: str) -> Decimal:
    """A stored amount (exact decimal text) as a Decimal; anything else (not text, not a number, NaN,
    infinite, or so large that sums would overflow) is a HistoryError naming ``where``."""
    try:
        d = Decimal(value) if isinstance(value, str | int) and not isinstance(value, bool) else None
    except (InvalidOperation, ValueError):
        d = None
    if d is None or not d.is_finite() or (d != 0 and abs(d.adjusted()) > MAX_STORED_EXPONENT):
        raise HistoryError(
            f"{where} is {str(value)[:40]!r}, not exact decimal money text: the stored row is damaged"
        )
    return d


def stored_json(text_: object, where: str, kind: type | tuple[type, ...]) -> Any:
    """A stored JSON column, parsed; not JSON, or not of ``kind``, is a HistoryError naming ``where``."""
    try:
        value = json.loads(text_) if isinstance(text_, str | bytes) else None
    except (ValueError, RecursionError):  # JSONDecodeError, a number of more than 4300 digits
        value = None
    if not isinstance(value, kind):
        raise HistoryError(
            f"{where} is {str(text_)[:40]!r}, not the JSON pontoon writes: the stored row is damaged"
        )
    return value


__all__ = [
    "BUSY_TIMEOUT_MS",
    "SCHEMA_HEAD",
    "HistoryError",
    "default_url",
    "make_engine",
    "parse_amount",
    "stored_amount",
    "stored_json",
]
