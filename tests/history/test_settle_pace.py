"""The table server's ``settle`` paces its young collections by the pacer's clock (``GcPacer.pace``):
a young collection that someone else started (the frames' ``pace``, the interpreter's own count) within
``YOUNG_S`` means none more in ``settle``; once ``YOUNG_S`` has passed since the last, ``settle`` starts
one. Real SQLite file, a casino table recorded by ``StorePersistence``, the collector tuned as a server's."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from pathlib import Path
from typing import Any

from pontoon.casino.table import CasinoTable
from pontoon.history import open_store
from pontoon.rules import resolve_rules
from pontoon.web.store_persistence import YOUNG_S, StorePersistence
from pontoon.web.transport import tune_gc, untune_gc


def test_settle_does_not_collect_again_after_anothers_young_collection(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/pace.sqlite")
    me = threading.get_ident()
    young: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 0 and threading.get_ident() == me:
            young.append(1)

    sp = StorePersistence(store)
    t = CasinoTable(resolve_rules("mbs"), rng=3)
    sp.attach("w1", t, "w1")
    tune_gc()
    gc.callbacks.append(count)
    try:

        async def run() -> list[int]:
            got = []
            t.join("ann", 1000)
            time.sleep(YOUNG_S * 2)
            gc.collect(0)  # another's young collection (the frames' pace, the interpreter's count)
            young.clear()
            await sp.settle("w1")  # within YOUNG_S of it: none here
            got.append(len(young))
            time.sleep(YOUNG_S * 2)
            t.join("bob", 1000)
            young.clear()
            await sp.settle("w1")  # YOUNG_S since the last: one
            got.append(len(young))
            t.leave("bob")
            young.clear()
            await sp.settle("w1")  # right after it: none
            got.append(len(young))
            return got

        gc.disable()  # no collection started by the interpreter's count meanwhile (``gc.collect`` still runs)
        assert asyncio.run(run()) == [0, 1, 0]
    finally:
        gc.enable()
        gc.callbacks.remove(count)
        untune_gc()
        sp.detach("w1")
        store.close()
