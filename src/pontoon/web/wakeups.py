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
whatever the number of waits; it stops once the last waiter is woken (a cancelled one: when its Future
completes), so an idle server does not tick.

A wait is a loop Future that the caller awaits itself (``Wakeups.waiter``: no coroutine of its own, no
pair kept per waiter: a waiter knows its loop), and its result is the thread's Future's exception, read
once by the completing thread (``_fired``), so the loop never takes that Future's lock to ask
(docs/scale-log.md, "The store's loop-side stages cut").
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import CancelledError, Future
from typing import Any

POLL_S = 0.001  # the loop's wake-ups while a commit is awaited (asyncio's epoll rounds a timeout up to 1 ms)


class Wakeups:
    """Waits of event loops (one in ``pontoon serve``; a test may run several) on threads' Futures."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ready: dict[asyncio.AbstractEventLoop, list[asyncio.Future[BaseException | None]]] = {}
        # the waiters of each Future not done yet, any loop's (its one callback wakes them all; each
        # waiter knows its loop: ``get_loop``, no pair kept per waiter)
        self.watching: dict[Future[Any], list[asyncio.Future[BaseException | None]]] = {}
        # (rare) the waiters of a Future that failed, with its error
        self.errors: dict[asyncio.Future[BaseException | None], BaseException] = {}
        self.wakes = 0  # loop callbacks scheduled (for the tests and the benchmarks)
        self.poll_s: float | None = POLL_S  # None: the loop is not kept awake
        # (the loop's own) its waiters not yet woken: counted up by ``waiter``, down by ``_wake`` (a
        # cancelled one too, when its Future completes: the loop ticks on till then)
        self.waiting: dict[asyncio.AbstractEventLoop, int] = {}
        self.timers: dict[asyncio.AbstractEventLoop, asyncio.TimerHandle] = {}  # each loop's one timer
        self.threads: dict[asyncio.AbstractEventLoop, int] = {}  # each loop's thread (``_fired``)
        self.ticks = 0  # the keep-awake timer's runs (for the tests and the benchmarks)

    async def wait(self, fut: Future[Any]) -> BaseException | None:
        """Until ``fut`` is done; its exception (None: its result is in ``fut``)."""
        if fut.done():
            return fut.exception()
        return await self.waiter(fut)

    def waiter(self, fut: Future[Any]) -> asyncio.Future[BaseException | None]:
        """(The running loop's.) A loop Future that gets ``fut``'s exception (None: a result) once
        ``fut`` is done: awaited by the caller itself (``StorePersistence.settle``), so that a wait is
        no coroutine of its own, and ``fut`` is not asked (its lock) whether it is done: if it is, its
        callback runs at once, here, and the waiter is done before it is returned (``_fired``, on the
        loop's own thread)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[BaseException | None] = loop.create_future()
        if loop not in self.threads:
            self.threads[loop] = threading.get_ident()
        self.waiting[loop] = self.waiting.get(loop, 0) + 1
        if self.poll_s is not None and loop not in self.timers:
            self.timers[loop] = loop.call_later(self.poll_s, self._tick, loop)
        with self.lock:
            waiters = self.watching.get(fut)
            if waiters is not None:
                waiters.append(waiter)
            else:
                self.watching[fut] = [waiter]
        if waiters is None:  # the Future's one callback, with its first waiter (done meanwhile: run now)
            fut.add_done_callback(self._fired)
        return waiter

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        """(The loop's, every ``poll_s`` while one of its waits is pending.) Nothing but the wake-up."""
        self.ticks += 1
        if self.waiting.get(loop, 0) > 0 and self.poll_s is not None:
            self.timers[loop] = loop.call_later(self.poll_s, self._tick, loop)
        else:
            self.timers.pop(loop, None)

    def _fired(self, fut: Future[Any]) -> None:
        """(The completing thread's.) Every waiter of ``fut`` queued for its loop; each loop woken if it
        is not due to be woken already. ``fut``'s exception read here, once (the waiters get it). On a
        loop's own thread (a writer process's acknowledgements are read by the loop: ``ProcessCommitter.
        use_loop``) its waiters are woken at once, here: no write to the loop's self-pipe, no turn of
        the loop for it (one call a commit, as before)."""
        try:
            err = fut.exception(0)
        except CancelledError as cancelled:  # (nobody cancels the writer's Futures: if one did, its
            err = cancelled  # waiters raise the cancellation, as asking it would have)
        wake = []
        with self.lock:
            for waiter in self.watching.pop(fut, ()):
                if err is not None:
                    self.errors[waiter] = err
                loop = waiter.get_loop()
                batch = self.ready.get(loop)
                if batch is not None:
                    batch.append(waiter)
                    continue
                self.ready[loop] = [waiter]
                self.wakes += 1
                wake.append(loop)
        here = threading.get_ident() if wake else 0
        for loop in wake:
            if self.threads.get(loop) == here and not loop.is_closed():
                self._wake(loop)
                continue
            try:
                loop.call_soon_threadsafe(self._wake, loop)
            except RuntimeError:  # the loop is closed: nobody waits any more
                with self.lock:
                    for waiter in self.ready.pop(loop, ()):
                        self.errors.pop(waiter, None)

    def _wake(self, loop: asyncio.AbstractEventLoop) -> None:
        errors = None
        with self.lock:
            batch = self.ready.pop(loop, [])
            if self.errors:  # (rare: a Future that failed; this loop's waiters' errors only)
                errors = {w: self.errors.pop(w) for w in batch if w in self.errors}
        self.waiting[loop] = self.waiting.get(loop, 0) - len(batch)
        for w in batch:
            if not w.done():  # (cancelled meanwhile: its connection closed)
                w.set_result(None if errors is None else errors.get(w))


__all__ = ["Wakeups"]
