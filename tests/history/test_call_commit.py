"""One table call, one transaction: when a view (a record subscriber) is handed the first record of a
table call (``deal``, an ``act`` that ends the round with the dealer's turn and the settlement ...),
every event of that call is already committed: read back through a second connection to the same
SQLite file, the count at that moment equals the count after the call returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pontoon.british.bots import Bots
from pontoon.british.table import BritishGame
from pontoon.casino.table import CasinoTable
from pontoon.events import TableRecord
from pontoon.history import Store, open_store
from tests.history.driver import VERBS, new_table, pick


@pytest.mark.parametrize("preset", ["mbs", "federal", "british", "shoot"])
def test_a_calls_events_are_committed_before_its_first_is_shown(
    db_url: str, store: Store, preset: str
) -> None:
    table, rec = new_table(store, preset, seed=3)
    reader = open_store(db_url)
    tid = rec.table_id
    at_first: list[int] = []  # committed events seen by the reader when the call's first record is shown
    shown: list[int] = []  # records shown in the current call
    calls: list[tuple[int, int, int]] = []  # (records shown, committed at the first, committed after)

    def view(r: TableRecord) -> None:
        if not shown:
            at_first.append(len(reader.events_(tid)))
        shown.append(r.event.seq)

    table.subscribe(view)

    def call(fn: Callable[..., Any], *args: Any) -> Any:
        shown.clear()
        at_first.clear()
        out = fn(*args)
        if shown:
            calls.append((len(shown), at_first[0], len(reader.events_(tid))))
        return out

    try:
        if isinstance(table, CasinoTable):
            for n in range(1, 7):
                rnd = call(table.new_round)
                call(table.place_bet, 1, "ann", "main", table.rules.table_min)
                call(table.place_bet, 2, "bob", "main", table.rules.table_min)
                call(table.deal)
                while not rnd.is_over():
                    seat = rnd.to_act()
                    legal = [a for a in rnd.legal_actions(seat) if a.verb in VERBS and table.can(seat, a)]
                    call(table.act, seat, legal[pick(len(legal), 3, n, rnd.log.count)])
                call(table.end_round)
        else:
            assert isinstance(table, BritishGame)
            bots = Bots()
            for _ in range(6):
                bots.prepare_table(table)
                rnd = call(table.new_round)
                while not rnd.is_over():
                    call(table.act, *bots.decide(rnd))
                call(table.end_round)
    finally:
        reader.close()
        rec.close()
    assert calls
    for shown_n, first, after in calls:
        assert first == after, (shown_n, first, after)  # nothing of the call was committed after it was shown
    assert any(n > 2 for n, _, _ in calls), "no call made several events: the check would be empty"
    assert sum(n for n, _, _ in calls) <= len(store.events_(tid))
