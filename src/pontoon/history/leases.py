"""Table leases: one process at a time serves a web table (several ``pontoon serve`` on one database).

A lease row (``table_leases``: web id, owner id, the owner's address, expiry as Unix time) rather than
PostgreSQL advisory locks: it works the same on SQLite and PostgreSQL, it is visible (a process can
tell a client which address owns a table), and its expiry is explicit and testable, where an advisory
lock lives and dies with one pooled connection. The owner renews its leases with a heartbeat
(``renew``, every third of ``ttl``); a process whose leases expired (it died or stalled) loses them,
and any other process may ``claim`` them and recover the tables. Clocks: the expiry is wall-clock
time, so processes on several machines need synchronised clocks (NTP) and a ttl well above the skew.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from pontoon.history.accounts import table_leases
from pontoon.history.store import Store


class Leases:
    def __init__(self, store: Store, owner: str, address: str = "", ttl: float = 15.0) -> None:
        self.store = store
        self.owner = owner
        self.address = address
        self.ttl = ttl

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
                        conn.execute(insert(table_leases).values(web_id=web_id, owner=self.owner,
                                                                 address=self.address, expires=t + self.ttl))
                except IntegrityError:  # another process claimed it in between
                    return False
                return True
            if row["owner"] != self.owner and float(row["expires"]) > t:
                return False
            conn.execute(update(table_leases).where(table_leases.c.web_id == web_id).values(
                owner=self.owner, address=self.address, expires=t + self.ttl))
            return True

    def renew(self, now: float | None = None) -> set[str]:
        """The heartbeat: extend every lease we still hold; returns their web ids."""
        t = time.time() if now is None else now
        with self.store.engine.begin() as conn:
            conn.execute(update(table_leases).where(table_leases.c.owner == self.owner,
                                                    table_leases.c.expires > t).values(expires=t + self.ttl))
            return {str(r.web_id) for r in conn.execute(select(table_leases.c.web_id).where(
                table_leases.c.owner == self.owner, table_leases.c.expires > t))}

    def owner_of(self, web_id: str) -> dict[str, Any] | None:
        with self.store.reader.connect() as conn:
            row = conn.execute(select(table_leases).where(table_leases.c.web_id == web_id)).mappings().first()
        return None if row is None else dict(row)

    def expired(self, now: float | None = None) -> set[str]:
        """Web ids whose lease has run out (their owner died or stalled): free to claim."""
        t = time.time() if now is None else now
        with self.store.reader.connect() as conn:
            return {str(r.web_id) for r in conn.execute(select(table_leases.c.web_id).where(
                table_leases.c.expires <= t))}

    def unleased(self, web_ids: list[str]) -> set[str]:
        """Those of ``web_ids`` that have no lease row at all (a table whose owner never claimed it)."""
        with self.store.reader.connect() as conn:
            have = {str(r.web_id) for r in conn.execute(select(table_leases.c.web_id))}
        return set(web_ids) - have

    def release(self, web_id: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(delete(table_leases).where(table_leases.c.web_id == web_id,
                                                    table_leases.c.owner == self.owner))


__all__ = ["Leases"]
