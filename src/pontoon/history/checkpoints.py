"""SQLite's WAL checkpoints off the commit path: a thread of their own (``Checkpointer``).

By default a SQLite connection checkpoints the WAL itself once a commit leaves it at 1,000 pages or more
(``wal_autocheckpoint``): inside that COMMIT, on the committing thread, the WAL's pages are copied into
the database file and the file is fsynced. The group commit's writer (``group.py``) would hold every call
of that commit, and every call queued behind it, for the checkpoint's writes and its fsync: measured at
1,000 human-paced tables, 243 of 8,410 commits in 60 s carried one, their COMMIT 7.1 ms p50 and up to
28 ms against 0.47 ms (docs/scale-log.md, "The SQLite commit's tail").

``Checkpointer(store)`` runs ``PRAGMA wal_checkpoint(PASSIVE)`` on a connection of its own, in its own
thread, every ``every_s`` while the writer has committed since its last pass: PASSIVE copies what no
reader still needs without taking the write lock and without waiting (the writer commits meanwhile:
its frames come after the pass's, for the next one). The driver releases the GIL while SQLite works,
so the server's threads run meanwhile. Frequent passes keep the WAL short, under the 1,000 pages of
the writer's automatic checkpoint, which then seldom runs: it stays on, so the WAL is bounded whatever
this thread does (stopped, or slower than the writes: the writer's own checkpoint takes over). A pass
copies the frames committed before it began; the WAL starts again from its beginning (SQLite's restart)
only when a commit begins with every frame copied, which a pass beside a busy writer seldom leaves. So
once a pass finds the WAL at ``FINISH_AT`` frames or more, the writer thread, when nothing is queued
(``GroupCommitter.idle_hook``: ``finish``), runs the same PASSIVE checkpoint on its own connection: no
commit beside it, it copies what the passes left (the frames since the last one) and the writer's next
commit restarts the WAL; the file stays under the 1,000 pages.

One thread per store (``start_checkpointer``: a second call for the same store returns the first's).
It ends once the store's group commit is closed (``Store.close``); while the writer commits nothing it
looks every ``IDLE_S`` only.

The connection syncs as the writer's (``synchronous=FULL``: the WAL before the copy, the database after
it; a pass cut by a kill leaves the WAL whole and the next pass, or the next opening, does it again).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import weakref
from typing import Any

from pontoon.history.dbfile import parse_sqlite
from pontoon.history.engines import BUSY_TIMEOUT_MS

EVERY_S = 0.1  # a pass every 100 ms while there are commits: at 800 actions/s about 400 WAL frames each
FINISH_AT = 300  # WAL frames since its restart from which the idle writer ends the checkpoint
IDLE_S = 0.25  # the look for commits while there were none (a store left open costs 4 wake-ups a second)


class Checkpointer:
    """The WAL checkpoints of ``store``'s SQLite file, in a thread (see the module's text). ``passes``:
    the checkpoints run; ``frames``: the WAL frames they copied; ``log_max``: the longest WAL a pass
    found (frames since its last restart)."""

    def __init__(self, store: Any, *, every_s: float = EVERY_S) -> None:
        target = parse_sqlite(str(store.engine.url))
        if target is None or store.engine.dialect.name != "sqlite":
            raise ValueError("a Checkpointer is for a SQLite store")
        self.store = store
        self.every_s = every_s
        self.conn = sqlite3.connect(
            target.uri(readonly=False), uri=True, check_same_thread=False, isolation_level=None
        )
        self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA wal_autocheckpoint=0")  # (it never writes: belt and braces)
        self.stop = threading.Event()
        self.passes = 0
        self.frames = 0
        self.log_max = 0
        self.log = self.done = 0  # the WAL's frames and those copied, at the last pass
        self.seen = -1  # the writer's commits counted at the last pass
        self.finish_wanted = False  # a pass found the WAL long: the writer ends the checkpoint when idle
        self.finishes = 0
        self.cpu = self.finish_cpu = (
            0.0  # CPU seconds of the passes (this thread) and of the finishes (the writer)
        )
        group = store.group
        if group is not None:
            group.idle_hook = self.finish
        self.thread = threading.Thread(target=self._run, name="pontoon-checkpoint", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            wait = self.every_s
            while not self.stop.wait(wait):
                group = self.store.group
                if group is None or group.closed:
                    return
                n = int(group.groups)
                wait = self.every_s if n != self.seen else min(IDLE_S, wait * 2)
                if n != self.seen:
                    self.seen = n
                    self.run_once()
        finally:
            self.conn.close()

    def finish(self, conn: Any) -> None:
        """(The writer thread's, when it has nothing queued: ``GroupCommitter.idle_hook``.) Once a pass
        found the WAL at ``FINISH_AT`` frames or more, a PASSIVE checkpoint on the writer's own
        connection: no commit runs beside it, so it copies what the passes left (the frames committed
        since the last one) and leaves the WAL copied whole: the writer's next commit restarts it."""
        if not self.finish_wanted:
            return
        self.finish_wanted = False
        c0 = time.thread_time()
        raw = conn.connection.driver_connection
        raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self.finishes += 1
        self.finish_cpu += time.thread_time() - c0

    def run_once(self) -> tuple[int, int, int]:
        """One PASSIVE checkpoint now: (busy, frames in the WAL, frames copied), as SQLite says."""
        c0 = time.thread_time()
        try:
            row = self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0]
        except sqlite3.Error:  # (the file gone, a closing store: the writer's own checkpoint remains)
            return (1, -1, -1)
        busy, log, done = (int(x) for x in row)
        self.cpu += time.thread_time() - c0
        self.passes += 1
        self.frames += max(0, done - (self.done if log >= self.log else 0))  # (a restart: counted anew)
        self.log, self.done = log, done
        self.log_max = max(self.log_max, log)
        if log >= FINISH_AT:
            self.finish_wanted = True
        return busy, log, done

    def close(self) -> None:
        group = self.store.group
        if group is not None and group.idle_hook == self.finish:
            group.idle_hook = None
        self.stop.set()
        if self.thread is not threading.current_thread():
            self.thread.join()


_RUNNING: weakref.WeakKeyDictionary[Any, Checkpointer] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def start_checkpointer(store: Any, *, every_s: float = EVERY_S) -> Checkpointer | None:
    """The ``Checkpointer`` of a SQLite store, started at the first call (None for PostgreSQL, whose
    server checkpoints itself, and for a store without group commit)."""
    if store.engine.dialect.name != "sqlite" or store.group is None:
        return None
    with _LOCK:
        cp = _RUNNING.get(store)
        if cp is None or not cp.thread.is_alive():
            cp = _RUNNING[store] = Checkpointer(store, every_s=every_s)
        return cp


def wal_pages(path: str) -> int:
    """The size of ``path``'s WAL file in pages of 4 KB (its longest since it was made: SQLite reuses it
    from the start after a restart, it does not shrink it)."""
    try:
        return os.stat(path + "-wal").st_size // 4096
    except OSError:
        return 0


__all__ = ["EVERY_S", "FINISH_AT", "IDLE_S", "Checkpointer", "start_checkpointer", "wal_pages"]
