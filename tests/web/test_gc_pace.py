"""The young collections of a tuned server are paced (web/transport.py ``GcPacer.pace``, ``YOUNG_S``):
after a change's frames the server starts a young collection when none has run for ``YOUNG_S``, with any
store (the memory store too: its young generation otherwise grew between collections while the deaths
of frozen objects held CPython's count down). Through a real uvicorn server on loopback, with the
collector's own count made too high to start any collection, so that every young one is the pacer's."""

from __future__ import annotations

import gc
import time
from dataclasses import replace
from typing import Any

from pontoon.web.transport import YOUNG_S, GcPacer, gc_pacer, untune_gc
from tests.web.conftest import FAST, LiveServer
from tests.web.test_casino_ws import play_round


def test_pace_collects_the_young_once_young_s_has_passed(gc_restored: None) -> None:
    gc.set_threshold(10**9, 10, 10)  # no collection started by the count: only the pacer's and the test's
    pacer = GcPacer()
    young: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 0:
            young.append(1)

    gc.callbacks.extend([pacer.on_gc, count])
    try:
        t = pacer.young_at
        assert not pacer.pace(t + YOUNG_S * 0.9)  # (times given: a loaded machine cannot make it flaky)
        # (past YOUNG_S, not at it: ``(t + YOUNG_S) - t`` rounds below YOUNG_S for some clock readings)
        assert pacer.pace(t + YOUNG_S * 1.01) and len(young) == 1
        assert pacer.young_at > t  # its "stop" set the time of the last one: not again before YOUNG_S
        assert not pacer.pace(pacer.young_at + YOUNG_S * 0.9)
        time.sleep(YOUNG_S * 1.2)
        assert pacer.pace() and len(young) == 2
        t = pacer.young_at
        gc.collect(0)  # a young collection started by anyone counts
        assert pacer.young_at > t and len(young) == 3
        assert not pacer.pace(pacer.young_at + YOUNG_S * 0.9) and pacer.paced == 2
    finally:
        gc.callbacks.remove(pacer.on_gc)
        gc.callbacks.remove(count)


def test_a_tuned_memory_server_paces_its_young_collections(gc_restored: None) -> None:
    untune_gc()
    live = LiveServer(replace(FAST, tune_gc=True))  # the memory store
    try:
        pacer = gc_pacer()
        assert pacer is not None
        gc.set_threshold(10**9, 10, 10)  # the count never starts one: what runs is the pacer's
        tid = live.table(preset="mbs", seed=4)
        ann, bob = live.account("ann"), live.account("bob")
        ca, cb = live.ws(tid, live.join(tid, ann, box=1)), live.ws(tid, live.join(tid, bob, box=2))
        ca.until(lambda m: m.get("type") == "state")
        cb.until(lambda m: m.get("type") == "state")
        before = pacer.paced
        for _ in range(3):
            time.sleep(YOUNG_S * 1.5)  # each round's first change comes after a pause of play
            play_round([ca, cb])
        assert ca.state["round_no"] == 3
        assert pacer.paced - before >= 3
        ca.close()
        cb.close()
    finally:
        live.stop()
