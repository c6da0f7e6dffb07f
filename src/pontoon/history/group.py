"""Group commit: the writes of every table that arrive within a short window, in ONE transaction.

``write_items(store, conn, items, cached)`` (``writeitems.py``, re-exported here) writes the batches of several tables with multi-row
statements per kind of row, on SQLite and on PostgreSQL alike (``batchsql.py``: the events of all of
them, their ledger rows, the upsert of the running account balances, the round ends, the chain heads),
sent by the driver with no id read beforehand: on PostgreSQL the writer thread's transaction, its
COMMIT included, is one round trip whatever the number of tables (``batchsql.run``). Each table's events keep their order and their hash chain
(``prev_hash``: the head the writer remembers, or reads for a table it has not written yet; the head
update moves it only from that head, so a head moved by another writer fails the transaction with
``StaleHead`` and ``Store.write_group`` writes it again from the stored heads), and each table's head is
sealed (``seal.py``) as before.

``GroupCommitter`` is a writer thread: ``submit(table_id, batches)`` queues one table call's batches and
returns a ``Future`` that completes once they are COMMITTED (durable: ``synchronous=FULL`` on SQLite,
fsync on PostgreSQL); ``write(table_id, batches)`` queues it and waits for that commit in the calling
thread, on a ``Waiter`` (a lock: lighter than a ``Future``). The thread takes everything queued (what arrived while the previous commit was
being fsynced), writes it in one transaction and completes the futures in order. ``window_s`` (0 by
default) is waited only while the writer is busy (its last commit carried several calls): an idle
writer commits a lone call at once. The thread keeps one connection for its transactions (no pool
checkout per commit; a new one after a failed transaction, and on PostgreSQL after ``idle_s`` without a
commit, so that the pool's pre-ping checks it as before: a server restarted meanwhile).
``enqueue(table_id, batches)`` (the table server) queues a call without a Future of its own: the calls
queued until the writer takes them share one (``Shared``), completed once all of them are committed.
A caller that shows an event waits for its future first, so an event is shown only once it is durable.
If the shared transaction fails (a lease lost by one table: its fence), each item is retried alone, so
one table's refusal is that table's only. A table whose write failed is refused from then on (its
chain must not skip the lost events) until a recorder is attached to it again (``forgive``).
``idle_hook`` (SQLite's checkpointer, ``checkpoints.py``) is run by the writer thread on its connection
when nothing is queued, before it waits: the end of a WAL checkpoint with no commit beside it.
While it commits, the writer runs with a short switch interval (``COMMIT_SWITCH_S``): the driver
releases the GIL for every statement, and the writer takes it back from a busy event loop sooner; so
does a call that wakes the idle writer, until the writer has taken the queue (``_hand_off``).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, Protocol

from sqlalchemy import Connection, Engine

from pontoon.history.engines import HistoryError
from pontoon.history.writeitems import (
    Batch,
    Heads,
    Item,
    Rounds,
    StaleHead,
    Store,
    load_heads,
    write_items,
)


class transaction:  # (lower case: used as the function it was, ``with transaction(...) as conn``)
    """One write transaction: on a connection from the pool (``held`` None), else on the writer
    thread's own ``held`` connection: through SQLAlchemy when ``fenced`` (the lease fences read through
    it), else the driver's own transaction (``BEGIN IMMEDIATE``/``COMMIT`` on SQLite, psycopg's on
    PostgreSQL): no SQLAlchemy begin and commit per group. (A class, not a generator's context
    manager: once a commit, its generator's frame and its ``contextmanager`` cost ~3 us.) Rolled back
    when the block raises, committed when it ends; the error raised as it was."""

    __slots__ = ("engine", "held", "fenced", "ctx", "raw", "sqlite")

    def __init__(self, engine: Engine, held: Connection | None, fenced: bool) -> None:
        self.engine = engine
        self.held = held
        self.fenced = fenced
        self.ctx: Any = None  # SQLAlchemy's own transaction (a pool's connection, or fenced)
        self.raw: Any = None
        self.sqlite = False

    def __enter__(self) -> Connection:
        held = self.held
        if held is None:
            self.ctx = self.engine.begin()
            return self.ctx.__enter__()  # type: ignore[no-any-return]
        if self.fenced:
            self.ctx = held.begin()
            self.ctx.__enter__()
            return held
        raw: Any = held.connection.driver_connection
        self.raw = raw
        self.sqlite = held.dialect.name == "sqlite"
        if self.sqlite:
            raw.execute("BEGIN IMMEDIATE")
        return held

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: Any) -> None:
        if self.ctx is not None:
            self.ctx.__exit__(kind, error, tb)
            return
        raw = self.raw
        if kind is not None:
            raw.rollback()
            return
        if self.sqlite:
            raw.execute("COMMIT")
        else:  # (nothing sent when it was committed in the statements' pipeline: ``write_items``' commit)
            raw.commit()


class Waiter:
    """One call's commit awaited by the thread that queued it (``GroupCommitter.write``): a lock
    released at the commit. A ``Future`` makes a condition per call and takes it to complete and to
    wait; nothing else waits for this one (``pending`` and ``drain`` are for the deferred callers)."""

    __slots__ = ("_lock", "_head", "_error")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()
        self._head = ""
        self._error: BaseException | None = None

    def set_result(self, head: str) -> None:
        self._head = head
        self._lock.release()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._lock.release()

    def done(self) -> bool:
        return not self._lock.locked()

    def result(self) -> str:
        with self._lock:  # released at the commit (or its failure)
            pass
        if self._error is not None:
            raise self._error
        return self._head


class Shared:
    """The commit of every table call queued by ``enqueue`` until the writer takes the queue: ONE
    ``Future`` for all of them (not one per call), completed once the last of them is committed (or
    failed: a table whose write failed is in ``GroupCommitter.failed``, which its caller reads after
    the wait). ``left`` is counted up under the writer's lock while the share is open and down by the
    writer thread alone once it is closed (taken)."""

    __slots__ = ("future", "left")

    def __init__(self) -> None:
        self.future: Future[str] = Future()
        self.left = 0

    def set_result(self, head: str) -> None:
        self.left -= 1
        if self.left == 0:
            self.future.set_result("")

    def set_exception(self, error: BaseException) -> None:
        self.set_result("")  # the table's error is in ``failed`` (the other tables' calls committed)


class Completion(Protocol):
    """What a queued call's commit completes (a ``Future``, a ``Waiter``, a ``Shared``, or the writer
    process's acknowledgement: ``writer_child.Ack``)."""

    def set_result(self, head: str) -> None: ...

    def set_exception(self, error: BaseException) -> None: ...


Done = Future[str] | Waiter | Shared | Completion
Queued = tuple[int, Sequence[Batch], Done]


def _future(done: Done) -> Future[str]:
    """The Future of a call in ``last`` (queued by ``submit`` or ``enqueue``: never a ``Waiter``)."""
    if type(done) is Shared:
        return done.future
    assert isinstance(done, Future)
    return done


class Committer(Protocol):
    """What a store's group commit offers its callers, in a thread (``GroupCommitter``) or in a child
    process (``writer_proc.ProcessCommitter``)."""

    failed: dict[int, BaseException]
    closed: bool
    groups: int
    items: int
    idle_hook: Callable[[Connection], None] | None

    def submit(self, table_id: int, batches: Sequence[Batch]) -> Future[str]: ...

    def enqueue(self, table_id: int, batches: Sequence[Batch]) -> Future[str]: ...

    def write(self, table_id: int, batches: Sequence[Batch]) -> str: ...

    def pending(self, table_id: int) -> Future[str] | None: ...

    def drain(self) -> None: ...

    def forgive(self, table_id: int) -> None: ...

    def close(self) -> None: ...


# The interpreter's switch interval while the writer commits (``GroupCommitter.switch_s``): the driver
# releases the GIL for each statement it steps (about 20 a commit: BEGIN, the multi-row statements,
# COMMIT and its fsync) and the writer must take it back each time; a thread waiting for the GIL asks
# its holder to let go only after the interval (Python's 5 ms), so while the event loop is busy (the
# human-paced server) a commit waited up to 5 ms after each statement: 20 x 5 ms in the commit's wait.
# With 0.5 ms it waits at most that; outside its commits the interval is Python's again (the loop is
# not made to switch while the writer has nothing to do). docs/scale-log.md, "The store's commit wait and young collections".
COMMIT_SWITCH_S = 0.0005
_switch = threading.Lock()
_switching = [0, 0.0]  # writers inside a commit now, the interval to put back when the last is out


def _lower_switch(to: float) -> None:
    with _switch:
        if _switching[0] == 0:
            _switching[1] = sys.getswitchinterval()
            sys.setswitchinterval(min(_switching[1], to))
        _switching[0] += 1


def _restore_switch() -> None:
    with _switch:
        _switching[0] -= 1
        if _switching[0] == 0:
            sys.setswitchinterval(_switching[1])


class GroupCommitter:
    """The writer thread of a ``Store`` (see the module's text)."""

    def __init__(
        self,
        store: Store,
        *,
        window_s: float = 0.0,
        max_items: int = 2000,
        switch_s: float | None = COMMIT_SWITCH_S,
        thread: bool = True,
    ) -> None:
        self.store = store
        self.switch_s = switch_s  # the switch interval during a commit (None: left alone)
        self.window_s = window_s
        self.max_items = max_items
        self.queue: deque[Queued] = deque()
        self.cv = threading.Condition()
        self.closed = False
        self.failed: dict[int, BaseException] = {}  # table id -> why its write failed (refused from then on)
        self.last: dict[int, Queued] = {}  # each table's newest submission not yet completed
        self.share: Shared | None = None  # the share that ``enqueue`` adds calls to (open till taken)
        self.idle = False  # the writer waits for work (``cv``): a new call notifies it
        self.lowered = False  # the switch interval lowered by a hand-off until the writer takes the queue
        self.groups = 0  # transactions committed (for the benchmarks)
        self.items = 0
        self.waited = 0  # windows waited (only while busy: ``_run``)
        self.busy = False  # the last commit carried several calls (load): the next may wait the window
        self.conn: Connection | None = None  # the writer thread's connection, kept between commits
        self.idle_s = 1.0  # PostgreSQL: a connection idle this long is given back (pre-pinged anew)
        self.used = 0.0  # time.monotonic() of its last commit
        # run by the writer thread on its connection when it has nothing queued, before it waits (SQLite:
        # the end of a WAL checkpoint, ``checkpoints.py``); its errors are its own (caught, counted)
        self.idle_hook: Callable[[Connection], None] | None = None
        self.hook_errors = 0
        self.thread = threading.Thread(target=self._run, name="pontoon-group-commit", daemon=True)
        if thread:  # (else the caller's own thread commits: ``_commit``, as the writer process does)
            self.thread.start()

    def submit(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        fut: Future[str] = Future()
        with self.cv:
            if self.closed:
                raise HistoryError("the history store is closed: nothing more can be written")
            item = (table_id, list(batches), fut)
            self.queue.append(item)
            self.last[table_id] = item
            if self.idle:
                self._hand_off()
        return fut

    def enqueue(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        """``submit`` without a Future of its own: the call joins the share of the calls queued until
        the writer takes them (``Shared``), and the Future returned (also ``pending(table_id)``) is that
        share's: it completes once every call of it is committed. Its result is no head and it carries
        no error: a caller reads ``failed`` after it (``StorePersistence.settle``)."""
        with self.cv:
            if self.closed:
                raise HistoryError("the history store is closed: nothing more can be written")
            share = self.share
            if share is None:
                share = self.share = Shared()
            share.left += 1
            item = (table_id, batches, share)
            self.queue.append(item)
            self.last[table_id] = item
            if self.idle:
                self._hand_off()
        return share.future

    def write(self, table_id: int, batches: Sequence[Batch]) -> str:
        """Queue one table call's batches and wait here until they are committed (the new head)."""
        waiter = Waiter()
        with self.cv:
            if self.closed:
                raise HistoryError("the history store is closed: nothing more can be written")
            self.queue.append((table_id, list(batches), waiter))
            if self.idle:
                self._hand_off()
        return waiter.result()

    def _hand_off(self) -> None:
        """(Under ``cv``.) Wake the idle writer, the switch interval at ``switch_s`` until it has taken
        the queue: it needs the GIL to return from its wait, and a busy event loop would hold it for
        Python's 5 ms (the hand-off measured 7.7 ms p99 at 1,000 human-paced tables)."""
        if self.switch_s is not None and not self.lowered:
            _lower_switch(self.switch_s)
            self.lowered = True
        self.cv.notify()

    def pending(self, table_id: int) -> Future[str] | None:
        """The newest write of ``table_id`` not yet completed (None: everything is committed). (One
        read of a dict, atomic: no lock taken; the caller's own writes are in it already.)"""
        item = self.last.get(table_id)
        return None if item is None else _future(item[2])

    def drain(self) -> None:
        """Wait until everything submitted so far is committed (or failed)."""
        with self.cv:
            futs = [_future(item[2]) for item in self.last.values()]
        for f in futs:
            f.exception()

    def forgive(self, table_id: int) -> None:
        """A recorder attached to ``table_id`` again (recovered from the committed records)."""
        with self.cv:
            self.failed.pop(table_id, None)

    def close(self) -> None:
        with self.cv:
            self.closed = True
            self.cv.notify()
        if self.thread.ident is not None:
            self.thread.join()
        else:
            self._close_conn()

    def _run(self) -> None:
        while True:
            hook = self.idle_hook
            if hook is not None and not self.queue and self.conn is not None:
                try:
                    hook(self.conn)
                except Exception:  # noqa: BLE001 (a hook's failure is not a write's)
                    self.hook_errors += 1
            with self.cv:
                while not self.queue and not self.closed:
                    self.idle = True
                    self.cv.wait()
                self.idle = False
                if not self.queue:
                    if self.lowered:
                        self.lowered = False
                        _restore_switch()
                    self._close_conn()
                    return
            if self.window_s > 0 and self.busy:  # idle: a lone call is committed at once
                self.waited += 1
                time.sleep(self.window_s)
            with self.cv:
                n = min(len(self.queue), self.max_items)
                group = [self.queue.popleft() for _ in range(n)]
                self.share = None  # closed: its count is final (the calls after it share another)
                if self.lowered:  # (taken: ``_write`` lowers it for the commit itself)
                    self.lowered = False
                    _restore_switch()
            self._commit(group)

    def _commit(self, group: list[Queued]) -> None:
        live = []
        for item in group:
            err = self.failed.get(item[0])
            if err is not None:
                self._done(item, error=err)
            else:
                live.append(item)
        if not live:
            return
        try:
            if self.conn is not None and time.monotonic() - self.used > self.idle_s:
                if self.conn.dialect.name == "postgresql":  # a server may have gone away meanwhile
                    self._close_conn()
            if self.conn is None:
                self.conn = self.store.writer_connection()
            heads = self._write([(t, b) for t, b, _ in live])
        except BaseException as err:  # noqa: BLE001 (every error goes to the callers)
            self._close_conn()  # rolled back; a broken connection is not reused
            if len(live) == 1:
                self.failed[live[0][0]] = err
                self._done(live[0], error=err)
                return
            for one in live:  # one table's refusal (its lease lost) must not fail the others
                self._commit([one])
            return
        self.used = time.monotonic()
        self.groups += 1
        self.items += len(live)
        self.busy = len(group) > 1
        with self.cv:  # committed: none of them is pending any more (one lock for the whole group)
            last = self.last
            for item in live:
                if last.get(item[0]) is item:
                    del last[item[0]]
        for (_t, _b, fut), head in zip(live, heads, strict=True):
            fut.set_result(head)

    def _write(self, items: list[Item]) -> list[str]:
        """``Store.write_group`` of ``items`` on the writer's connection, the switch interval at
        ``switch_s`` meanwhile (``COMMIT_SWITCH_S``) and put back after."""
        assert self.conn is not None
        if self.switch_s is None:
            return self.store.write_group(items, self.conn)
        _lower_switch(self.switch_s)  # (several writers in one process: the first in lowers it)
        try:
            return self.store.write_group(items, self.conn)
        finally:
            _restore_switch()

    def _close_conn(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            self.store.release_writer(conn)

    def _done(self, item: Queued, *, head: str = "", error: BaseException | None = None) -> None:
        fut = item[2]
        with self.cv:
            if self.last.get(item[0]) is item:
                del self.last[item[0]]
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(head)


__all__ = [
    "COMMIT_SWITCH_S",
    "Committer",
    "Completion",
    "GroupCommitter",
    "Heads",
    "Item",
    "Rounds",
    "Shared",
    "StaleHead",
    "Store",
    "Waiter",
    "load_heads",
    "transaction",
    "write_items",
]
