"""The next fair shoes shuffled ahead one at a time, ``GAP_S`` apart, not all at once.

A casino table shuffles its next shoe ahead (``FairShuffler.prepare``, in a worker thread) after each
new shoe (web/casino_host.py). Tables that start together deal their first shoes together, and a shoe
lasts about as many rounds at every table, so their next shoes were all asked for in the same few
milliseconds: at 100 tables, 100 shuffles of 6 packs (0.14 ms each compiled) run in the worker threads
while the event loop handled the same moment's burst of wagers, and each of them held the interpreter
lock the loop needed; the burst's answers waited the longer (bench_server.py's p99 at 100 tables is
that burst: docs/scale-log.md, 2026-11-28 17:00). Queued here, they are handed to the worker threads one
every ``GAP_S`` (0.14 ms of the lock every 10 ms). A next shoe is needed only when the shoe in play
runs out (some 25 rounds); one not ready by then is shuffled at the deal, as before it was prepared
(``FairShuffler.new_shoe``: the same order either way, from the committed seed, the client seed and the
nonce). A table's first shoe is not queued: it is shuffled at once when the table is made (its first
deal may come at once)."""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from collections.abc import Callable

GAP_S = 0.01  # between two shoes handed to the worker threads


class _Ahead:
    """One event loop's queue of shoes to shuffle ahead."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.jobs: deque[Callable[[], None]] = deque()
        self.running = False

    def add(self, job: Callable[[], None]) -> None:
        self.jobs.append(job)
        if not self.running:
            self.running = True
            self.loop.call_soon(self._next)

    def _next(self) -> None:
        if not self.jobs:
            self.running = False
            return
        self.loop.run_in_executor(None, self.jobs.popleft())
        self.loop.call_later(GAP_S, self._next)


_QUEUES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Ahead] = weakref.WeakKeyDictionary()


def shuffle_ahead(job: Callable[[], None], queued: bool = True) -> bool:
    """``job`` (a table's ``prepare`` of a shoe) run in a worker thread: ``queued``, after the ones
    queued before it, ``GAP_S`` after the last; else at once. False where no event loop runs (nothing
    is run: a table made outside a server)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return False
    if not queued:
        loop.run_in_executor(None, job)
        return True
    q = _QUEUES.get(loop)
    if q is None:
        q = _QUEUES[loop] = _Ahead(loop)
    q.add(job)
    return True


def queued() -> int:
    """Shoes waiting in this event loop's queue (not yet handed to a worker thread)."""
    q = _QUEUES.get(asyncio.get_running_loop())
    return 0 if q is None else len(q.jobs)


__all__ = ["GAP_S", "queued", "shuffle_ahead"]
