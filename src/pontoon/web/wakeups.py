"""The event loop's waits for the group-commit writer (history/group.py), woken in batches.

The writer thread completes the ``concurrent.futures.Future`` of every table call of a commit, one after
another. ``asyncio.wrap_future`` would wake the event loop once per Future (a ``call_soon_threadsafe``
each: a write to the loop's self-pipe and a turn of the loop per table call). Here the first completion
of a batch schedules ONE loop callback, and every Future completed before that callback runs is woken
by it: a commit of 40 table calls wakes the loop about once.

A waiter that is cancelled (its connection closed) leaves the writer's Future alone: ``wrap_future``
would cancel the writer's pending Future too, and its ``set_result`` at the commit would then raise in
the writer thread; the other callers waiting for the same Future (``GroupCommitter.pending``) would see
the cancellation instead of the commit.

Several callers often wait for ONE Future (the calls of a commit share it: ``GroupCommitter.enqueue``):
the Future gets one callback whatever the number of its waiters (``watching``), and that callback
queues all of them for their loops.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any


class Wakeups:
    """Waits of event loops (one in ``pontoon serve``; a test may run several) on threads' Futures."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        # the waiters of each Future not done yet, by loop (its one callback wakes them all)
        self.watching: dict[Future[Any], list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]] = {}
        self.wakes = 0  # loop callbacks scheduled (for the tests and the benchmarks)

    async def wait(self, fut: Future[Any]) -> None:
        """Until ``fut`` is done (its result or exception stays in ``fut``: read it after)."""
        if fut.done():
            return
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        with self.lock:
            waiters = self.watching.get(fut)
            first = waiters is None
            if waiters is None:
                waiters = self.watching[fut] = []
            waiters.append((loop, waiter))
        if first:  # (done meanwhile: called at once, here)
            fut.add_done_callback(self._fired)
        await waiter

    def _fired(self, fut: Future[Any]) -> None:
        """(The completing thread's.) Every waiter of ``fut`` queued for its loop; each loop woken if it
        is not due to be woken already."""
        wake = []
        with self.lock:
            for loop, waiter in self.watching.pop(fut, ()):
                batch = self.ready.get(loop)
                if batch is not None:
                    batch.append(waiter)
                    continue
                self.ready[loop] = [waiter]
                self.wakes += 1
                wake.append(loop)
        for loop in wake:
            try:
                loop.call_soon_threadsafe(self._wake, loop)
            except RuntimeError:  # the loop is closed: nobody waits any more
                with self.lock:
                    self.ready.pop(loop, None)

    def _wake(self, loop: asyncio.AbstractEventLoop) -> None:
        with self.lock:
            batch = self.ready.pop(loop, [])
        for w in batch:
            if not w.done():  # (cancelled meanwhile: its connection closed)
                w.set_result(None)


__all__ = ["Wakeups"]
