"""The seam between the server and the history store (issue 12).

``TablePersistence`` is what the server calls at every point where the store records: an account's
balance, a table created or closed, a member sitting down or leaving (with the money moved), and
every table event (``table.subscribe``: a ``TableRecord`` with the ledger transfers it caused).
``MemoryPersistence`` is used when no store is configured: it keeps the accounts and a bounded tail
of each table's records in memory (nothing survives a restart). The store's implementation plugs in
through ``create_app(persistence=...)`` (see docs/server.md, "The history store").
"""

from __future__ import annotations

from collections import deque
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

from pontoon.events import TableRecord


@runtime_checkable
class TablePersistence(Protocol):
    def load_accounts(self) -> dict[str, Decimal]: ...

    def save_account(self, name: str, balance: Decimal) -> None: ...

    def table_created(self, table_id: str, spec: dict[str, Any]) -> None: ...

    def table_closed(self, table_id: str) -> None: ...

    def member_changed(self, table_id: str, name: str, change: dict[str, Any]) -> None: ...

    def record(self, table_id: str, rec: TableRecord) -> None: ...

    def attach(self, table_id: str, table: Any, title: str) -> None: ...

    def detach(self, table_id: str) -> None: ...

    def game_closed(
        self, table_id: str, moves: list[tuple[str, Decimal, str]], members: list[dict[str, Any]]
    ) -> None: ...


MEMORY_KEEP = 200  # records (and member changes) the memory store keeps per table: about 12 rounds


class MemoryPersistence:
    """Everything in memory; the last ``keep`` records of each table (a tail for tests and a look at a
    running dev server: nothing reads them back; the durable store is the history). ``keep`` was 2,000,
    which at 1,000 busy tables let the server's memory grow by about 4 MB every 5 s for ten minutes
    (docs/scale.md, "Measured (human-paced)"); with 200 it levels off within a few minutes, at some 90 MB
    of records for 1,000 tables (about 435 bytes a record)."""

    def __init__(self, keep: int = MEMORY_KEEP) -> None:
        self.accounts: dict[str, Decimal] = {}
        self.tables: dict[str, dict[str, Any]] = {}
        self.members: dict[str, deque[tuple[str, dict[str, Any]]]] = {}
        self.records: dict[str, deque[TableRecord]] = {}
        self.keep = keep

    def load_accounts(self) -> dict[str, Decimal]:
        return dict(self.accounts)

    async def settle(self, table_id: str) -> None:
        """Every record of the table kept (in memory: at once)."""

    def save_account(self, name: str, balance: Decimal) -> None:
        self.accounts[name] = balance

    def table_created(self, table_id: str, spec: dict[str, Any]) -> None:
        self.tables[table_id] = dict(spec)
        self.records[table_id] = deque(maxlen=self.keep)
        self.members[table_id] = deque(maxlen=self.keep)

    def table_closed(self, table_id: str) -> None:
        self.tables.pop(table_id, None)

    def member_changed(self, table_id: str, name: str, change: dict[str, Any]) -> None:
        self.members.setdefault(table_id, deque(maxlen=self.keep)).append((name, change))

    def record(self, table_id: str, rec: TableRecord) -> None:
        self.records.setdefault(table_id, deque(maxlen=self.keep)).append(rec)

    def attach(self, table_id: str, table: Any, title: str) -> None:
        """A new engine table (the store records it from now on; here the records above keep it)."""

    def detach(self, table_id: str) -> None:
        """The engine table is finished (a British game closed)."""

    def game_closed(
        self, table_id: str, moves: list[tuple[str, Decimal, str]], members: list[dict[str, Any]]
    ) -> None:
        """A British game closed: every pay-back and the people after it (the store: one transaction)."""
        for name, amount, _reason in moves:
            self.members.setdefault(table_id, deque(maxlen=self.keep)).append((name, {"leave": str(amount)}))
