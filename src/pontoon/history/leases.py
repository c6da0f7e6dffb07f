"""Table leases: one process at a time serves a web table (several ``pontoon serve`` on one database).

A lease row (``table_leases``: web id, owner id, the owner's address, expiry as Unix time) rather than
PostgreSQL advisory locks: it works the same on SQLite and PostgreSQL, it is visible (a process can
tell a client which address owns a table), and its expiry is explicit and testable, where an advisory
lock lives and dies with one pooled connection. The owner renews its leases with a heartbeat
(``renew``, every third of ``ttl``); a process whose leases expired (it died or stalled) loses them,
and any other process may ``claim`` them and recover the tables. Clocks: the expiry is wall-clock
time, so processes on several machines need synchronised clocks (NTP) and a ttl well above the skew.

Fencing (Alembic revision 0004): every claim that changes a lease's owner raises its ``epoch``; the
owner remembers the epoch it claimed, and ``fence`` checks, inside the transaction of each write to
the table (``Store.fences``, ``WebRecords.fence``), that the row still names this owner at that
epoch (``SELECT ... FOR UPDATE`` on PostgreSQL, so a concurrent claim waits for the write or the
write waits for the claim). A process that stalled past its ttl and lost the lease therefore cannot
commit one more event: its write is rolled back with ``LeaseLost``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from pontoon.history.accounts import table_leases
from pontoon.history.store import HistoryError, Store


class LeaseLost(HistoryError):
    """A write to a table whose lease this process no longer holds (another took it over): refused."""


class Leases:
    def __init__(self, store: Store, owner: str, address: str = "", ttl: float = 15.0) -> None:
        self.store = store
        self.owner = owner
        self.address = address
        self.ttl = ttl
        self.epochs: dict[str, int] = {}  # the epoch of each lease we claimed (our fencing tokens)
        # told each epoch we claim (a writer process fences our writes with them: ``writer_proc.py``)
        self.watch: Callable[[str, int], None] | None = None

    def _held(self, web_id: str, epoch: int) -> None:
        self.epochs[web_id] = epoch
        if self.watch is not None:
            self.watch(web_id, epoch)

    def claim(self, web_id: str, now: float | None = None) -> bool:
        """Take the lease if it is free, expired or already ours; True if we hold it now."""
        t = time.time() if now is None else now
        with self.store.engine.begin() as conn:
            q = select(table_leases).where(table_leases.c.web_id == web_id)
            if self.store.engine.dialect.name == "postgresql":
                q = q.with_for_update()
            row = conn.execute(q).mappings().first()
            if row is None:
                try:
                    with conn.begin_nested():
                        conn.execute(
                            insert(table_leases).values(
                                web_id=web_id,
                                owner=self.owner,
                                epoch=1,
                                address=self.address,
                                expires=t + self.ttl,
                            )
                        )
                except IntegrityError:  # another process claimed it in between
                    return False
                self._held(web_id, 1)
                return True
            if row["owner"] != self.owner and float(row["expires"]) > t:
                return False
            epoch = (
                int(row["epoch"])
                if row["owner"] == self.owner and self.epochs.get(web_id) == int(row["epoch"])
                else int(row["epoch"]) + 1
            )  # a new holder (or our own lost copy): a new fencing token
            res = conn.execute(
                update(table_leases)
                .where(table_leases.c.web_id == web_id, table_leases.c.epoch == row["epoch"])
                .values(owner=self.owner, address=self.address, expires=t + self.ttl, epoch=epoch)
            )
            if res.rowcount != 1:  # SQLite: another process claimed it between our read and write
                return False
            self._held(web_id, epoch)
            return True

    def fence(self, conn: Connection, web_id: str) -> None:
        """Inside a write transaction: raise ``LeaseLost`` unless we still hold ``web_id``'s lease at the
        epoch we claimed (the fencing token)."""
        q = select(table_leases.c.owner, table_leases.c.epoch).where(table_leases.c.web_id == web_id)
        if conn.dialect.name == "postgresql":
            q = q.with_for_update()
        row = conn.execute(q).first()
        if row is None or row.owner != self.owner or int(row.epoch) != self.epochs.get(web_id):
            raise LeaseLost(
                f"table {web_id}: this process's lease was taken over by another process; "
                "the write was refused (the table is served there now)"
            )

    def fence_many(self, conn: Connection, web_ids: list[str]) -> None:
        """``fence`` for several tables in one statement (a group commit's tables): raise ``LeaseLost``
        naming the first one whose lease we no longer hold at our epoch."""
        fence_leases(conn, self.owner, self.epochs, web_ids)

    def renew(self, now: float | None = None) -> set[str]:
        """The heartbeat: extend every lease we still hold; returns their web ids."""
        t = time.time() if now is None else now
        with self.store.engine.begin() as conn:
            conn.execute(
                update(table_leases)
                .where(table_leases.c.owner == self.owner, table_leases.c.expires > t)
                .values(expires=t + self.ttl)
            )
            return {
                str(r.web_id)
                for r in conn.execute(
                    select(table_leases.c.web_id).where(
                        table_leases.c.owner == self.owner, table_leases.c.expires > t
                    )
                )
            }

    def owner_of(self, web_id: str) -> dict[str, Any] | None:
        with self.store.reader.connect() as conn:
            row = conn.execute(select(table_leases).where(table_leases.c.web_id == web_id)).mappings().first()
        return None if row is None else dict(row)

    def expired(self, now: float | None = None) -> set[str]:
        """Web ids whose lease has run out (their owner died or stalled): free to claim."""
        t = time.time() if now is None else now
        with self.store.reader.connect() as conn:
            return {
                str(r.web_id)
                for r in conn.execute(select(table_leases.c.web_id).where(table_leases.c.expires <= t))
            }

    def unleased(self, web_ids: list[str]) -> set[str]:
        """Those of ``web_ids`` that have no lease row at all (a table whose owner never claimed it)."""
        with self.store.reader.connect() as conn:
            have = {str(r.web_id) for r in conn.execute(select(table_leases.c.web_id))}
        return set(web_ids) - have

    def release(self, web_id: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(
                delete(table_leases).where(
                    table_leases.c.web_id == web_id, table_leases.c.owner == self.owner
                )
            )


def fence_leases(conn: Connection, owner: str, epochs: Mapping[str, int], web_ids: list[str]) -> None:
    """(Inside a write transaction.) Raise ``LeaseLost`` naming the first of ``web_ids`` whose lease
    ``owner`` no longer holds at its epoch in ``epochs``: one statement for a group's tables (in this
    process: ``Leases.fence_many``; in the writer process, from the epochs it was sent)."""
    if not web_ids:
        return
    q = (
        select(table_leases.c.web_id, table_leases.c.owner, table_leases.c.epoch)
        .where(table_leases.c.web_id.in_(sorted(web_ids)))
        .order_by(table_leases.c.web_id)
    )
    if conn.dialect.name == "postgresql":
        q = q.with_for_update()
    held = {
        str(r.web_id)
        for r in conn.execute(q)
        if r.owner == owner and int(r.epoch) == epochs.get(str(r.web_id))
    }
    for wid in web_ids:
        if wid not in held:
            raise LeaseLost(
                f"table {wid}: this process's lease was taken over by another process; "
                "the write was refused (the table is served there now)"
            )


__all__ = ["LeaseLost", "Leases", "fence_leases"]
