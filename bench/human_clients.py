"""The people of bench/bench_human.py: their WebSocket clients, what they do, and one client process's run.

Cheap on purpose, since they share the server's cores: by default each person is a ``Lean`` protocol
(bench/raw_ws.py's ``RawWS``) whose read callback hands every frame to the ``Person`` at once (no task per
person or message), the public deltas are applied in place (``LeanFrames``) and the loop is uvloop's;
``--client websockets`` (``Stamped``, ``WsLink``) is the ``websockets`` library's client, the one before
2026-11-28 12:00. Either way a latency runs from the write of a message to the read callback of the frame
that answers it (``Person``, ``_answers``), and ``play`` notes how late the process's own loop woke.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import sys
import time
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import DATA_OPCODES, Frame

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import Frames, choose, completed, join, ws_url  # noqa: E402
from raw_ws import Closed, RawWS, connect_raw  # noqa: E402


class Stamped(ClientConnection):
    """A client connection that notes when each message came off its socket (``stamps``, in order): the
    time its bytes were parsed, in the event loop's callback for them, not when the person's task got to
    it (behind the other people's frames when the clients' loop is busy)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stamps: collections.deque[float] = collections.deque()

    def process_event(self, event: Any) -> None:
        super().process_event(event)
        if isinstance(event, Frame) and event.opcode in DATA_OPCODES and event.fin:
            self.stamps.append(time.perf_counter())


def _answers(st: dict[str, Any], version: int, completed_then: int) -> bool:
    """Whether ``st`` answers a message sent on the state of ``version`` (``completed_then`` rounds done):
    a later state, and not one still open for betting without his wager in the same round (that frame is
    the other person's wager: his own comes after it). As ``bench_server.play`` tells it."""
    if st["version"] <= version:
        return False
    return not (st["phase"] == "betting" and st["you"] not in st["bets"] and completed(st) == completed_then)


class LeanFrames(Frames):
    """``Frames`` (bench_server.py) with the public part's deltas applied in place (the page copies the
    containers on each path, ``delta.js``, so that its old state stays whole: a person here keeps only the
    newest state, and copying every path was the clients' largest cost, their CPU taken from the
    server's 2 cores). The base of each delta is checked as before; the state is the same."""

    def take(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        from pontoon.web.delta import apply  # (as bench_server.py: the clients' own tree)

        if msg.get("type") != "delta":
            return super().take(msg)
        pub = self.pub
        if msg["base"] != pub.get("seq"):
            raise RuntimeError(f"a delta based on {msg['base']}, the state held is {pub.get('seq')}")
        for op in msg["ops"]:
            path = op[0]
            if not path:  # (the whole value)
                pub = op[1]
                continue
            node = pub
            for step in path[:-1]:
                node = node[step]
            key = path[-1]
            if len(op) == 1 and type(node) is list:
                del node[key:]
            elif len(op) == 1:
                del node[key]
            elif type(node) is list and key == len(node):
                node.append(op[1])
            else:
                node[key] = op[1]
        pub["seq"] = msg["seq"]
        self.pub = pub
        got = msg.get("own")
        if got is not None:  # (the whole own part, as a short one comes: no walk)
            self.own = got[0][1] if len(got) == 1 and got[0][0] == [] else apply(got, self.own)
        self.state = join(pub, self.own) if self.own else pub
        return self.state


class Person:
    """One person at a table: acts at most once every ``every`` s until ``until``, then waits (``grace``
    s at most) for the answer to his last message and leaves; ``lat`` gets (sent at, latency) of every
    answered message, ``left`` the (sent at) of one he left without its answer. Every frame is parsed and
    applied (deltas on the state held, their ``base`` checked: ``Frames``), as the page does.

    He acts only on the state that answers his last message: the first later frame that is not one still
    open for betting without his wager (``_answers``: that frame is the other person's wager; taken as
    the answer, he bet again and his second wager came after the deal his first had made, a refusal and a
    latency that was not his), or the refusal (then he acts again on the state held: frames and refusals come in the
    server's order, so it is at least as new as the one refused). A wager names the round he saw open
    (as the page does: ``BetMsg.round``). (Cheap on purpose: ``on_frame`` is called for each frame read,
    the person's next action is a timer of the event loop, and ``link`` writes his message: with the lean
    client (``Lean``) all of it inside the loop's read callback, no task per person or per message.)"""

    def __init__(
        self,
        link: Any,
        every: float,
        until: float,
        rng: random.Random,
        lat: list[tuple[float, float, str]],
        errors: list[str],
        left: list[float],
        grace: float = 30.0,
    ) -> None:
        self.link, self.every, self.until, self.lat, self.errors = link, every, until, lat, errors
        self.left, self.grace = left, grace
        self.loop = asyncio.get_running_loop()
        self.next_at = time.perf_counter() + rng.uniform(0, every)
        self.sent_at: float | None = None
        self.sent_version = self.sent_round = -1
        self.sent_kind = ""
        self.state: dict[str, Any] = {}
        self.frames = LeanFrames()
        self.timer: asyncio.TimerHandle | None = None
        self.closing = False
        self.ends = [
            self._at(until, self.leave),
            self._at(until + grace, self.leave),
        ]  # (perf_counter and the loop's clock differ: ``_at`` converts)

    def _at(self, when: float, fn: Any) -> asyncio.TimerHandle:
        return self.loop.call_later(max(0.0, when - time.perf_counter()), fn)

    def leave(self) -> None:
        now = time.perf_counter()
        if not self.closing and (self.sent_at is None or now >= self.until + self.grace):
            self.closing = True
            if self.sent_at is not None:  # never answered: counted, not dropped
                self.left.append(self.sent_at)
            self.link.close()

    def take(self, raw: str | bytes, at: float) -> dict[str, Any] | None:
        """A frame read (come off the socket at ``at``): the state after it (None: not a state, or a
        refusal), and the latency of the answered message."""
        msg = orjson.loads(raw)
        if msg.get("type") == "error":
            self.errors.append(msg["error"])
            if self.sent_at is not None:
                self.lat.append((self.sent_at, at - self.sent_at, "refused"))  # (a refusal answers too)
            self.sent_at = None
            self.wake()  # on the state held, at his pace
            return None
        got = self.frames.take(msg)
        if got is None:
            return None
        self.state = got
        if self.sent_at is not None and _answers(got, self.sent_version, self.sent_round):
            self.lat.append((self.sent_at, at - self.sent_at, self.sent_kind))
            self.sent_at = None
        return got

    def due(self) -> str | None:
        """The message to send now (None: nothing, or not yet: the timer is set for it)."""
        now = time.perf_counter()
        if self.sent_at is not None or not self.state or now >= self.until:
            if now >= self.until:
                self.leave()
            return None
        if now < self.next_at:
            if self.timer is None:
                self.timer = self._at(self.next_at, self.wake)
            return None
        st = self.state
        out = (
            {"type": "bet", "amount": "10", "round": int(st["round_no"]) + 1}  # the round shown open
            if st["phase"] == "betting" and st["you"] not in st["bets"]
            else choose(st)
        )
        if out is None:
            return None
        self.sent_at, self.sent_version, self.sent_round = now, st["version"], completed(st)
        self.sent_kind = out["action"]["verb"] if out["type"] == "act" else str(out["type"])
        self.next_at = now + self.every
        return orjson.dumps(out).decode()

    def wake(self) -> None:
        self.timer = None
        text = self.due()
        if text is not None:
            self.link.send(text, self)

    def on_frame(self, raw: str | bytes, at: float) -> None:
        if self.take(raw, at) is not None and (text := self.due()) is not None:
            self.link.send(text, self)

    def done(self) -> None:
        for h in (self.timer, *self.ends):
            if h is not None:
                h.cancel()


class Lean(RawWS):
    """The lean client (bench/raw_ws.py, ``--client lean``) for one person: every text frame of a read is
    handed to ``person.on_frame`` with the time the read callback began (the bytes came off the socket),
    inside that callback; his message is written at once (``send``: the time stamped just before the
    write). ``ended`` completes when the connection is closed."""

    person: Person | None = None

    def __init__(self) -> None:
        super().__init__()
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        at = time.perf_counter()
        super().data_received(data)
        frames, p = self.frames, self.person
        while frames and p is not None:
            p.on_frame(frames.popleft(), at)

    def _fail(self, err: BaseException) -> None:
        super()._fail(err)
        if not self.ended.done():
            self.ended.set_result(None)

    def send(self, text: str, person: Person) -> None:  # type: ignore[override]
        if self.closed is not None:
            return  # (the server closed it: the run's end)
        person.sent_at = time.perf_counter()  # the latency from the write, not from when the timer ran
        self._send(1, text.encode())


class WsLink:
    """The ``websockets`` library's client (``--client websockets``): the frames read by one ``async
    for`` (``Stamped``: the time each came off the socket), each message written by a task."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.loop = asyncio.get_running_loop()

    def send(self, text: str, person: Person) -> None:
        self.loop.create_task(self._send(text, person))

    async def _send(self, text: str, person: Person) -> None:
        if person.sent_at is not None:  # the latency from the write, not from when the timer's task ran
            person.sent_at = time.perf_counter()
        with contextlib.suppress(ConnectionClosed):  # (the server closed it: the run's end)
            await self.ws.send(text)

    def close(self) -> None:
        self.loop.create_task(self.ws.close())


async def person(
    url: str,
    every: float,
    until: float,
    rng: random.Random,
    lat: list[tuple[float, float, str]],
    errors: list[str],
    left: list[float],
    deltas: int,
    client: str = "lean",
) -> None:
    url, _, token = url.partition("#")
    auth = {"Authorization": f"Bearer {token}"}
    if client == "lean":
        try:
            proto = await connect_raw(ws_url(url, deltas), auth, Lean)
        except (OSError, TimeoutError, Closed) as e:  # counted, not a crash: a person who could not sit down
            errors.append(f"connect: {type(e).__name__}: {e}")
            return
        p = proto.person = Person(proto, every, until, rng, lat, errors, left)
        while proto.frames:  # (what came with the handshake's answer)
            p.on_frame(proto.frames.popleft(), time.perf_counter())
        try:
            await proto.ended
        finally:
            p.done()
        return
    try:
        ws_cm = await connect(
            ws_url(url, deltas),
            max_size=2**22,
            additional_headers=auth,
            open_timeout=60,
            create_connection=Stamped,
        )
    except (OSError, TimeoutError) as e:  # counted, not a crash: a person who could not sit down
        errors.append(f"connect: {type(e).__name__}: {e}")
        return
    async with ws_cm as ws:
        p = Person(WsLink(ws), every, until, rng, lat, errors, left)
        try:
            async for raw in ws:
                p.on_frame(raw, ws.stamps.popleft())
        except ConnectionClosed:
            pass
        finally:
            p.done()


async def play(
    urls: list[str], every: float, seconds: float, deltas: int, seed: int, procs: int, client: str = "lean"
) -> dict[str, Any]:
    """The people of ``urls`` for ``seconds``; also how late this process's event loop wakes (a loop
    that is late adds its lateness to every latency it measures: the clients' own saturation)."""
    lat: list[tuple[float, float, str]] = []
    errors: list[str] = []
    left: list[float] = []
    lag: list[tuple[float, float]] = []  # (perf_counter at, seconds late)
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    until = t0 + seconds

    async def ticker() -> None:
        while time.perf_counter() < until:
            at = time.perf_counter()
            await asyncio.sleep(0.05)
            lag.append((at, time.perf_counter() - at - 0.05))

    rng = random.Random(seed)
    people = []
    for i, u in enumerate(urls):  # connect in a trickle, as people arrive
        people.append(
            asyncio.create_task(
                person(u, every, until, random.Random(rng.random()), lat, errors, left, deltas, client)
            )
        )
        if i % 20 == 19:  # about 200 arrivals a second in all: 2,000 people sit down in 10 s
            await asyncio.sleep(0.1 * procs)
    await asyncio.gather(*people, ticker())
    return {"lat": lat, "errors": errors, "left": left, "lag": lag, "cpu": time.process_time() - cpu0}


def _worker(args: tuple[list[str], float, float, int, int, int, str, str]) -> dict[str, Any]:
    """One client process's people, on ``uvloop``'s event loop (``--client-loop``, as the server's:
    uvicorn takes it when installed) or asyncio's own."""
    *rest, loop = args
    factory = None
    if loop == "uvloop":
        import uvloop

        factory = uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(play(*rest))  # type: ignore[arg-type]
