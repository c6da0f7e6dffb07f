"""One broadcast per table per turn of the event loop (``Server.broadcast_soon``; docs/server.md,
"State frames and deltas").

A table's change handled on the WebSocket (an action, a timer, a connection coming or going) asks for
its broadcast; the broadcast is made by one callback at the next turn of the loop for every table that
asked, once per table: two changes of a table in one turn (the two players' wagers read together) make
one set of frames, the later state, where each made its own (each view kind built, diffed and
serialized twice: at 100 tables of bench_server.py about one broadcast in five, docs/scale.md).

What it must not change:

- **Only what is committed is shown.** A change is asked for after its table's ``settle`` (the group
  commit), under the table's lock, and every change of a table is made and settled under that lock.
  So when the callback finds the lock free, the table's state is all committed and is broadcast; when
  it finds the lock held (a later change being made or awaiting its commit), the broadcast waits for
  the lock (a task of its own, the rare case) and is made then, the state the holder left committed.
- **A change's frames do not wait for the next change's commit** (a store: ``durable``). The lock is
  then a ``TableLock``: whoever takes it makes the table's due broadcast first, before he changes the
  table (the state is then all committed: nobody else holds the lock). Without it, a second player's
  wager read in the turn between the first wager's commit and the callback took the free lock, and
  the first wager's frames waited for the second's commit (one more group commit) and went out with
  it. Without a store (no change awaits a commit under the lock) the lock is a plain one and two
  changes of a turn still make one broadcast.
- **A frame for one connection does not overtake the state before it.** An error, a ``pong`` or a
  chat line for a connection of a table whose broadcast is due is held (``after``) and pushed right
  after that broadcast's frames, in the order given; with nothing due it is pushed at once, as before.
- **Deltas stay versioned**: the frames are ``frames.broadcast``'s, one change number per broadcast.
- A broadcast made now (``now``: the REST routes, the bots, a table closed) takes the table's due one
  with it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pontoon.web.hosting import HostedTable

log = logging.getLogger("pontoon.web")


class _Due:
    """A table's broadcast asked for in this turn, and the frames held behind it."""

    __slots__ = ("held", "host", "waiting")

    def __init__(self, host: HostedTable) -> None:
        self.host = host
        self.held: list[tuple[Any, str]] = []  # (connection, text): pushed after the broadcast
        self.waiting = False  # a task waits for the table's lock to make it


class Coalesce:
    """The tables whose broadcast is due at the next turn of the loop (one ``Server``'s)."""

    def __init__(
        self,
        send: Callable[[HostedTable], None],
        lock: Callable[[str], asyncio.Lock],
        served: Callable[[HostedTable], bool],
        *,
        durable: bool = False,
    ) -> None:
        self.send = send  # the broadcast itself (``Server._send``: ``frames.broadcast``, the pacer)
        self.lock = lock  # a table's lock
        self.served = served  # the table is still served here (not closed, not dropped)
        self.durable = durable  # a store: a change awaits its commit under the lock (``new_lock``)
        self.due: dict[str, _Due] = {}
        self.armed = False
        self.asked = 0  # broadcasts asked for (``ask``) and made (``sent``): what the turns saved
        self.sent = 0
        self.tasks: set[asyncio.Task[None]] = set()

    def ask(self, host: HostedTable) -> None:
        """``host``'s broadcast at the next turn (one for all the changes of the table asked till then)."""
        self.asked += 1
        d = self.due.get(host.id)
        if d is None or d.host is not host:
            self.due[host.id] = _Due(host)
        if not self.armed:
            self.armed = True
            asyncio.get_running_loop().call_soon(self.run)

    def after(self, host: HostedTable, conn: Any, text: str) -> None:
        """``text`` to ``conn`` after the table's due broadcast, or at once if none is due."""
        d = self.due.get(host.id)
        if d is None or d.host is not host:
            conn.push(text)
        else:
            d.held.append((conn, text))

    def new_lock(self, tid: str) -> asyncio.Lock:
        """A lock for table ``tid``: with a store a ``TableLock`` (its taker makes the due broadcast)."""
        return TableLock(self, tid) if self.durable else asyncio.Lock()

    def taken(self, tid: str) -> None:
        """(``TableLock.acquire``: ``tid``'s lock just taken, nothing of the table changed yet.) Its due
        broadcast made now: its state is all committed, and the taker's change may await its commit."""
        d = self.due.pop(tid, None)  # (a ``_later`` task waiting for ``d`` finds it gone: made here)
        if d is None:
            return
        if not self.served(d.host):  # closed or dropped meanwhile: its connections are gone
            return
        try:
            self._make(d.host, d)
        except Exception:  # the taker's change goes on (a bug in the frames is not his)
            log.exception("table %s: broadcast", tid)

    def now(self, host: HostedTable) -> None:
        """A broadcast made now (under the table's lock): the table's due one is made by it."""
        d = self.due.get(host.id)
        if d is not None and d.host is host:
            del self.due[host.id]
        self._make(host, d)

    def _make(self, host: HostedTable, d: _Due | None) -> None:
        self.sent += 1
        try:
            self.send(host)
        finally:
            if d is not None:
                for conn, text in d.held:
                    conn.push(text)

    def run(self) -> None:
        """The due broadcasts of the last turn, each table's whose lock is free; a table whose lock is
        held gets its broadcast once the holder lets it go (``_later``)."""
        self.armed = False
        due, self.due = self.due, {}
        for tid, d in due.items():
            if d.waiting:  # (its task makes it)
                self.due[tid] = d
                continue
            if not self.served(d.host):  # closed or dropped meanwhile: its connections are gone
                continue
            if self.lock(tid).locked():
                d.waiting = True
                self.due[tid] = d
                task = asyncio.get_running_loop().create_task(self._later(d))
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)
                continue
            try:
                self._make(d.host, d)
            except Exception:  # a bug in one table's frames must not cost the other tables theirs
                log.exception("table %s: broadcast", tid)

    async def _later(self, d: _Due) -> None:
        tid = d.host.id
        async with self.lock(tid):
            if self.due.get(tid) is not d:  # (made meanwhile by ``now``)
                return
            del self.due[tid]
            if self.served(d.host):
                try:
                    self._make(d.host, d)
                except Exception:
                    log.exception("table %s: broadcast", tid)


class TableLock(asyncio.Lock):
    """A table's lock on a server with a store: taken, it first makes the table's due broadcast
    (``Coalesce.taken``), so that a change awaiting its commit under it never holds back the frames of
    the change before it, committed already. Every taker of a table's lock (an action, the timer, a
    connection, the REST routes, a hint, the due broadcast's own task) gets it this way."""

    def __init__(self, coalesce: Coalesce, tid: str) -> None:
        super().__init__()
        self.coalesce = coalesce
        self.tid = tid

    async def acquire(self) -> Literal[True]:
        await super().acquire()
        if self.tid in self.coalesce.due:  # (no call at all when nothing is due: the common case)
            self.coalesce.taken(self.tid)
        return True


__all__ = ["Coalesce", "TableLock"]
