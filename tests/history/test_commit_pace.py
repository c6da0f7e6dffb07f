"""How the group commit shares the interpreter with the event loop (docs/scale-log.md, "The store's commit wait and young collections").

- While the writer thread commits, the interpreter's switch interval is ``COMMIT_SWITCH_S`` (0.5 ms):
  the driver gives up the GIL for every statement it steps and the writer must take it back from a
  busy event loop each time, which Python grants only after the interval (5 ms by default). After the
  commit (and after a failed one) the interval is the one from before. Real SQLite file; the interval
  is read inside the transaction by a fence (``Store.fences``: called in every write transaction).
- The table server's ``settle`` starts a young collection at most every ``YOUNG_S`` while the
  collector is tuned (``tune_gc``): with every survivor frozen, the deaths of frozen objects held
  CPython's count down while the young generation grew (20 ms collections at 1,000 tables); and none
  when the collector is not tuned (a library user's process is left alone).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
from typing import Any

import pytest

from pontoon.casino.table import CasinoTable
from pontoon.history import HistoryError, open_store
from pontoon.history.group import COMMIT_SWITCH_S
from pontoon.history.store import Batch, Row
from pontoon.rules import resolve_rules
from pontoon.web.store_persistence import YOUNG_S, StorePersistence
from pontoon.web.transport import tune_gc, untune_gc


def _move(seq: int) -> Batch:
    t = {"source": {"system": "house"}, "dest": "ann", "amount": "1.25", "kind": "win", "player": "ann"}
    return Batch(rows=[Row(0, seq, "pay", {"n": seq}, "", [{**t, "reason": "r"}])])


def test_the_switch_interval_is_short_during_a_commit_only(db_url: str) -> None:
    before = sys.getswitchinterval()
    assert before > COMMIT_SWITCH_S  # (Python's 5 ms: the test's premise)
    store = open_store(db_url)
    seen: list[float] = []
    refuse = [False]

    def fence(_conn: Any, _tid: int) -> None:
        seen.append(sys.getswitchinterval())
        if refuse[0]:
            raise HistoryError("refused by the test's fence")

    try:
        store.start_group()
        tid = store.create_table("casino", "mbs", {"preset": "mbs"})
        store.fences.append(fence)
        store.append(tid, _move(0))
        store.append(tid, _move(1))
        assert seen == [COMMIT_SWITCH_S, COMMIT_SWITCH_S]
        assert sys.getswitchinterval() == before
        refuse[0] = True  # a failed commit puts the interval back too
        with pytest.raises(HistoryError, match="refused by the test's fence"):
            store.append(tid, _move(2))
        assert sys.getswitchinterval() == before
        assert [e["seq"] for e in store.events_(tid)] == [0, 1]
    finally:
        store.close()
        sys.setswitchinterval(before)


def _young_in_settle(db_url: str, tuned: bool) -> tuple[int, int]:
    """(young collections in this thread during a ``settle`` after ``YOUNG_S``, during one right
    after it) for a casino table recorded by ``StorePersistence`` on a real SQLite file."""
    store = open_store(db_url)
    me = threading.get_ident()
    young: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 0 and threading.get_ident() == me:
            young.append(1)

    try:
        sp = StorePersistence(store)
        t = CasinoTable(resolve_rules("mbs"), rng=1)
        sp.attach("w1", t, "w1")
        if tuned:
            tune_gc()
        gc.callbacks.append(count)
        try:

            async def run() -> tuple[int, int]:
                t.join("ann", 1000)
                time.sleep(YOUNG_S * 2)
                young.clear()
                await sp.settle("w1")
                first = len(young)
                t.join("bob", 1000)
                young.clear()
                await sp.settle("w1")  # at once: no second collection
                return first, len(young)

            gc.disable()  # no collection started by the count meanwhile (``gc.collect`` still runs)
            return asyncio.run(run())
        finally:
            gc.enable()
            gc.callbacks.remove(count)
            if tuned:
                untune_gc()
            sp.detach("w1")
    finally:
        store.close()


def test_settle_starts_a_young_collection_at_its_pace_when_tuned(db_url: str) -> None:
    assert _young_in_settle(db_url, tuned=True) == (1, 0)


def test_settle_leaves_the_collector_alone_when_not_tuned(db_url: str) -> None:
    assert _young_in_settle(db_url, tuned=False) == (0, 0)
