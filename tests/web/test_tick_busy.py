"""The timer tick does not wait for a busy table (web/app.py ``Server.tick``): a table whose lock is
held (with a store: a call waiting for its group commit) is left to the next tick, and the other
tables' timers act now. Before, the tick waited on that lock, so one slow commit held back the turn
timers and grace periods of every table after it."""

from __future__ import annotations

import asyncio
import threading
import time
from decimal import Decimal

from pontoon.rules import find_rules
from pontoon.web.app import Server
from pontoon.web.casino_host import CasinoHost
from pontoon.web.hosting import Settings
from pontoon.web.models import Envelope
from pontoon.web.persistence import MemoryPersistence


def test_a_busy_table_does_not_hold_back_the_others_timers() -> None:
    async def scenario() -> None:
        store = MemoryPersistence()
        srv = Server(Settings(), store)
        busy = CasinoHost("aaaaaaaa", "a", find_rules("mbs"), 1, Settings(), store, lambda n, x: None)
        other = CasinoHost("bbbbbbbb", "b", find_rules("mbs"), 2, Settings(), store, lambda n, x: None)
        srv.lobby.tables[busy.id] = busy  # first in the tick's order
        srv.lobby.tables[other.id] = other
        busy.join("ann", 1, None, Decimal(1000))  # never connected: the tick looks at her grace period
        other.join("bob", 1, None, Decimal(1000))
        other.join("cy", 2, None, Decimal(1000))  # present, no wager yet: the deal waits for the timer
        for name in ("bob", "cy"):
            other.connected(name)
        other.handle("bob", Envelope.model_validate({"msg": {"type": "bet", "amount": "10"}}).msg)
        assert other.table.round is None and other.deadline is not None  # the betting timer runs
        other.deadline = time.monotonic() - 1  # ... and has run out
        async with srv.lock(busy.id):  # the busy table's call holds its lock (e.g. awaiting its commit)
            await asyncio.wait_for(srv.tick(), timeout=5)
            assert other.table.round is not None  # betting closed on time: the wagers were dealt
            assert busy.members["ann"].absent is False  # the busy table waits for the next tick
        await srv.tick()
        assert busy.members["ann"].gone_since is not None

    asyncio.run(scenario())


def test_the_tick_lets_the_event_loop_run_between_slices_of_tables(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A tick over many tables lets go of the event loop once it has held it for ``TICK_SLICE_S`` (here
    0: after every table): what arrived meanwhile (a message's task) runs between the slices, not after
    the whole pass. Every table's timer is still seen to in the same tick, a table closed in between is
    skipped."""
    from pontoon.web import app as app_mod

    monkeypatch.setattr(app_mod, "TICK_SLICE_S", 0.0)

    async def scenario() -> None:
        store = MemoryPersistence()
        srv = Server(Settings(), store)
        hosts = []
        for i in range(10):
            h = CasinoHost(f"{i:08x}", str(i), find_rules("mbs"), i, Settings(), store, lambda n, x: None)
            h.join(f"p{i}", 1, None, Decimal(1000))  # never connected: the tick looks at his grace period
            srv.lobby.tables[h.id] = h
            hosts.append(h)
        seen: list[int] = []  # how many tables the tick had seen when the loop ran the other callback
        real = CasinoHost.check_grace

        def counted(self: CasinoHost, now: float) -> bool:
            seen.append(-1)
            return real(self, now)

        monkeypatch.setattr(CasinoHost, "check_grace", counted)

        def meanwhile() -> None:  # "a message arrived" as the tick started; it closes a later table
            seen.append(len(seen))
            hosts[7].closed = True
            srv.lobby.tables.pop(hosts[7].id)

        asyncio.get_running_loop().call_soon(meanwhile)
        await srv.tick()
        marks = [x for x in seen if x >= 0]
        assert marks == [1], seen  # it ran after the tick's first slice (1 table looked at, then a yield)
        assert seen.count(-1) == 9  # every other table's grace period looked at in this one tick

    asyncio.run(scenario())


def test_a_bot_waiting_for_the_analysis_slot_does_not_hold_back_the_tick(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A table's bot decision waits for a thread of the bots' lane (``Server.workers.bots``), which other
    tables' long decisions may hold for seconds (a ``best`` banker with 6 or 7 players). The tick starts
    the bots as a task of their own and sees to the other tables' timers now; before, it awaited them,
    and every table's timers waited too. One bot task per table at a time; its decision is played once
    it comes."""

    async def scenario() -> None:
        store = MemoryPersistence()
        srv = Server(Settings(), store)
        bots = CasinoHost("aaaaaaaa", "a", find_rules("mbs"), 1, Settings(), store, lambda n, x: None)
        other = CasinoHost("bbbbbbbb", "b", find_rules("mbs"), 2, Settings(), store, lambda n, x: None)
        srv.lobby.tables[bots.id] = bots  # first in the tick's order
        srv.lobby.tables[other.id] = other
        bots.join("ann", 1, None, Decimal(1000))
        bots.connected("ann")
        bots.join("robo", 2, None, Decimal(1000)).bot = True
        jobs: list[str] = []
        played: list[object] = []

        def job() -> tuple[str, object]:
            jobs.append("robo")
            return "robo", lambda: "stand"

        monkeypatch.setattr(bots, "bot_job", job)
        monkeypatch.setattr(bots, "bot_act", lambda name, action: played.append((name, action)))
        other.join("bob", 1, None, Decimal(1000))
        other.join("cy", 2, None, Decimal(1000))
        for name in ("bob", "cy"):
            other.connected(name)
        other.handle("bob", Envelope.model_validate({"msg": {"type": "bet", "amount": "10"}}).msg)
        other.deadline = time.monotonic() - 1  # the betting timer has run out
        lane = srv.workers.bots
        release = threading.Event()
        holds = [  # other tables' long decisions hold every thread of the bots' lane
            asyncio.ensure_future(lane.run(release.wait, 30, key=f"other-{i}")) for i in range(lane.workers)
        ]
        try:
            await asyncio.sleep(0.05)
            await asyncio.wait_for(srv.tick(), timeout=5)
            assert other.table.round is not None  # betting closed on time, the bot still waiting
            await asyncio.wait_for(srv.tick(), timeout=5)
            await asyncio.sleep(0.05)
            assert jobs == ["robo"] and played == []  # one task for the table, waiting for a thread
        finally:
            release.set()
        await asyncio.gather(*holds)
        for _ in range(100):  # the slot let go: the decision is taken and played
            if played:
                break
            await asyncio.sleep(0.02)
        assert played == [("robo", "stand")]
        assert bots.id not in srv.bot_runs  # the finished task forgotten

    asyncio.run(scenario())
