"""The writer's one-table commit made cheaper (lane childcpu): the same rows as before.

- SQLite's statements of ONE row (``rowsql._SQLITE_ONE``: the chain head's, the round end's and the
  snapshot's UPDATEs by their parameters' numbers, not joined to a ``VALUES`` list) write what the
  multi-row forms write: two stores played the same way, one with the one-row forms, one without, hold
  the same rows (heads and seals, round ends, the tables' snapshots, events, ledger, balances).
- A head moved under the writer is still found by the one-row UPDATE (no row moved: ``StaleHead``),
  and the write goes on from the stored head.
- ``group.transaction`` (a class now): a block that raises is rolled back and lets the write lock go.
- ``PONTOON_WRITER_STATS``: the writer process appends its line (its commits, its CPU) at its end.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pontoon.history import batchsql, open_store, rowsql
from pontoon.history.audit import audit
from pontoon.history.group import transaction
from pontoon.history.store import Batch, Row, Store
from pontoon.history.writer_proc import start_writer_process
from tests.history.conftest import dump
from tests.history.driver import casino_calls, new_table

ROWS = (
    "SELECT table_id, last_hash, seal, rounds FROM heads ORDER BY table_id",
    "SELECT id, table_id, number, shoe, status, result FROM rounds ORDER BY id",
    "SELECT id, state, state_event FROM tables ORDER BY id",
    "SELECT round_id, state FROM snapshots ORDER BY round_id",
    "SELECT id, table_id, round_id, seq, kind, payload, hash FROM events ORDER BY id",
    "SELECT table_id, account, balance FROM accounts ORDER BY table_id, account",
)


def _play(path: Path) -> tuple[list[Any], list[dict[str, object]]]:
    """Two casino tables, every call its own transaction (``Store.append``: one-table commits)."""
    store = open_store(f"sqlite:///{path}")
    ids = []
    try:
        for seed in (3, 4):
            t, rec = new_table(store, "mbs", seed, short_shoe=True)
            for n in range(6):
                for _ in casino_calls(t, n):  # type: ignore[arg-type]
                    pass
            ids.append(rec.table_id)
        assert audit(store)["integrity"] == "ok"
        dumps = [dump(store, t) for t in ids]
    finally:
        store.close()
    db = sqlite3.connect(path)
    rows = [db.execute(q).fetchall() for q in ROWS]
    db.close()
    return rows, dumps


def test_one_row_statements_write_what_the_multi_row_ones_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batchsql._SMALL.clear()
    one = _play(tmp_path / "one.sqlite")
    used = {k: batchsql._SMALL[k][1] for k in rowsql._SQLITE_ONE if k in batchsql._SMALL}
    assert used == {k: rowsql._SQLITE_ONE[k] for k in used} and set(used) >= {"head", "end", "state"}
    monkeypatch.setattr(rowsql, "_SQLITE_ONE", {})
    monkeypatch.setattr(batchsql, "_SQLITE_ONE", {})
    monkeypatch.setattr(batchsql, "_SMALL", {})
    many = _play(tmp_path / "many.sqlite")
    assert "FROM (VALUES" in batchsql._SMALL["head"][1]  # (the multi-row form of one row, as before)
    assert one == many
    assert one[0][2] and all(state != "{}" for _i, state, _e in one[0][2])  # (snapshots were written)


def _note(seq: int) -> Batch:
    return Batch([Row(0, seq, "note", {"n": seq}, "test")])


def test_a_moved_head_is_found_by_the_one_row_update(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    store = open_store(f"sqlite:///{path}")
    try:
        tid = store.create_table("casino", "mbs", {}, first=_note(0))
        store.append(tid, _note(1))
        other = open_store(f"sqlite:///{path}")  # another writer: the head moves under ours
        try:
            other.append(tid, _note(2))
        finally:
            other.close()
        head = store.append(tid, _note(3))  # stale at first (one-row UPDATE moved nothing), then again
        events = store.events_(tid)
        assert [e["seq"] for e in events] == [0, 1, 2, 3]
        assert all(b["prev_hash"] == a["hash"] for a, b in zip(events, events[1:], strict=False))
        assert events[-1]["hash"] == head
        assert audit(store)["integrity"] == "ok"
    finally:
        store.close()


def test_a_failed_transaction_is_rolled_back_and_lets_the_lock_go(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    store = open_store(f"sqlite:///{path}")
    try:
        tid = store.create_table("casino", "mbs", {}, first=_note(0))
        conn = store.writer_connection()
        raw: Any = conn.connection.driver_connection
        with pytest.raises(ZeroDivisionError):
            with transaction(store.engine, conn, False):
                raw.execute("UPDATE tables SET label = 'changed' WHERE id = ?", (tid,))
                _ = 1 / 0
        assert not raw.in_transaction
        with transaction(store.engine, conn, False):  # the write lock is free again
            raw.execute("UPDATE tables SET label = 'second' WHERE id = ?", (tid,))
        store.release_writer(conn)
        db = sqlite3.connect(path)
        assert db.execute("SELECT label FROM tables WHERE id = ?", (tid,)).fetchone() == ("second",)
        db.close()
    finally:
        store.close()


def test_the_writer_process_writes_its_stats_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stats = tmp_path / "stats.jsonl"
    monkeypatch.setenv("PONTOON_WRITER_STATS", str(stats))
    store: Store = open_store(f"sqlite:///{tmp_path / 's.sqlite'}")
    try:
        tid = store.create_table("casino", "mbs", {}, first=_note(0))
        start_writer_process(store)
        for seq in range(1, 6):
            store.append(tid, _note(seq))
    finally:
        store.close()
    (line,) = stats.read_text().splitlines()
    got = json.loads(line)
    assert got["items"] == 5 and 1 <= got["groups"] <= 5
    assert got["writer_cpu_s"] > 0 and got["process_user_s"] + got["process_sys_s"] > 0
