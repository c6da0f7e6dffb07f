"""A table dropped because the store's writer process died is rebuilt in place (``pontoon serve``).

When the writer process (``history/writer_proc.py``) dies (SIGKILL, out of memory), every call it had
not acknowledged fails with ``WriterGone``; the server's ``settled`` drops those tables (nothing
unacknowledged was shown: their sockets are closed 1011) and a new child is started at once. Before,
only a restart of the server brought the tables back. Now each one is rebuilt here from its committed
records, as after a restart (``StorePersistence.restore(lobby, only={web_id})``: ``recover_table``
attaches a new recorder, which reads the table's head again, ``store.forget``, and makes it writable
again, ``group.forgive``), and adopted under its own id: its people reconnect with their seat tokens
and see the last state the database holds. The events the dead writer did not acknowledge were never
shown and may or may not be in the database: the recovery reads what is.

- Off the hot path: one task of its own, after the loop's turn that failed the calls (every table of
  that death dropped first), one rebuild per table however many of its calls failed, ``CHUNK`` tables
  a turn of the loop (each chunk one read of the open tables' rows).
- Only once the new child is up: the writer process's successor is started off the event loop
  (``group.starting`` until it is ready; the calls of the other tables are held for it meanwhile), and
  the rebuilds wait for it; if none could be started (``group.dead``), the table stays dropped (a
  restart of the server brings it back), said in the log.
- The dropped engine table's recorder is detached at once: the old host object (a bot's decision or
  a message still queued for its lock) can never write to the store table the rebuilt one writes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from pontoon.history.writer_proc import ProcessCommitter, WriterGone

if TYPE_CHECKING:
    from pontoon.web.store_persistence import StorePersistence

log = logging.getLogger("pontoon.web")
POLL_S = 0.02  # how often the rebuilds look whether the new child is ready (a start takes 0.6-0.8 s)
CHUNK = 4  # tables rebuilt in one turn of the event loop (4 to 10 ms each: mostly reads of the store)


class Respawn:
    """The tables of a ``StorePersistence`` being rebuilt after their writer process died."""

    def __init__(self, persistence: StorePersistence) -> None:
        self.p = persistence
        self.pending: set[str] = set()  # web ids dropped, to be rebuilt
        self.task: asyncio.Task[None] | None = None  # the rebuilds under way (one task for them all)
        self.rebuilt = 0  # tables rebuilt in place so far
        self.failed = 0  # tables that could not be rebuilt (left dropped)

    def dropped(self, lobby: Any, table_id: str, err: BaseException) -> bool:
        """(``settled``, on the event loop: ``table_id`` was just dropped for ``err``.) True: the table
        will be rebuilt in place (``err`` is the writer process's death)."""
        group = self.p.group
        if not isinstance(err, WriterGone) or not isinstance(group, ProcessCommitter):
            return False
        rec = self.p.recorders.pop(table_id, None)
        if rec is not None:  # the dropped engine table records nothing more (the rebuilt one will)
            rec.detach()
        self.pending.add(table_id)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._rebuild(lobby, group))
        return True

    async def _rebuild(self, lobby: Any, group: ProcessCommitter) -> None:
        """Every pending table, ``CHUNK`` at a time (the loop let go between two: a death with a hundred
        tables' calls in flight must not hold every other table's messages for the whole rebuild)."""
        await asyncio.sleep(0)  # the other calls failed by that death first (their tables dropped)
        while group.starting is not None and not group.closed:  # (it ends: ready, or failed in time)
            await asyncio.sleep(POLL_S)
        while self.pending and not group.closed:
            if group.starting is not None:  # (another death meanwhile: its successor first)
                await asyncio.sleep(POLL_S)
                continue
            chunk = sorted(self.pending)[:CHUNK]
            self.pending.difference_update(chunk)
            if group.dead is not None:
                self.failed += len(chunk)
                log.error(
                    "tables %s: not rebuilt (no writer process: %s); a restart of the server brings them back",
                    ", ".join(chunk),
                    group.dead,
                )
                continue
            self._chunk(lobby, [t for t in chunk if t not in lobby.tables], group.restarts)
            await asyncio.sleep(0)

    def _chunk(self, lobby: Any, chunk: list[str], restarts: int) -> None:
        if not chunk:
            return
        t1 = time.perf_counter()
        try:
            done = set(self.p.restore(lobby, only=set(chunk)))
        except Exception:  # a rebuild's failure leaves the tables dropped, as before; the server goes on
            self.failed += len(chunk)
            log.exception("tables %s: rebuild after the writer process died", ", ".join(chunk))
            return
        ms = (time.perf_counter() - t1) * 1000
        for tid in chunk:
            if tid in done:
                self.rebuilt += 1
                log.warning(
                    "table %s: rebuilt in place from its committed records after the writer process died "
                    "(writer restarts %d; %.1f ms for %d tables); its people reconnect with their seat tokens",
                    tid,
                    restarts,
                    ms,
                    len(chunk),
                )
            else:
                self.failed += 1
                log.error("table %s: not rebuilt after the writer process died (no open record of it)", tid)


__all__ = ["Respawn"]
