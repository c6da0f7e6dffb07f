"""The writer process (``python -m pontoon.history.writer_child FD``): a store's group commit outside
the server's interpreter lock (``writer_proc.py`` starts it and talks to it on the socket ``FD``).

It opens the store's database with the parent's URL and seal key (sent as the first message, not on the
command line: a PostgreSQL URL may hold a password), and runs ONE thread (``Child``): it reads every
message that has arrived, commits the calls among them as one group with the thread's own code
(``GroupCommitter._commit``: one transaction, the fences, each call retried alone when the shared
transaction fails, a failed table refused from then on), sends one acknowledgement, and reads again;
what arrived during a commit's fsync is the next group. With nothing to read it ends the SQLite
checkpoint when one is wanted (the checkpointer's thread runs beside it, as in the server) and waits.

The parent's messages:
- ``("w", seq, table_id, ordinal, web_id, batches)``: a table call;
- ``("f", table_id)``: the table recovered by the parent (``Store.forget`` and ``forgive``);
- ``("o", owner)``, ``("e", web_id, epoch)``: the parent's table leases (several processes on one
  database): from the first on, every transaction checks, in itself, that the parent still holds the
  lease of every web table it writes at the epoch it claimed (``leases.fence_leases``), as the thread
  does (``StorePersistence._fence``).

Each acknowledgement is ``(groups, items, [(seq, head)], [(seq, error kind, error text)])``, sent after
the commit. The parent shows nothing of a call before its acknowledgement, so an event is shown only
once it is durable. The parent's ``close`` (``("end",)``, then the
end of its socket) ends this process once everything read is committed and acknowledged; the end of
the socket without it is the parent's death: this process ends at once, committing nothing more (a
server restarted on the database must not see a transaction of the dead one's start after its death).
``("p",)`` is echoed: the parent's event loop reads the acknowledgements from there on (``use_loop``).

``PONTOON_CRASH_AT`` (the kill tests): the parent numbers every table call in its own count of
transactions (``ordinal``), and this process's count follows those numbers, so ``inside:N`` and
``after:N`` hit the same call as in the thread; a hit kills the parent first, then this process: the
whole server dies at that point, as with the thread.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import signal
import socket
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection

from pontoon.history.checkpoints import start_checkpointer
from pontoon.history.group import GroupCommitter, Queued
from pontoon.history.leases import fence_leases
from pontoon.history.seal import SealKey
from pontoon.history.store import Store, make_engine
from pontoon.history.writer_wire import Reader, encode, unflat


class Outbox:
    """The acknowledgements of the calls committed (or refused) since the last one was sent."""

    def __init__(self, sock: socket.socket, group: GroupCommitter) -> None:
        self.sock = sock
        self.group = group
        self.ok: list[tuple[int, str]] = []
        self.err: list[tuple[int, str, str]] = []

    def flush(self) -> None:
        if not self.ok and not self.err:
            return
        msg = ("a", self.group.groups, self.group.items, self.ok, self.err)
        self.ok, self.err = [], []
        try:
            self.sock.sendall(encode(msg))
        except OSError:  # the parent is gone: nothing is waiting any more
            pass


class Ack:
    """One call's completion: its acknowledgement, queued in the outbox."""

    __slots__ = ("seq", "ordinal", "box")

    def __init__(self, seq: int, ordinal: int, box: Outbox) -> None:
        self.seq = seq
        self.ordinal = ordinal
        self.box = box

    def set_result(self, head: str) -> None:
        self.box.ok.append((self.seq, head))

    def set_exception(self, error: BaseException) -> None:
        first = (str(error).splitlines() or [""])[0][:500]
        self.box.err.append((self.seq, type(error).__name__, first or type(error).__name__))


class Fences:
    """The parent's leases, as sent: the owner, the epoch of each web table it claimed, the web table
    of each store table written (each call names it)."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.epochs: dict[str, int] = {}
        self.web: dict[int, str] = {}

    def __call__(self, conn: Connection, table_ids: list[int]) -> None:
        web = self.web
        fence_leases(conn, self.owner, self.epochs, [web[t] for t in table_ids if t in web])


class Child:
    """The writer process's one thread: it reads what the parent sent, commits it as one group
    (``GroupCommitter._commit``: the thread's transaction, its fences, its retries one call at a time,
    its refusals), acknowledges it, and reads again: whatever arrived during a commit's fsync is the
    next group. With nothing to read it runs the idle hook (the checkpoint's end) and waits."""

    def __init__(self, sock: socket.socket, reader: Reader, store: Store) -> None:
        self.reader = reader
        self.store = store
        # (no thread of its own: this one commits; no switch interval to lower)
        self.group = GroupCommitter(store, switch_s=None, thread=False)
        store.group = self.group
        self.box = Outbox(sock, self.group)
        self.fences: Fences | None = None
        self.calls: list[Queued] = []
        self.ended = False  # the parent closed the store (else its end is its death)
        self.at_end: Callable[[], None] | None = None  # (``STATS_ENV``: the benchmarks' line, at the end)

    def handle(self, msgs: Sequence[Any]) -> None:
        store, group, calls = self.store, self.group, self.calls
        for m in msgs:
            op = m[0]
            if op == "w":
                _op, seq, tid, ordinal, web_id, batches = m
                if web_id is not None and self.fences is not None:
                    self.fences.web[tid] = web_id
                calls.append((tid, unflat(batches), Ack(seq, ordinal, self.box)))
            elif op == "f":
                store.forget(m[1])
                group.forgive(m[1])
            elif op == "o" and self.fences is None:
                self.fences = Fences(m[1])
                store.fences_many.append(self.fences)
            elif op == "e" and self.fences is not None:
                self.fences.epochs[m[1]] = m[2]
            elif op == "p":  # the parent's event loop reads from here on: the echo tells its thread
                self.box.flush()
                self.box.sock.sendall(encode(("p",)))
            elif op == "end":
                self.ended = True

    def commit(self) -> None:
        calls, self.calls = self.calls, []
        group = self.group
        crash = self.store._crash
        for at in range(0, len(calls), group.max_items):
            part = calls[at : at + group.max_items]
            if crash.n >= 0:  # the parent's numbering: this group's first call is its ordinal
                crash.count = min(getattr(d, "ordinal", 0) for _t, _b, d in part) - 1
            group._commit(part)
            self.box.flush()

    def run(self, first: Sequence[Any]) -> None:
        reader, group = self.reader, self.group
        self.handle(first)
        while True:
            more = reader.more()
            if more is None:
                break
            self.handle(more)
            if self.calls:
                self.commit()
                continue
            hook = group.idle_hook
            if hook is not None and group.conn is not None:
                try:
                    hook(group.conn)
                except Exception:  # noqa: BLE001 (a hook's failure is not a write's)
                    group.hook_errors += 1
            msgs = reader.messages()
            if msgs is None:
                break
            self.handle(msgs)
        if not self.ended:  # the parent died: what it sent and was not committed stays unwritten
            if self.at_end is not None:
                self.at_end()
            os._exit(3)  # (a server restarted on the database must not see a write start after now)
        if self.calls:
            self.commit()


def _open(url: str, synchronous: str, key: tuple[bytes, str] | None) -> Store:
    """The parent's database, as its writer: no migration (the parent opened it and migrated it), no
    check (done by the parent), the parent's seal key (sent on the socket, never on a command line)."""
    engine = make_engine(url, synchronous=synchronous)
    return Store(engine, url, key=None if key is None else SealKey(*key))


def serve(sock: socket.socket) -> int:
    reader = Reader(sock)
    first = reader.messages()
    if not first or first[0][0] != "open":
        return 2
    _op, url, synchronous, key, parent = first[0]
    try:
        store = _open(url, synchronous, key)
    except Exception as err:  # noqa: BLE001 (told to the parent, one line)
        sock.sendall(encode(("error", (str(err).splitlines() or ["?"])[0][:300])))
        return 2
    if store._crash.n >= 0:
        store._crash.also = parent  # a crash point kills the whole server, as with the thread
    child = Child(sock, reader, store)
    checkpoints = start_checkpointer(store)  # SQLite: the WAL's checkpoints, beside this writer
    sock.sendall(encode(("ready", os.getpid())))
    stats = os.environ.get(STATS_ENV)
    if stats:
        at_ready = (time.thread_time(), resource.getrusage(resource.RUSAGE_SELF))
        child.at_end = lambda: _stats(stats, child, checkpoints, at_ready)
        if os.environ.get(PROFILE_ENV):  # (its writer thread's CPU by function, to FILE.PID)
            import cProfile

            prof = cProfile.Profile(time.thread_time)
            prof.enable()

            def at_end() -> None:
                prof.disable()
                prof.dump_stats(f"{os.environ[PROFILE_ENV]}.{os.getpid()}")
                _stats(stats, child, checkpoints, at_ready)

            child.at_end = at_end
    try:
        child.run(first[1:])
    finally:
        if checkpoints is not None:
            checkpoints.close()
        store.close()
    if child.at_end is not None:
        child.at_end()
    return 0


# (the benchmarks': bench/child_cpu.py, bench_server's runs) a file that this process appends a line to
# at its end: its commits and its CPU, the writer thread's and the checkpoints' apart
STATS_ENV = "PONTOON_WRITER_STATS"
PROFILE_ENV = "PONTOON_WRITER_CPROFILE"  # (with ``STATS_ENV``) a cProfile of the writer thread, by CPU


def _stats(path: str, child: Child, checkpoints: Any, at_ready: tuple[float, Any]) -> None:
    """One line of JSON: the commits and the CPU (s) since this process was ready (its start-up not
    counted): the writer thread's, the process's (user, system), the checkpoints' passes and finishes."""
    use, ready = resource.getrusage(resource.RUSAGE_SELF), at_ready[1]
    line = {
        "pid": os.getpid(),
        "groups": child.group.groups,
        "items": child.group.items,
        "writer_cpu_s": time.thread_time() - at_ready[0],
        "process_user_s": use.ru_utime - ready.ru_utime,
        "process_sys_s": use.ru_stime - ready.ru_stime,
        "checkpoint_cpu_s": getattr(checkpoints, "cpu", 0.0),
        "checkpoint_passes": getattr(checkpoints, "passes", 0),
        "finish_cpu_s": getattr(checkpoints, "finish_cpu", 0.0),
        "gc_collections": [g["collections"] for g in gc.get_stats()],
        "gc_tracked": len(gc.get_objects()),
    }
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
    except OSError as err:  # (everything is committed by now: the line is only the benchmarks')
        print(f"{STATS_ENV}={path!r}: cannot append the writer's line: {err.strerror}", file=sys.stderr)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: python -m pontoon.history.writer_child FD (started by the server)", file=sys.stderr)
        return 2
    # Ctrl-C at the server's terminal reaches this process too: it ends with the server's socket
    # instead (everything sent committed), not with a KeyboardInterrupt of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=int(argv[1]))
    try:
        return serve(sock)
    finally:
        sock.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
