"""The timer tick does not wait for a busy table (web/app.py ``Server.tick``): a table whose lock is
held (with a store: a call waiting for its group commit) is left to the next tick, and the other
tables' timers act now. Before, the tick waited on that lock, so one slow commit held back the turn
timers and grace periods of every table after it."""

from __future__ import annotations

import asyncio
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
