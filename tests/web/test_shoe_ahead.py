"""The next fair shoe is shuffled ahead, in a worker thread (``FairShuffler.prepare``; the server's
casino tables call it when a table is made and after each new shoe), so that a thousand tables made
together do not shuffle on the event loop at their first deals (docs/scale.md, "Measured (human-paced)"). The shoe
dealt is the one the committed seed, the client seed and the nonce give: the commitment, the reveal and
the verification are those of a shoe shuffled at the deal; a client seed changed after the shoe was
prepared is the one used; the server's tables are not seeded (ruling 36: secret seeds)."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from pontoon.cards import Card
from pontoon.fair import FairRecord, FairShuffler, commitment, shuffled_shoe, verify
from tests.web.conftest import FAST, LiveServer
from tests.web.test_casino_ws import play_round


def _record(f: FairShuffler, cards: list[Card], live: dict, reveal: dict) -> FairRecord:
    return FairRecord(
        reveal["server_seed"],
        live["client_seed"],
        live["nonce"],
        live["commitment"],
        live["pack"],
        live["decks"],
        tuple(cards),
    )


def test_a_prepared_shoe_is_the_shoe_new_shoe_would_shuffle() -> None:
    plain, ahead = FairShuffler(test_seed=11), FairShuffler(test_seed=11)
    for _ in range(3):  # three shoes running: each prepared (in a thread), then dealt
        worker = threading.Thread(target=ahead.prepare, args=("standard52", 6))
        worker.start()
        worker.join()
        assert ahead.prepared == ahead.nonce + 1
        a, b = plain.new_shoe("standard52", 6), ahead.new_shoe("standard52", 6)
        assert a == b  # the same cards and the same commitment data
        assert ahead.prepared is None  # used once
        assert plain.retire() == ahead.retire()


def test_a_secret_prepared_shoe_verifies_and_follows_a_new_client_seed() -> None:
    f = FairShuffler()
    shown = f.next_commitment
    f.prepare("standard52", 6)
    cards, live = f.new_shoe("standard52", 6)
    assert live["commitment"] == shown and "secret" not in live
    reveal = f.retire()
    assert reveal is not None and commitment(reveal["server_seed"]) == shown
    assert verify(_record(f, cards, live, reveal)).ok  # every card of the shoe, in the committed order
    # a client seed set after the next shoe was prepared: that shoe is shuffled with it, not the old one
    f.prepare("standard52", 6)
    old_order = shuffled_shoe("standard52", 6, f._next_seed, f.client_seed, f.nonce + 1)
    f.set_client_seed("chosen by the player")
    cards, live = f.new_shoe("standard52", 6)
    assert live["client_seed"] == "chosen by the player" and cards != old_order
    reveal = f.retire()
    assert reveal is not None and verify(_record(f, cards, live, reveal)).ok


def test_a_server_table_has_its_first_shoe_shuffled_before_its_first_deal() -> None:
    live = LiveServer(replace(FAST, test_mode=False))  # ruling 36: no seed, the shoe's seeds are secret
    try:
        tid = live.table(preset="mbs")
        fair = live.srv.lobby.tables[tid].table.fair
        assert fair.test_seed is None
        t0 = time.monotonic()
        while fair.prepared != 1:  # shuffled by a worker thread once the table was made
            assert time.monotonic() - t0 < 10, "the first shoe was not shuffled ahead"
            time.sleep(0.01)
        ahead = list(fair._ready[1])
        ann, bob = live.account("ann"), live.account("bob")
        ca, cb = live.ws(tid, live.join(tid, ann, box=1)), live.ws(tid, live.join(tid, bob, box=2))
        ca.until(lambda m: m.get("type") == "state")
        cb.until(lambda m: m.get("type") == "state")
        play_round([ca, cb])
        st = ca.state
        assert st["fair"]["commitment"] and fair.nonce == 1
        dealt = [str(c) for c in fair_dealt(live, tid)]
        assert dealt and dealt == [str(c) for c in ahead[: len(dealt)]]  # the prepared order was dealt
        t0 = time.monotonic()
        while fair.prepared != 2:  # and the shoe after it is shuffled ahead in turn
            assert time.monotonic() - t0 < 10, "the next shoe was not shuffled ahead"
            time.sleep(0.01)
        ca.close()
        cb.close()
    finally:
        live.stop()


def fair_dealt(live: LiveServer, tid: str) -> list[str]:
    """The cards dealt from the table's first shoe, from the table's own records (the memory store)."""
    return [r.event.data["card"] for r in live.srv.lobby.store.records[tid] if r.event.kind == "card"]
