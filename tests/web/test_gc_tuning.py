"""The server process's garbage collector, tuned at start-up (``Settings.tune_gc``, set by ``pontoon
serve``; web/transport.py ``tune_gc``), through a real uvicorn server on loopback: what exists at start-up
is frozen and the thresholds set, the tables still play, what survives a collection is frozen in turn
(every collection a young one), and what the play leaves in reference cycles is still reclaimed: by the
young collection when it died young, by the server's periodic sweep of the whole heap when it had been
frozen. The collector's state is the process's: each test puts it back as it was."""

from __future__ import annotations

import gc
import time
import weakref
from dataclasses import replace
from typing import Any

from pontoon.web.transport import GC_THRESHOLDS, gc_pacer, untune_gc
from tests.web.conftest import FAST, LiveServer
from tests.web.test_casino_ws import play_round


class _Cycle:
    def __init__(self) -> None:
        self.me: Any = self


def _frozen(obj: object) -> bool:
    """Tracked by the collector but in none of its generations: in the permanent (frozen) one."""
    return gc.is_tracked(obj) and not any(o is obj for g in range(3) for o in gc.get_objects(generation=g))


def _wait(what: str, ok: Any, timeout: float = 10.0) -> None:
    t0 = time.monotonic()
    while not ok():
        assert time.monotonic() - t0 < timeout, what
        time.sleep(0.02)


def test_a_tuned_server_freezes_its_start_and_still_reclaims_the_play_s_cycles(gc_restored: None) -> None:
    untune_gc()
    assert gc.get_freeze_count() == 0
    live = LiveServer(replace(FAST, tune_gc=True))
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the modules, the app: everything alive at start-up
        assert gc.get_threshold() == GC_THRESHOLDS
        pacer = gc_pacer()
        assert pacer is not None and not pacer.due()
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
        # what survives a collection is frozen at once: the next collections do not scan it again
        cycle = _Cycle()
        gone = weakref.ref(cycle)
        assert not _frozen(cycle)
        gc.collect(0)
        assert _frozen(cycle)
        del cycle
        assert gone() is not None  # a reference cycle: refcounting alone never frees it
        gc.collect()
        assert gone() is not None  # frozen: left for the sweep
        # the server's timer sweeps the whole heap when it is due: the cycle is reclaimed
        pacer.sweep_s = 0.2
        _wait("the server's timer did not sweep", lambda: pacer.sweeps >= 1)
        assert gone() is None and gc.get_freeze_count() > 10_000  # frozen again after the sweep
        pacer.sweep_s = 3600.0
        pacer.young_s = 3600.0  # the server's paced young collections (after the leaving frames) would race
        # this thread: one run between the two lines below freezes the cycle while it is still referenced
        # a cycle made and dropped between two collections is reclaimed by the young collection itself (the
        # automatic collections held off meanwhile: one the server's thread triggers by allocating, between the
        # first two lines below, would freeze the cycle while it is still referenced)
        gc.disable()
        try:
            young = _Cycle()
            gone = weakref.ref(young)
            del young
            gc.collect(0)
        finally:
            gc.enable()
        assert gone() is None
    finally:
        live.stop()


def test_an_untuned_app_leaves_the_collector_alone(gc_restored: None) -> None:
    untune_gc(gc.get_threshold())
    threshold = gc.get_threshold()
    live = LiveServer(FAST)  # tests and embedders: Settings.tune_gc is off by default
    try:
        assert live.http.get("/healthz").status_code == 200
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == threshold
    finally:
        live.stop()
