"""The next shoes of tables that deal together are shuffled ahead one at a time (web/shoes_ahead.py):
handed to the worker threads ``GAP_S`` apart (in the order asked), each the shoe ``new_shoe`` deals; a
table's first shoe is shuffled at once; without an event loop nothing is run."""

from __future__ import annotations

import asyncio
import functools
import time

from pontoon.fair import FairShuffler
from pontoon.web import shoes_ahead
from pontoon.web.shoes_ahead import GAP_S, queued, shuffle_ahead


def test_queued_shoes_are_shuffled_one_at_a_time() -> None:
    tables = [FairShuffler(test_seed=i) for i in range(6)]
    plain = [FairShuffler(test_seed=i) for i in range(6)]

    async def main() -> tuple[list[float], int]:
        t0 = time.perf_counter()
        for f in tables:
            assert shuffle_ahead(functools.partial(f.prepare, "pontoon48", 6))
        waiting = queued()  # (the first is handed over at the loop's next turn)
        done: list[float | None] = [None] * len(tables)
        while None in done:
            assert time.perf_counter() - t0 < 10, "the queued shoes were not all shuffled"
            for i, f in enumerate(tables):
                if done[i] is None and f.prepared == 1:
                    done[i] = time.perf_counter() - t0
            await asyncio.sleep(0.001)
        return [d for d in done if d is not None], waiting

    done, waiting = asyncio.run(main())
    assert waiting == 6
    assert max(done) - min(done) >= 5 * 0.9 * GAP_S >= 0.02  # spread: one every GAP_S, not six at once
    for f, p in zip(tables, plain, strict=True):
        assert f.new_shoe("pontoon48", 6) == p.new_shoe("pontoon48", 6)  # the shoe it would shuffle
        assert f.prepared is None


def test_a_first_shoe_is_shuffled_at_once_and_nothing_runs_without_a_loop() -> None:
    queue = [FairShuffler(test_seed=i) for i in range(3)]
    first = FairShuffler(test_seed=9)

    async def main() -> int | None:
        for f in queue:
            shuffle_ahead(functools.partial(f.prepare, "pontoon48", 6))
        assert shuffle_ahead(functools.partial(first.prepare, "pontoon48", 6), queued=False)
        while first.prepared != 1:  # not behind the queue: in a worker thread now
            await asyncio.sleep(0.001)
        last_then = queue[-1].prepared  # (handed over 2 x GAP_S after the first of the queue)
        while queue[-1].prepared != 1:
            await asyncio.sleep(0.001)
        return last_then

    assert asyncio.run(main()) is None  # the first shoe was ready before the queue's last
    alone = FairShuffler(test_seed=3)
    assert not shuffle_ahead(functools.partial(alone.prepare, "pontoon48", 6))
    assert alone.prepared is None
    assert not shoes_ahead._QUEUES or all(not q.jobs for q in shoes_ahead._QUEUES.values())
