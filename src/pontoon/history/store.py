"""The history store: SQLAlchemy Core over SQLite (default) or PostgreSQL, one code path.

``open_store(url)`` opens (and migrates to the newest schema with Alembic) the database at ``url``;
``None`` means ``$PONTOON_DB`` or else ``history.sqlite`` under ``platformdirs.user_data_dir("pontoon")``.
``open_store(url, readonly=True)`` (the readers) opens an existing history read-only and writes
nothing. Engines, pragmas, migration and the parsing of stored values: ``engines.py``; whether a
database is ours: ``dbfile.py``; the seals: ``seal.py``.

Every ``append`` is ONE transaction: the events, the ledger rows they caused (idempotency key
``table:round:seq:i`` UNIQUE), the account balances, the round row and the recovery snapshot. It is
durable when ``append`` returns (``synchronous=FULL``: the WAL is fsynced at commit).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, insert, text, update
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from pontoon.errors import PontoonError
from pontoon.history import schema as s
from pontoon.history.chain import account_key, canon, chain_hash, event_body, now
from pontoon.history.dbfile import parse_sqlite
from pontoon.history.engines import (
    BUSY_TIMEOUT_MS,
    SCHEMA_HEAD,
    HistoryError,
    _adopt_key,
    _check_sqlite,
    _kind,
    _known_revision,
    _migrate,
    _sqlite_kind,
    default_url,
    make_engine,
    parse_amount,
    stored_amount,
    stored_json,
)
from pontoon.history.group import (
    Committer,
    GroupCommitter,
    Heads,
    Rounds,
    StaleHead,
    transaction,
    write_items,
)
from pontoon.history.seal import SealKey, history_key
from pontoon.history.store_reads import StoreReads

CASHIER = {"cashier": "cage"}  # money brought to or taken from a casino table (join/leave): never a name


def money_rows(transfers: Iterable[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Transfers for comparison: the amount as a Decimal (5.00 equals 5), the rest exactly."""
    return [
        (canon(t["source"]), canon(t["dest"]), Decimal(t["amount"]), t["kind"], t["player"], t["reason"])
        for t in transfers
    ]


@dataclass(slots=True)
class Row:
    """One event to write, with the ledger transfers it caused (``Transfer.to_json`` form)."""

    round_no: int
    seq: int
    kind: str
    data: dict[str, Any]
    clause: str = ""
    transfers: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class Batch:
    """What one transaction writes for one table."""

    rows: list[Row] = field(default_factory=list)
    shoe: tuple[int, str, int] | None = None  # (number, cards, cut) of a shoe first used now
    state: dict[str, Any] | None = None  # a recovery snapshot of the table
    state_at: int | None = None  # the snapshot holds before rows[state_at] (None: after every row)
    round_end: tuple[int, str, dict[str, Any]] | None = None  # (round_no, status, result)
    round_shoe: int | None = (
        None  # the shoe (pack) number of a round whose round_start does not name one (British)
    )


class _Crash:
    """Test-only fault injection: ``PONTOON_CRASH_AT=inside:N`` kills this process with SIGKILL inside
    the transaction that writes the N-th table call of the process (after its statements, before COMMIT;
    with group commit one transaction may write several calls); ``after:N`` right after that commit;
    ``shared:K`` inside the first transaction that writes the calls of K or more
    tables (group commit)."""

    def __init__(self) -> None:
        spec = os.environ.get("PONTOON_CRASH_AT", "")
        self.where, _, n = spec.partition(":")
        self.n = int(n) if n.isdigit() and len(n) < 10 else -1
        self.count = 0
        self.also = 0  # a writer process's parent (``writer_child.py``): killed first, the whole server dies

    def check(self, where: str, tables: int = 0, calls: int = 1) -> None:
        if self.n < 0:
            return
        if self.where == "shared":
            hit = where == "inside" and tables >= self.n
        else:  # this transaction wrote calls count-calls+1 .. count
            hit = where == self.where and self.count - calls < self.n <= self.count
        if hit:
            if self.also:
                os.kill(self.also, signal.SIGKILL)
            os.kill(os.getpid(), signal.SIGKILL)


def open_store(url: str | None = None, *, synchronous: str = "FULL", readonly: bool = False) -> Store:
    """Open the history at ``url`` (None: ``$PONTOON_DB`` or the user data directory).

    A writer (the default) creates the schema in an empty database and migrates ours to the newest
    revision; a database that is not ours is refused. ``readonly`` (the readers: ``history``,
    ``replay``, ``verify``) opens an existing history read-only and writes nothing: no migration, no
    WAL switch, no schema; an empty or foreign database is refused."""
    url = url or default_url()
    if readonly:
        return _open_reader(url)
    kind = _sqlite_kind(url)  # before the first writing connection (it switches the file to WAL)
    engine = make_engine(url, synchronous=synchronous)
    try:
        if engine.dialect.name == "sqlite" and synchronous == "FULL":
            with engine.connect() as conn:
                _check_sqlite(conn)
                ok = conn.exec_driver_sql("PRAGMA quick_check").scalar()
                conn.rollback()
            if ok != "ok":
                raise HistoryError(f"the SQLite database at {url} is corrupt (quick_check: {ok})")
        if kind is None:
            _kind(engine, url)
        _migrate(engine)
        key = history_key(create=True)
        assert key is not None
        _adopt_key(engine, key, url)
    except HistoryError:
        engine.dispose()
        raise
    except (SQLAlchemyError, OSError) as err:
        engine.dispose()
        first = str(err).splitlines()[0][:200]
        raise HistoryError(f"cannot open the history database {url}: {first}") from None
    except PontoonError:
        engine.dispose()
        raise
    reader = (
        make_engine(url, synchronous=synchronous, reader=True) if engine.dialect.name == "sqlite" else engine
    )
    return Store(engine, url, reader=reader, key=key)


def _open_reader(url: str) -> Store:
    target = parse_sqlite(url)
    if target is not None:
        if not Path(target.path).is_file():
            raise HistoryError(
                f"no history database at {target.path:.200} (give --db sqlite:///PATH, or play a recorded game first)"
            )
        if _sqlite_kind(url) is None:
            raise HistoryError(
                f"no history in {target.path:.200}: the file is empty (play a recorded game first)"
            )
    engine = make_engine(url, readonly=True)
    try:
        kind = _kind(engine, url)
        if kind == "empty":
            raise HistoryError(f"no history in the database at {url:.200}: it has no tables yet")
        from sqlalchemy import inspect

        with engine.connect() as conn:
            current = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
            sealed = inspect(conn).has_table("heads") or "seal" in {
                c["name"] for c in inspect(conn).get_columns("tables")
            }
            ok = (
                conn.exec_driver_sql("PRAGMA quick_check").scalar()
                if engine.dialect.name == "sqlite"
                else "ok"
            )
            conn.rollback()
        _known_revision(current)
        if ok != "ok":
            raise HistoryError(f"the SQLite database at {url} is corrupt (quick_check: {ok})")
        key = history_key(create=False)
    except PontoonError:
        engine.dispose()
        raise
    except (SQLAlchemyError, OSError) as err:
        engine.dispose()
        first = str(err).splitlines()[0][:200]
        raise HistoryError(f"cannot open the history database {url}: {first}") from None
    return Store(engine, url, reader=engine, key=key, readonly=True, sealed=sealed, revision=str(current))


class Store(StoreReads):
    """The one entry point to the records. Writers: ``create_table``, ``append``, ``close_table``."""

    def __init__(
        self,
        engine: Engine,
        url: str,
        *,
        reader: Engine | None = None,
        key: SealKey | None = None,
        readonly: bool = False,
        sealed: bool = True,
        revision: str = SCHEMA_HEAD,
    ) -> None:
        self.engine = engine  # writers: every transaction BEGIN IMMEDIATE on SQLite
        self.reader = reader or engine  # readers: plain BEGIN, a snapshot that never blocks a writer
        self.url = url
        self.key = key  # the seal key (``seal.py``): None for a reader that has none configured
        self.readonly = readonly  # opened by a reader: read-only, never migrated
        self.sealed = (
            sealed  # the schema has the seals (revision 0005 on: ``tables.seal``, 0008 on ``heads.seal``)
        )
        self.revision = revision
        self._local = threading.local()  # the snapshot connection of this thread, while one is open
        # the chain head and running balances of each table this writer wrote, as committed: a write
        # reads them only for a table it has not written yet (``writeitems.write_items``); a head moved by
        # another process meanwhile is caught in the transaction (``StaleHead``: read again, retried)
        self._heads: Heads = {}
        # SQLite's writer: each table's newest round row (number, id), kept like the heads once a
        # transaction commits (``writeitems._Ids``: an event names its round row by id, no look-up)
        self._rounds: Rounds = {}
        self._heads_lock = threading.Lock()
        self._crash = _Crash()
        # checks run inside every ``append`` transaction before it commits (a lease's fencing token:
        # ``pontoon.history.leases``); each is called with the connection and the table id and raises
        # to roll the write back
        self.fences: list[Callable[[Connection, int], None]] = []
        # the same for all the tables of one transaction at once (one statement: a group commit's fence)
        self.fences_many: list[Callable[[Connection, list[int]], None]] = []
        self.group: Committer | None = None  # group commit: a writer thread (``start_group``) or process

    def _writable(self) -> None:
        if self.readonly:
            raise HistoryError(f"the history at {self.url:.200} was opened read-only: it cannot be written")

    def seal_of(self, table_id: int, head: str) -> str:
        return self.key.seal(table_id, head) if self.key is not None else ""

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """One consistent read of the store: every read method called inside it (in this thread)
        reads the same moment. SQLite: one read transaction (BEGIN, then every read: a WAL snapshot);
        PostgreSQL: a REPEATABLE READ, READ ONLY transaction. Re-entrant."""
        held = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        with self.reader.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
            with conn.begin():
                self._local.conn = conn
                try:
                    yield conn
                finally:
                    self._local.conn = None

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        held = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        with self.reader.connect() as conn:
            yield conn

    def close(self) -> None:
        if self.group is not None:
            self.group.close()
            self.group = None
        self.engine.dispose()
        if self.reader is not self.engine:
            self.reader.dispose()

    # ------------------------------------------------------------------------------------------
    # writing
    def create_table(
        self,
        game: str,
        preset: str,
        rules: dict[str, Any],
        *,
        label: str = "",
        meta: dict[str, Any] | None = None,
        first: Batch | None = None,
    ) -> int:
        """A new table row and, in the same transaction, its ``first`` batch (the recorder's snapshot):
        a table is never recorded without the state to recover it from."""
        self._writable()
        self._crash.count += 1
        with self.engine.begin() as conn:
            res = conn.execute(
                insert(s.tables).values(
                    game=game,
                    preset=preset,
                    rules=canon(rules),
                    label=label,
                    meta=canon(meta or {}),
                    created=now(),
                    status="open",
                    state="{}",
                    state_event=0,
                )
            )
            pk = res.inserted_primary_key
            assert pk is not None
            table_id = int(pk[0])
            conn.execute(
                insert(s.heads).values(table_id=table_id, last_hash="", seal=self.seal_of(table_id, ""))
            )
            if first is not None:
                write_items(self, conn, [(table_id, [first])], {table_id: ("", {})})
            self._crash.check("inside")
        self._crash.check("after")
        return table_id

    def close_table(self, table_id: int) -> None:
        self._writable()
        with self.engine.begin() as conn:
            conn.execute(update(s.tables).where(s.tables.c.id == table_id).values(status="closed"))

    def forget(self, table_id: int) -> None:
        """Read ``table_id``'s head and balances from the database at its next write (a recorder
        attached to it again: another process may have written it)."""
        with self._heads_lock:
            self._heads.pop(table_id, None)
            self._rounds.pop(table_id, None)

    def append(self, table_id: int, batch: Batch) -> str:
        """Write ``batch`` in one transaction; returns the new head of the table's hash chain."""
        return self.append_many(table_id, [batch])

    def append_many(self, table_id: int, batches: Sequence[Batch]) -> str:
        """Write ``batches`` in order in ONE transaction (the records of one table call), committed when
        this returns; returns the new head of the hash chain. With group commit on (``start_group``)
        the transaction is shared with the other tables' writes of the same moment (``group.py``)."""
        self._writable()
        if self.group is not None:
            return self.group.write(table_id, batches)
        return self.write_group([(table_id, batches)])[0]

    def submit(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        """Queue ``batches`` for the writer thread (group commit on), else write them now; the future
        completes once they are committed (its result: the chain's new head)."""
        self._writable()
        if self.group is not None:
            return self.group.submit(table_id, batches)
        fut: Future[str] = Future()
        fut.set_result(self.write_group([(table_id, batches)])[0])
        return fut

    def enqueue(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        """``submit`` for a caller that waits for ``group.pending(table_id)`` and reads ``group.failed``
        after it (the table server): the calls queued together share one Future (``GroupCommitter.
        enqueue``), whose result is no head. Without group commit: written now, as ``submit``."""
        self._writable()
        if self.group is not None:
            return self.group.enqueue(table_id, batches)
        return self.submit(table_id, batches)

    def start_group(self, *, window_s: float = 0.0) -> Committer:
        """Group commit from now on: every ``append`` goes through one writer thread (``group.py``)."""
        self._writable()
        if self.group is None:
            self.group = GroupCommitter(self, window_s=window_s)
        return self.group

    def writer_connection(self) -> Connection:
        """A connection for the group commit's writer thread, kept between its transactions. On SQLite
        without foreign-key checks (as PostgreSQL's write path since revision 0008): its statements find
        every round and event they link to by key themselves (``batchsql.py``), and the audit checks
        every link (``audit._check_links``); the checks cost a tenth of the writer's CPU. Given back
        by ``release_writer`` (the checks on again before the pool lends it to anyone else)."""
        conn = self.engine.connect()
        if conn.dialect.name == "sqlite":
            conn.connection.driver_connection.execute("PRAGMA foreign_keys=OFF")  # type: ignore[union-attr]
        return conn

    def release_writer(self, conn: Connection) -> None:
        """The writer thread's connection back to the pool (or discarded if it is broken)."""
        try:
            if conn.dialect.name == "sqlite":
                conn.connection.driver_connection.execute("PRAGMA foreign_keys=ON")  # type: ignore[union-attr]
            conn.close()
        except Exception:  # noqa: BLE001 (a broken connection: the pool discards it)
            conn.invalidate()

    def write_group(
        self, items: Sequence[tuple[int, Sequence[Batch]]], conn: Connection | None = None
    ) -> list[str]:
        """The batches of several tables (each item: a table id and its batches) in ONE transaction,
        every table's fences checked in it; returns each item's new chain head. ``conn``: the writer
        thread's own connection (else one from the pool)."""
        self._crash.count += len(items)
        tids = list(dict.fromkeys(t for t, _ in items))
        fenced = bool(self.fences or self.fences_many)
        # PostgreSQL, the writer thread's own transaction: its COMMIT goes in the statements' pipeline
        # (one round trip; ``batchsql.run``), the crash point "inside" just before the COMMIT is queued
        one_trip = conn is not None and not fenced and conn.dialect.name == "postgresql"
        inside = partial(self._crash.check, "inside", len(tids), len(items))
        for attempt in (1, 2):
            with self._heads_lock:
                cached = {t: self._heads[t] for t in tids if t in self._heads}
                rounds = {t: self._rounds[t] for t in tids if t in self._rounds}
            try:
                with transaction(self.engine, conn, fenced) as c:
                    for tid in tids:
                        for fence in self.fences:
                            fence(c, tid)
                    for many in self.fences_many:
                        many(c, tids)
                    heads, made = write_items(self, c, items, cached, inside if one_trip else None, rounds)
                    if not one_trip:
                        inside()
            except StaleHead:
                with self._heads_lock:
                    for t in tids:
                        self._heads.pop(t, None)
                        self._rounds.pop(t, None)
                if attempt == 2 or not cached:
                    raise
                continue
            except BaseException:
                with self._heads_lock:  # rolled back (or unknown): read again at the next write
                    for t in tids:
                        self._heads.pop(t, None)
                        self._rounds.pop(t, None)
                raise
            with self._heads_lock:
                self._heads.update(made)
                self._rounds.update(rounds)
            break
        self._crash.check("after", calls=len(items))
        return heads


def rows_of(transfers: Iterable[Any]) -> list[dict[str, Any]]:
    return [t.to_json() for t in transfers]


__all__ = [
    "BUSY_TIMEOUT_MS",
    "SCHEMA_HEAD",
    "make_engine",
    "parse_amount",
    "Batch",
    "HistoryError",
    "Row",
    "Store",
    "open_store",
    "default_url",
    "account_key",
    "canon",
    "chain_hash",
    "event_body",
    "CASHIER",
    "DBAPIError",
    "stored_amount",
    "stored_json",
    "text",
]
