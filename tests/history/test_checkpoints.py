"""SQLite's WAL checkpoints off the commit path (``history/checkpoints.py``), on real SQLite files.

- A pass (``PRAGMA wal_checkpoint(PASSIVE)`` on the checkpointer's own connection) copies the WAL, and
  the writer's next commit starts the WAL again from its beginning: the file does not grow.
- Passes run while the writer commits leave its newest frames behind; the idle writer ends the
  checkpoint (``GroupCommitter.idle_hook``) so that its next commit restarts the WAL.
- Under a steady load that never lets the writer idle, the WAL stays bounded (the writer's own automatic
  checkpoint stays on behind the thread) and every event is there.
- One checkpointer per store; it ends with the store; none for a store without group commit.
"""

from __future__ import annotations

import time
from pathlib import Path

from pontoon.history import checkpoints, open_store
from pontoon.history.checkpoints import Checkpointer, start_checkpointer, wal_pages
from pontoon.history.store import Batch, Row


def _move(seq: int) -> Batch:
    t = {"source": {"system": "house"}, "dest": "ann", "amount": "1.25", "kind": "win", "player": "ann"}
    return Batch(rows=[Row(0, seq, "pay", {"n": seq}, "", [{**t, "reason": "r"}])])


def _until(cond: object, limit: float = 10.0) -> None:
    end = time.monotonic() + limit
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def test_a_pass_copies_the_wal_and_the_next_commit_restarts_it(tmp_path: Path) -> None:
    path = str(tmp_path / "h.sqlite")
    store = open_store(f"sqlite:///{path}")
    try:
        group = store.start_group()
        tid = store.create_table("casino", "mbs", {"preset": "mbs"})
        cp = Checkpointer(store, every_s=3600)  # no pass of its own: this test runs them
        for i in range(5):
            group.submit(tid, [_move(i)]).result()
        grown = wal_pages(path)
        busy, log, done = cp.run_once()
        assert (busy, done) == (0, log) and log > 0
        for i in range(5, 10):  # the WAL restarted: written again from its start, the file as it was
            group.submit(tid, [_move(i)]).result()
        assert wal_pages(path) == grown
        five = cp.run_once()[1]  # the frames of these five commits alone
        assert 0 < five < log
        for i in range(10, 20):  # no pass between: the WAL goes on
            group.submit(tid, [_move(i)]).result()
        assert cp.run_once()[1] > five
        assert [e["seq"] for e in store.events_(tid)] == list(range(20))
    finally:
        store.close()


def test_the_idle_writer_ends_the_checkpoint_the_passes_left(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(checkpoints, "FINISH_AT", 1)
    path = str(tmp_path / "h.sqlite")
    store = open_store(f"sqlite:///{path}")
    try:
        group = store.start_group()
        tid = store.create_table("casino", "mbs", {"preset": "mbs"})
        cp = Checkpointer(store, every_s=3600)
        assert group.idle_hook == cp.finish
        for i in range(5):
            group.submit(tid, [_move(i)]).result()
        cp.run_once()  # the WAL long enough (FINISH_AT 1): the idle writer is to end it
        assert cp.finish_wanted
        five = cp.log
        for i in range(5, 10):  # committed after the pass: left behind by it
            group.submit(tid, [_move(i)]).result()
        _until(lambda: cp.finishes == 1)  # (the writer idle after its commit: its hook ran)
        assert not cp.finish_wanted and group.hook_errors == 0
        for i in range(10, 15):  # everything copied by the writer: its next commit restarted the WAL
            group.submit(tid, [_move(i)]).result()
        checkpoints.FINISH_AT = 10**9
        busy, log, done = cp.run_once()
        assert (busy, done) == (0, log) and 0 < log <= five  # the five commits after the restart only
        assert [e["seq"] for e in store.events_(tid)] == list(range(15))
    finally:
        store.close()


def test_the_wal_stays_bounded_under_a_steady_load(tmp_path: Path) -> None:
    """The writer never idle (the next calls queued before each commit ends): the passes copy, the WAL
    restarts at the latest at the writer's own automatic checkpoint (1,000 pages), and every event is
    written; bounded whatever the passes manage."""
    path = str(tmp_path / "h.sqlite")
    store = open_store(f"sqlite:///{path}")
    try:
        group = store.start_group()
        tids = [store.create_table("casino", "mbs", {"preset": "mbs"}) for _ in range(10)]
        cp = start_checkpointer(store, every_s=0.01)
        assert cp is not None
        seq = dict.fromkeys(tids, 0)
        end = time.monotonic() + 30
        futs = []
        while cp.frames < 3000 and time.monotonic() < end:  # three WALs' worth of the 1,000 pages
            for t in tids:
                futs.append(group.submit(t, [_move(seq[t])]))
                seq[t] += 1
            if len(futs) > 40:
                futs.pop(0).result()
        for f in futs:
            f.result()
        assert cp.frames >= 3000 and cp.passes > 0
        assert wal_pages(path) < 1400  # (1,000 and the frames of the commits around it)
        for t in tids:
            assert [e["seq"] for e in store.events_(t)] == list(range(seq[t]))
    finally:
        store.close()


def test_one_checkpointer_a_store_ended_with_it(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    assert start_checkpointer(store) is None  # no group commit: the writes' own checkpoints
    store.start_group()
    cp = start_checkpointer(store, every_s=0.01)
    assert cp is not None and start_checkpointer(store) is cp
    store.close()
    cp.thread.join(5)
    assert not cp.thread.is_alive()
