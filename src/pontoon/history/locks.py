"""One writer per terminal session: a lock row per table, as the server's leases (``leases.py``).

``pontoon play`` holds its table's lock (a ``table_leases`` row named ``term:ID``) from the moment
the table exists until the session ends; ``pontoon play --resume`` takes it before it recovers the
table. A second process is refused with one line naming the holder. The lock names its holder as
``host:pid:start`` (the process's start time, so a reused pid is not mistaken for the holder); it
is free when the holder has released it, when the holder is a process of this host that no longer
runs (a killed session: its lock is recovered), or when its expiry (renewed by every write) has
passed: a holder on another host that has not written for ``TTL`` seconds.

Fencing: every write of the session checks, in its own transaction, that the row still names this
holder at the epoch it took (``Store.fences``): a process that lost the lock (another host took an
expired one over) cannot commit one more event.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from pontoon.history.accounts import table_leases
from pontoon.history.leases import LeaseLost
from pontoon.history.store import HistoryError, Store

TTL = 3600.0  # a holder on another host keeps an idle session this long after its last write


class SessionInUse(HistoryError):
    """The session's table is held by another live process."""


def _host() -> str:
    return socket.gethostname()[:32] or "localhost"


def _start_time(pid: int) -> str:
    """The process's start time (Linux: field 22 of /proc/PID/stat, in clock ticks); '' elsewhere
    or when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read(4096).decode("ascii", "replace")
    except OSError:
        return ""
    fields = raw.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else ""


def _alive(pid: int, start: str) -> bool:
    """Whether process ``pid`` of this host still runs and is the one that took the lock."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists (another user's)
    now = _start_time(pid)
    return not (start and now and now != start)


@dataclass(frozen=True)
class Holder:
    host: str
    pid: int
    start: str

    @classmethod
    def me(cls) -> Holder:
        pid = os.getpid()
        return cls(_host(), pid, _start_time(pid))

    @classmethod
    def parse(cls, text: str) -> Holder:
        host, _, rest = str(text).rpartition(":")
        host2, _, pid = host.rpartition(":")
        try:
            return cls(host2, int(pid), rest)
        except ValueError:
            return cls(str(text), 0, "")

    def text(self) -> str:
        return f"{self.host}:{self.pid}:{self.start}"[:64]


class SessionLock:
    """The lock of table ``table_id``'s terminal session (see the module doc)."""

    def __init__(self, store: Store, table_id: int, *, ttl: float = TTL) -> None:
        self.store = store
        self.table_id = table_id
        self.name = f"term:{table_id}"
        self.me = Holder.me()
        self.ttl = ttl
        self.epoch: int | None = None

    def _free(self, row: dict[str, object], now: float) -> bool:
        holder = Holder.parse(str(row["owner"]))
        if holder.text() == self.me.text():
            return True
        if holder.host == self.me.host and holder.pid > 0:
            return not _alive(holder.pid, holder.start)
        return float(str(row["expires"])) <= now

    def acquire(self) -> None:
        """Take the lock, or raise ``SessionInUse`` naming the live holder."""
        now = time.time()
        with self.store.engine.begin() as conn:
            q = select(table_leases).where(table_leases.c.web_id == self.name)
            if conn.dialect.name == "postgresql":
                q = q.with_for_update()
            row = conn.execute(q).mappings().first()
            if row is None:
                try:
                    with conn.begin_nested():
                        conn.execute(
                            insert(table_leases).values(
                                web_id=self.name,
                                owner=self.me.text(),
                                epoch=1,
                                address="",
                                expires=now + self.ttl,
                            )
                        )
                except IntegrityError:  # another process took it in between
                    raise self._in_use(None) from None
                self.epoch = 1
                return
            if not self._free(dict(row), now):
                raise self._in_use(Holder.parse(str(row["owner"])))
            epoch = int(row["epoch"]) + 1
            res = conn.execute(
                update(table_leases)
                .where(table_leases.c.web_id == self.name, table_leases.c.epoch == row["epoch"])
                .values(owner=self.me.text(), address="", expires=now + self.ttl, epoch=epoch)
            )
            if res.rowcount != 1:  # another process took it between our read and write
                raise self._in_use(None)
            self.epoch = epoch

    def _in_use(self, holder: Holder | None) -> SessionInUse:
        who = "another process" if holder is None else f"process {holder.pid}"
        if holder is not None and holder.host != self.me.host:
            who += f" on {holder.host}"
        return SessionInUse(
            f"session {self.table_id} is in use by {who}: one process plays a table at a time; "
            "finish or quit it there first (a killed session's lock is recovered by --resume)"
        )

    def fence(self, conn: Connection, table_id: int) -> None:
        """Inside each write transaction of the session: still ours at our epoch (and renewed), or
        ``LeaseLost`` rolls the write back."""
        if table_id != self.table_id:
            return
        res = conn.execute(
            update(table_leases)
            .where(
                table_leases.c.web_id == self.name,
                table_leases.c.owner == self.me.text(),
                table_leases.c.epoch == self.epoch,
            )
            .values(expires=time.time() + self.ttl)
        )
        if res.rowcount != 1:
            raise LeaseLost(
                f"session {self.table_id}: another process took this table over; the write was refused "
                "(the session goes on there)"
            )

    def attach(self) -> None:
        """Take the lock and fence every write of the store to this table."""
        self.acquire()
        self.store.fences.append(self.fence)

    def release(self) -> None:
        if self.fence in self.store.fences:
            self.store.fences.remove(self.fence)
        if self.epoch is None:
            return
        with self.store.engine.begin() as conn:
            conn.execute(
                delete(table_leases).where(
                    table_leases.c.web_id == self.name, table_leases.c.owner == self.me.text()
                )
            )
        self.epoch = None


__all__ = ["TTL", "SessionInUse", "SessionLock"]
