"""``Wakeups`` when the Future is completed on the waiting loop's own thread (a writer process's
acknowledgements are read by the event loop: ``ProcessCommitter.use_loop``): the waiters are woken
at once, inside that completion, with no ``call_soon_threadsafe`` (a write to the loop's self-pipe and
a turn of the loop a commit); a Future completed by another thread still wakes the loop through it;
the keep-awake timer still stops once nothing waits; an error still reaches only its waiters."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future
from typing import Any

from pontoon.web.wakeups import Wakeups


class Loop(asyncio.SelectorEventLoop):
    """asyncio's loop, counting the callbacks scheduled from any thread."""

    threadsafe = 0

    def call_soon_threadsafe(self, *args: Any, **kwargs: Any) -> Any:
        self.threadsafe += 1
        return super().call_soon_threadsafe(*args, **kwargs)


def _run(main: Any) -> Any:
    loop = Loop()
    try:
        return loop.run_until_complete(main(loop))
    finally:
        loop.close()


def test_a_future_completed_on_the_loops_thread_wakes_its_waiters_at_once() -> None:
    w = Wakeups()

    async def main(loop: Loop) -> tuple[list[Any], int, int]:
        ok: Future[str] = Future()
        bad: Future[str] = Future()
        waiters = [w.waiter(ok) for _ in range(3)] + [w.waiter(bad)]
        ok.set_result("")  # (as ``_acked`` does, on the loop's thread)
        bad.set_exception(ValueError("refused"))
        done_at_once = [x.done() for x in waiters]
        got = [await x for x in waiters]
        assert all(done_at_once)  # woken inside the completion, not at a later turn
        await asyncio.sleep(0.01)  # (the keep-awake timer: its last tick)
        return [None if g is None else str(g) for g in got], loop.threadsafe, w.waiting[loop]

    got, threadsafe, waiting = _run(main)
    assert got == [None, None, None, "refused"]
    assert threadsafe == 0
    assert waiting == 0
    assert not w.timers and not w.watching and not w.ready and not w.errors


def test_a_done_future_gives_a_done_waiter() -> None:
    w = Wakeups()

    async def main(loop: Loop) -> bool:
        fut: Future[str] = Future()
        fut.set_result("")
        waiter = w.waiter(fut)
        done = waiter.done()
        assert await waiter is None
        return done

    assert _run(main)


def test_a_future_completed_by_another_thread_wakes_the_loop_through_its_self_pipe() -> None:
    w = Wakeups()

    async def main(loop: Loop) -> tuple[list[Any], int]:
        fut: Future[str] = Future()
        waiters = [w.waiter(fut) for _ in range(4)]
        t = threading.Thread(target=fut.set_result, args=("",))
        t.start()
        t.join()
        got = [await x for x in waiters]
        return got, loop.threadsafe

    got, threadsafe = _run(main)
    assert got == [None] * 4
    assert threadsafe == 1  # (one wake-up of the loop for the commit's waiters)
