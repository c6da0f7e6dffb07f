"""The server process's garbage collector, tuned at start-up (``Settings.tune_gc``, set by ``pontoon
serve``; web/transport.py ``tune_gc``), through a real uvicorn server on loopback: what exists at start-up
is frozen and the thresholds raised, the tables still play, and what the play makes in reference cycles
is still reclaimed (only the start-up's objects are frozen). The collector's state is the process's: each
test puts it back as it was."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from pontoon.web.transport import GC_THRESHOLDS
from tests.web.conftest import FAST, LiveServer
from tests.web.test_casino_ws import play_round


@pytest.fixture
def gc_restored() -> Iterator[None]:
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


class _Cycle:
    def __init__(self) -> None:
        self.me: Any = self


def test_a_tuned_server_freezes_its_start_and_still_reclaims_the_play_s_cycles(gc_restored: None) -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    live = LiveServer(replace(FAST, tune_gc=True))
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the modules, the app: everything alive at start-up
        assert gc.get_threshold() == GC_THRESHOLDS
        tid = live.table(preset="mbs", seed=3)
        ann, bob = live.account("ann"), live.account("bob")
        ca, cb = live.ws(tid, live.join(tid, ann, box=1)), live.ws(tid, live.join(tid, bob, box=2))
        ca.until(lambda m: m.get("type") == "state")
        cb.until(lambda m: m.get("type") == "state")
        for _ in range(3):
            play_round([ca, cb])
        assert ca.state["round_no"] == 3 and len(ca.state["history"]) == 3
        ca.close()
        cb.close()
        assert gc.get_freeze_count() <= frozen  # nothing of the play frozen (a frozen object may be freed)
        cycle = _Cycle()
        gone = weakref.ref(cycle)
        del cycle
        assert gone() is not None  # a reference cycle: refcounting alone never frees it
        gc.collect()
        assert gone() is None  # the collector still reclaims what is made after the start
    finally:
        live.stop()


def test_an_untuned_app_leaves_the_collector_alone(gc_restored: None) -> None:
    gc.unfreeze()
    threshold = gc.get_threshold()
    live = LiveServer(FAST)  # tests and embedders: Settings.tune_gc is off by default
    try:
        assert live.http.get("/healthz").status_code == 200
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == threshold
    finally:
        live.stop()
