"""A lean WebSocket client for the load benchmarks (``bench_server.py --client raw``): RFC 6455 on an
asyncio protocol, text frames only, no extensions, what the table server sends (unfragmented frames,
pings). It exists because the simulated players share the machine's cores with the server: the
``websockets`` client's own framing and tasks cost the benchmark process about as much CPU per round
as the server spends (bench_server's "cli CPU ms/round"), CPU the server then lacks on 2 cores. Not a
client for anything else (no TLS, no fragments, no deflate). Frames from the client are masked with a
fresh random key per connection (RFC 6455 5.3; loopback only, so one key a connection is enough)."""

from __future__ import annotations

import asyncio
import base64
import os
from collections import deque
from typing import Any
from urllib.parse import urlsplit


class Closed(ConnectionError):
    pass


class RawWS(asyncio.Protocol):
    def __init__(self) -> None:
        self.buf = bytearray()
        self.open = False
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.frames: deque[bytes] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.closed: BaseException | None = None
        self.key = os.urandom(4)
        self.tr: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.tr = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(Closed(f"connection lost: {exc}"))

    def _fail(self, err: BaseException) -> None:
        if self.closed is None:
            self.closed = err
        if not self.ready.done():
            self.ready.set_exception(err)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.open:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end])
            del buf[: end + 4]
            if not head.startswith(b"HTTP/1.1 101"):
                self._fail(Closed(f"handshake refused: {head[:200]!r}"))
                return
            self.open = True
            self.ready.set_result(None)
        got = False
        while len(buf) >= 2:
            b0, n = buf[0], buf[1] & 0x7F
            off = 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, off = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, off = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < off + n:
                break
            payload = bytes(buf[off : off + n])
            del buf[: off + n]
            op = b0 & 0x0F
            if op == 1:
                self.frames.append(payload)
                got = True
            elif op == 9:  # ping: pong with the same data
                self._send(0xA, payload)
            elif op == 8:
                self._fail(Closed(f"closed by the server: {payload[2:]!r}"))
        if got and self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def _send(self, op: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | op, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | op, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | op, 0x80 | 127)) + n.to_bytes(8, "big")
        key = self.key
        mask = (key * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
        assert self.tr is not None
        self.tr.write(head + key + masked)

    async def send(self, text: bytes) -> None:
        if self.closed is not None:
            raise self.closed
        self._send(1, text)

    async def recv(self) -> bytes:
        while not self.frames:
            if self.closed is not None:
                raise self.closed
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        return self.frames.popleft()

    def close(self) -> None:
        if self.tr is not None and not self.tr.is_closing():
            try:
                self._send(8, (1000).to_bytes(2, "big"))
            finally:
                self.tr.close()


async def connect_raw(url: str, headers: dict[str, str], protocol: type[RawWS] = RawWS) -> Any:
    """Open ``ws://host:port/path?query`` with these request headers; the protocol (a ``protocol``, a
    subclass of ``RawWS``: bench_human.py's ``Lean``) once the server answered 101."""
    u = urlsplit(url)
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_connection(protocol, u.hostname, u.port)
    path = u.path + (f"?{u.query}" if u.query else "")
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {u.hostname}:{u.port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
        "Sec-WebSocket-Version: 13",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    assert proto.tr is not None
    proto.tr.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await asyncio.wait_for(proto.ready, 30)
    return proto
