"""The analyser's work off the event loop, in three lanes of their own (``Workers``).

A hint (the exact expectation of each verb; a British split hint takes 10-20 s), a bot's decision and
a custom table's exact house edge (seconds the first time) each run in a worker thread. They shared one
slot (a ``Semaphore(1)``): a long hint held back a custom table's creation and every other table's bots
for its whole length, and the waits behind it were unbounded. Now each kind has its own lane:

- ``bots``: its own threads (``Settings.bot_workers``); at most one decision per table at a time (the
  server's bot task of that table), so its waiting line is bounded by the tables;
- ``hints``: its own threads (``Settings.hint_workers``), at most one hint per table running or
  waiting (a table's second asker is answered "busy" at once: no table holds the line for the others)
  and at most ``Settings.hint_queue`` waiting in all; past that the asker is answered "busy" at once;
- ``edges``: a custom table's exact edge on threads of its own (``Settings.edge_workers``), at most
  ``Settings.edge_queue`` waiting; past that the creation is answered 429.

Each setting is a ``pontoon serve`` flag (``--bot-workers``, ``--hint-workers``, ``--hint-queue``,
``--edge-workers``, ``--edge-queue``), checked by ``check_lanes`` (``LANE_SETTINGS``: the bounds).

A lane's own threads (not the event loop's default executor, which the sockets' sign-in reads and the
store's reads use) keep the analysis from starving those, and bound the threads the analysis takes. A
call that gives up waiting (a timeout, its socket gone) keeps its place until its thread is done, so
the bounds count the work truly running.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from pontoon.errors import PontoonError

T = TypeVar("T")


class Busy(PontoonError):
    """A lane is full: the call is refused at once (a hint: an error frame; a custom table: 429)."""


class LaneError(PontoonError):
    """A lane's setting out of bounds (``pontoon serve``: one line, exit 2)."""


# the lanes' settings (``Settings`` field: its ``pontoon serve`` flag, the bounds, what it is), checked
# by ``check_lanes`` (docs/server.md "The analysis lanes")
LANE_SETTINGS: dict[str, tuple[str, int, int, str]] = {
    "bot_workers": ("--bot-workers", 1, 256, "threads deciding the bots' moves"),
    "hint_workers": ("--hint-workers", 1, 256, "threads working out hints"),
    "hint_queue": (
        "--hint-queue",
        0,
        100_000,
        "hints waiting for a thread; past that a hint is answered busy",
    ),
    "edge_workers": ("--edge-workers", 1, 64, "threads working out custom tables' exact edges"),
    "edge_queue": (
        "--edge-queue",
        0,
        10_000,
        "custom tables waiting for their edge; past that a creation is answered 429",
    ),
}


def check_lanes(**values: int) -> None:
    """Each lane setting given (``bot_workers=2``, ...) a whole number within its bounds, else
    ``LaneError`` naming the flag, the value and what is accepted."""
    for key, value in values.items():
        flag, low, high, what = LANE_SETTINGS[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise LaneError(f"{flag} {value}: a whole number from {low} to {high} ({what})")


class Lane:
    """Worker threads for one kind of analysis, with a bounded line and at most ``per_key`` calls of
    one key (a table) admitted at once."""

    def __init__(self, name: str, workers: int, waiting: int | None, per_key: int | None = None) -> None:
        self.name = name
        self.workers = workers
        self.waiting = waiting  # None: unbounded (bounded by its callers, e.g. one bot task per table)
        self.per_key = per_key
        self.pool = ThreadPoolExecutor(self.workers, thread_name_prefix=f"pontoon-{name}")
        self.admitted = 0  # running or waiting (a call that gave up waiting counts until its thread ends)
        self.keys: dict[Hashable, int] = {}

    def busy(self, key: Hashable | None = None) -> str | None:
        """Why a call of ``key`` would be refused now (None: it would be admitted)."""
        if key is not None and self.per_key is not None and self.keys.get(key, 0) >= self.per_key:
            return f"{self.name}: this table's last request is still being worked out; ask again when it is answered"
        if self.waiting is not None and self.admitted >= self.workers + self.waiting:
            return (
                f"{self.name}: the analyser is busy ({self.admitted} requests running or waiting, at most "
                f"{self.workers + self.waiting}); ask again in a few seconds"
            )
        return None

    async def run(
        self, fn: Callable[..., T], *args: Any, key: Hashable | None = None, timeout: float | None = None
    ) -> T:
        """``fn(*args)`` on one of the lane's threads; ``Busy`` at once when the lane is full; a
        ``TimeoutError`` after ``timeout`` s (its thread runs on and holds its place till it ends)."""
        why = self.busy(key)
        if why is not None:
            raise Busy(why)
        self.admitted += 1
        if key is not None:
            self.keys[key] = self.keys.get(key, 0) + 1
        try:
            fut = asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)
        except BaseException:
            self._leave(key)
            raise
        fut.add_done_callback(lambda f: self._done(f, key))
        return await asyncio.wait_for(asyncio.shield(fut), timeout)

    def _done(self, fut: asyncio.Future[Any], key: Hashable | None) -> None:
        self._leave(key)
        if not fut.cancelled():
            fut.exception()  # (read: a caller that gave up waiting is not warned of it)

    def _leave(self, key: Hashable | None) -> None:
        self.admitted -= 1
        if key is not None:
            left = self.keys.get(key, 0) - 1
            if left > 0:
                self.keys[key] = left
            else:
                self.keys.pop(key, None)

    def shutdown(self) -> None:
        with contextlib.suppress(Exception):
            self.pool.shutdown(wait=False, cancel_futures=True)


class Workers:
    """The server's three analysis lanes (see the module's text)."""

    def __init__(
        self,
        *,
        bot_workers: int = 2,
        hint_workers: int = 1,
        hint_queue: int = 8,
        edge_workers: int = 1,
        edge_queue: int = 4,
    ) -> None:
        check_lanes(
            bot_workers=bot_workers,
            hint_workers=hint_workers,
            hint_queue=hint_queue,
            edge_workers=edge_workers,
            edge_queue=edge_queue,
        )
        self.bots = Lane("bots", bot_workers, None, per_key=1)
        self.hints = Lane("hints", hint_workers, hint_queue, per_key=1)
        self.edges = Lane("custom tables", edge_workers, edge_queue)
        self._loading: dict[Hashable, asyncio.Future[Any]] = {}

    async def shared(self, lane: Lane, key: Hashable, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on ``lane``, one call per ``key`` at a time: a call made while one of the same
        key runs waits for that one's result (a load kept in memory afterwards, e.g. the British bots'
        shipped solution: many hosts asking at once read it once, on one of the lane's threads)."""
        fut = self._loading.get(key)
        if fut is None:
            fut = asyncio.ensure_future(lane.run(fn, *args))
            self._loading[key] = fut
            fut.add_done_callback(lambda f: self._loaded(key, f))
        return await asyncio.shield(fut)  # (a caller gone leaves the load to the others)

    def _loaded(self, key: Hashable, fut: asyncio.Future[Any]) -> None:
        self._loading.pop(key, None)
        if not fut.cancelled():
            fut.exception()  # (read: where every caller gave up waiting, nobody is warned of it)

    def describe(self) -> dict[str, dict[str, int | None]]:
        """Each lane's threads, its bound on waiting calls (None: bounded by its callers) and the calls
        running or waiting now (``/healthz``)."""
        return {
            key: {"workers": lane.workers, "queue": lane.waiting, "admitted": lane.admitted}
            for key, lane in (("bots", self.bots), ("hints", self.hints), ("edges", self.edges))
        }

    def shutdown(self) -> None:
        for lane in (self.bots, self.hints, self.edges):
            lane.shutdown()


__all__ = ["LANE_SETTINGS", "Busy", "Lane", "LaneError", "Workers", "check_lanes"]
