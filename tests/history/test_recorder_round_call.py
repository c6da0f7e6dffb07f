"""The recorder's one-pass batches of a round's table call (``Recorder._round_call``, the server's every
action) are exactly what the general path (``Recorder._on``, record by record) makes of the same call:
the same batches (rows, shoes, snapshots and where they hold, round ends, a British round's pack), and
so the same committed history, hashes included. Twin tables with one seed, one of them recorded with
the one-pass path turned off; casino (new shoes every few rounds), a fair casino table, British."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pontoon.british.bots import Bots
from pontoon.history import Recorder, Store, open_store
from tests.history.conftest import dump
from tests.history.driver import british_round, casino_round, new_table


def _batches(b: Any) -> tuple[Any, ...]:
    rows = tuple((r.round_no, r.seq, r.kind, r.data, r.clause, r.transfers) for r in b.rows)
    return (rows, b.shoe, b.state, b.state_at, b.round_end, b.round_shoe)


def _played(
    tmp_path: Path, name: str, preset: str, fair: bool, one_pass: bool
) -> tuple[list[Any], dict[str, Any], int]:
    store: Store = open_store(f"sqlite:///{tmp_path / name}.sqlite")
    calls: list[Any] = []
    append_many = store.append_many

    def capture(table_id: int, batches: Any) -> str:
        calls.append([_batches(b) for b in batches])
        return append_many(table_id, batches)

    store.append_many = capture  # type: ignore[method-assign]
    used = [0]
    real = Recorder._round_call

    def round_call(self: Recorder, recs: Any) -> Any:
        got = real(self, recs) if one_pass else None
        used[0] += got is not None
        return got

    Recorder._round_call = round_call  # type: ignore[method-assign]
    try:
        t, rec = new_table(store, preset, 5, fair=fair, short_shoe=True)
        if preset == "british":
            bots = Bots()
            for _ in range(10):
                british_round(t, bots)  # type: ignore[arg-type]
        else:
            for i in range(14):
                casino_round(t, i)  # type: ignore[arg-type]
        rec.close()
    finally:
        Recorder._round_call = real  # type: ignore[method-assign]
    got = dump(store, rec.table_id)
    store.close()
    return calls, got, used[0]


@pytest.mark.parametrize(
    ("preset", "fair"), [("mbs", False), ("blackjack", True), ("british", False), ("british", True)]
)
def test_one_pass_batches_equal_the_record_by_record_ones(tmp_path: Path, preset: str, fair: bool) -> None:
    fast, fast_dump, used = _played(tmp_path, "fast", preset, fair, one_pass=True)
    slow, slow_dump, unused = _played(tmp_path, "slow", preset, fair, one_pass=False)
    assert unused == 0
    assert used >= 50, f"the one-pass path made only {used} calls' batches"  # (it is the common path)
    assert any(b[2] is not None for call in fast for b in call)  # snapshots
    assert any(b[4] is not None for call in fast for b in call)  # round ends
    assert fast == slow  # every call's batches, field by field
    # and the history committed: events with their hashes, ledger, rounds, shoes
    assert fast_dump == slow_dump
