"""``Wakeups.waiter`` (web/wakeups.py): the loop Future that ``StorePersistence.settle`` awaits itself.
Its result is the thread's Future's exception (None for a result), read by the completing thread:
the event loop never asks that Future (its lock) whether it is done or how it ended; every loop's
waiters get their own Future's outcome; a cancelled waiter leaves the others and the Future alone, and
the keep-awake timer stops once the commit has come."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

from pontoon.web.wakeups import Wakeups


class Watched(Future):  # type: ignore[type-arg]
    """A Future that notes which threads asked it whether it is done and how it ended."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def done(self) -> bool:
        self.asked.append(threading.current_thread().name)
        return super().done()

    def exception(self, timeout: float | None = None) -> BaseException | None:
        self.asked.append(threading.current_thread().name)
        return super().exception(timeout)


def _commit(fut: Future[Any], err: BaseException | None = None) -> None:
    def run() -> None:
        if err is None:
            fut.set_result("head")
        else:
            fut.set_exception(err)

    t = threading.Thread(target=run, name="writer")
    t.start()
    t.join()


def test_the_waiters_result_is_the_futures_error_and_the_loop_never_asks_the_future() -> None:
    async def main() -> tuple[list[Any], list[str], list[str]]:
        w = Wakeups()
        ok, bad = Watched(), Watched()
        waits = [w.waiter(ok), w.waiter(ok), w.waiter(bad), w.waiter(bad)]
        _commit(ok)
        _commit(bad, RuntimeError("lease lost"))
        got = await asyncio.wait_for(asyncio.gather(*waits), 5)
        return [None if g is None else str(g) for g in got], ok.asked, bad.asked

    got, ok_asked, bad_asked = asyncio.run(main())
    assert got == [None, None, "lease lost", "lease lost"]
    # asked once each, by the completing thread (its callback), never by the loop's thread
    assert set(ok_asked) == {"writer"} and set(bad_asked) == {"writer"}


def test_each_loops_waiters_get_their_own_futures_outcome() -> None:
    w = Wakeups()
    ok, bad = Future(), Future()  # type: ignore[var-annotated]
    registered = threading.Barrier(3)
    results: dict[str, list[Any]] = {}

    def loop_thread(name: str, futs: list[Future[Any]]) -> None:
        async def main() -> None:
            waits = [w.waiter(f) for f in futs]
            registered.wait()
            got = await asyncio.wait_for(asyncio.gather(*waits), 5)
            results[name] = [None if g is None else str(g) for g in got]

        asyncio.run(main())

    a = threading.Thread(target=loop_thread, args=("a", [ok, bad]))
    b = threading.Thread(target=loop_thread, args=("b", [bad, ok, bad]))
    a.start()
    b.start()
    registered.wait()
    _commit(bad, RuntimeError("refused"))  # one completion: both loops' waiters of it
    _commit(ok)
    a.join(10)
    b.join(10)
    assert results == {"a": [None, "refused"], "b": ["refused", None, "refused"]}


def test_a_cancelled_waiter_counts_till_the_commit_then_the_timer_stops() -> None:
    async def main() -> tuple[bool, int, Any, bool, int]:
        loop = asyncio.get_running_loop()
        w = Wakeups()
        w.poll_s = 0.001
        fut: Future[str] = Future()

        async def settle() -> BaseException | None:
            return await w.waiter(fut)

        gone = asyncio.ensure_future(settle())  # a connection closed while it waits
        other = asyncio.ensure_future(settle())
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.sleep(0.005)
        cancelled_future = fut.cancelled()
        waiting = w.waiting[loop]  # both, till the commit (the loop ticks on meanwhile)
        threading.Thread(target=fut.set_result, args=("head",)).start()
        err = await asyncio.wait_for(other, 5)
        await asyncio.sleep(0.01)
        return cancelled_future, waiting, err, loop in w.timers, w.waiting[loop]

    cancelled_future, waiting, err, ticking, left = asyncio.run(main())
    assert not cancelled_future and waiting == 2
    assert err is None and not ticking and left == 0


def test_a_cancelled_future_wakes_its_waiters_with_the_cancellation() -> None:
    async def main() -> list[str]:
        w = Wakeups()
        fut: Future[str] = Future()
        waits = [w.waiter(fut), w.waiter(fut)]
        threading.Thread(target=fut.cancel).start()
        got = await asyncio.wait_for(asyncio.gather(*waits), 5)
        return [type(g).__name__ for g in got]

    assert asyncio.run(main()) == ["CancelledError", "CancelledError"]
