"""The group commit's writer alone: its CPU per event replaying recorded commits, on one thread.

Usage: ``python bench/bench_writer.py [--tables 100] [--rounds 20] [--reps 7] [--save DIR | --load DIR]
[--frames] [--tenths] [--calls N]``.

``bench_history.py``'s figures swing with the load of a shared machine (the loop thread and the writer
thread share the cores with everything else). This one measures the writer's part only, steadily:
1. it records the loop driver's commits (``bench_history.run_loop``: ``--tables`` mbs tables, two
   players each, ``--rounds`` rounds each, every call awaiting its commit) on a ``synchronous=OFF``
   store: each ``Store.write_group``'s items as they were written, and a copy of the database once the
   tables were set up;
2. it replays those commits ``--reps`` times, each on a fresh copy of that database
   (``synchronous=OFF``: no fsync, so the figure is CPU), through ``Store.write_group`` on the writer's
   own connection, the collector off, timing the thread's CPU (``time.thread_time``): the write_group
   CPU per event (the rows, canonical text, hashes, seals and the statements in SQLite);
3. it replays them once more with the statements' parameters made but not run (``batchsql.run``
   replaced): ``write_items``' Python alone;
4. it prints a digest of every row the replay wrote (events, ledger, balances, heads and seals,
   rounds, snapshots, shoes; not the ``created`` stamps), and of the recording's own database, so
   that the replay is seen to write what the run wrote and two trees' writers the same bytes.
5. with ``--frames``: it replays them once more with the WAL never checkpointed (``wal_autocheckpoint=0``)
   and reads the WAL's frame headers: the frames (pages of ``page_size`` bytes) written per event and per
   commit, and which b-tree each frame's page belongs to (``dbstat``): what a commit dirties (a table-keyed
   index: a leaf per table in the commit), load-independent. (The replay's store is opened by this tree's
   ``open_store``: a recording of an older revision is migrated first, so each tree writes its own schema.)
6. with ``--tenths``: the first replay's write_group CPU per event in each tenth of the commits: whether
   the writer's cost grows as the store does (a long recording: ``--rounds 100``).
7. with ``--calls N``: the recorded table calls, in their order, replayed in commits of ``N`` calls each
   (the loop driver's commits carry all its tables' calls at once, the server's 10-18 at 100 tables:
   the per-commit part of the writer's CPU weighs as it does there); the rows written are the same
   (the digest too), and the CPU is also given per commit.
8. PostgreSQL's Python (no server needed): each commit's rows made as for PostgreSQL (``write_items``'
   ``_rows`` by keys) and written into the commit's text of ``EXECUTE``s (``pgprep.text``), timed apart
   (thread CPU a commit, the best of the reps), and a digest of those texts: two trees' PostgreSQL
   writers send the same bytes.
``--save DIR`` keeps the recording (``commits.pkl``, ``base.sqlite``) and ``--load DIR`` replays a kept
one: record once, then replay the same commits with each tree's copy of this script (it imports the
``src`` beside it), one after the other. The seal key: ``PONTOON_HISTORY_KEY_FILE`` (the same key for
both, or the seals differ).
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import shutil
import sqlite3
import statistics
import struct
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT), str(ROOT / "bench")]

from pontoon.history import batchsql, open_store  # noqa: E402
from pontoon.history.store import Store  # noqa: E402

_TABLES = "SELECT id, state, state_event FROM tables ORDER BY id"
_DIGEST = [
    "SELECT id, table_id, round_id, round_no, seq, kind, payload, clause, prev_hash, hash FROM events ORDER BY id",
    "SELECT id, table_id, round_id, event_id, idem, source, dest, amount, kind, player, reason FROM ledger "
    "ORDER BY id",
    "SELECT table_id, account, balance FROM accounts ORDER BY table_id, account",
    "SELECT table_id, last_hash, seal FROM heads ORDER BY table_id",
    "SELECT id, table_id, number, shoe, status, result FROM rounds ORDER BY id",
    _TABLES,
    "SELECT table_id, number, cards, cut FROM shoes ORDER BY table_id, number",
]
# from revision 0012 a table's latest snapshot is its newest round's (``snapshots``) when it is as late
# as the row's own (``Store.table``): the same (id, state, state_event) rows as a store of before
_LATEST = (
    "SELECT t.id, coalesce(n.state, t.state), coalesce(n.ev, t.state_event) FROM tables t LEFT JOIN ("
    "SELECT r.table_id AS tid, s.state AS state, (SELECT e.id FROM events e WHERE e.round_id = r.id "
    "AND e.seq = 0) - 1 AS ev, row_number() OVER (PARTITION BY r.table_id ORDER BY r.number DESC) AS k "
    "FROM rounds r JOIN snapshots s ON s.round_id = r.id) n ON n.tid = t.id AND n.k = 1 "
    "AND n.ev >= t.state_event ORDER BY t.id"
)


def record(out: Path, tables: int, rounds: int) -> None:
    """The loop driver's commits after the tables' set-up (pickled as written) and the set-up's database."""
    import bench_history as bh

    got: list[bytes] = []
    on = [False]
    write_group = Store.write_group

    def recorded(self: Store, items: Any, conn: Any = None) -> list[str]:
        if on[0]:
            got.append(pickle.dumps(list(items)))
        return write_group(self, items, conn)

    attach = bh._attach_tables
    path = out / "recording.sqlite"

    def attached(sp: Any, n: int) -> Any:
        made = attach(sp, n)
        src, dst = sqlite3.connect(path), sqlite3.connect(out / "base.sqlite")
        src.backup(dst)
        dst.close()
        src.close()
        on[0] = True
        return made

    Store.write_group = recorded  # type: ignore[method-assign]
    bh._attach_tables = attached
    try:
        s = open_store(f"sqlite:///{path}", synchronous="OFF")
        s.start_group()
        bh.run_loop(s, rounds, tables)
        s.close()
    finally:
        Store.write_group = write_group  # type: ignore[method-assign]
        bh._attach_tables = attach
    (out / "commits.pkl").write_bytes(pickle.dumps(got))


def digest_of(path: str | Path) -> str:
    """The digest of every row the writer writes (``_DIGEST``: not the ``created`` stamps)."""
    h = hashlib.sha256()
    db = sqlite3.connect(path)
    has = db.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'snapshots'").fetchone()[0]
    for q in _DIGEST:
        if has and q == _TABLES:  # revision 0012: each table's latest snapshot, wherever it is
            q = _LATEST
        for row in db.execute(q):
            h.update(repr(row).encode())
    db.close()
    return h.hexdigest()[:16]


def replay(
    rec: Path, commits: list[Any], digest: bool, tenths: list[float] | None = None
) -> tuple[float, str]:
    """One replay on a fresh copy of the set-up: write_group's thread CPU (s) and the rows' digest;
    ``tenths`` (``--tenths``): the thread CPU of each tenth of the commits appended to it (s)."""
    marks = Counter(len(commits) * k // 10 for k in range(1, 11)) if tenths is not None else Counter()
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(rec / "base.sqlite", f"{d}/x.sqlite")
        s = open_store(f"sqlite:///{d}/x.sqlite", synchronous="OFF")
        conn = s.writer_connection()
        gc.collect()
        gc.disable()
        if tenths is not None:  # (tenths of no commit)
            tenths.extend([0.0] * marks.pop(0, 0))
        c = last = time.thread_time()
        for i, items in enumerate(commits, 1):
            s.write_group(items, conn)
            if i in marks and tenths is not None:  # (fewer than ten commits: empty tenths read 0)
                now = time.thread_time()
                tenths.extend([now - last] + [0.0] * (marks[i] - 1))
                last = now
        spent = time.thread_time() - c
        gc.enable()
        s.release_writer(conn)
        s.close()
        return spent, digest_of(f"{d}/x.sqlite") if digest else ""


def frames(rec: Path, commits: list[Any]) -> tuple[int, int, Counter[str]]:
    """``--frames``: one replay with the WAL never checkpointed; (frames, page size, frames by b-tree)."""
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(rec / "base.sqlite", f"{d}/x.sqlite")
        s = open_store(f"sqlite:///{d}/x.sqlite", synchronous="OFF")  # (migrated to this tree's head)
        conn = s.writer_connection()
        raw = conn.connection.driver_connection
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[union-attr]
        raw.execute("PRAGMA wal_autocheckpoint=0")  # type: ignore[union-attr]
        for items in commits:
            s.write_group(items, conn)
        wal = Path(f"{d}/x.sqlite-wal").read_bytes()
        size = struct.unpack(">I", wal[8:12])[0]  # the WAL header's page size; each frame: 24 + size bytes
        pages = [struct.unpack(">I", wal[i : i + 4])[0] for i in range(32, len(wal) - size, 24 + size)]
        db = sqlite3.connect(f"{d}/x.sqlite")
        names = {int(p): str(n) for n, p in db.execute("SELECT name, pageno FROM dbstat")}
        db.close()
        s.release_writer(conn)
        s.close()
    return len(pages), size, Counter(names.get(p, "?") for p in pages)


def python_only(rec: Path, commits: list[Any]) -> float:
    """``write_items`` with its statements' parameters made but not run: its Python's thread CPU (s)."""
    run = batchsql.run

    def made(_raw: Any, _pg: bool, steps: dict[str, list[tuple[Any, ...]]], stamp: str) -> int:
        for name, rows in steps.items():
            wide = batchsql._WIDE.get(name)
            batchsql.chunks([wide(r, stamp) for r in rows] if wide is not None else rows)
        return len(steps["head"])

    batchsql.run = made
    try:
        return replay(rec, commits, digest=False)[0]
    finally:
        batchsql.run = run


def pg_python(commits: list[Any], reps: int) -> tuple[float, float, str]:
    """PostgreSQL's ``_rows`` and ``pgprep.text`` of every commit (heads of 64 zeros, no balances
    read: the same work): the best rep's thread CPU of each (s) and the digest of the texts."""
    from pontoon.history import pgprep, writeitems
    from pontoon.history.seal import SealKey

    class Sealer:
        key = SealKey(b"bench_writer" * 4, "bench")

        def seal_of(self, table_id: int, head: str) -> str:
            return self.key.seal(table_id, head)

    store: Any = Sealer()
    best_rows = best_text = float("inf")
    h = hashlib.sha256()
    for rep in range(reps):
        rows_s = text_s = 0.0
        for items in commits:
            tids = list(dict.fromkeys(t for t, _ in items))
            start: Any = {t: ("0" * 64, {}) for t in tids}
            heads, bals = {t: start[t][0] for t in tids}, {t: {} for t in tids}
            c = time.thread_time()
            steps = writeitems._rows(store, items, heads, bals, start, "2026-11-28T00:00:00.000+00:00", None)
            steps.pop("out")
            m = time.thread_time()
            _want, execs, _n = pgprep.text(steps, "2026-11-28T00:00:00.000+00:00")
            text_s += time.thread_time() - m
            rows_s += m - c
            if rep == 0:
                h.update(";".join(execs).encode())
        best_rows, best_text = min(best_rows, rows_s), min(best_text, text_s)
    return best_rows, best_text, h.hexdigest()[:16]


def _opt(name: str, default: str) -> str:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else default


def main() -> None:
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        return
    known = {"--tables", "--rounds", "--reps", "--save", "--load", "--frames", "--tenths", "--calls"}
    bad = [a for a in sys.argv[1:] if a.startswith("-") and a not in known]
    if bad:
        print(f"error: {bad[0]}: the options are {', '.join(sorted(known))}", file=sys.stderr)
        sys.exit(2)
    tables, rounds, reps = int(_opt("--tables", "100")), int(_opt("--rounds", "20")), int(_opt("--reps", "7"))
    with tempfile.TemporaryDirectory() as tmp:
        rec = Path(_opt("--load", "") or _opt("--save", "") or tmp)
        recorded = ""
        if "--load" not in sys.argv:
            rec.mkdir(parents=True, exist_ok=True)
            record(rec, tables, rounds)
            recorded = f" (the recording's own: {digest_of(rec / 'recording.sqlite')})"
        commits = [pickle.loads(b) for b in pickle.loads((rec / "commits.pkl").read_bytes())]
        per = int(_opt("--calls", "0"))
        if per > 0:  # (the same calls in the same order, regrouped)
            flat = [item for items in commits for item in items]
            commits = [flat[i : i + per] for i in range(0, len(flat), per)]
        events = sum(len(b.rows) for items in commits for _t, batches in items for b in batches)
        calls = sum(len(items) for items in commits)
        spent, digest = [], ""
        tenths: list[float] | None = [] if "--tenths" in sys.argv else None
        for i in range(reps):
            s, d = replay(rec, commits, digest=i == 0, tenths=tenths if i == 0 else None)
            spent.append(s / events * 1e6)
            digest = digest or d
        py = sorted(python_only(rec, commits) / events * 1e6 for _ in range(max(1, reps // 2)))
        wal = frames(rec, commits) if "--frames" in sys.argv else None
        gc.disable()
        pg_rows, pg_text, pg_digest = pg_python(commits, reps)
        gc.enable()
    us = sorted(spent)
    print(
        f"{len(commits)} commits, {calls} table calls, {events} events replayed; rows' digest {digest}{recorded}"
    )
    print(
        f"write_group thread CPU per event: median {statistics.median(us):.2f} us "
        f"({' '.join(f'{x:.2f}' for x in us)}); write_items' Python alone median {statistics.median(py):.2f} us"
    )
    print(
        f"write_group thread CPU per commit: median {statistics.median(us) * events / len(commits):.1f} us; "
        f"write_items' Python alone {statistics.median(py) * events / len(commits):.1f} us "
        f"({calls / len(commits):.1f} calls, {events / len(commits):.1f} events a commit)"
    )
    print(
        f"PostgreSQL's Python a commit (best of {reps}): rows {pg_rows / len(commits) * 1e6:.1f} us, "
        f"the text of EXECUTEs {pg_text / len(commits) * 1e6:.1f} us; the texts' digest {pg_digest}"
    )
    if tenths is not None:  # (the first replay's; each tenth of the commits, its events)
        bounds = [len(commits) * k // 10 for k in range(11)]
        per = [
            sum(len(b.rows) for items in commits[bounds[k] : bounds[k + 1]] for _t, bs in items for b in bs)
            for k in range(10)
        ]
        print(
            "write_group thread CPU per event by tenth of the replay (us): "
            + " ".join(f"{t / max(n, 1) * 1e6:.1f}" for t, n in zip(tenths, per, strict=True))
        )
    if wal is not None:
        n, size, by = wal
        print(
            f"WAL frames written (never checkpointed): {n / events:.3f} an event, {n / len(commits):.1f} a commit, "
            f"{n * (size + 24) / events:.0f} bytes an event ({size}-byte pages); a commit's frames by b-tree: "
            + ", ".join(f"{k} {v / len(commits):.1f}" for k, v in by.most_common())
        )
    print(f"({os.path.dirname(batchsql.__file__)})")


if __name__ == "__main__":
    main()
