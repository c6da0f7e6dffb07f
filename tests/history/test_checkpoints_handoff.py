"""The hand-off to the idle group-commit writer (``GroupCommitter._hand_off``, history/group.py): the call
that wakes it lowers the interpreter's switch interval to ``COMMIT_SWITCH_S`` until the writer has taken
the queue (it needs the GIL to return from its wait: a busy event loop would keep it for Python's 5 ms),
and the interval is Python's again once the writer is idle. Real SQLite file."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pontoon.history import open_store
from pontoon.history.group import COMMIT_SWITCH_S
from pontoon.history.store import Batch, Row


def _move(seq: int) -> Batch:
    t = {"source": {"system": "house"}, "dest": "ann", "amount": "1.25", "kind": "win", "player": "ann"}
    return Batch(rows=[Row(0, seq, "pay", {"n": seq}, "", [{**t, "reason": "r"}])])


def test_a_call_that_wakes_the_idle_writer_lowers_the_switch_interval_until_taken(tmp_path: Path) -> None:
    before = sys.getswitchinterval()
    assert before > COMMIT_SWITCH_S  # (Python's 5 ms: the test's premise)
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        group = store.start_group()
        tid = store.create_table("casino", "mbs", {"preset": "mbs"})
        for seq in range(3):
            end = time.monotonic() + 10
            while not group.idle:  # (the writer waiting for work)
                assert time.monotonic() < end
                time.sleep(0.001)
            with group.cv:  # the writer cannot take the queue while this thread holds its lock
                fut = group.enqueue(tid, [_move(seq)])
                assert sys.getswitchinterval() == COMMIT_SWITCH_S
            fut.result()
            end = time.monotonic() + 10
            while not group.idle:
                assert time.monotonic() < end
                time.sleep(0.001)
            assert sys.getswitchinterval() == before
        assert [e["seq"] for e in store.events_(tid)] == [0, 1, 2]
    finally:
        store.close()
        sys.setswitchinterval(before)
