"""The history database as the command line names it (``--db URL``, ``$PONTOON_DB``): checked before
it is opened, and what the database refuses said as one line (issue 29 items 6 and 7).

- ``check_db``: an empty ``--db``, a URL of more than ``MAX_URL`` characters or with control
  characters, a SQLite path with a name over 255 bytes, under a file, or whose folder cannot be
  made is one ``error:`` line (exit 2) naming the option (or ``PONTOON_DB``) and what is accepted.
- ``check_no_history``: ``--db`` and ``--no-history`` exclude each other (the URL was ignored).
- ``check_writable``: a store the process cannot write (read-only or immutable file, read-only
  user) is refused before the work whose result would be written (``pontoon train``).
- ``store_failure``: the exit status and line for an error the database driver raised: a full
  disk (exit 1, worded as stdout's ``error: a write failed: ...``), a read-only or unreachable
  database (exit 2); None for anything else (an internal error).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from pontoon.errors import PontoonError

if TYPE_CHECKING:
    from pontoon.history.store import Store

MAX_URL = 4096  # characters in a database URL (a path is at most PATH_MAX, 4096 bytes, on Linux)
MAX_NAME = 255  # bytes in one file or folder name (NAME_MAX)
ACCEPTED = "sqlite:///PATH or postgresql://USER@HOST/DB"


class DatabaseOptionError(PontoonError):
    """A ``--db`` (or ``$PONTOON_DB``) that cannot name a history database."""


def check_no_history(db: str | None, no_history: bool) -> None:
    if no_history and db is not None:
        raise DatabaseOptionError(
            "--db names the history database and --no-history records nothing: give one of them"
        )


def check_db(db: str | None, *, writer: bool = False) -> None:
    """``db`` (or ``$PONTOON_DB`` where it is None) is a URL a store may be opened at; a writer's
    SQLite folder is made here, so that a path that cannot hold one is told as what it is."""
    if db is None:
        url, name = os.environ.get("PONTOON_DB", ""), "PONTOON_DB"
        if not url:
            return  # the user data directory
    else:
        url, name = db, "--db"
        if not db.strip():
            more = " or use --no-history" if writer else ""
            raise DatabaseOptionError(f"--db: give a database URL ({ACCEPTED}){more}")
    if len(url) > MAX_URL:
        raise DatabaseOptionError(
            f"{name}: a database URL of {len(url)} characters: at most {MAX_URL} ({ACCEPTED})"
        )
    if not url.isprintable():
        raise DatabaseOptionError(
            f"{name} {url!r:.80}: a database URL is printable text, without line breaks or control characters"
        )
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///") :].split("?", 1)[0]
        if path and ":memory:" not in url:
            _check_sqlite_path(Path(path), name, writer)


def _check_sqlite_path(path: Path, name: str, writer: bool) -> None:
    try:
        raw = os.fsencode(path)
    except UnicodeError:
        raise DatabaseOptionError(f"{name}: the path {str(path)!r:.80} cannot be a file name here") from None
    long = next((p for p in raw.split(b"/") if len(p) > MAX_NAME), None)
    if long is not None:
        raise DatabaseOptionError(
            f"{name}: a file or folder name of {len(long)} bytes in the path ({os.fsdecode(long[:40])}...): "
            f"at most {MAX_NAME} bytes each"
        )
    for up in (path.parent, *path.parent.parents):  # the nearest folder that is there
        try:
            mode = up.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue  # not there, or a file further up (found there)
        except OSError as err:
            raise DatabaseOptionError(
                f"{name}: cannot reach {str(up)!r:.120}: {err.strerror or err}"
            ) from None
        if not stat.S_ISDIR(mode):
            raise DatabaseOptionError(
                f"{name}: {str(up)!r:.120} is a file, not a folder, so {path.name!r:.60} cannot be a database under it"
            )
        break
    if path.is_dir():
        raise DatabaseOptionError(
            f"cannot open the history database at {str(path)!r:.120}: it is a folder "
            f"({name}: give the path of a database file in it)"
        )
    if writer:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise DatabaseOptionError(
                f"{name}: cannot make the folder {str(path.parent)!r:.120} for the database: {err.strerror or err}"
            ) from None


def check_writable(store: Store) -> None:
    """Write nothing, but ask the database for a write (a row rewritten unchanged, rolled back):
    a read-only or immutable file, a read-only user or transaction answers here (``store_failure``)."""
    from sqlalchemy import text

    with store.engine.connect() as conn:
        tx = conn.begin()
        try:
            conn.execute(text("UPDATE alembic_version SET version_num = version_num"))
        finally:
            tx.rollback()


# SQLite's primary result codes (sqlite3 exceptions carry them: ``sqlite_errorcode``)
_SQLITE_PERM, _SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 3, 8, 10, 13, 14
# PostgreSQL SQLSTATEs (psycopg exceptions carry them: ``sqlstate``)
_PG_FULL = {"53100", "53200"}  # disk_full, out_of_memory
_PG_READONLY = {"25006", "42501"}  # read_only_sql_transaction, insufficient_privilege


def store_failure(err: BaseException) -> tuple[int, str] | None:
    """(exit status, one line) for a database driver's error, raw or wrapped by SQLAlchemy."""
    orig = getattr(err, "orig", None) or err
    code = getattr(orig, "sqlite_errorcode", None)
    state = getattr(orig, "sqlstate", None)
    first = (str(orig).splitlines() or [type(orig).__name__])[0][:200]
    if isinstance(code, int):
        code &= 0xFF
        if code == _SQLITE_FULL:
            return 1, f"a write failed: the history database: {first} (free space and run it again)"
        if code in (_SQLITE_READONLY, _SQLITE_PERM):
            return 2, (
                f"the history database cannot be written ({first}): give a writable --db (or PONTOON_DB), "
                "or --no-history where the command takes it"
            )
        if code == _SQLITE_CANTOPEN:
            return (
                2,
                f"the history database cannot be opened ({first}): give --db sqlite:///PATH to a file you may write",
            )
        if code == _SQLITE_IOERR:
            return (
                1,
                f"the history database: {first} (a disk or file system failure: check it and run it again)",
            )
        return None
    if isinstance(state, str):
        if state in _PG_FULL:
            return 1, f"a write failed: the history database: {first} (free space and run it again)"
        if state in _PG_READONLY:
            return (
                2,
                f"the history database cannot be written ({first}): give a database and user that may write",
            )
        if state.startswith("08"):  # connection exception
            return 1, f"the history database's connection failed ({first}): check the server and run it again"
        return None
    return None
