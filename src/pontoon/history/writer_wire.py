"""The writer process's wire (``writer_proc.py`` and ``writer_child.py``): messages on a socket pair.

Each message is a 5-byte head (its length, little-endian, and its encoding: ``m`` for ``marshal``, ``p``
for ``pickle`` when marshal refuses a value) and its bytes. marshal is the cheapest encoding for what a
table call carries (plain dicts, lists, tuples, texts and numbers: ``bench/writer_process.py --part
ship`` measured 37 us a 12-call commit for the sender, pickle 90-128); both ends are this package, in one
user's processes, so nothing foreign is ever decoded.

A table call's batches travel as plain tuples (``flat``) and are made ``Batch``/``Row`` again in the
child (``unflat``): field for field, in order, so the child writes what the thread would have written.
"""

from __future__ import annotations

import marshal
import pickle
import select
import socket
import struct
from collections.abc import Callable, Sequence
from typing import Any

from pontoon.history.store import Batch, Row

HEAD = struct.Struct("<IB")
_MARSHAL, _PICKLE = ord("m"), ord("p")
CHUNK = 1 << 20  # what one ``recv`` takes at most


def encode(msg: Any) -> bytes:
    """One message's bytes with its head."""
    try:
        body = marshal.dumps(msg, 4)
        kind = _MARSHAL
    except ValueError:  # (a value marshal does not take: a Decimal in an event's data)
        body = pickle.dumps(msg, 5)
        kind = _PICKLE
    return HEAD.pack(len(body), kind) + body


def send_all(sock: socket.socket, data: bytes, pump: Callable[[], object] | None = None) -> None:
    """``sock.sendall`` that also works on a socket an event loop made non-blocking (uvloop does, for
    the loop's ``add_reader``): a full buffer is waited for; ``pump`` (the loop's own thread, which
    reads the other side's acknowledgements) reads what has arrived meanwhile, so that neither side
    waits on the other's full buffer. Raises ``OSError`` when the other end is gone."""
    view = memoryview(data)
    while view:
        try:
            view = view[sock.send(view) :]
        except BlockingIOError:
            readable, _w, _x = select.select([sock] if pump is not None else [], [sock], [])
            if readable and pump is not None:
                pump()


class Reader:
    """The messages arriving on a socket, in order: ``messages()`` blocks until at least one is whole
    (several when several arrived), None once the other end has closed."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()

    def messages(self) -> list[Any] | None:
        while True:
            out = self._whole()
            if out:
                return out
            try:
                chunk = self.sock.recv(CHUNK)
            except BlockingIOError:  # (an event loop made the socket non-blocking: wait for data)
                select.select([self.sock], [], [])
                continue
            except OSError:  # (reset: the other end died; the opening's time-out)
                return None
            if not chunk:
                return None
            self.buf += chunk

    def more(self) -> list[Any] | None:
        """What has arrived whole by now, without waiting (an empty list: nothing yet); None at the end."""
        while True:
            try:
                chunk = self.sock.recv(CHUNK, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                return None
            if not chunk:
                return None
            self.buf += chunk
            if len(chunk) < CHUNK:
                break
        return self._whole()

    def _whole(self) -> list[Any]:
        buf = self.buf
        n = len(buf)
        pos = 0
        out = []
        while n - pos >= HEAD.size:
            size, kind = HEAD.unpack_from(buf, pos)
            end = pos + HEAD.size + size
            if end > n:
                break
            body = buf[pos + HEAD.size : end]
            out.append(marshal.loads(body) if kind == _MARSHAL else pickle.loads(body))
            pos = end
        if pos:
            del buf[:pos]
        return out


def flat(batches: Sequence[Batch]) -> list[Any]:
    """A table call's batches as plain tuples, field for field (``unflat`` makes them again). The
    recorder makes a round's calls in this form itself (``Recorder._round_call``: each batch a list
    ``[rows, shoe, state, state_at, round_end, round_shoe]``, each row a tuple of ``Row``'s fields),
    handed over by ``ProcessCommitter.enqueue_plain`` with no ``Batch`` or ``Row`` in between."""
    return [
        (
            [(r.round_no, r.seq, r.kind, r.data, r.clause, r.transfers) for r in b.rows],
            b.shoe,
            b.state,
            b.state_at,
            b.round_end,
            b.round_shoe,
        )
        for b in batches
    ]


def unflat(batches: list[Any]) -> list[Batch]:
    return [
        Batch([Row(*r) for r in rows], shoe, state, state_at, round_end, round_shoe)
        for rows, shoe, state, state_at, round_end, round_shoe in batches
    ]


__all__ = ["CHUNK", "HEAD", "Reader", "encode", "flat", "send_all", "unflat"]
