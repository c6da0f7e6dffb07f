"""The recorder's batches of one table call (``Recorder._on``): the events of a call that carry no shoe,
snapshot or round end of their own go in the batch before them, so a call of several events is one or
two batches, not one per event; what is written is the same (every event, in order, one chain, the
snapshots at their events: the audit and a recovery agree)."""

from __future__ import annotations

from typing import Any

import pytest

from pontoon.history import Store, recover
from pontoon.history.audit import audit
from tests.history.driver import british_round, casino_round, new_table


def _mergeable(a: Any, b: Any) -> bool:
    """Whether batch ``b`` could have gone into ``a`` (the rule of ``Recorder._on``)."""
    return (
        a.state is None
        and a.round_end is None
        and a.round_shoe is None
        and b.shoe is None
        and b.state is None
        and b.round_shoe is None
    )


@pytest.mark.parametrize(("preset", "fair"), [("mbs", False), ("blackjack", True), ("british", True)])
def test_a_calls_events_share_their_batches(store: Store, preset: str, fair: bool) -> None:
    calls: list[list[Any]] = []
    append_many = store.append_many

    def capture(table_id: int, batches: Any) -> str:
        calls.append(list(batches))
        return append_many(table_id, batches)

    store.append_many = capture  # type: ignore[method-assign]
    t, rec = new_table(store, preset, 3, fair=fair, short_shoe=True)
    if preset == "british":
        from pontoon.british.bots import Bots

        bots = Bots()
        for _ in range(8):
            british_round(t, bots)  # type: ignore[arg-type]
    else:
        for _ in range(12):
            casino_round(t, 3)  # type: ignore[arg-type]
    rows = [r for batches in calls for b in batches for r in b.rows]
    several = [batches for batches in calls if sum(len(b.rows) for b in batches) > 1]
    assert several  # (calls of several events were met)
    for batches in calls:
        assert not any(_mergeable(a, b) for a, b in zip(batches, batches[1:], strict=False))
    assert sum(len(batches) for batches in calls) < len(rows)  # fewer batches than events
    stored = store.events_(rec.table_id)
    assert [(e["round_no"], e["seq"], e["kind"]) for e in stored][-len(rows) :] == [
        (r.round_no, r.seq, r.kind) for r in rows
    ]
    assert stored[-1]["hash"] == store.table(rec.table_id)["last_hash"]
    audit(store)
    rec.detach()
    (back,) = recover(store)  # from the last snapshot: its event found, the rest re-made and equal
    assert back.table_id == rec.table_id and back.replayed > 0
