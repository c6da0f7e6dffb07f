"""The group commit's writer in a child process (history/writer_proc.py, writer_child.py).

- It writes exactly what the writer thread writes: the same tables played through both, every row
  (events, hashes, ledger, balances, rounds, shoes) equal, the audit clean; on SQLite and PostgreSQL,
  through ``Store.append`` (a caller waiting in its thread) and through the server's ``enqueue`` path.
- A killed writer process: the call it had not acknowledged fails (``WriterGone``) and is not in the
  database; its table is refused until it is recovered (``forgive``); a new writer process takes the
  next calls, and the table's chain goes on from what was committed.
- A lost lease refuses the write in the writer process's transaction, as ``LeaseLost`` (the server
  tells that apart: the table moved).
- Closing the store commits and acknowledges everything sent.
- The wire: any batch a recorder can make (hypothesis: nested texts, numbers, Decimals) arrives
  field for field; and ``pontoon serve --writer`` takes only ``process`` or ``thread``.
(The kill tests with ``PONTOON_CRASH_AT``, tests/web/test_serve_kill.py, test_group_kill.py and
test_british_close_kill.py, run ``pontoon serve`` with its default, the writer process.)
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.casino.table import CasinoTable
from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.history.leases import LeaseLost, Leases
from pontoon.history.recorder import Recorder
from pontoon.history.store import Batch, Row, Store
from pontoon.history.writer_proc import ProcessCommitter, WriterGone, start_writer_process
from pontoon.history.writer_wire import Reader, encode, flat, unflat
from pontoon.rules import resolve_rules
from tests.history.conftest import dump
from tests.history.driver import LABEL, casino_calls, new_table
from tests.history.pg import create_db, module_cluster

pg = pytest.fixture(scope="module", name="pg")(module_cluster)


def _play(store: Store, rounds: int) -> list[int]:
    """Two casino tables through ``Store.append`` (the recorder's own writes) and one through the
    server's way (``enqueue``, then the wait for the table's pending commit after each call)."""
    ids = []
    for seed in (3, 4):
        t, rec = new_table(store, "mbs", seed, short_shoe=True)
        for n in range(rounds):
            for _ in casino_calls(t, n):  # type: ignore[arg-type]
                pass
        ids.append(rec.table_id)
    table = CasinoTable(resolve_rules("mbs"), rng=5)
    rec = Recorder(store, table, label=LABEL, meta={"preset": "mbs", "seed": 5}, defer=True)
    table.join("ann", 1000)
    table.join("bob", 1000)
    assert store.group is not None
    for n in range(rounds):
        for _ in casino_calls(table, n):
            fut = store.group.pending(rec.table_id)
            if fut is not None:
                fut.result(30)
    ids.append(rec.table_id)
    return ids


def _both(url_of: Any, rounds: int) -> None:
    dumps = []
    for writer in ("thread", "process"):
        store = open_store(url_of(writer))
        try:
            if writer == "process":
                group = start_writer_process(store)
            else:
                store.start_group()
            ids = _play(store, rounds)
            if writer == "process":
                assert group.items >= group.groups > 0  # (it did write: the calls one by one here)
            dumps.append([dump(store, t) for t in ids])
            assert audit(store)["integrity"] == "ok"
        finally:
            store.close()
    assert dumps[0] == dumps[1]


def test_the_process_writes_what_the_thread_writes_sqlite(tmp_path: Path) -> None:
    _both(lambda w: f"sqlite:///{tmp_path / w}.sqlite", 12)


def test_the_process_writes_what_the_thread_writes_postgresql(pg: str) -> None:
    _both(lambda w: create_db(pg, f"wp_{w}"), 6)


def _note(seq: int) -> Batch:
    return Batch(rows=[Row(1, seq, "note", {"n": seq})])


def _wait(cond: Any, what: str) -> None:
    for _ in range(600):
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"waited 30 s for {what}")


def test_a_killed_writer_fails_what_it_did_not_acknowledge_and_a_new_one_writes_on(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    store = open_store(f"sqlite:///{path}")
    try:
        tid = store.create_table("casino", "mbs", {}, label="t")
        other = store.create_table("casino", "mbs", {}, label="t")
        group = start_writer_process(store)
        heads = [store.submit(tid, [_note(s)]).result(30) for s in range(3)]  # committed, acknowledged
        lock = sqlite3.connect(path, isolation_level=None, timeout=30)
        lock.execute("BEGIN IMMEDIATE")  # the child waits in its BEGIN with our call
        fut = store.submit(tid, [_note(3)])
        time.sleep(0.3)
        first = group.pid
        os.kill(first, signal.SIGKILL)
        with pytest.raises(WriterGone, match="writer process stopped"):
            fut.result(30)
        lock.execute("ROLLBACK")
        lock.close()
        assert isinstance(group.failed[tid], WriterGone)
        _wait(lambda: group.restarts == 1 and group.pid != first, "a new writer process")
        with pytest.raises(WriterGone):  # refused until recovered: its chain must not skip a call
            store.submit(tid, [_note(4)]).result(30)
        assert store.submit(other, [_note(0)]).result(30)  # the other table writes on at once
        store.forget(tid)
        group.forgive(tid)  # (a recorder attached again: recovered from the committed records)
        store.submit(tid, [_note(3)]).result(30)
        assert [e["seq"] for e in store.events_(tid)] == [0, 1, 2, 3]
        assert store.events_(tid)[2]["hash"] == heads[2]
        assert audit(store)["integrity"] == "ok"
    finally:
        store.close()


def test_a_lost_lease_refuses_the_write_in_the_writer_process(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store, rival = open_store(url), open_store(url)
    try:
        tid = store.create_table("casino", "mbs", {}, label="web")
        ours = Leases(store, "ours", ttl=5)
        group = start_writer_process(store)
        group.web_of = lambda t: "w1" if t == tid else None
        ours.watch = group.lease_epoch
        assert ours.claim("w1")
        group.lease_owner("ours")
        store.submit(tid, [_note(0)]).result(30)
        assert Leases(rival, "rival", ttl=5).claim("w1", now=time.time() + 60)  # ours expired: taken
        with pytest.raises(LeaseLost, match="table w1"):
            store.submit(tid, [_note(1)]).result(30)
        assert isinstance(group.failed[tid], LeaseLost)
        assert [e["seq"] for e in store.events_(tid)] == [0]
    finally:
        store.close()
        rival.close()


def test_closing_the_store_commits_everything_sent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store = open_store(url)
    tid = store.create_table("casino", "mbs", {}, label="t")
    group = start_writer_process(store)
    futs = [store.enqueue(tid, [_note(s)]) for s in range(200)]
    pid = group.pid
    store.close()
    assert all(f.done() and f.exception() is None for f in futs)
    with pytest.raises(ProcessLookupError):  # the writer process has ended
        os.kill(pid, 0)
    store = open_store(url)
    try:
        assert [e["seq"] for e in store.events_(tid)] == list(range(200))
    finally:
        store.close()


def test_one_writer_per_store(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        store.start_group()
        with pytest.raises(Exception, match="one writer per store"):
            start_writer_process(store)
    finally:
        store.close()
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        assert isinstance(start_writer_process(store), ProcessCommitter)
        assert start_writer_process(store) is store.group  # (the same one again)
    finally:
        store.close()


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_rows = st.builds(
    Row,
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.text(max_size=12),
    st.dictionaries(st.text(max_size=8), _json | st.decimals(allow_nan=False, places=2), max_size=5),
    st.text(max_size=12),
    st.lists(st.dictionaries(st.text(max_size=6), st.text(max_size=6), max_size=3), max_size=3),
)
_batches = st.lists(
    st.builds(
        Batch,
        st.lists(_rows, max_size=4),
        st.none() | st.tuples(st.integers(0, 99), st.text(max_size=30), st.integers(0, 999)),
        st.none() | st.dictionaries(st.text(max_size=8), _json, max_size=3),
        st.none() | st.integers(0, 4),
        st.none()
        | st.tuples(st.integers(0, 99), st.text(max_size=8), st.dictionaries(st.text(max_size=5), _json)),
        st.none() | st.integers(0, 99),
    ),
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(calls=st.lists(_batches, min_size=1, max_size=5))
def test_every_batch_arrives_field_for_field(calls: list[list[Batch]]) -> None:
    a, b = socket.socketpair()
    try:
        a.sendall(b"".join(encode(("w", i, 1, i, None, flat(c))) for i, c in enumerate(calls)))
        a.shutdown(socket.SHUT_WR)
        reader, got = Reader(b), []
        while (msgs := reader.messages()) is not None:
            got.extend(msgs)
        assert [unflat(m[5]) for m in got] == calls
    finally:
        a.close()
        b.close()


def test_a_decimal_crosses_too() -> None:
    call = [Batch(rows=[Row(1, 0, "pay", {"amount": Decimal("2.50")})])]
    msg = encode(("w", 1, 1, 1, None, flat(call)))
    assert msg[4] == ord("p")  # (marshal takes no Decimal: pickled)
    a, b = socket.socketpair()
    with a, b:
        a.sendall(msg)
        (got,) = Reader(b).messages() or []
    assert unflat(got[5]) == call


def test_serve_takes_a_writer_it_knows(tmp_path: Path) -> None:
    import subprocess
    import sys

    p = subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", "serve", "--db", f"sqlite:///{tmp_path}/h.sqlite"]
        + ["--writer", "fork"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PONTOON_SECRET="s" * 32),
    )
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1].endswith("--writer 'fork': accepted are process and thread")
    assert "Traceback" not in p.stderr


def test_the_event_loop_reads_the_acknowledgements(tmp_path: Path) -> None:
    """``use_loop`` (the server's loop, uvloop as ``pontoon serve`` runs it): 40 tables' calls at once,
    each awaited as the server does; some tables drain the whole queue from the loop's own thread
    (the server's synchronous writes do): every call acknowledged, none lost, nothing stuck. (uvloop
    makes the socket non-blocking: a wait on the loop's thread read that as the child's end, and a
    send into a full buffer failed; some calls here are large, so the buffers fill.)"""
    import asyncio

    import uvloop

    from pontoon.web.wakeups import Wakeups

    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        tids = [store.create_table("casino", "mbs", {}, label="t") for _ in range(40)]
        group = start_writer_process(store)
        wakeups = Wakeups()

        async def table(tid: int) -> None:
            for i in range(30):
                call = _note(i)
                if i % 10 == 1:  # (40 tables x 256 KB at once: more than the socket's buffers hold)
                    call.rows[0].data["pad"] = "x" * (256 << 10)
                store.enqueue(tid, [call])
                fut = group.pending(tid)
                if fut is not None:
                    await asyncio.wait_for(wakeups.wait(fut), 30)
                    assert fut.exception() is None
                if i % 7 == 3 and tid % 5 == 0:
                    group.drain()

        async def main() -> None:
            group.use_loop(asyncio.get_running_loop())
            assert group.loop is not None
            await asyncio.gather(*(table(t) for t in tids))

        uvloop.run(main())
        assert group.restarts == 0 and not group.failed
        assert all([e["seq"] for e in store.events_(t)] == list(range(30)) for t in tids)
    finally:
        store.close()


def test_ctrl_c_at_the_terminal_leaves_the_writer_to_the_server(tmp_path: Path) -> None:
    """SIGINT (Ctrl-C reaches the server's whole process group) does not end the writer process: it
    ends with the server's socket, after committing what was sent."""
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    try:
        tid = store.create_table("casino", "mbs", {}, label="t")
        group = start_writer_process(store)
        os.kill(group.pid, signal.SIGINT)
        time.sleep(0.3)
        assert store.submit(tid, [_note(0)]).result(30)
        assert group.restarts == 0
    finally:
        store.close()
