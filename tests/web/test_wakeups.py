"""The batched wake-ups of the event loop by the group-commit writer (web/wakeups.py): one loop callback
for the Futures a thread completes together, every waiter woken, and a cancelled waiter leaves the
writer's Future alone (``asyncio.wrap_future`` cancelled it: the writer's ``set_result`` then raised)."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

import pytest

from pontoon.web.wakeups import Wakeups


def test_one_wake_of_the_loop_for_a_commit_of_many_calls() -> None:
    async def main() -> tuple[int, int, list[Any]]:
        loop = asyncio.get_running_loop()
        calls = 0
        real = loop.call_soon_threadsafe

        def counting(*args: Any, **kw: Any) -> Any:
            nonlocal calls
            calls += 1
            return real(*args, **kw)

        loop.call_soon_threadsafe = counting  # type: ignore[method-assign]
        w = Wakeups()
        futs: list[Future[str]] = [Future() for _ in range(40)]
        tasks = [asyncio.ensure_future(w.wait(f)) for f in futs]
        await asyncio.sleep(0)  # every waiter registered
        writer = threading.Thread(target=lambda: [f.set_result(f"head{i}") for i, f in enumerate(futs)])
        writer.start()
        writer.join()  # (the loop is held here: the writer completes all 40 before it turns again)
        await asyncio.wait_for(asyncio.gather(*tasks), 5)
        return calls, w.wakes, [f.result() for f in futs]

    calls, wakes, results = asyncio.run(main())
    assert results == [f"head{i}" for i in range(40)]
    assert calls == 1 and wakes == 1  # wrap_future: 40


def test_waiters_of_several_commits_all_wake_and_see_errors() -> None:
    async def main() -> list[Any]:
        w = Wakeups()
        futs: list[Future[str]] = [Future() for _ in range(30)]
        tasks = [asyncio.ensure_future(w.wait(f)) for f in futs]
        await asyncio.sleep(0)

        def commits() -> None:
            for i, f in enumerate(futs):  # in three commits, with the loop running between them
                if i == 7:
                    f.set_exception(RuntimeError("lease lost"))
                else:
                    f.set_result("h")
                if i % 10 == 9:
                    threading.Event().wait(0.01)

        t = threading.Thread(target=commits)
        t.start()
        await asyncio.wait_for(asyncio.gather(*tasks), 5)
        t.join()
        await w.wait(futs[0])  # already done: returns at once
        return [type(f.exception()).__name__ if f.exception() else f.result() for f in futs]

    got = asyncio.run(main())
    assert got == ["h"] * 7 + ["RuntimeError"] + ["h"] * 22


def test_a_cancelled_waiter_leaves_the_writers_future_alone() -> None:
    async def main() -> tuple[bool, str]:
        w = Wakeups()
        fut: Future[str] = Future()
        gone = asyncio.ensure_future(w.wait(fut))  # a connection that closes while it waits
        other = asyncio.ensure_future(w.wait(fut))  # another caller waiting for the same commit
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.sleep(0)
        cancelled = fut.cancelled()
        threading.Thread(target=fut.set_result, args=("head",)).start()  # the writer's commit: no error
        await asyncio.wait_for(other, 5)
        with pytest.raises(asyncio.CancelledError):
            await gone
        return cancelled, fut.result()

    assert asyncio.run(main()) == (False, "head")


def test_the_loop_ticks_while_a_commit_is_awaited_and_stops_after() -> None:
    """``POLL_S``: one timer per loop while any wait is pending (many waits: still one), none after the
    last wait (an idle server does not tick): the loop wakes about every ``poll_s`` meanwhile."""

    async def main() -> tuple[int, int, bool, bool]:
        loop = asyncio.get_running_loop()
        w = Wakeups()
        w.poll_s = 0.001
        futs: list[Future[str]] = [Future() for _ in range(20)]
        tasks = [asyncio.ensure_future(w.wait(f)) for f in futs]
        await asyncio.sleep(0)
        one_timer = len(w.timers) == 1 and w.waiting[loop] == 20
        writer = threading.Timer(0.05, lambda: [f.set_result("") for f in futs])  # a 50 ms commit
        writer.start()
        await asyncio.wait_for(asyncio.gather(*tasks), 5)
        writer.join()
        during = w.ticks
        await asyncio.sleep(0.03)  # no wait pending: the timer has stopped
        return during, w.ticks, one_timer, loop in w.timers

    during, after, one_timer, still = asyncio.run(main())
    assert one_timer
    assert 10 <= during <= 60  # about one a millisecond for 50 ms (not one per waiter: 20 x 50)
    assert after <= during + 1 and not still


def test_no_ticks_when_keeping_awake_is_off() -> None:
    async def main() -> int:
        w = Wakeups()
        w.poll_s = None
        fut: Future[str] = Future()
        threading.Timer(0.02, lambda: fut.set_result("")).start()
        await asyncio.wait_for(w.wait(fut), 5)
        return w.ticks

    assert asyncio.run(main()) == 0
