"""Starting a writer process (``writer_proc.py``): the child spawned, its database opened, its "ready".

``spawn`` blocks until the child says it is ready (0.6-0.8 s here: the interpreter, the imports, the
database opened), so ``ProcessCommitter`` runs it on the event loop's thread only at its own start,
before any table plays. The successor of a child that died is spawned OFF the event loop (a thread of
its own, or the dead child's receiver thread), and what the loop needs meanwhile is here:

- ``Start``: one successor being started: its outcome (the child, or the error that says why none
  could be started), set once by the thread that spawns it;
- ``Awaiting``: the reader of the socket while a successor starts: nothing arrives; a wait for an
  acknowledgement on the loop's own thread (a synchronous ``write``/``drain``: ``_pump``) waits for
  the start's end instead and hands the child over (``ProcessCommitter._finish``).

A child that dies before it is ready (killed while it opens the database) is spawned once more
(``TRIES``); one that says "error" (its database could not be opened) or is not ready within the time
allowed is not: the start fails with one line saying why.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pontoon.history.engines import HistoryError
from pontoon.history.writer_wire import Reader, encode

BUFFER = 4 << 20  # each end's socket buffers asked for (the kernel may give less)
TRIES = 2  # children spawned for one start when each dies before it is ready
COMMAND = (sys.executable, "-m", "pontoon.history.writer_child")  # (the socket's number is added)


class Spawned(NamedTuple):
    sock: socket.socket
    reader: Reader
    proc: subprocess.Popen[bytes]
    pid: int


class Start:
    """A successor being started: ``ready`` is set once ``child`` (or ``error``) is known;
    ``adopted`` once the committer took it over (under its lock)."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()  # (the death)
        self.ready = threading.Event()
        self.child: Spawned | None = None
        self.error: HistoryError | None = None
        self.adopted = False


class Awaiting:
    """The reader of a committer whose child is being started: nothing to read (``more``); a blocking
    read (``messages``, the loop's thread in ``_pump``) waits for the start and hands it over
    (``finish``), then returns nothing: the caller reads the new child's socket from then on."""

    def __init__(self, start: Start, finish: Callable[[Start], None]) -> None:
        self.start = start
        self.finish = finish

    def more(self) -> list[Any] | None:
        return []

    def messages(self) -> list[Any] | None:
        self.finish(self.start)
        return []


def spawn(opening: tuple[Any, ...], start_s: float, command: Sequence[str] = COMMAND) -> Spawned:
    """A new child, its database open (``opening``: the ``open`` message), ready for calls; up to
    ``TRIES`` children when each dies before it is ready. Raises ``HistoryError`` (one line: why)."""
    why = ""
    for _ in range(TRIES):
        child, why, died = _one(opening, start_s, command)
        if child is not None:
            return child
        if not died:
            break
    raise HistoryError(f"the store's writer process could not start: {why}")


def _one(
    opening: tuple[Any, ...], start_s: float, command: Sequence[str]
) -> tuple[Spawned | None, str, bool]:
    """One child: (it, "", False) once ready, else (None, why, whether it died before it was ready)."""
    ours, theirs = socket.socketpair()
    for end in (ours, theirs):  # (room for a busy moment's calls: a full buffer waits)
        end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BUFFER)
        end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUFFER)
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2])  # this very package, whatever the caller's path
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    try:
        proc = subprocess.Popen(
            [*command, str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except OSError as err:
        ours.close()
        theirs.close()
        return None, f"it could not be run ({err})", False
    theirs.close()
    reader = Reader(ours)
    said: list[Any] | None = None
    try:
        ours.settimeout(start_s)
        ours.sendall(encode(opening))
        said = reader.messages()  # (None on the time-out too)
    except OSError:
        said = None
    if said and said[0][0] == "ready":
        ours.settimeout(None)
        return Spawned(ours, reader, proc, int(said[0][1])), "", False
    ours.close()
    try:  # (a child that died closed its end as it ended: its exit is a moment away)
        code: int | None = proc.wait(0.5)
    except subprocess.TimeoutExpired:  # alive: the time-out (or an end of the socket, never left so)
        code = None
    proc.kill()
    proc.wait()
    if said and said[0][0] == "error":
        return None, str(said[0][1]), False
    if code is None:
        return None, f"it did not say it was ready within {start_s:g} s (stopped)", False
    return None, f"it stopped (exit code {code}) before it was ready", True


__all__ = ["BUFFER", "COMMAND", "TRIES", "Awaiting", "Spawned", "Start", "spawn"]
