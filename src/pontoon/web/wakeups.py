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

The loop is also kept awake while it waits (``POLL_S``): on this project's virtual machines a vCPU that
idles (the loop in ``epoll_wait``, the writer in its fsync) is woken by the disk's completion only at the
host's next tick, about 4 ms later (an fsync measured 4.0 ms p50 with both vCPUs idle, 0.1 ms with one
busy); a timer every millisecond while any of the loop's waits is pending cut one table's commit from
3.4 ms to 1.0 ms p50 (bench/store_latency.py, docs/scale-log.md "One table's commit"). One timer per loop
whatever the number of waits; it stops with the last wait, so an idle server does not tick.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

POLL_S = 0.001  # the loop's wake-ups while a commit is awaited (asyncio's epoll rounds a timeout up to 1 ms)


class Wakeups:
    """Waits of event loops (one in ``pontoon serve``; a test may run several) on threads' Futures."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        # the waiters of each Future not done yet, by loop (its one callback wakes them all)
        self.watching: dict[Future[Any], list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]] = {}
        self.wakes = 0  # loop callbacks scheduled (for the tests and the benchmarks)
        self.poll_s: float | None = POLL_S  # None: the loop is not kept awake
        self.waiting: dict[asyncio.AbstractEventLoop, int] = {}  # (the loop's own) its waits pending now
        self.timers: dict[asyncio.AbstractEventLoop, asyncio.TimerHandle] = {}  # each loop's one timer
        self.ticks = 0  # the keep-awake timer's runs (for the tests and the benchmarks)

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
        if self.poll_s is None:
            await waiter
            return
        self.waiting[loop] = self.waiting.get(loop, 0) + 1
        if loop not in self.timers:
            self.timers[loop] = loop.call_later(self.poll_s, self._tick, loop)
        try:
            await waiter
        finally:
            self.waiting[loop] -= 1

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        """(The loop's, every ``poll_s`` while one of its waits is pending.) Nothing but the wake-up."""
        self.ticks += 1
        if self.waiting.get(loop, 0) > 0 and self.poll_s is not None:
            self.timers[loop] = loop.call_later(self.poll_s, self._tick, loop)
        else:
            self.timers.pop(loop, None)

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
