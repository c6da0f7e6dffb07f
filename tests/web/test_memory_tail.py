"""The memory store (no history store configured: tests, a dev server) keeps a bounded tail of each
table's records, ``MEMORY_KEEP`` (200: about twelve rounds of two people), where it kept 2,000 and a
thousand busy tables grew the server's memory for ten minutes (docs/scale.md, "Measured (human-paced)"). Through a
real server: a table that has played past the bound holds exactly the newest ``MEMORY_KEEP`` records,
in order, the play's last event last."""

from __future__ import annotations

from pontoon.web.persistence import MEMORY_KEEP, MemoryPersistence
from tests.web.conftest import LiveServer
from tests.web.test_casino_ws import play_round


def test_the_memory_store_keeps_the_newest_records_of_a_table_up_to_its_bound(live: LiveServer) -> None:
    store = live.srv.lobby.store
    assert isinstance(store, MemoryPersistence) and store.keep == MEMORY_KEEP == 200
    tid = live.table(preset="mbs", seed=8)
    ann, bob = live.account("ann"), live.account("bob")
    ca, cb = live.ws(tid, live.join(tid, ann, box=1)), live.ws(tid, live.join(tid, bob, box=2))
    ca.until(lambda m: m.get("type") == "state")
    cb.until(lambda m: m.get("type") == "state")
    seen: list[object] = []
    live.srv.lobby.tables[tid].table.subscribe(seen.append)  # every record from now on, unbounded
    rounds = 0
    while len(seen) <= MEMORY_KEEP + 20:
        play_round([ca, cb])
        rounds += 1
    kept = list(store.records[tid])
    assert len(kept) == MEMORY_KEEP  # the bound, not all of the table's records
    assert kept == seen[-MEMORY_KEEP:]  # the newest, in order
    assert kept[-1].event.kind == "round_over" and rounds > 10
    ca.close()
    cb.close()
