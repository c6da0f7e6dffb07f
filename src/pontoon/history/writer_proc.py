"""Group commit in a child process: the store's writer off the server's interpreter lock.

At 100 busy tables the server's event loop and the group commit's writer thread share one interpreter
lock, so the server with a store does the work of both on one core (docs/scale.md, "Why the stores
stop near 0.5x"). ``ProcessCommitter`` is a ``GroupCommitter`` whose writer runs in a child process
(``writer_child.py``): the same ``Store.write_group`` transactions, fences, retries and checkpoints, on
its own connection and its own core. What stays here is each call's hand-off: its batches made plain
tuples and marshalled onto a socket pair (a few microseconds a call) and, after each commit, one
acknowledgement read by a receiver thread that completes the calls' futures.

The guarantees are the thread's:
- an event is shown only once durable: a caller waits for its call's acknowledgement, which the child
  sends only after the commit (``synchronous=FULL`` on SQLite, the fsync on PostgreSQL);
- per-table order: one socket, read in order; the child queues the calls as they arrive;
- a table whose write failed is refused from then on, until ``forgive`` (its recorder attached again):
  the child refuses it as the thread does, and this side too, after a child's death;
- the child's death (killed, out of memory): every call not acknowledged fails, its table is dropped by
  the server (nothing unacknowledged was shown; its committed records rebuild it), and a new child is
  started for the next calls; the kill tests' crash points kill the server itself first, as before;
- several processes on one database (table leases): each call names its web table, and the child checks
  the leases' epochs it was sent in each transaction (``leases.fence_leases``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from pontoon.history.engines import HistoryError
from pontoon.history.group import Done, StaleHead, Waiter, _lower_switch, _restore_switch
from pontoon.history.leases import LeaseLost
from pontoon.history.store import Batch, Store
from pontoon.history.writer_wire import Reader, encode, flat

START_S = 60.0  # the longest a new child may take to open the database and say it is ready
SWITCH_S = 0.0005  # the switch interval while a writer process runs (the receiver takes the lock sooner)
_ERRORS: dict[str, type[HistoryError]] = {"LeaseLost": LeaseLost, "StaleHead": StaleHead}

Flight = tuple[int, Done]  # (table id, what its commit completes)


class WriterGone(HistoryError):
    """The writer process stopped before it acknowledged a call (the call may or may not be durable:
    nothing of it was shown; the table's committed records are the truth)."""


class ProcessCommitter:
    """A store's group commit with its writer in a child process (see the module's text). The same
    calls as ``GroupCommitter``: ``submit``, ``enqueue``, ``write``, ``pending``, ``drain``,
    ``forgive``, ``close``, ``failed``."""

    def __init__(self, store: Store, *, synchronous: str = "FULL") -> None:
        self.store = store
        self.synchronous = synchronous
        self.lock = threading.Lock()  # the socket's sends, the calls in flight
        self.failed: dict[int, BaseException] = {}
        self.closed = False
        self.groups = 0  # the child's transactions committed (as acknowledged)
        self.items = 0
        self.restarts = 0  # children started after a death
        self.idle_hook: Callable[[Connection], None] | None = None  # (the child runs the checkpoints)
        self.inflight: dict[int, Flight] = {}  # seq -> call sent, not acknowledged yet
        self.last: dict[int, Flight] = {}  # each table's newest call with a Future, not completed yet
        self.seq = 0
        self.owner: str | None = None  # table leases: our owner name and each web table's epoch
        self.epochs: dict[str, int] = {}
        self.web_of: Callable[[int], str | None] | None = None  # a store table's web table (leases)
        self.dead: HistoryError | None = None  # no child could be started: every call fails
        self.pid = 0
        _lower_switch(SWITCH_S)  # the receiver thread takes the lock from a busy loop within this
        try:
            self._start()
        except BaseException:
            _restore_switch()
            raise

    # ------------------------------------------------------------------ the child
    def _start(self) -> None:
        """(Under ``lock``, or from ``__init__``.) A new child, its database open, ready for calls."""
        ours, theirs = socket.socketpair()
        env = dict(os.environ)
        src = str(Path(__file__).resolve().parents[2])  # this very package, whatever the caller's path
        env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
        proc = subprocess.Popen(
            [sys.executable, "-m", "pontoon.history.writer_child", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            env=env,
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        key = self.store.key
        opening = ("open", self.store.url, self.synchronous, key and (key.key, key.source), os.getpid())
        reader = Reader(ours)
        ours.sendall(encode(opening))
        ours.settimeout(START_S)
        try:
            said = reader.messages()
        except TimeoutError:
            said = None
        ours.settimeout(None)
        if not said or said[0][0] != "ready":
            ours.close()
            proc.kill()
            proc.wait()
            why = (
                said[0][1] if said and said[0][0] == "error" else f"it stopped (exit code {proc.returncode})"
            )
            raise HistoryError(f"the store's writer process could not start: {why}")
        self.sock, self.proc, self.pid = ours, proc, int(said[0][1])
        if self.owner is not None:  # a restart: the leases as they stand
            ours.sendall(b"".join(encode(m) for m in self._lease_messages()))
        self.thread = threading.Thread(
            target=self._receive, args=(ours, reader, proc), name="pontoon-writer-acks", daemon=True
        )
        self.thread.start()

    def _lease_messages(self) -> list[Any]:
        return [("o", self.owner), *(("e", w, e) for w, e in self.epochs.items())]

    def _receive(self, sock: socket.socket, reader: Reader, proc: subprocess.Popen[bytes]) -> None:
        """(The receiver thread.) Every acknowledgement, then the child's end."""
        while (msgs := reader.messages()) is not None:
            for groups, items, ok, err in msgs:
                self._acked(groups, items, ok, err)
        self._gone(sock, proc)

    def _acked(self, groups: int, items: int, ok: list[Any], err: list[Any]) -> None:
        done: list[tuple[Done, str]] = []
        bad: list[tuple[Done, BaseException]] = []
        with self.lock:
            self.groups, self.items = groups, items
            inflight, last = self.inflight, self.last
            for seq, head in ok:
                item = inflight.pop(seq)
                if last.get(item[0]) is item:
                    del last[item[0]]
                done.append((item[1], head))
            for seq, kind, text in err:
                item = inflight.pop(seq)
                if last.get(item[0]) is item:
                    del last[item[0]]
                error = _ERRORS.get(kind, HistoryError)(text)
                self.failed[item[0]] = error  # (before its caller wakes: it reads ``failed`` then)
                bad.append((item[1], error))
        for d, head in done:
            d.set_result(head)
        for d, why in bad:
            d.set_exception(why)

    def _gone(self, sock: socket.socket, proc: subprocess.Popen[bytes]) -> None:
        """The child's end: every call it did not acknowledge fails; a new child unless closing."""
        code = proc.wait()
        sock.close()
        with self.lock:
            lost = list(self.inflight.values())
            self.inflight.clear()
            self.last.clear()
            gone = WriterGone(
                f"the store's writer process stopped (exit code {code}) before it acknowledged this "
                "table's write: nothing of it was shown; its committed records are the truth"
            )
            for tid, _d in lost:
                self.failed[tid] = gone
            if not self.closed and self.sock is sock:
                try:
                    self._start()
                    self.restarts += 1
                except HistoryError as err:
                    self.dead = err
        for _tid, d in lost:
            d.set_exception(gone)

    # ------------------------------------------------------------------ the calls
    def _send(self, table_id: int, batches: Sequence[Batch], done: Done) -> Flight:
        """(Under ``lock``.) One call to the child, in flight until its acknowledgement."""
        if self.closed:
            raise HistoryError("the history store is closed: nothing more can be written")
        if self.dead is not None:
            raise self.dead
        self.seq += 1
        crash = self.store._crash
        crash.count += 1  # (the kill tests' numbering: ``writer_child.ChildCommitter``)
        web = self.web_of(table_id) if self.web_of is not None else None
        item = (table_id, done)
        self.inflight[self.seq] = item
        msg = encode(("w", self.seq, table_id, crash.count, web, flat(batches)))
        try:
            self.sock.sendall(msg)
        except OSError:  # the child died: the receiver fails every call in flight (this one too)
            pass
        return item

    def submit(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        fut: Future[str] = Future()
        with self.lock:
            err = self.failed.get(table_id) if self.restarts else None
            if err is not None:  # (after a child's death: the new child does not know it failed)
                fut.set_exception(err)
                return fut
            self.last[table_id] = self._send(table_id, batches, fut)
        return fut

    def enqueue(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        """``GroupCommitter.enqueue``, with a Future of its own (``submit``): the child's groups are
        known here only at their acknowledgement, so a Future shared by the calls sent between two
        acknowledgements would wait for a later commit than its first calls' (the event loop's
        ``Wakeups`` wake it once per acknowledgement all the same)."""
        return self.submit(table_id, batches)

    def write(self, table_id: int, batches: Sequence[Batch]) -> str:
        waiter = Waiter()
        with self.lock:
            err = self.failed.get(table_id) if self.restarts else None
            if err is not None:
                raise err
            self._send(table_id, batches, waiter)
        return waiter.result()

    def pending(self, table_id: int) -> Future[str] | None:
        item = self.last.get(table_id)
        if item is None:
            return None
        fut = item[1]  # (a Future: ``write``'s Waiters are not in ``last``)
        assert isinstance(fut, Future)
        return fut

    def drain(self) -> None:
        with self.lock:
            futs = [d for _t, d in self.last.values() if isinstance(d, Future)]
        for f in futs:
            f.exception()

    def forgive(self, table_id: int) -> None:
        """A recorder attached to ``table_id`` again: the child reads its head anew and writes it."""
        with self.lock:
            self.failed.pop(table_id, None)
            if not self.closed and self.dead is None:
                try:
                    self.sock.sendall(encode(("f", table_id)))
                except OSError:
                    pass

    # ------------------------------------------------------------------ leases
    def lease_owner(self, owner: str) -> None:
        """Several processes on one database: fence every write with our leases (``web_of`` names each
        store table's web table)."""
        with self.lock:
            self.owner = owner
            self.sock.sendall(b"".join(encode(m) for m in self._lease_messages()))

    def lease_epoch(self, web_id: str, epoch: int) -> None:
        """(``Leases.watch``.) An epoch we claimed."""
        with self.lock:
            self.epochs[web_id] = epoch
            if self.owner is not None:
                try:
                    self.sock.sendall(encode(("e", web_id, epoch)))
                except OSError:
                    pass

    def close(self) -> None:
        """Everything sent committed and acknowledged, then the child's end."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            try:
                self.sock.shutdown(socket.SHUT_WR)  # the child drains its queue, then ends
            except OSError:
                pass
        self.thread.join()
        _restore_switch()


def start_writer_process(store: Store, *, synchronous: str = "FULL") -> ProcessCommitter:
    """Group commit from now on through a writer process (``store.group``); refused when the store's
    writes carry per-table fences that cannot cross a process (a session lock's: ``locks.py``)."""
    if store.group is not None:
        if isinstance(store.group, ProcessCommitter):
            return store.group
        raise HistoryError("the store already has a writer thread: one writer per store")
    if store.fences or store.fences_many:
        raise HistoryError("a store with fences in this process cannot hand its writes to a writer process")
    if store.readonly:
        raise HistoryError(f"the history at {store.url:.200} was opened read-only: it cannot be written")
    group = ProcessCommitter(store, synchronous=synchronous)
    store.group = group
    return group


__all__ = ["ProcessCommitter", "WriterGone", "start_writer_process"]
