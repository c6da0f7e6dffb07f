"""Replay of recorded random rounds of every preset: each stored round re-made through the engine
agrees in cards, ledger rows, result and views (a few hundred in CI, thousands in the slow test)."""

from __future__ import annotations

import pytest

from pontoon.history.audit import audit, replay_round
from tests.history.driver import BRITISH, CASINO, new_table, play

PRESETS = CASINO + BRITISH


@pytest.fixture
def fast_store(tmp_path):  # type: ignore[no-untyped-def]
    """synchronous=OFF: these tests check replay, not durability (the kill tests check that, on FULL)."""
    from pontoon.history import open_store

    s = open_store(f"sqlite:///{tmp_path / 'replay.sqlite'}", synchronous="OFF")
    yield s
    s.close()


def _record_and_replay(store, preset: str, seeds: range, rounds: int) -> int:  # type: ignore[no-untyped-def]
    n = 0
    for seed in seeds:
        t, rec = new_table(store, preset, seed, balance=10**6)
        play(t, seed, rounds)
        rec.close()
        for r in store.rounds_(table_id=rec.table_id):
            rep = replay_round(store, int(r["id"]))
            assert rep["events"] >= 3 and rep["status"] in ("settled", "void")
            n += 1
    return n


@pytest.mark.parametrize("preset", PRESETS)
def test_recorded_rounds_replay(fast_store, preset: str) -> None:  # type: ignore[no-untyped-def]
    assert _record_and_replay(fast_store, preset, range(2), 15) == 30
    audit(fast_store)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_thousands_of_recorded_rounds_replay(fast_store, preset: str) -> None:  # type: ignore[no-untyped-def]
    assert _record_and_replay(fast_store, preset, range(10), 100) == 1000
    audit(fast_store)


def test_a_changed_stored_card_is_found_by_replay(store) -> None:  # type: ignore[no-untyped-def]
    """Re-hash a tampered event so the chain holds: replay still finds the difference in the cards or money."""
    from sqlalchemy import text

    from pontoon.replay import ReplayMismatch

    t, rec = new_table(store, "mbs", 11)
    play(t, 11, 2)
    rid = int(store.rounds_(table_id=rec.table_id)[0]["id"])
    with store.engine.begin() as conn:
        conn.execute(
            text("UPDATE ledger SET amount='999' WHERE round_id=:r AND kind='main' AND reason='stake'"),
            {"r": rid},
        )
    with pytest.raises(ReplayMismatch):
        replay_round(store, rid)
    # even with the hashes recomputed over the altered rows, the money no longer agrees with the engine
    _rehash(store, rec.table_id)
    with pytest.raises(ReplayMismatch, match="ledger row"):
        replay_round(store, rid)


def _rehash(store, table_id: int) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import text

    from pontoon.history.audit import _with_transfers
    from pontoon.history.store import chain_hash, event_body

    evs = store.events_(table_id)
    _with_transfers(store, table_id, evs, None)
    prev = ""
    with store.engine.begin() as conn:
        for e in evs:
            h = chain_hash(
                prev, event_body(e["round_no"], e["seq"], e["kind"], e["data"], e["clause"], e["transfers"])
            )
            conn.execute(
                text("UPDATE events SET prev_hash=:p, hash=:h WHERE id=:i"), {"p": prev, "h": h, "i": e["id"]}
            )
            prev = h
