"""The recorder's rows (history/recorder.py ``_row``): built on the event loop for every event, so
without copies. An event's row carries the event's own data (an ``Event`` is frozen: nothing changes
its data once logged); an event that moved no money shares ONE empty transfers list; a casino join or
leave gets a list of its own with its cashier row; and what is committed is the same as before:
the rows read back equal the table's events, the audit is clean."""

from __future__ import annotations

from pathlib import Path

from pontoon.casino.table import CasinoTable
from pontoon.events import TableRecord
from pontoon.history import Recorder, open_store
from pontoon.history.audit import audit
from pontoon.history.recorder import _NO_TRANSFERS, _row
from pontoon.rules import resolve_rules
from tests.history.driver import casino_calls


def test_rows_share_the_events_data_and_one_empty_transfers_list(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path}/rows.sqlite")
    t = CasinoTable(resolve_rules("mbs"), rng=7)
    seen: list[TableRecord] = []
    t.subscribe_batch(seen.extend)
    rec = Recorder(store, t, label="rows")
    t.join("ann", 500)
    t.join("bob", 500)
    for i in range(6):
        for _ in casino_calls(t, i):
            pass
    t.leave("bob")
    rec.close()
    assert seen, "the table made no records"
    moved = 0
    for r in seen:
        row = _row(r)
        assert row.data is r.event.data  # the event's own dict: no copy per event
        if r.transfers or (r.round_no == 0 and r.event.kind in ("join", "leave")):
            assert row.transfers is not _NO_TRANSFERS
            assert row.transfers  # its money, and a casino join/leave its cashier row
            moved += 1
        else:
            assert row.transfers is _NO_TRANSFERS
    assert moved >= 6 + 3  # every round settled money; two joins and a leave
    assert _NO_TRANSFERS == []  # never appended to
    # what was committed: every event of the table, in order, the data as logged; the audit clean
    stored = store.events_(rec.table_id)
    want = [(r.round_no, r.event.seq, r.event.kind, r.event.data) for r in seen]
    got = [(e["round_no"], e["seq"], e["kind"], e["data"]) for e in stored]
    assert got[-len(want) :] == want
    audit(store)  # (raises at the first discrepancy)
    store.close()
