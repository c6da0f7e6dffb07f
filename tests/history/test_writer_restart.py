"""A dead writer process's successor is started OFF the event loop (history/writer_proc.py ``_gone``,
``_starter``, ``_finish``; writer_start.py).

Real children, killed with SIGKILL; a successor made slow, never ready or dying by a wrapper script
run in its place (``ProcessCommitter.command``: it sleeps, or kills itself, then runs the real child):
- the event loop goes on turning while the successor starts (before, ``_gone`` held it 0.6-0.8 s, and
  here the whole slow start), and the calls made meanwhile by the other tables are held and land in
  the database in order once it is ready; the table the dead child had not acknowledged fails with
  ``WriterGone`` and is refused until recovered;
- a successor never ready: after ``start_s`` every call held fails with one clear line, every later
  one too, nothing hangs, ``close`` returns;
- a successor killed while it starts: one more is spawned, the held calls land; killed every time:
  the calls fail, saying so;
- ``close`` while a successor starts: what was held is committed and acknowledged, then it ends;
- a synchronous write on the loop's own thread during the start waits for the successor;
- a successor that dies with the held calls unacknowledged: they fail (``WriterGone``), a third one
  writes on.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
import uvloop

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.history.engines import HistoryError
from pontoon.history.store import Batch, Row, Store
from pontoon.history.writer_proc import ProcessCommitter, WriterGone, start_writer_process
from pontoon.web.wakeups import Wakeups

CHILD = "os.execv(sys.executable, [sys.executable, '-m', 'pontoon.history.writer_child', sys.argv[1]])"


def _wrapper(tmp_path: Path, before: str) -> list[str]:
    """A child command that runs ``before`` (Python statements), then the real writer child."""
    script = tmp_path / "child.py"
    script.write_text(f"import os, signal, sys, time\n{before}\n{CHILD}\n")
    return [sys.executable, str(script)]


def _note(n: int) -> list[Batch]:
    return [Batch(rows=[Row(1, n, "note", {"n": n})])]


def _ns(store: Store, tid: int) -> list[int]:
    return [e["data"]["n"] for e in store.events_(tid)]


def _kill_with_call_in_flight(group: ProcessCommitter, send: Any) -> int:
    """The child stopped, a call sent (it stays unacknowledged), then the child killed; its pid."""
    pid = group.pid
    os.kill(pid, signal.SIGSTOP)
    send()
    time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)
    return pid


def test_the_loop_turns_while_the_successor_starts_and_the_calls_meanwhile_land_in_order(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        lost, other = (store.create_table("casino", "mbs", {}, label="t") for _ in range(2))
        group = start_writer_process(store)
        group.command = _wrapper(tmp_path, "time.sleep(1.0)")  # the successor: a second more to start
        wakeups = Wakeups()
        seen: dict[str, Any] = {"ticks": 0, "gap": 0.0}

        async def main() -> None:
            loop = asyncio.get_running_loop()
            group.use_loop(loop)
            for n in range(3):  # committed before the death
                store.enqueue(lost, _note(n))
                assert await wakeups.wait(store.enqueue(other, _note(n))) is None
            first = group.pid
            os.kill(first, signal.SIGSTOP)
            fut = store.enqueue(lost, _note(3))  # (sent at this turn's end: never acknowledged)
            await asyncio.sleep(0.2)
            os.kill(first, signal.SIGKILL)
            assert await wakeups.wait(fut) is None  # (a turn's shared Future: the error is in ``failed``)
            assert isinstance(group.failed[lost], WriterGone)
            n, t = 3, time.perf_counter()
            end = t + 60
            futs: list[Future[str]] = []
            while group.pid == first:  # the old child dead, the new one not ready: the loop turns
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                seen["ticks"] += 1
                seen["gap"] = max(seen["gap"], now - t)
                t = now
                futs.append(store.enqueue(other, _note(n)))  # held for the successor
                n += 1
                assert now < end, "no successor"
            for f in futs:
                assert await asyncio.wait_for(wakeups.wait(f), 30) is None
            assert other not in group.failed
            f = store.enqueue(lost, _note(4))  # refused until recovered (its chain must not skip a call)
            assert await wakeups.wait(f) is None and isinstance(group.failed[lost], WriterGone)
            seen["n"] = n

        uvloop.run(main())
        print(f"loop ticks while the successor started: {seen['ticks']}, longest gap {seen['gap']:.3f} s")
        assert seen["ticks"] >= 20  # (before: the loop was held for the whole start, ~0 ticks)
        assert group.restarts == 1 and group.starting is None
        assert _ns(store, other) == list(range(seen["n"]))
        assert _ns(store, lost) == [0, 1, 2]
        assert audit(store)["integrity"] == "ok"
    finally:
        store.close()


def test_a_successor_never_ready_fails_the_held_calls_clearly_and_nothing_hangs(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        lost, other = (store.create_table("casino", "mbs", {}, label="t") for _ in range(2))
        group = start_writer_process(store)
        group.command = _wrapper(tmp_path, "time.sleep(600)")
        group.start_s = 1.0
        store.submit(other, _note(0)).result(30)
        gone: list[Future[str]] = []
        _kill_with_call_in_flight(group, lambda: gone.append(store.submit(lost, _note(0))))
        with pytest.raises(WriterGone):
            gone[0].result(30)
        held = [store.submit(other, _note(n)) for n in (1, 2)]  # (returns at once: held)
        for f in held:
            with pytest.raises(HistoryError, match="did not say it was ready within 1 s"):
                f.result(30)
        assert group.dead is not None and group.starting is None
        with pytest.raises(HistoryError, match="could not start"):  # every later call, at once
            store.submit(other, _note(3)).result(1)
        t = time.monotonic()
        store.close()
        assert time.monotonic() - t < 10
    finally:
        store.close()
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        assert _ns(store, other) == [0]
    finally:
        store.close()


def test_a_successor_killed_while_it_starts_is_spawned_again(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        lost, other = (store.create_table("casino", "mbs", {}, label="t") for _ in range(2))
        group = start_writer_process(store)
        flag = tmp_path / "died"
        group.command = _wrapper(  # the first successor dies as it starts; the next one runs
            tmp_path,
            f"if not os.path.exists({str(flag)!r}):\n"
            f"    open({str(flag)!r}, 'w').close()\n"
            "    time.sleep(0.3)\n"
            "    os.kill(os.getpid(), signal.SIGKILL)",
        )
        store.submit(other, _note(0)).result(30)
        gone: list[Future[str]] = []
        _kill_with_call_in_flight(group, lambda: gone.append(store.submit(lost, _note(0))))
        with pytest.raises(WriterGone):
            gone[0].result(30)
        held = [store.submit(other, _note(n)) for n in range(1, 6)]
        assert [f.result(30) for f in held]
        assert flag.exists() and group.restarts == 1 and group.dead is None
        assert _ns(store, other) == list(range(6))
    finally:
        store.close()


def test_a_successor_killed_every_time_fails_the_held_calls(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        lost, other = (store.create_table("casino", "mbs", {}, label="t") for _ in range(2))
        group = start_writer_process(store)
        group.command = _wrapper(tmp_path, "time.sleep(0.2)\nos.kill(os.getpid(), signal.SIGKILL)")
        gone: list[Future[str]] = []
        _kill_with_call_in_flight(group, lambda: gone.append(store.submit(lost, _note(0))))
        assert isinstance(gone[0].exception(30), WriterGone)
        held = store.submit(other, _note(0))
        with pytest.raises(
            HistoryError, match=r"could not start: it stopped \(exit code -9\) before it was ready"
        ):
            held.result(30)
        assert group.dead is not None
    finally:
        store.close()


def test_close_while_the_successor_starts_commits_what_was_held(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store = open_store(url)
    lost, other = (store.create_table("casino", "mbs", {}, label="t") for _ in range(2))
    group = start_writer_process(store)
    group.command = _wrapper(tmp_path, "time.sleep(0.5)")
    store.submit(other, _note(0)).result(30)
    gone: list[Future[str]] = []
    _kill_with_call_in_flight(group, lambda: gone.append(store.submit(lost, _note(0))))
    with pytest.raises(WriterGone):
        gone[0].result(30)
    assert group.starting is not None
    held = [store.submit(other, _note(n)) for n in range(1, 20)]
    store.close()  # (the successor still starting)
    assert all(f.done() and f.exception() is None for f in held)
    with pytest.raises(ProcessLookupError):  # the successor has ended too
        os.kill(group.pid, 0)
    store = open_store(url)
    try:
        assert _ns(store, other) == list(range(20))
        assert audit(store)["integrity"] == "ok"
    finally:
        store.close()


def test_a_wait_on_the_loops_own_thread_during_the_start_waits_for_the_successor(tmp_path: Path) -> None:
    """The server's synchronous writes (``drain``, ``append``) on the loop's thread while a successor
    starts: they wait for it (nothing to read before: ``Awaiting``), then everything held lands."""
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        lost, other = (store.create_table("casino", "mbs", {}, label="t") for _ in range(2))
        group = start_writer_process(store)
        group.command = _wrapper(tmp_path, "time.sleep(0.3)")
        wakeups = Wakeups()

        async def main() -> None:
            group.use_loop(asyncio.get_running_loop())
            assert await wakeups.wait(store.enqueue(other, _note(0))) is None
            first = group.pid
            os.kill(first, signal.SIGSTOP)
            fut = store.enqueue(lost, _note(0))
            await asyncio.sleep(0.2)
            os.kill(first, signal.SIGKILL)
            assert await wakeups.wait(fut) is None and isinstance(group.failed[lost], WriterGone)
            assert group.starting is not None
            held = store.enqueue(other, _note(1))
            group.drain()  # (the loop's thread: waits for the successor and the held call's commit)
            assert held.done() and group.pid != first and group.starting is None
            store.append(other, _note(2)[0])  # (``write`` on the loop's thread: pumped)

        uvloop.run(main())
        assert _ns(store, other) == [0, 1, 2] and _ns(store, lost) == []
        assert other not in group.failed
    finally:
        store.close()


def test_a_successor_that_dies_with_the_held_calls_fails_them_and_a_third_one_writes_on(
    tmp_path: Path,
) -> None:
    """The held calls sent to the successor, which dies before it commits them (its BEGIN waits for
    our lock): they fail with ``WriterGone`` like any unacknowledged call, a third child takes the next
    calls, and the database holds each table's chain without a gap."""
    path = tmp_path / "h.sqlite"
    store = open_store(f"sqlite:///{path}")
    try:
        lost, other, third = (store.create_table("casino", "mbs", {}, label="t") for _ in range(3))
        group = start_writer_process(store)
        group.command = _wrapper(tmp_path, "time.sleep(0.3)")
        store.submit(other, _note(0)).result(30)
        lock = sqlite3.connect(path, isolation_level=None, timeout=30)
        lock.execute("BEGIN IMMEDIATE")  # every commit waits from now on
        gone = store.submit(lost, _note(0))
        time.sleep(0.2)
        first = group.pid
        os.kill(first, signal.SIGKILL)
        assert isinstance(gone.exception(30), WriterGone)
        held = store.submit(other, _note(1))  # held, then sent to the successor: its commit waits
        t = time.monotonic()
        while group.pid == first or group.starting is not None:
            assert time.monotonic() - t < 30, "no successor"
            time.sleep(0.01)
        time.sleep(0.2)
        second = group.pid
        os.kill(second, signal.SIGKILL)
        assert isinstance(held.exception(30), WriterGone)
        assert isinstance(group.failed[other], WriterGone)
        lock.execute("ROLLBACK")
        lock.close()
        assert store.submit(third, _note(0)).result(30)  # a third child writes on
        assert group.restarts == 2 and group.pid not in (first, second)
        store.forget(other)
        group.forgive(other)  # (recovered: it writes on from what was committed)
        store.submit(other, _note(1)).result(30)
        assert _ns(store, other) == [0, 1] and _ns(store, lost) == [] and _ns(store, third) == [0]
        assert audit(store)["integrity"] == "ok"
    finally:
        store.close()


def test_the_writer_child_imports_no_engine_and_the_package_names_stay() -> None:
    """The child's start is mostly imports: ``pontoon.history`` no longer imports the recorder (the
    engines, the rules, numpy) with the package; its names are there when asked for, and ``recover``
    is the function even once its submodule was imported (as when the package imported it)."""
    import subprocess

    code = (
        "import sys, pontoon.history.writer_child\n"
        "heavy = [m for m in sys.modules if m.startswith(('pontoon.history.recorder', 'pontoon.rules',"
        " 'pontoon.british', 'pontoon.casino', 'numpy'))]\n"
        "assert not heavy, heavy\n"
        "import pontoon.history.recover\n"
        "from pontoon.history import Recorder, open_store, recover, recover_table\n"
        "import pontoon.history as h\n"
        "assert recover is h.recover is sys.modules['pontoon.history.recover'].recover\n"
        "assert callable(recover) and Recorder.__name__ == 'Recorder' and open_store and recover_table\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")
    p = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=src),
    )
    assert p.returncode == 0, p.stderr


def test_a_successor_that_cannot_be_run_fails_the_held_calls_saying_so(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        lost, other = (store.create_table("casino", "mbs", {}, label="t") for _ in range(2))
        group = start_writer_process(store)
        group.command = [str(tmp_path / "no-such-python")]
        gone: list[Future[str]] = []
        _kill_with_call_in_flight(group, lambda: gone.append(store.submit(lost, _note(0))))
        assert isinstance(gone[0].exception(30), WriterGone)
        with pytest.raises(HistoryError, match="could not start: it could not be run"):
            store.submit(other, _note(0)).result(30)
    finally:
        store.close()
