"""Which database a URL names, and whether it is ours: read-only URLs, foreign files, the schema marker.

- ``parse_sqlite(url)``: the file and its options of ``sqlite:///PATH[?mode=ro]``, the SQLAlchemy form
  ``sqlite:///file:PATH?mode=ro&uri=true`` and a bare ``file:PATH?mode=ro`` URI; ``mode=ro`` or
  ``immutable=1`` make it read-only (a writer is refused; a reader always opens read-only anyway).
- ``identify(conn)``: ``empty`` (no tables: a writer may create the history there), ``ours`` (the
  ``pontoon_meta`` marker of revision 0005, or, written by an earlier pontoon, our core tables with
  Alembic's ``alembic_version``) or ``foreign`` (anything else: refused by readers and writers alike,
  and never written to: no schema, no WAL switch).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote

from sqlalchemy import Connection, inspect, text

APPLICATION = "pontoon-history"  # pontoon_meta's "application" row: the marker of our schema
APPLICATION_ID = 0x504F4E54  # SQLite's header field (PRAGMA application_id): "PONT"
CORE = frozenset({"tables", "events", "ledger", "accounts", "rounds", "shoes"})


@dataclass(frozen=True)
class SqliteTarget:
    path: str
    readonly: bool

    def uri(self, *, readonly: bool) -> str:
        mode = "ro" if readonly or self.readonly else "rwc"
        return f"file:{quote(self.path)}?mode={mode}"


def parse_sqlite(url: str) -> SqliteTarget | None:
    """The file named by a SQLite URL (``None`` for another kind of URL)."""
    if url.startswith("file:"):
        rest = url[len("file:") :]
    elif url.startswith("sqlite:///"):
        rest = url[len("sqlite:///") :]
        if rest.startswith("file:"):
            rest = rest[len("file:") :]
    else:
        return None
    path, _, query = rest.partition("?")
    opts = dict(parse_qsl(query, keep_blank_values=True))
    path = unquote(path)
    if path.startswith("//"):  # file:///abs/path
        path = path[2:]
    ro = opts.get("mode") == "ro" or opts.get("immutable") in ("1", "true")
    return SqliteTarget(path, ro)


def sqlite_names(path: str) -> tuple[list[str], str | None] | None:
    """The table names and the marker row of the SQLite file at ``path``, read without writing
    anything (``None`` when there is no file or it is empty)."""
    p = Path(path)
    if not p.is_file() or p.stat().st_size == 0:
        return None
    conn = sqlite3.connect(SqliteTarget(path, True).uri(readonly=True), uri=True)
    try:
        names = [
            str(r[0])
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        marker = None
        if "pontoon_meta" in names:
            try:
                row = conn.execute("SELECT value FROM pontoon_meta WHERE key='application'").fetchone()
            except sqlite3.DatabaseError:  # a table of that name but not ours: no marker
                row = None
            marker = None if row is None else str(row[0])
        return names, marker
    finally:
        conn.close()


def classify(names: list[str], marker: str | None) -> str:
    """``empty``, ``ours`` or ``foreign`` from a database's table names and its marker row."""
    if not names:
        return "empty"
    if marker == APPLICATION:
        return "ours"
    if "pontoon_meta" not in names and "alembic_version" in names and CORE <= set(names):
        return "ours"  # written before revision 0005: it gets the marker from the next writer
    return "foreign"


def identify(conn: Connection) -> str:
    """``classify`` for an open connection (either dialect)."""
    names = [n for n in inspect(conn).get_table_names() if not n.startswith("sqlite_")]
    marker = None
    if "pontoon_meta" in names:
        try:
            marker = conn.exec_driver_sql("SELECT value FROM pontoon_meta WHERE key='application'").scalar()
        except Exception:  # noqa: BLE001 - a table of that name but not ours: no marker
            marker = None
    return classify(names, None if marker is None else str(marker))


def describe_foreign(names: list[str]) -> str:
    shown = ", ".join(sorted(names)[:6])
    more = "" if len(names) <= 6 else f" and {len(names) - 6} more"
    return f"it has tables {shown}{more} and no pontoon history marker"


def meta_value(conn: Connection, key: str) -> str | None:
    """A row of ``pontoon_meta`` (``None`` before revision 0005 or when absent)."""
    if not inspect(conn).has_table("pontoon_meta"):
        return None
    v: Any = conn.execute(text("SELECT value FROM pontoon_meta WHERE key = :k"), {"k": key}).scalar()
    return None if v is None else str(v)


__all__ = [
    "APPLICATION",
    "APPLICATION_ID",
    "SqliteTarget",
    "classify",
    "describe_foreign",
    "identify",
    "meta_value",
    "parse_sqlite",
    "sqlite_names",
]
