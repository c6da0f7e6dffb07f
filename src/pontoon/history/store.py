"""The history store: SQLAlchemy Core over SQLite (default) or PostgreSQL, one code path.

``open_store(url)`` opens (and migrates to the newest schema with Alembic) the database at ``url``;
``None`` means ``$PONTOON_DB`` or else ``history.sqlite`` under ``platformdirs.user_data_dir("pontoon")``.
SQLite connections are opened with ``journal_mode=WAL``, ``synchronous=FULL``, ``foreign_keys=ON`` and a
busy timeout, read back at start (a database where they do not take is refused), and every write
transaction begins ``IMMEDIATE`` so two writers queue on the lock instead of failing.

Every ``append`` is ONE transaction: the events, the ledger rows they caused (idempotency key
``table:round:seq:i`` UNIQUE), the account balances, the round row and the recovery snapshot. It is
durable when ``append`` returns (``synchronous=FULL``: the WAL is fsynced at commit).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, create_engine, event, insert, select, text, update
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, NoSuchModuleError, SQLAlchemyError

from pontoon.errors import PontoonError
from pontoon.history import schema as s

BUSY_TIMEOUT_MS = 30_000
CASHIER = {"cashier": "cage"}  # money brought to or taken from a casino table (join/leave): never a name


class HistoryError(PontoonError):
    """A bad database URL, a missing or corrupt database, an unknown round or table."""


def canon(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; amounts are already exact decimal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def account_key(acct: Any) -> str:
    """The accounts table's key for an account as ``Transfer.to_json`` writes it."""
    return canon(acct)


def money_rows(transfers: Iterable[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Transfers for comparison: the amount as a Decimal (5.00 equals 5), the rest exactly."""
    return [
        (canon(t["source"]), canon(t["dest"]), Decimal(t["amount"]), t["kind"], t["player"], t["reason"])
        for t in transfers
    ]


# The write path's statements, built once: each append passes only its values, so SQLAlchemy reuses the
# compiled statement instead of building and cache-keying a new one per row (most of a write's CPU).
_HEAD = select(s.tables.c.last_hash).where(s.tables.c.id == bindparam("t_id"))
_HEAD_LOCKED = _HEAD.with_for_update()
_ROUND_ID = select(s.rounds.c.id).where(
    s.rounds.c.table_id == bindparam("t_id"), s.rounds.c.number == bindparam("r_no")
)
_SET_HEAD = update(s.tables).where(s.tables.c.id == bindparam("t_id")).values(last_hash=bindparam("t_hash"))
_SET_HEAD_STATE = _SET_HEAD.values(state=bindparam("t_state"), state_event=bindparam("t_event"))
_INS_SHOE = insert(s.shoes)
_INS_ROUND = insert(s.rounds)
_INS_EVENT = insert(s.events)
_INS_LEDGER = insert(s.ledger)
_INS_ACCOUNT = insert(s.accounts)
_END_ROUND = (
    update(s.rounds)
    .where(s.rounds.c.table_id == bindparam("t_id"), s.rounds.c.number == bindparam("r_no"))
    .values(status=bindparam("r_status"), ended=bindparam("r_ended"), result=bindparam("r_result"))
)
_BALANCE = select(s.accounts.c.balance).where(
    s.accounts.c.table_id == bindparam("t_id"), s.accounts.c.account == bindparam("a_key")
)
_SET_BALANCE = (
    update(s.accounts)
    .where(s.accounts.c.table_id == bindparam("t_id"), s.accounts.c.account == bindparam("a_key"))
    .values(balance=bindparam("a_balance"))
)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def chain_hash(prev: str, body: dict[str, Any]) -> str:
    return hashlib.sha256((prev + canon(body)).encode()).hexdigest()


def event_body(
    round_no: int, seq: int, kind: str, data: dict[str, Any], clause: str, transfers: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "round": round_no,
        "seq": seq,
        "kind": kind,
        "data": data,
        "clause": clause,
        "transfers": list(transfers),
    }


def default_url() -> str:
    env = os.environ.get("PONTOON_DB")
    if env:
        return env
    from platformdirs import user_data_dir

    d = Path(user_data_dir("pontoon"))
    return f"sqlite:///{d / 'history.sqlite'}"


@dataclass
class Row:
    """One event to write, with the ledger transfers it caused (``Transfer.to_json`` form)."""

    round_no: int
    seq: int
    kind: str
    data: dict[str, Any]
    clause: str = ""
    transfers: list[dict[str, Any]] = field(default_factory=list)


@dataclass
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
    the N-th write transaction of the process (after its statements, before COMMIT); ``after:N`` right
    after the N-th commit."""

    def __init__(self) -> None:
        spec = os.environ.get("PONTOON_CRASH_AT", "")
        self.where, _, n = spec.partition(":")
        self.n = int(n) if n.isdigit() and len(n) < 10 else -1
        self.count = 0

    def check(self, where: str) -> None:
        if self.n >= 0 and where == self.where and self.count == self.n:
            os.kill(os.getpid(), signal.SIGKILL)


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


def make_engine(url: str, *, synchronous: str = "FULL", reader: bool = False) -> Engine:
    """An engine for ``url`` with the pragmas set on every SQLite connection."""
    if not isinstance(url, str) or "://" not in url:
        raise HistoryError(f"database URL {url!r:.80}: give sqlite:///PATH or postgresql://USER@HOST/DB")
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    try:
        if url.startswith("sqlite"):
            if url in ("sqlite://", "sqlite:///:memory:") or ":memory:" in url:
                raise HistoryError("an in-memory SQLite database keeps no history: give sqlite:///PATH")
            path = url.split("///", 1)[1].split("?", 1)[0] if "///" in url else ""
            if path:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url)

            @event.listens_for(engine, "connect")
            def _connect(dbapi_conn: Any, rec: Any) -> None:
                _sqlite_pragmas(dbapi_conn, rec)
                if synchronous != "FULL":  # the benchmark's baseline only
                    dbapi_conn.execute(f"PRAGMA synchronous={synchronous}")

            event.listen(engine, "begin", _sqlite_begin_read if reader else _sqlite_begin)
        elif url.startswith("postgresql"):
            engine = create_engine(url, pool_pre_ping=True)
        else:
            raise HistoryError(
                f"database URL {url.split(':', 1)[0]!r}: accepted are sqlite:///PATH and postgresql://..."
            )
    except (ArgumentError, NoSuchModuleError, ValueError) as err:
        if isinstance(err, HistoryError):
            raise
        raise HistoryError(
            f"database URL {url!r:.80} is not valid ({err}); give sqlite:///PATH or postgresql://..."
        ) from None
    return engine


def _check_sqlite(conn: Connection) -> None:
    mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
    if str(mode).lower() != "wal" or int(sync or 0) != 2:
        raise HistoryError(
            f"the SQLite database refused the durability settings (journal_mode={mode}, synchronous={sync}); "
            "need journal_mode=WAL and synchronous=FULL (2): is it on a file system that supports WAL?"
        )


SCHEMA_HEAD = "0004"  # the newest Alembic revision (tests check it against migrations/versions)


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
    here = Path(__file__).resolve().parent
    known = {f.name.split("_", 1)[0] for f in (here / "migrations" / "versions").glob("[0-9]*_*.py")}
    if current is not None and current not in known:
        raise HistoryError(
            f"the history database is at schema revision {current}, which this pontoon does not know "
            f"(it knows up to {SCHEMA_HEAD}): use a newer pontoon, or another --db / PONTOON_DB"
        )
    from alembic import command
    from alembic.config import Config

    cfg = Config(str(here / "alembic.ini"))
    cfg.set_main_option("script_location", str(here / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def open_store(url: str | None = None, *, synchronous: str = "FULL") -> Store:
    """Open the history at ``url`` (None: ``$PONTOON_DB`` or the user data directory), migrated to head."""
    url = url or default_url()
    engine = make_engine(url, synchronous=synchronous)
    try:
        if engine.dialect.name == "sqlite" and synchronous == "FULL":
            with engine.connect() as conn:
                _check_sqlite(conn)
                ok = conn.exec_driver_sql("PRAGMA quick_check").scalar()
                conn.rollback()
            if ok != "ok":
                raise HistoryError(f"the SQLite database at {url} is corrupt (quick_check: {ok})")
        _migrate(engine)
    except HistoryError:
        engine.dispose()
        raise
    except (SQLAlchemyError, OSError) as err:
        engine.dispose()
        first = str(err).splitlines()[0][:200]
        raise HistoryError(f"cannot open the history database {url}: {first}") from None
    reader = (
        make_engine(url, synchronous=synchronous, reader=True) if engine.dialect.name == "sqlite" else engine
    )
    return Store(engine, url, reader=reader)


class Store:
    """The one entry point to the records. Writers: ``create_table``, ``append``, ``close_table``."""

    def __init__(self, engine: Engine, url: str, *, reader: Engine | None = None) -> None:
        self.engine = engine  # writers: every transaction BEGIN IMMEDIATE on SQLite
        self.reader = reader or engine  # readers: plain BEGIN, a snapshot that never blocks a writer
        self.url = url
        self._round_ids: dict[tuple[int, int], int] = {}
        self._crash = _Crash()
        # checks run inside every ``append`` transaction before it commits (a lease's fencing token:
        # ``pontoon.history.leases``); each is called with the connection and the table id and raises
        # to roll the write back
        self.fences: list[Callable[[Connection, int], None]] = []

    def close(self) -> None:
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
                    last_hash="",
                )
            )
            pk = res.inserted_primary_key
            assert pk is not None
            table_id = int(pk[0])
            if first is not None:
                self._append(conn, table_id, first)
            self._crash.check("inside")
        self._crash.check("after")
        return table_id

    def close_table(self, table_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(s.tables).where(s.tables.c.id == table_id).values(status="closed"))

    def _round_id(self, conn: Connection, table_id: int, number: int) -> int | None:
        if number <= 0:
            return None
        key = (table_id, number)
        rid = self._round_ids.get(key)
        if rid is None:
            rid = conn.execute(_ROUND_ID, {"t_id": table_id, "r_no": number}).scalar()
            if rid is not None:
                self._round_ids[key] = int(rid)
        return rid

    def append(self, table_id: int, batch: Batch) -> str:
        """Write ``batch`` in one transaction; returns the new head of the table's hash chain."""
        return self.append_many(table_id, [batch])

    def append_many(self, table_id: int, batches: Sequence[Batch]) -> str:
        """Write ``batches`` in order in ONE transaction (the records of one table call): one commit,
        each batch written exactly as ``append`` writes it; returns the new head of the hash chain."""
        self._crash.count += 1
        with self.engine.begin() as conn:
            for fence in self.fences:
                fence(conn, table_id)
            head = ""
            for batch in batches:
                head = self._append(conn, table_id, batch)
            self._crash.check("inside")
        self._crash.check("after")
        return head

    def _append(self, conn: Connection, table_id: int, batch: Batch) -> str:
        """The statements of one batch, on ``conn`` (the caller's transaction)."""
        q = _HEAD_LOCKED if self.engine.dialect.name == "postgresql" else _HEAD
        prev = conn.execute(q, {"t_id": table_id}).scalar()
        if prev is None:
            raise HistoryError(f"table {table_id} is not in the history")
        if batch.shoe is not None:
            n, cards, cut = batch.shoe
            conn.execute(
                _INS_SHOE, {"table_id": table_id, "number": n, "cards": cards, "cut": cut, "created": now()}
            )
        last_id = 0
        state_event = 0
        for i, row in enumerate(batch.rows):
            if row.kind == "round_start" and row.round_no > 0 and row.seq == 0:
                res = conn.execute(
                    _INS_ROUND,
                    {
                        "table_id": table_id,
                        "number": row.round_no,
                        "shoe": row.data.get("shoe", batch.round_shoe),
                        "status": "open",
                        "started": now(),
                    },
                )
                pk = res.inserted_primary_key
                assert pk is not None
                self._round_ids[(table_id, row.round_no)] = int(pk[0])
            last_id, prev = self._write_row(conn, table_id, row, str(prev))
            if i == batch.state_at:
                state_event = last_id - 1  # ids of one table's transaction are increasing
        if batch.round_end is not None:
            rno, status, result = batch.round_end
            conn.execute(
                _END_ROUND,
                {
                    "t_id": table_id,
                    "r_no": rno,
                    "r_status": status,
                    "r_ended": now(),
                    "r_result": canon(result),
                },
            )
        if batch.state is None:
            conn.execute(_SET_HEAD, {"t_id": table_id, "t_hash": prev})
        else:
            conn.execute(
                _SET_HEAD_STATE,
                {
                    "t_id": table_id,
                    "t_hash": prev,
                    "t_state": canon(batch.state),
                    "t_event": last_id if batch.state_at is None else state_event,
                },
            )
        return str(prev)

    def _write_row(self, conn: Connection, table_id: int, row: Row, prev: str) -> tuple[int, str]:
        h = chain_hash(prev, event_body(row.round_no, row.seq, row.kind, row.data, row.clause, row.transfers))
        rid = self._round_id(conn, table_id, row.round_no)
        res = conn.execute(
            _INS_EVENT,
            {
                "table_id": table_id,
                "round_id": rid,
                "round_no": row.round_no,
                "seq": row.seq,
                "kind": row.kind,
                "payload": canon(row.data),
                "clause": row.clause,
                "created": now(),
                "prev_hash": prev,
                "hash": h,
            },
        )
        pk = res.inserted_primary_key
        assert pk is not None
        eid = int(pk[0])
        for i, t in enumerate(row.transfers):
            self.write_ledger(conn, table_id, rid, eid, f"{table_id}:{row.round_no}:{row.seq}:{i}", t)
        return eid, h

    def write_ledger(
        self,
        conn: Connection,
        table_id: int,
        round_id: int | None,
        event_id: int,
        idem: str,
        t: dict[str, Any],
    ) -> None:
        """One ledger row and both balances; a second row with the same ``idem`` is refused."""
        amount = Decimal(t["amount"])
        try:
            conn.execute(
                _INS_LEDGER,
                {
                    "table_id": table_id,
                    "round_id": round_id,
                    "event_id": event_id,
                    "idem": idem,
                    "source": account_key(t["source"]),
                    "dest": account_key(t["dest"]),
                    "amount": str(amount),
                    "kind": t["kind"],
                    "player": t["player"],
                    "reason": t["reason"],
                },
            )
        except IntegrityError:
            raise HistoryError(f"ledger row {idem} is already written: a transfer is booked once") from None
        for acct, sign in ((t["source"], -1), (t["dest"], 1)):
            key = account_key(acct)
            cur = conn.execute(_BALANCE, {"t_id": table_id, "a_key": key}).scalar()
            if cur is None:
                conn.execute(
                    _INS_ACCOUNT, {"table_id": table_id, "account": key, "balance": str(sign * amount)}
                )
            else:
                conn.execute(
                    _SET_BALANCE,
                    {"t_id": table_id, "a_key": key, "a_balance": str(Decimal(cur) + sign * amount)},
                )

    # ------------------------------------------------------------------------------------------
    # reading
    def table(self, table_id: int) -> dict[str, Any]:
        with self.reader.connect() as conn:
            r = conn.execute(select(s.tables).where(s.tables.c.id == table_id)).mappings().first()
        if r is None:
            raise HistoryError(f"no table {table_id} in the history at {self.url}")
        out = dict(r)
        for k in ("rules", "meta", "state"):
            out[k] = json.loads(out[k])
        return out

    def tables_(self, *, status: str | None = None, label: str | None = None) -> list[dict[str, Any]]:
        q = select(
            s.tables.c.id,
            s.tables.c.game,
            s.tables.c.preset,
            s.tables.c.label,
            s.tables.c.status,
            s.tables.c.created,
        ).order_by(s.tables.c.id)
        if status is not None:
            q = q.where(s.tables.c.status == status)
        if label is not None:
            q = q.where(s.tables.c.label == label)
        with self.reader.connect() as conn:
            return [dict(r) for r in conn.execute(q).mappings()]

    def events_(
        self, table_id: int, *, after_id: int = 0, round_no: int | None = None
    ) -> list[dict[str, Any]]:
        q = (
            select(s.events)
            .where(s.events.c.table_id == table_id, s.events.c.id > after_id)
            .order_by(s.events.c.id)
        )
        if round_no is not None:
            q = q.where(s.events.c.round_no == round_no)
        with self.reader.connect() as conn:
            rows = [dict(r) for r in conn.execute(q).mappings()]
        for r in rows:
            r["data"] = json.loads(r.pop("payload"))
        return rows

    def ledger_(self, table_id: int | None = None, *, round_id: int | None = None) -> list[dict[str, Any]]:
        q = select(s.ledger).order_by(s.ledger.c.id)
        if table_id is not None:
            q = q.where(s.ledger.c.table_id == table_id)
        if round_id is not None:
            q = q.where(s.ledger.c.round_id == round_id)
        with self.reader.connect() as conn:
            rows = [dict(r) for r in conn.execute(q).mappings()]
        for r in rows:
            r["source"] = json.loads(r["source"])
            r["dest"] = json.loads(r["dest"])
        return rows

    def accounts_(self, table_id: int | None = None) -> list[dict[str, Any]]:
        q = select(s.accounts).order_by(s.accounts.c.table_id, s.accounts.c.account)
        if table_id is not None:
            q = q.where(s.accounts.c.table_id == table_id)
        with self.reader.connect() as conn:
            return [dict(r) for r in conn.execute(q).mappings()]

    def balances(self, table_id: int) -> dict[str, Decimal]:
        return {r["account"]: Decimal(r["balance"]) for r in self.accounts_(table_id)}

    def rounds_(
        self, *, table_id: int | None = None, last: int | None = None, round_id: int | None = None
    ) -> list[dict[str, Any]]:
        q = select(s.rounds, s.tables.c.preset, s.tables.c.game).join(
            s.tables, s.tables.c.id == s.rounds.c.table_id
        )
        if table_id is not None:
            q = q.where(s.rounds.c.table_id == table_id)
        if round_id is not None:
            q = q.where(s.rounds.c.id == round_id)
        q = q.order_by(s.rounds.c.id.desc())
        if last is not None:
            q = q.limit(last)
        with self.reader.connect() as conn:
            rows = [dict(r) for r in conn.execute(q).mappings()]
        rows.reverse()
        for r in rows:
            r["result"] = json.loads(r["result"]) if r["result"] else None
        return rows

    def round_(self, round_id: int) -> dict[str, Any]:
        rows = self.rounds_(round_id=round_id)
        if not rows:
            raise HistoryError(
                f"no round {round_id} in the history at {self.url}; `pontoon history` lists them"
            )
        return rows[0]

    def shoes_(self, table_id: int, number: int | None = None) -> list[dict[str, Any]]:
        q = select(s.shoes).where(s.shoes.c.table_id == table_id).order_by(s.shoes.c.number)
        if number is not None:
            q = q.where(s.shoes.c.number == number)
        with self.reader.connect() as conn:
            return [dict(r) for r in conn.execute(q).mappings()]

    def integrity(self) -> str:
        """``PRAGMA integrity_check`` on SQLite (``ok`` when sound); ``ok`` on PostgreSQL."""
        if self.engine.dialect.name != "sqlite":
            return "ok"
        with self.reader.connect() as conn:
            out = str(conn.exec_driver_sql("PRAGMA integrity_check").scalar())
            conn.rollback()
        return out


def parse_amount(text_: str) -> Decimal:
    try:
        return Decimal(text_)
    except InvalidOperation:
        raise HistoryError(f"amount {text_!r} in the ledger is not exact decimal text") from None


def rows_of(transfers: Iterable[Any]) -> list[dict[str, Any]]:
    return [t.to_json() for t in transfers]


__all__ = [
    "Batch",
    "HistoryError",
    "Row",
    "Store",
    "open_store",
    "default_url",
    "canon",
    "chain_hash",
    "event_body",
    "CASHIER",
    "DBAPIError",
    "text",
]
