"""Group commit in a child process: the store's writer off the server's interpreter lock.

At 100 busy tables the server's event loop and the group commit's writer thread share one interpreter
lock, so the server with a store does the work of both on one core (docs/scale-log.md, "On the idle
machine (2026-11-28 15:11-15:26)"). ``ProcessCommitter`` is a ``GroupCommitter`` whose writer runs in a child process
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
  started for the next calls OFF the event loop (``_starter``; ``writer_start.py``: 0.6-0.8 s that
  held every table of the server before): the calls made meanwhile are held, in order, and sent to it
  once it is ready (those of the failed tables refused here); if none can be started (not ready in
  ``start_s``, or dead before ready twice), they fail with the line that says why, and so does every
  later call (``dead``); the kill tests' crash points kill the server itself first, as before;
- several processes on one database (table leases): each call names its web table, and the child checks
  the leases' epochs it was sent in each transaction (``leases.fence_leases``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from sqlalchemy import Connection

from pontoon.history.engines import HistoryError
from pontoon.history.group import Done, Shared, StaleHead, Waiter, _lower_switch, _restore_switch
from pontoon.history.leases import LeaseLost
from pontoon.history.store import Batch, Store
from pontoon.history.writer_start import COMMAND, Awaiting, Spawned, Start, spawn
from pontoon.history.writer_wire import Reader, encode, flat, send_all

log = logging.getLogger("pontoon.history")
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
        # the socket's sends, the calls in flight (re-entrant: a send on the loop's thread may read and
        # complete acknowledgements meanwhile: ``_out``)
        self.lock = threading.RLock()
        self.failed: dict[int, BaseException] = {}
        self.closed = False
        self.groups = 0  # the child's transactions committed (as acknowledged)
        self.items = 0
        self.restarts = 0  # deaths followed by a successor's start (counted at the death: ``failed`` refuses)
        self.idle_hook: Callable[[Connection], None] | None = None  # (the child runs the checkpoints)
        self.inflight: dict[int, Flight] = {}  # seq -> call sent, not acknowledged yet
        self.last: dict[int, Flight] = {}  # each table's newest call with a Future, not completed yet
        self.seq = 0
        self.owner: str | None = None  # table leases: our owner name and each web table's epoch
        self.epochs: dict[str, int] = {}
        self.web_of: Callable[[int], str | None] | None = None  # a store table's web table (leases)
        self.dead: HistoryError | None = None  # no child could be started: every call fails
        self.loop: asyncio.AbstractEventLoop | None = (
            None  # the event loop that reads the acks (``use_loop``)
        )
        self.loop_thread = 0
        self.handing = False  # (``use_loop``: the receiver thread stops at the ping's echo)
        self.out: list[bytes] = []  # (the loop's) this turn's calls, sent at its end (``_flush``)
        self.flushing = False  # a ``_flush`` is due
        self.share: Shared | None = None  # (the loop's) the Future this turn's ``enqueue`` calls share
        self.pid = 0
        self.start_s = START_S  # the longest a child may take to be ready
        self.command: Sequence[str] = COMMAND  # how a child is run (its socket's number added)
        self.starting: Start | None = None  # a successor being started (off the loop): calls are held
        self.held: list[bytes] = []  # (under ``lock``) the bytes for the successor, in order
        self.reader: Reader | Awaiting  # the acknowledgements (``Awaiting`` while a successor starts)
        _lower_switch(SWITCH_S)  # the receiver thread takes the lock from a busy loop within this
        self.lowered = True  # (until the loop reads the acknowledgements itself: ``use_loop``)
        try:
            self._start()
        except BaseException:
            _restore_switch()
            raise

    # ------------------------------------------------------------------ the child
    def _start(self) -> None:
        """(``__init__``, before any call.) The first child, ready, its acknowledgements read by a
        receiver thread."""
        self._adopt(spawn(self._opening(), self.start_s, self.command))

    def _opening(self) -> tuple[Any, ...]:
        key = self.store.key
        return ("open", self.store.url, self.synchronous, key and (key.key, key.source), os.getpid())

    def _adopt(self, child: Spawned) -> None:
        """(Under ``lock``, or from ``__init__``.) ``child`` takes the calls: the leases as they stand,
        then what was held while it started, in order; its acknowledgements read by a receiver thread
        before ``use_loop``, by the event loop after (``add_reader``: on the loop's thread, which is
        where ``_finish`` adopts a successor unless closing, when ``close`` reads the rest itself)."""
        self.sock, self.reader, self.proc, self.pid = child
        held, self.held = self.held, []
        if self.owner is not None:  # a successor: the leases first
            held[:0] = [b"".join(encode(m) for m in self._lease_messages())]
        if self.loop is None:
            self.thread = threading.Thread(
                target=self._receive,
                args=(child.sock, child.reader, child.proc),
                name="pontoon-writer-acks",
                daemon=True,
            )
            self.thread.start()
        elif not self.closed:
            self.loop.add_reader(child.sock.fileno(), self._readable)
        if held:
            try:
                self._out(b"".join(held))
            except OSError:  # it died already: its end fails the calls (read where acks are read)
                pass

    def _lease_messages(self) -> list[Any]:
        return [("o", self.owner), *(("e", w, e) for w, e in self.epochs.items())]

    def _receive(self, sock: socket.socket, reader: Reader, proc: subprocess.Popen[bytes]) -> None:
        """(The receiver thread.) Every acknowledgement, then the child's end; or, at the echo of
        ``use_loop``'s ping, the rest left to the event loop."""
        while (msgs := reader.messages()) is not None:
            if self._got(msgs) and self.handing:
                return
        self._gone(sock, proc)

    def _got(self, msgs: list[Any]) -> bool:
        """Each message: an acknowledgement (``a``) or the echo of ``use_loop``'s ping (``p``: True)."""
        echo = False
        for m in msgs:
            if m[0] == "a":
                self._acked(m[1], m[2], m[3], m[4])
            else:
                echo = True
        return echo

    def use_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """(On ``loop``'s thread: the app's start.) From now on the event loop reads the
        acknowledgements itself (``add_reader``): a call's completion wakes no thread and takes no
        interpreter lock from the loop (the receiver thread cost the server ~45 us an action at 100
        tables). The receiver thread stops at the echo of a ping sent now, and is waited for here (a
        round trip to the child), so only one reads at a time and no wait of the loop's thread for a
        commit can fall between the two."""
        while True:
            with self.lock:
                if self.loop is not None or self.closed or self.dead is not None:
                    return
                thread = self.thread
                self.handing = True
                try:
                    self._out(encode(("p",)))
                except OSError:  # (the child died: its receiver thread ends at its end)
                    pass
            thread.join()
            with self.lock:
                self.handing = False
                if self.thread is not thread:  # the child died meanwhile: a new one, with its own receiver
                    continue
                if self.closed or self.sock.fileno() == -1:
                    return
                self.loop = loop
                self.loop_thread = threading.get_ident()
                loop.add_reader(self.sock.fileno(), self._readable)
                if self.lowered:  # (no receiver thread to hand the interpreter lock to any more)
                    self.lowered = False
                    _restore_switch()
            self._readable()  # (what the receiver thread read past the echo)
            return

    def _readable(self) -> None:
        """(The loop's, when the socket has data.) Every acknowledgement that has arrived whole."""
        sock = self.sock
        msgs = self.reader.more()
        if msgs is None:
            self._lost_on_loop(sock)
            return
        self._got(msgs)

    def _lost_on_loop(self, sock: socket.socket) -> None:
        assert self.loop is not None
        self.loop.remove_reader(sock.fileno())
        self._gone(sock, self.proc)

    def _on_loop(self) -> bool:
        return self.loop is not None and threading.get_ident() == self.loop_thread

    def _pump(self, done: Callable[[], bool]) -> None:
        """(The loop's thread, which reads the acknowledgements: a wait here would never end.) Read
        and complete acknowledgements until ``done()``."""
        while not done():
            sock = self.sock
            msgs = self.reader.messages()
            if msgs is None:
                self._lost_on_loop(sock)
                continue
            self._got(msgs)

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
        """The child's end: every call it did not acknowledge fails; unless closing, a successor is
        started OFF the event loop (``_starter``: a thread of its own, or this receiver thread) and
        the calls made meanwhile are held for it (``_out``), those of the failed tables refused."""
        try:
            code = proc.wait(10)
        except subprocess.TimeoutExpired:  # (an end of the socket with the child alive: never left so)
            proc.kill()
            code = proc.wait()
        sock.close()
        start: Start | None = None
        with self.lock:
            lost = list(self.inflight.values())
            self.inflight.clear()
            self.last.clear()
            self.out.clear()  # (their calls are among the lost)
            self.share = None
            gone = WriterGone(
                f"the store's writer process stopped (exit code {code}) before it acknowledged this "
                "table's write: nothing of it was shown; its committed records are the truth"
            )
            for tid, _d in lost:
                self.failed[tid] = gone
            if not self.closed and self.sock is sock and self.starting is None:
                start = self.starting = Start()
                self.reader = Awaiting(start, self._finish)
                self.restarts += 1  # (``failed`` refuses those tables here from now on: ``submit``)
        for _tid, d in lost:
            d.set_exception(gone)
        if start is None:
            return
        if self.loop is None:  # (the receiver thread: off the loop already; ``use_loop`` joins it)
            self._starter(start)
        else:
            threading.Thread(
                target=self._starter, args=(start,), name="pontoon-writer-start", daemon=True
            ).start()

    def _starter(self, start: Start) -> None:
        """(Off the event loop.) The successor spawned and waited for; handed over on the loop's
        thread (``_finish``: it adds the loop's reader), or here when no loop reads the acks."""
        try:
            start.child = spawn(self._opening(), self.start_s, self.command)
        except HistoryError as err:
            start.error = err
        except Exception as err:  # noqa: BLE001 (no sockets, no process: said in one line, never a hang)
            start.error = HistoryError(f"the store's writer process could not start: {err}")
        finally:
            start.ready.set()
        loop = self.loop
        if loop is None:
            self._finish(start)
            return
        try:
            loop.call_soon_threadsafe(self._finish, start)
        except RuntimeError:  # the loop is closed: ``close`` hands it over
            pass

    def _finish(self, start: Start) -> None:
        """(The loop's thread once a loop reads the acks; ``close``; the starter before ``use_loop``.)
        Once ``start`` has ended: its child takes the held calls (``_adopt``), or none could be
        started: every call held fails with the error that says why, and every later one (``dead``)."""
        start.ready.wait()
        lost: list[Flight] = []
        with self.lock:
            if start.adopted or self.starting is not start:
                return
            start.adopted = True
            self.starting = None
            if start.child is not None:
                held = len(self.held)
                self._adopt(start.child)
                log.warning(
                    "the store's writer process was restarted: pid %d, ready %.3f s after the death "
                    "(the event loop served meanwhile; %d sends held for it)",
                    self.pid,
                    time.monotonic() - start.t0,
                    held,
                )
                return
            err = start.error or HistoryError("the store's writer process could not start")
            self.dead = err
            lost = list(self.inflight.values())
            self.inflight.clear()
            self.last.clear()
            self.out.clear()
            self.held.clear()
            self.share = None
            for tid, _d in lost:
                self.failed[tid] = err
        log.error("%s: every write fails from now on, until the server is restarted", err)
        for _tid, d in lost:
            d.set_exception(err)

    def _out(self, data: bytes) -> None:
        """(Under ``lock``.) Bytes to the child, whole: on the loop's thread, the acknowledgements that
        arrive while the child's buffer is full are read meanwhile (``send_all``). While a successor
        starts, held for it (sent in order once it is ready: ``_adopt``)."""
        if self.starting is not None:
            self.held.append(data)
            return
        send_all(self.sock, data, self._readable if self._on_loop() else None)

    # ------------------------------------------------------------------ the calls
    def _send(self, table_id: int, plain: list[Any], done: Done) -> Flight:
        """(Under ``lock``.) One call to the child (its batches as the wire carries them: ``flat``), in
        flight until its acknowledgement. On the event loop's thread the call joins the loop turn's
        bytes, sent once at the turn's end (``_flush``). (Marshalled here, while its objects are fresh
        in the caches: the turn's calls marshalled together at its end cost the loop as much at 100
        tables, their objects colder by then and kept alive till then: docs/scale.md, "The server
        process's own cost a store action".)"""
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
        msg = encode(("w", self.seq, table_id, crash.count, web, plain))
        if self.loop_thread == threading.get_ident():  # (``_on_loop``, inline: a call each action)
            self.out.append(msg)
            if not self.flushing:
                self.flushing = True
                assert self.loop is not None
                self.loop.call_soon(self._flush)
            return item
        try:
            if self.out:  # (this thread is not the loop's: what the loop queued goes first)
                self._flush_locked()
            self._out(msg)
        except OSError:  # the child died: the receiver fails every call in flight (this one too)
            pass
        return item

    def _flush(self) -> None:
        """(The loop's, at the end of a turn that queued calls.) Their bytes to the child at once."""
        with self.lock:
            try:
                self._flush_locked()
            except OSError:  # the child died: its end fails every call in flight
                pass

    def _flush_locked(self) -> None:
        self.flushing = False
        self.share = None  # (closed: the next turn's calls share another)
        if self.out:
            data = b"".join(self.out)
            self.out.clear()
            self._out(data)

    def submit(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        return self._submit(table_id, flat(batches))

    def _submit(self, table_id: int, plain: list[Any]) -> Future[str]:
        fut: Future[str] = Future()
        with self.lock:
            err = self.failed.get(table_id) if self.restarts else None
            if err is not None:  # (after a child's death: the new child does not know it failed)
                fut.set_exception(err)
                return fut
            self.last[table_id] = self._send(table_id, plain, fut)
        return fut

    def enqueue(self, table_id: int, batches: Sequence[Batch]) -> Future[str]:
        """``GroupCommitter.enqueue``: on the event loop's thread the calls of one loop turn, sent to
        the child together (``_flush``), share one Future (``Shared``: completed once each of them is
        acknowledged; a failed table's error is in ``failed``); elsewhere each call has its own."""
        return self.enqueue_plain(table_id, flat(batches))

    def enqueue_plain(self, table_id: int, plain: list[Any]) -> Future[str]:
        """``enqueue`` of a call's batches made plain already (``flat``'s form: the recorder makes a
        round's calls so, ``Recorder._round_call``, with no ``Batch`` or ``Row`` in between)."""
        with self.lock:
            if self.loop_thread != threading.get_ident():  # (not the loop's: ``_on_loop``)
                return self._submit(table_id, plain)
            if self.restarts and table_id in self.failed:
                fut: Future[str] = Future()
                fut.set_result("")  # (the table's error is in ``failed``)
                return fut
            share = self.share
            if share is None:
                share = self.share = Shared()
            share.left += 1
            self.last[table_id] = self._send(table_id, plain, share)
        return share.future

    def write(self, table_id: int, batches: Sequence[Batch]) -> str:
        waiter = Waiter()
        with self.lock:
            err = self.failed.get(table_id) if self.restarts else None
            if err is not None:
                raise err
            self._send(table_id, flat(batches), waiter)
            if self._on_loop():
                self._flush_locked()
        if self._on_loop():
            self._pump(waiter.done)
        return waiter.result()

    def pending(self, table_id: int) -> Future[str] | None:
        item = self.last.get(table_id)
        if item is None:
            return None
        done = item[1]  # (a Future or a Shared: ``write``'s Waiters are not in ``last``)
        if type(done) is Shared:
            return done.future
        assert isinstance(done, Future)
        return done

    def drain(self) -> None:
        with self.lock:
            futs: list[Future[str]] = []
            for _t, d in self.last.values():
                if isinstance(d, Shared):
                    futs.append(d.future)
                elif isinstance(d, Future):
                    futs.append(d)
            if self._on_loop():
                self._flush_locked()
        if self._on_loop():
            self._pump(lambda: all(f.done() for f in futs))
        for f in futs:
            f.exception()

    def forgive(self, table_id: int) -> None:
        """A recorder attached to ``table_id`` again: the child reads its head anew and writes it."""
        with self.lock:
            self.failed.pop(table_id, None)
            if not self.closed and self.dead is None:
                try:
                    self._out(encode(("f", table_id)))
                except OSError:
                    pass

    # ------------------------------------------------------------------ leases
    def lease_owner(self, owner: str) -> None:
        """Several processes on one database: fence every write with our leases (``web_of`` names each
        store table's web table)."""
        with self.lock:
            self.owner = owner
            self._out(b"".join(encode(m) for m in self._lease_messages()))

    def lease_epoch(self, web_id: str, epoch: int) -> None:
        """(``Leases.watch``.) An epoch we claimed."""
        with self.lock:
            self.epochs[web_id] = epoch
            if self.owner is not None:
                try:
                    self._out(encode(("e", web_id, epoch)))
                except OSError:
                    pass

    def close(self) -> None:
        """Everything sent committed and acknowledged, then the child's end."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
            start = self.starting
        if start is not None:  # a successor starting: it takes what was held (or fails it), then ends
            self._finish(start)
        with self.lock:
            try:  # the child commits what it has, acknowledges it, and ends
                self._flush_locked()
                self._out(encode(("end",)))
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        self.thread.join()  # (at the end of the child, or at the echo of ``use_loop``'s ping)
        if self.sock.fileno() != -1:  # the loop reads, or was to: the rest is read here
            self._unhook()
            sock = self.sock
            while (msgs := self.reader.messages()) is not None:
                self._got(msgs)
            self._gone(sock, self.proc)
        if self.lowered:
            self.lowered = False
            _restore_switch()

    def _unhook(self) -> None:
        """The loop no longer reads the socket (``close``, from any thread)."""
        loop, fd = self.loop, self.sock.fileno()
        if loop is None or loop.is_closed():
            return
        if self._on_loop() or not loop.is_running():
            loop.remove_reader(fd)
            return
        off = threading.Event()

        def unhook() -> None:
            loop.remove_reader(fd)
            off.set()

        loop.call_soon_threadsafe(unhook)
        off.wait(10)


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
