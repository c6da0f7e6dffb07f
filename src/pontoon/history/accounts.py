"""The table server's records in the history store: play-money accounts and the tables it hosts.

An account's balance is never stored as a number that could drift from the ledger: it is
``opening + moves + casino cashier rows``, where
- ``web_accounts.opening`` is what the account was made with;
- ``web_moves`` are money moved between the account and a British table (a seat's buy-in, the
  buy-in plus net paid back when the game closes), each written in ONE transaction with the
  table's member snapshot that the move belongs to, so a kill can never separate them;
- the casino ``deposit``/``withdrawal`` ledger rows (``{"cashier": "cage"}``, written by the
  ``Recorder`` in the same transaction as the table's ``join``/``leave`` event) are the casino
  buy-ins and pay-backs, so a casino account move is committed exactly when the table's is;
- less the casino buy-ins HELD by open tables' people snapshots (written, with the check below,
  before the table's deposit; a mid-round joiner's until he sits down): ``balances_on``.

No buy-in can overdraw an account, from any number of processes: every write that takes money out of
an account (a British buy-in's move, a casino join's snapshot that holds the buy-in) checks the
balance inside its own transaction with the account locked first (``debit``: ``FOR UPDATE`` on
PostgreSQL; SQLite's write lock is taken at ``BEGIN IMMEDIATE``), and is rolled back with
``Overdrawn`` when the account holds less.

``web_tables`` holds each hosted table's spec (rules, seed, title), the store table it is recorded
as (``tables.id``; a British table waiting for its seats has none yet) and the latest snapshot of
its people (who sits where with what buy-in).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from pontoon.history.schema import CASHIER_KINDS
from pontoon.history.store import CASHIER, HistoryError, Store, account_key, canon, now
from pontoon.money import fmt

meta = MetaData()
# the tables themselves are made by Alembic revision 0003; these mirror it for queries
tables_ref = Table(
    "tables",
    meta,
    Column("id", Integer, primary_key=True),
    Column("label", String(64)),
    Column("status", String(16)),
)
ledger_ref = Table(
    "ledger",
    meta,
    Column("id", Integer, primary_key=True),
    Column("table_id", Integer),
    Column("source", Text),
    Column("dest", Text),
    Column("amount", Text),
    Column("kind", String(32)),
    Column("player", Text),
)
web_accounts = Table(
    "web_accounts",
    meta,
    Column("name", String(64), primary_key=True),
    Column("opening", Text, nullable=False),
    Column("created", String(32), nullable=False),
)
web_moves = Table(
    "web_moves",
    meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), ForeignKey("web_accounts.name"), nullable=False),
    Column("web_id", String(16), nullable=False),
    Column("amount", Text, nullable=False),
    Column("reason", String(32), nullable=False),
    Column("created", String(32), nullable=False),
)
web_tables = Table(
    "web_tables",
    meta,
    Column("web_id", String(16), primary_key=True),
    Column("table_id", Integer, nullable=True),
    Column("spec", Text, nullable=False),
    Column("members", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("updated", String(32), nullable=False),
)
table_leases = Table(
    "table_leases",
    meta,
    Column("web_id", String(16), primary_key=True),
    Column("owner", String(64), nullable=False),
    Column("address", Text, nullable=False),
    Column("expires", Float, nullable=False),
    Column("epoch", Integer, nullable=False, default=0),
)

CASHIER_KEY = account_key(CASHIER)


class Overdrawn(HistoryError):
    """Money out of an account (a buy-in) larger than its balance: refused, nothing written."""


def balances_on(conn: Connection, name: str | None = None) -> dict[str, Decimal]:
    """Every account (or only ``name``) on ``conn``: opening + its moves + its casino cashier rows
    (withdrawals in, deposits out), less the buy-ins HELD by open casino tables' people snapshots:
    a person in a snapshot whom the table's ledger does not hold seated (his deposits there no more
    than his withdrawals) has his buy-in held: one who joined mid-round (``pending``, seated when the
    round ends) and one whose join is written but whose deposit is not booked yet (the snapshot is
    committed first, with the balance check, ``debit``). The deposit and the seated count come from one
    statement, so a deposit committing meanwhile is counted once, either as the deposit or as the hold."""
    q0 = select(web_accounts)
    q1 = select(web_moves.c.name, web_moves.c.amount)
    q = (
        select(ledger_ref.c.table_id, ledger_ref.c.player, ledger_ref.c.kind, ledger_ref.c.amount)
        .join(tables_ref, tables_ref.c.id == ledger_ref.c.table_id)
        .where(
            tables_ref.c.label == "web",
            # the kinds as literals: the condition of ``ix_ledger_cashier`` (revision 0010), which the
            # planners prove from literals only (not from a bound parameter of a prepared statement)
            ledger_ref.c.kind.in_([literal_column(f"'{k}'") for k in CASHIER_KINDS]),
            (ledger_ref.c.source == CASHIER_KEY) | (ledger_ref.c.dest == CASHIER_KEY),
        )
    )
    if name is not None:
        q0, q1, q = (
            q0.where(web_accounts.c.name == name),
            q1.where(web_moves.c.name == name),
            q.where(ledger_ref.c.player == name),
        )
    out = {str(r.name): Decimal(r.opening) for r in conn.execute(q0)}
    for r in conn.execute(q1):
        out[str(r.name)] = out.get(str(r.name), Decimal(0)) + Decimal(r.amount)
    seated: dict[tuple[int, str], int] = {}
    for lr in conn.execute(q):
        if str(lr.player) not in out:
            continue  # a table recorded by the server whose person has no web account (not ours)
        sign = 1 if lr.kind == "withdrawal" else -1
        out[str(lr.player)] += sign * Decimal(lr.amount)
        key = (int(lr.table_id), str(lr.player))
        seated[key] = seated.get(key, 0) - sign
    snaps = conn.execute(
        select(web_tables.c.spec, web_tables.c.members, web_tables.c.table_id).where(
            web_tables.c.status == "open"
        )
    )
    for t in snaps:
        if json.loads(t.spec).get("game") != "casino":
            continue  # a British buy-in is a web move when the person joins
        for m in json.loads(t.members):
            who = m.get("name")
            if who not in out:
                continue
            held = (
                bool(m.get("pending")) if t.table_id is None else seated.get((int(t.table_id), who), 0) <= 0
            )
            if held:
                out[who] -= Decimal(str(m["buy_in"]))
    return out


def debit(conn: Connection, name: str, amount: Decimal) -> None:
    """Inside a write transaction: lock account ``name`` and check that it holds ``amount``; raise
    ``Overdrawn`` (the caller's transaction rolls back) if not. PostgreSQL: ``SELECT ... FOR UPDATE`` on
    its ``web_accounts`` row, so two buy-ins of one account (any processes) take turns, each reading
    the balance the other committed. SQLite: the writer's transactions begin IMMEDIATE (``Store``), so
    the write lock of the whole file is held before this read and the read cannot be stale."""
    q = select(web_accounts.c.name).where(web_accounts.c.name == name)
    if conn.dialect.name == "postgresql":
        q = q.with_for_update()
    if conn.execute(q).first() is None:
        raise HistoryError(f"account {name!r} is not in the history store")
    have = balances_on(conn, name).get(name, Decimal(0))
    if amount > have:
        raise Overdrawn(f"buy-in {fmt(amount)} is more than the balance {fmt(have)} of account {name}")


class WebRecords:
    """Reads and writes of the server's own rows (accounts, moves, hosted tables) on ``store``."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # checked inside each write transaction of a table's rows (the lease's fencing token, ``Leases.fence``)
        self.fence: Callable[[Connection, str], None] | None = None

    # ------------------------------------------------------------------ accounts
    def create_account(self, name: str, opening: Decimal) -> None:
        try:
            with self.store.engine.begin() as conn:
                conn.execute(insert(web_accounts).values(name=name, opening=str(opening), created=now()))
        except IntegrityError:
            raise HistoryError(f"account {name!r} exists in the history store") from None

    def balances(self, name: str | None = None) -> dict[str, Decimal]:
        """Every account (or only ``name``) as ``balances_on`` derives it, read from the store each time
        (a snapshot of the reader), so every process sharing the database sees the same balance."""
        with self.store.reader.connect() as conn:
            return balances_on(conn, name)

    def balance(self, name: str) -> Decimal | None:
        """One account's balance as ``balances`` derives it; None if there is no such account."""
        return self.balances(name).get(name)

    # ------------------------------------------------------------------ hosted tables
    def table_saved(self, web_id: str, spec: dict[str, Any], table_id: int | None) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                insert(web_tables).values(
                    web_id=web_id,
                    table_id=table_id,
                    spec=canon(spec),
                    members="[]",
                    status="open",
                    updated=now(),
                )
            )

    def set_table_id(self, web_id: str, table_id: int | None) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                update(web_tables)
                .where(web_tables.c.web_id == web_id)
                .values(table_id=table_id, updated=now())
            )

    def members_changed(
        self,
        web_id: str,
        members: list[dict[str, Any]],
        move: tuple[str, Decimal, str] | None = None,
        hold: tuple[str, Decimal] | None = None,
    ) -> None:
        """The table's people after a change and, in the same transaction, the account move it made.

        Money out of an account (a British buy-in: ``move`` below zero; a casino join: ``hold``, the
        buy-in that the new snapshot holds until the table's deposit is booked) is checked against the
        balance INSIDE this transaction, with the account locked (``debit``): refused with
        ``Overdrawn`` and nothing written when the account holds less."""
        with self.store.engine.begin() as conn:
            if self.fence is not None:
                self.fence(conn, web_id)
            if move is not None and move[1] < 0:
                debit(conn, move[0], -move[1])
            if hold is not None:
                debit(conn, hold[0], hold[1])
            conn.execute(
                update(web_tables)
                .where(web_tables.c.web_id == web_id)
                .values(members=canon(members), updated=now())
            )
            if move is not None:
                name, amount, reason = move
                conn.execute(
                    insert(web_moves).values(
                        name=name, web_id=web_id, amount=str(amount), reason=reason, created=now()
                    )
                )
            self.store._crash.count += 1  # PONTOON_CRASH_AT counts these transactions too
            self.store._crash.check("inside")
        self.store._crash.check("after")

    def game_closed(
        self,
        web_id: str,
        store_table_id: int | None,
        members: list[dict[str, Any]],
        moves: list[tuple[str, Decimal, str]],
    ) -> None:
        """A British game closed: every pay-back (``web_moves``), the people after it, the web row's game
        cleared and the store table ``closed``, all in ONE transaction (a kill never pays some seats
        and not others, and never pays twice: the restart finds the game open and pays it all)."""
        with self.store.engine.begin() as conn:
            if self.fence is not None:
                self.fence(conn, web_id)
            for name, amount, reason in moves:
                conn.execute(
                    insert(web_moves).values(
                        name=name, web_id=web_id, amount=str(amount), reason=reason, created=now()
                    )
                )
                self.store._crash.count += 1  # PONTOON_CRASH_AT: a kill between two pay-backs of one close
                self.store._crash.check("inside")
            conn.execute(
                update(web_tables)
                .where(web_tables.c.web_id == web_id)
                .values(members=canon(members), table_id=None, updated=now())
            )
            if store_table_id is not None:
                conn.execute(
                    update(tables_ref).where(tables_ref.c.id == store_table_id).values(status="closed")
                )
        self.store._crash.check("after")

    def close_table(self, web_id: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                update(web_tables).where(web_tables.c.web_id == web_id).values(status="closed", updated=now())
            )

    def open_tables(self) -> list[dict[str, Any]]:
        with self.store.reader.connect() as conn:
            rows = [
                dict(r)
                for r in conn.execute(
                    select(web_tables).where(web_tables.c.status == "open").order_by(web_tables.c.updated)
                ).mappings()
            ]
        for r in rows:
            r["spec"] = json.loads(r["spec"])
            r["members"] = json.loads(r["members"])
        return rows

    def table_row(self, web_id: str) -> dict[str, Any] | None:
        with self.store.reader.connect() as conn:
            r = conn.execute(select(web_tables).where(web_tables.c.web_id == web_id)).mappings().first()
        if r is None:
            return None
        out = dict(r)
        out["spec"] = json.loads(out["spec"])
        out["members"] = json.loads(out["members"])
        return out


__all__ = [
    "Overdrawn",
    "WebRecords",
    "balances_on",
    "debit",
    "table_leases",
    "web_accounts",
    "web_moves",
    "web_tables",
]
