"""Load benchmark of the table server: simulated WebSocket players on loopback.

``python bench/bench_server.py [--tables 1,10,100] [--rounds 10] [--players 2] [--preset mbs]
[--store memory,sqlite,pg] [--frames split|deltas|full] [--ws-deflate off|on] [--probe on|off] [--src DIR]
[--ws websockets-sansio|websockets|wsproto] [--client raw|websockets] [--servers N]``

For each table count T: a fresh server process (uvicorn, the app of ``pontoon serve``, rate limits
raised for the load) hosts T casino tables with P players each (N = T x P WebSocket clients, all in
this process's event loop); every player bets the minimum, hits below 17 and stands, for M rounds.
The players ask for split deltas as the page does (``?deltas=2``: the public part once per change, each
seat's own part apart, docs/server.md), or ``--frames deltas`` (``?deltas=1``: each view kind's delta,
what a tree before split deltas sends) or ``full``.
Reported: rounds per second (all tables together), the action latency (from sending a bet or an
action to the first state that answers it) at p50 and p99, the server process's CPU time per round
(measured over the play, the set-up's REST calls left out),
the bytes it wrote per round (``/proc``'s write count: the WebSocket frames on the wire, and with a
store its database writes too), and its memory (RSS) before and after (the clients run in this
process, on the same cores). The server runs with ``pontoon serve``'s uvicorn options
(web/transport.py); ``--ws-deflate on`` turns WebSocket compression on, as servers before issue 25's
CPU work did. A baseline is measured in the same run: the same rounds played on ``CasinoTable``
directly in one process (no server), so the ratio says what the server costs per round.
Before each row, what the server measured itself (``--probe on``, bench/server_probe.py): its handling
time per message against the clients' end-to-end latency, the wait for the commit in it, how late its
event loop woke, its garbage collections and what held the loop in its stalls. ``--src DIR`` runs the
server from another source tree (an old commit's ``src`` from ``git archive``: old against new with the
same bench); ``--ws NAME`` another of uvicorn's WebSocket implementations. The players use a lean client
(``--client raw``, bench/raw_ws.py: they share the cores with the server) or the ``websockets`` library's.
Besides rounds/s and latency: the clients' CPU per round and the kernel's share of the server's CPU;
``BENCH_STAGES=1`` (the server's CPU per action by stage, bench/server_stages.py),
``BENCH_CPROFILE=FILE`` (the server by CPU time), ``BENCH_PYSPY=DIR`` (py-spy's raw stacks of the server)
and ``BENCH_CLIENT_CPROFILE=FILE`` write profiles.
``--servers N``: the tables spread over N server processes (table ``t`` on server ``t mod N``, its
players connected there: what a router hashing on the table id gives, without the router's own cost);
the server columns are their sums, the probe is the first server's.
Not a timed test; numbers depend on the machine (2 shared cores here).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx
import orjson
import psutil
from websockets.asyncio.client import connect

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from raw_ws import RawWS, connect_raw  # noqa: E402
from server_probe import report_probe  # noqa: E402


def serve(port: int, db: str, deflate: bool = False, lease_ttl: float = 0.0, probe: str = "") -> None:
    import uvicorn

    from pontoon.web.app import create_app
    from pontoon.web.hosting import Settings
    from pontoon.web.transport import uvicorn_options

    s = Settings(
        join_burst=1e6,
        join_rate=1e6,
        action_burst=1e6,
        action_rate=1e6,
        max_tables=10_000,
        test_mode=True,  # the load's tables may be seeded (ruling 36)
        tables_per_address=10_000,
        seats_per_account=10_000,
        seats_per_address=100_000,
        grace_s=3600.0,  # a person joined during a long set-up keeps his seat until he connects
        ws_deflate=deflate,
        **({"tune_gc": True} if "tune_gc" in Settings.__dataclass_fields__ else {}),  # as pontoon serve
    )
    persistence = None
    if db:  # the history store on: every event committed (fsync) before it is shown
        from pontoon.history import open_store
        from pontoon.web.store_persistence import StorePersistence

        store = open_store(db)
        leases = None
        if lease_ttl:  # several processes on one database (bench_human.py --servers): table leases
            import secrets

            from pontoon.history.leases import Leases

            owner = f"bench:{os.getpid()}:{secrets.token_hex(4)}"
            leases = Leases(store, owner, f"http://127.0.0.1:{port}", ttl=lease_ttl)
        writer = os.environ.get("BENCH_WRITER", "process")  # as pontoon serve (--writer)
        import inspect

        if "writer" in inspect.signature(StorePersistence).parameters:  # (an old tree by --src: its thread)
            persistence = StorePersistence(store, leases=leases, writer=writer)
        else:
            persistence = StorePersistence(store, leases=leases)
    if os.environ.get("BENCH_GC_THRESHOLDS"):  # (trying other thresholds than web/transport.py's)
        import pontoon.web.transport as tr

        tr.GC_THRESHOLDS = tuple(int(x) for x in os.environ["BENCH_GC_THRESHOLDS"].split(","))  # type: ignore[assignment]
    if os.environ.get("BENCH_GC_SWEEP_S"):  # (the tuned collector's sweep of the whole heap sooner)
        import pontoon.web.transport as tr

        tr.SWEEP_S = float(os.environ["BENCH_GC_SWEEP_S"])  # type: ignore[misc]
    if os.environ.get("BENCH_GC_YOUNG_S"):  # (the paced collections' interval: transport.YOUNG_S)
        import pontoon.web.transport as tr

        tr.YOUNG_S = float(os.environ["BENCH_GC_YOUNG_S"])  # type: ignore[misc]
    if os.environ.get("BENCH_AT_ONCE"):  # (frames written at once in a turn: web/conns.py AT_ONCE)
        import pontoon.web.conns as cn

        cn.AT_ONCE = int(os.environ["BENCH_AT_ONCE"])
    app = create_app(s, persistence)
    if os.environ.get("BENCH_STAGES_FILE"):  # (the server's CPU per action by stage: bench/server_stages.py)
        from server_stages import install

        install(os.environ["BENCH_STAGES_FILE"])
    opts = dict(uvicorn_options(s), host="127.0.0.1", port=port, log_level="warning")
    if os.environ.get("BENCH_WS"):  # (bench_server.py --ws: another WebSocket implementation of uvicorn's)
        opts["ws"] = os.environ["BENCH_WS"]
    if os.environ.get("BENCH_CPROFILE"):  # (a deterministic profile of the server process, to that file)
        import cProfile

        prof = cProfile.Profile(time.thread_time)  # (CPU time: a wait for a core is not counted)
        signal.signal(signal.SIGTERM, lambda *_: None)  # (uvicorn raises it again once it has stopped)
        prof.enable()
        try:
            uvicorn.run(app, **opts)
        finally:
            prof.disable()
            prof.dump_stats(os.environ["BENCH_CPROFILE"])
        return
    if not probe:
        uvicorn.run(app, **opts)
        return
    from server_probe import Probe  # (bench/, on sys.path as this script's folder)

    pr = Probe()
    pr.install()

    config = uvicorn.Config(app, **opts)
    server = uvicorn.Server(config)

    async def main() -> None:
        pr.start_loop()
        await server.serve()

    signal.signal(signal.SIGTERM, lambda *_: None)  # (uvicorn raises it again once it has stopped)

    from uvicorn._compat import asyncio_run

    try:
        asyncio_run(main(), loop_factory=config.get_loop_factory())
    finally:
        pr.dump(probe)


def start_servers(
    n: int, db: str, deflate: str, probe: str, stages: str, env: dict[str, str], first_port: int
) -> tuple[list[subprocess.Popen[bytes]], list[str]]:
    """``n`` server processes (``--servers``), ready (``/healthz``): the first on ``first_port``; on one
    store with table leases when there are several and a store (as ``pontoon serve --lease-ttl``), each
    with its own tables with the memory store. ``probe``: the first server's probe file (the others'
    with ``-1``, ``-2``... before ``.json``); ``stages``: the stem of each server's stages file."""
    lease = ["--lease-ttl", "30"] if n > 1 and db else []
    procs, bases = [], []
    for i in range(n):  # one after the other: the first makes the store's schema, the next ones find it
        port = first_port if i == 0 else free_port()
        pr = probe if i == 0 or not probe else probe.replace(".json", f"-{i}.json")
        procs.append(
            subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--serve", str(port), "--db", db, *lease]
                + ["--ws-deflate", deflate]
                + (["--probe-file", pr] if pr else []),
                env=dict(env, BENCH_STAGES_FILE=f"{stages}-{i}.json" if stages else ""),
            )
        )
        base = f"http://127.0.0.1:{port}"
        bases.append(base)
        wait_healthy(base)
    return procs, bases


def wait_healthy(base: str) -> None:
    """Wait up to about 30 s for a started server at ``base`` to answer ``/healthz``."""
    for _ in range(300):
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class StampedRaw(RawWS):
    """The lean client noting when each frame came off its socket (``stamps``, in order, one per frame):
    the time of the event loop's read callback that parsed it, not when the player's task got to it
    behind the other players' frames (as bench_human.py's clients, ``human_clients.Stamped``)."""

    def __init__(self) -> None:
        super().__init__()
        self.stamps: collections.deque[float] = collections.deque()

    def data_received(self, data: bytes) -> None:
        n = len(self.frames)
        super().data_received(data)
        if len(self.frames) > n:
            at = time.perf_counter()
            self.stamps.extend(at for _ in range(len(self.frames) - n))

    async def recv_stamped(self) -> tuple[bytes, float]:
        got = await self.recv()
        return got, self.stamps.popleft()


def choose(state: dict[str, Any]) -> dict[str, Any] | None:
    if state.get("phase") != "play" or state.get("to_act") != state.get("you"):
        return None
    rnd = state["round"]
    hta = rnd.get("hand_to_act")
    if hta is None:
        return None
    verbs = {a["verb"]: a for a in state["legal"] if a.get("box") == hta["box"]}
    box = next(b for b in rnd["boxes"] if b["box"] == hta["box"])
    hand = next((h for h in box["hands"] if h["hand"] == hta["hand"]), box["hands"][-1])
    for verb in ("hit", "stand") if hand["total"] < 17 else ("stand", "hit"):
        if verb in verbs:
            return {
                "type": "act",
                "action": {k: v for k, v in verbs[verb].items() if k not in ("low", "high")},
            }
    return None


def completed(state: dict[str, Any]) -> int:
    n = int(state.get("round_no", 0))
    return n if state.get("phase") == "betting" else n - 1


class Frames:
    """A client's state from the server's frames: full states, or (``?deltas=1``) deltas applied to the
    state held, or (``?deltas=2``, as the page asks) the public part's deltas applied to the public state
    held and the own part's to the own part held, the state being the public one with the own part's
    operations applied (web/frames.py)."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self.pub: dict[str, Any] = {}
        self.own: list[Any] = []

    def take(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """The state after ``msg`` (None: not a state frame)."""
        from pontoon.web.delta import apply

        kind = msg.get("type")
        if kind == "state":
            if "history" not in msg:  # a client without deltas: sent only when it changes
                msg["history"] = self.state.get("history", [])
            self.own = msg.pop("own", [])
            self.pub = msg
        elif kind == "delta":
            if msg["base"] != self.pub.get("seq"):
                raise RuntimeError(f"a delta based on {msg['base']}, the state held is {self.pub.get('seq')}")
            self.pub = dict(apply(msg["ops"], self.pub), seq=msg["seq"])
            got = msg.get("own")
            if got is not None:  # (the whole own part, as a short one comes: no walk)
                self.own = got[0][1] if len(got) == 1 and got[0][0] == [] else apply(got, self.own)
        else:
            return None
        self.state = join(self.pub, self.own) if self.own else self.pub
        return self.state


def join(pub: dict[str, Any], own: list[Any]) -> dict[str, Any]:
    """``apply(own, pub)`` (web/delta.py) for what a casino seat's own part holds, set operations one or
    two keys deep, without ``apply``'s general walk (the clients share the server's cores); any other
    operation by ``apply``."""
    from pontoon.web.delta import apply

    st = dict(pub)
    for op in own:
        path = op[0]
        if len(op) != 2 or not 0 < len(path) < 3:
            return apply(own, pub)  # type: ignore[no-any-return]
        if len(path) == 1:
            st[path[0]] = op[1]
            continue
        sub = st.get(path[0])
        if type(sub) is not dict:
            return apply(own, pub)  # type: ignore[no-any-return]
        if sub is pub[path[0]]:
            sub = st[path[0]] = dict(sub)
        sub[path[1]] = op[1]
    return st


FRAMES = {"full": 0, "deltas": 1, "split": 2}  # ``--frames``: what ``?deltas=`` the players ask for


def ws_url(url: str, deltas: int) -> str:
    """``deltas``: 0 (or False) full states, 1 (or True) deltas, 2 split deltas."""
    return f"{url}?deltas={int(deltas)}" if deltas else url


@dataclass
class Tally:
    """What the players note: ``lat``, each action's latency from its write to the read callback of the
    frame that answers it (``StampedRaw``: the server's answer as it came off the socket); ``seen``, the
    same to when the player's task got to that frame (behind the other players' frames in this process:
    the clients' own queue in it, the figure of the benches before 2026-11-28 17:00); ``kinds``, each
    latency's (kind, sent at: ``perf_counter``, latency) for ``--by-kind``; ``opened``, when each
    player's socket was open; the server's refusals."""

    lat: list[float] = field(default_factory=list)
    seen: list[float] = field(default_factory=list)
    kinds: list[tuple[str, float, float]] = field(default_factory=list)
    opened: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def player(
    url: str,
    rounds: int,
    bet: str,
    tally: Tally,
    deltas: int,
    client: str = "raw",
    start: asyncio.Event | None = None,
) -> None:
    """One player: acts only on a state that answers its previous message (never on a stale one).
    ``client``: ``raw`` (bench/raw_ws.py, lean: the clients share the server's cores) or ``websockets``
    (the library's client, as the benchmarks before this stop used). ``start``: set once every
    player's socket is open (``--connect first``)."""
    url, _, token = url.partition("#")  # the seat token goes in the Authorization header, never the URL
    auth = {"Authorization": f"Bearer {token}"}
    if client == "raw":
        raw = await connect_raw(ws_url(url, deltas), auth, StampedRaw)
        tally.opened.append(time.perf_counter())
        try:
            if start is not None:
                await start.wait()
            await play(raw.recv_stamped, raw.send, rounds, bet, tally)
        finally:
            raw.close()
        return
    async with connect(ws_url(url, deltas), max_size=2**22, additional_headers=auth) as ws:
        tally.opened.append(time.perf_counter())
        if start is not None:
            await start.wait()

        async def recv() -> tuple[bytes, float]:  # (stamped when the task got it: no read callback here)
            got = await ws.recv(decode=False)
            assert isinstance(got, bytes)
            return got, time.perf_counter()

        async def send(text: bytes) -> None:
            await ws.send(text.decode())

        await play(recv, send, rounds, bet, tally)


def kind_of(sent: str, state: dict[str, Any], sent_round: int) -> str:
    """What a player's message was, told by its answer, for the latency by kind (``--by-kind``): ``bet``
    (answered with betting still open), ``bet_deal`` (its answer is the dealt round: the last wager
    dealt it, or the other player's did meanwhile), ``hit`` or ``stand`` (the round goes on), ``hit_end``
    or ``stand_end`` (the answer is the round over: the dealer played, the round booked)."""
    if sent == "bet":
        return "bet" if state["phase"] == "betting" else "bet_deal"
    return sent + "_end" if completed(state) > sent_round else sent


async def play(
    recv: Callable[[], Awaitable[tuple[bytes, float]]],
    send: Callable[[bytes], Awaitable[None]],
    rounds: int,
    bet: str,
    tally: Tally,
) -> None:
    """``recv``: the next frame and when it came off the socket (``perf_counter``)."""
    sent_at: float | None = None
    kind = ""
    sent_version = sent_round = -1
    frames = Frames()
    while True:
        text, came = await recv()
        msg = orjson.loads(text)  # (orjson, bytes: the clients' CPU is the server's cores' too)
        if msg.get("type") == "error":
            tally.errors.append(msg["error"])
            sent_at = None
            continue
        got = frames.take(msg)
        if got is None:
            continue
        state = got
        if sent_at is not None:
            betting = state["phase"] == "betting" and state["you"] not in state["bets"]
            if state["version"] <= sent_version or betting and completed(state) == sent_round:
                continue  # not yet the answer to what this player sent
            tally.lat.append(came - sent_at)
            tally.seen.append(time.perf_counter() - sent_at)
            tally.kinds.append((kind_of(kind, state, sent_round), sent_at, came - sent_at))
            sent_at = None
        if completed(state) >= rounds:
            return
        out: dict[str, Any] | None = None
        if state["phase"] == "betting" and state["you"] not in state["bets"]:
            out = {"type": "bet", "amount": bet}
        else:
            out = choose(state)
        if out is not None:
            sent_at, sent_version, sent_round = time.perf_counter(), state["version"], completed(state)
            kind = "bet" if out["type"] == "bet" else str(out["action"]["verb"])
            await send(orjson.dumps(out))


async def run_load(
    bases: list[str],
    tables: int,
    players: int,
    rounds: int,
    preset: str,
    deltas: int,
    ps: list[Any] | None = None,
    client: str = "raw",
    connect_first: bool = False,
) -> dict[str, Any]:
    """The set-up (tables, accounts, joins: REST; table ``t`` made on, and so served by, server ``t mod
    len(bases)``, where its players then connect: what a router that hashes on the table id does) and
    then the play; ``ps`` (the servers' ``psutil.Process``): their CPU seconds and bytes written during
    the play only, summed (the set-up's commits are not a round's cost: they were counted in before
    issue 25's CPU work). ``connect_first``: every player's socket opened (its first state read) before
    the play and its clocks start, the sockets' opening then a part of the set-up; otherwise each player
    bets as soon as its own socket is open, the others still connecting (the benches before 2026-11-28
    17:00)."""
    procs = ps or []
    https = [httpx.AsyncClient(base_url=b, timeout=60) for b in bases]
    try:
        urls = []
        for t in range(tables):
            base, http = bases[t % len(bases)], https[t % len(bases)]
            tid = (await http.post("/api/tables", json={"preset": preset, "seed": t})).json()["id"]
            for p in range(players):
                name = f"t{t}p{p}"
                tok = (await http.post("/api/accounts", json={"name": name})).json()["token"]
                r = await http.post(
                    f"/api/tables/{tid}/join",
                    json={"box": p + 1, "buy_in": "1000"},
                    headers={"Authorization": f"Bearer {tok}"},
                )
                urls.append(base.replace("http", "ws") + f"/ws/tables/{tid}#{r.json()['token']}")
    finally:
        for http in https:
            await http.aclose()
    tally = Tally()
    opened = tally.opened
    start = asyncio.Event() if connect_first else None
    players_ = asyncio.gather(*(player(u, rounds, "10", tally, deltas, client, start) for u in urls))
    connect_s = 0.0
    if start is not None:
        c0 = time.perf_counter()
        while len(opened) < len(urls) and not players_.done():
            await asyncio.wait([players_], timeout=0.002)
        connect_s = time.perf_counter() - c0
        await asyncio.sleep(0.05)  # (the welcome frames read, the server's last connect done)
    # the server's CPU counts its writer process too (pontoon serve --writer process: a child of it)
    kids = [c for x in procs for c in x.children(recursive=True)]
    every = [*procs, *kids]
    cpu0 = sum(sum(x.cpu_times()[:2]) for x in every)
    kid0 = sum(sum(x.cpu_times()[:2]) for x in kids)
    sys0 = sum(x.cpu_times()[1] for x in every)
    out0 = sum(x.io_counters().write_chars for x in procs)
    ccpu0 = time.process_time()  # the clients' own CPU (this process: they share the cores with the server)
    marks = bool(procs) and bool(os.environ.get("BENCH_STAGES"))
    if marks:  # (the stages' counters at the play's start: bench/server_stages.py)
        for x in procs:
            x.send_signal(signal.SIGUSR1)
    t0, epoch0 = time.perf_counter(), time.time()
    late: list[float] = []  # how late this process's own event loop wakes (the clients' side of a tail)
    if start is not None:
        start.set()
    while not players_.done():
        at = time.perf_counter()
        await asyncio.wait([players_], timeout=0.005)
        if not players_.done():
            late.append(time.perf_counter() - at - 0.005)
    await players_
    wall = time.perf_counter() - t0
    if marks:
        for x in procs:
            x.send_signal(signal.SIGUSR1)
        await asyncio.sleep(0.2)  # (its handler runs on the server's next turn)
    ccpu = time.process_time() - ccpu0
    cpu = sum(sum(x.cpu_times()[:2]) for x in every) - cpu0
    kernel = sum(x.cpu_times()[1] for x in every) - sys0
    kid = sum(sum(x.cpu_times()[:2]) for x in kids) - kid0
    out = sum(x.io_counters().write_chars for x in procs) - out0
    return {
        "wall": wall,
        "lat": tally.lat,
        "seen": tally.seen,
        "errors": tally.errors,
        "cpu": cpu,
        "kids_cpu": kid,
        "client_cpu": ccpu,
        "kernel": kernel,
        "out": out,
        "play": (epoch0, time.time()),
        "late": sorted(late),
        "kinds": tally.kinds,
        "connect_s": connect_s,
        "opened": opened,
        "t0": t0,
    }


def pct(xs: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``xs`` (as the rows' p99: the element at ``int(q * n)``)."""
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def report_kinds(kinds: list[tuple[str, float, float]], t0: float, wall: float, opened: list[float]) -> None:
    """The clients' latency by kind of message and by moment of the play (``--by-kind``): where the
    slowest 1% (the p99's tail) comes from; ``opened``: when each socket was open (the connections'
    own storm: every player connects as the play starts)."""
    if not kinds:
        return
    if opened and max(opened) > t0:  # (``--connect together``: sockets opened during the play)
        last = max(opened)
        early = sorted(x[2] for x in kinds if x[1] < last)
        print(
            f"  sockets open ms after the play's start: first {1000 * (min(opened) - t0):.1f}, median "
            f"{1000 * (sorted(opened)[len(opened) // 2] - t0):.1f}, last {1000 * (last - t0):.1f}; actions sent "
            f"before the last was open {len(early)}, their p50 {1000 * pct(early, 0.5):.1f} ms, max "
            f"{1000 * (early[-1] if early else float('nan')):.1f} ms"
        )
    cut = pct(sorted(x[2] for x in kinds), 0.99)
    by: dict[str, list[float]] = {}
    for k, _, v in kinds:
        by.setdefault(k, []).append(v)
    tail = [x for x in kinds if x[2] >= cut]
    parts = []
    for k in sorted(by, key=lambda k: -len(by[k])):
        v = sorted(by[k])
        n_tail = sum(1 for x in tail if x[0] == k)
        parts.append(
            f"{k} {len(v)}: p50 {1000 * pct(v, 0.5):.1f} p99 {1000 * pct(v, 0.99):.1f} "
            f"max {1000 * v[-1]:.1f} ({n_tail} in the slowest 1%)"
        )
    print("  latency ms by kind: " + "; ".join(parts))
    tenths = [0] * 10  # the slowest 1% by when they were sent: tenths of the play
    for _, at, _ in tail:
        tenths[min(9, max(0, int(10 * (at - t0) / wall)))] += 1
    first = [x[2] for x in kinds if x[1] - t0 < 0.1 * wall]
    rest = sorted(x[2] for x in kinds if x[1] - t0 >= 0.1 * wall)
    print(
        f"  the slowest 1% (>= {1000 * cut:.1f} ms, {len(tail)}) by the tenth of the play they were sent in: "
        f"{' '.join(map(str, tenths))}; the play's first tenth {len(first)} actions, p99 of the rest "
        f"{1000 * pct(rest, 0.99):.1f} ms"
    )


def baseline(tables: int, players: int, rounds: int, preset: str) -> float:
    """Rounds per second of the same play on CasinoTable directly (no server, no JSON, no sockets)."""
    from pontoon.casino.table import CasinoTable
    from pontoon.protocol import Action
    from pontoon.rules import find_rules

    rules = find_rules(preset)
    t0 = time.perf_counter()
    for t in range(tables):
        table = CasinoTable(rules, rng=t)
        names = [f"p{p}" for p in range(players)]
        for n in names:
            table.join(n, Decimal(1000))
        for _ in range(rounds):
            rnd = table.new_round()
            for i, n in enumerate(names):
                table.place_bet(i + 1, n, "main", Decimal(10))
            table.deal()
            while not rnd.is_over():
                h = rnd.current
                assert h is not None
                who = rnd.to_act()
                assert who is not None  # (a round not over has someone to act)
                total, _ = h.total(rules.double_ace_counts_one)
                verb = "hit" if total < 17 else "stand"
                a = Action(verb, h.box)
                table.act(who, a if rnd.can(who, a) else Action("stand" if verb == "hit" else "hit", h.box))
            table.end_round()
    return tables * rounds / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="1,10,100", help="table counts, comma separated")
    ap.add_argument("--rounds", type=int, default=10, help="rounds per table")
    ap.add_argument("--players", type=int, default=2, help="players (WebSocket clients) per table")
    ap.add_argument("--preset", default="mbs")
    ap.add_argument(
        "--store",
        default="memory,sqlite",
        help="persistence, comma separated: memory (none), sqlite (a temporary file, synchronous=FULL), "
        "pg (a throwaway PostgreSQL cluster on a unix socket, fsync on)",
    )
    ap.add_argument(
        "--frames",
        default="split",
        choices=("split", "deltas", "full"),
        help="what the clients ask for after the first full state: split deltas (as the page), deltas "
        "(a tree before split deltas), or full states",
    )
    ap.add_argument(
        "--ws-deflate",
        default="off",
        choices=("off", "on"),
        help="the server's WebSocket per-message compression (pontoon serve --ws-deflate; off by default)",
    )
    ap.add_argument(
        "--src",
        default=os.path.join(ROOT, "src"),
        help="the server's source tree (e.g. an old commit's, from git archive), for old-against-new runs",
    )
    ap.add_argument(
        "--ws",
        default="",
        help="uvicorn's WebSocket implementation for the server (websockets-sansio, websockets, wsproto; "
        "default: pontoon serve's)",
    )
    ap.add_argument(
        "--client",
        default="raw",
        choices=("raw", "websockets"),
        help="the simulated players' WebSocket client: raw (bench/raw_ws.py: lean, the clients share the "
        "server's cores) or websockets (the library's, as the figures before 2026-11-27 21:00)",
    )
    ap.add_argument(
        "--probe",
        default="on",
        choices=("on", "off"),
        help="time inside the server too (bench/server_probe.py): handling, the commit's wait, loop lateness, GC",
    )
    ap.add_argument(
        "--servers",
        type=int,
        default=1,
        help="server processes (1 to 16): table t made on, and played on, server t mod N (what a router "
        "hashing on the table id does); with a store, all on it with table leases, else each its own tables",
    )
    ap.add_argument(
        "--connect",
        default="together",
        choices=("together", "first"),
        help="together: each player bets as soon as its socket is open, the others still connecting (the "
        "benches before 2026-11-28 17:00); first: every socket open before the play and its clocks start",
    )
    ap.add_argument(
        "--by-kind",
        action="store_true",
        help="the clients' latency by kind of message (bet, the bet that deals, hit, stand, the act that "
        "ends the round) and by moment of the play: what the p99's tail is made of",
    )
    ap.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--db", default="", help=argparse.SUPPRESS)
    ap.add_argument("--lease-ttl", type=float, default=0.0, help=argparse.SUPPRESS)
    ap.add_argument("--probe-file", default="", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.serve is not None:
        serve(a.serve, a.db, a.ws_deflate == "on", a.lease_ttl, a.probe_file)
        return 0
    if not 1 <= a.servers <= 16:
        print(f"--servers {a.servers}: accepted are 1 to 16 processes", file=sys.stderr)
        return 2
    stores = [x for x in a.store.split(",") if x]
    if any(x not in ("memory", "sqlite", "pg") for x in stores):
        print(f"--store {a.store}: accepted are memory, sqlite and pg", file=sys.stderr)
        return 2
    cluster = None
    pg_base = ""
    if "pg" in stores:
        sys.path.insert(0, ROOT)
        from tests.history.pg import cluster as pg_cluster
        from tests.history.pg import create_db

        cluster = pg_cluster()
        pg_base = cluster.__enter__()
    counts = [int(x) for x in a.tables.split(",") if x]
    print(
        f"bench_server: {a.players} players per table, {a.rounds} rounds per table, preset {a.preset}, "
        f"frames {a.frames}, client {a.client}, ws-deflate {a.ws_deflate}, {os.cpu_count()} CPUs"
    )
    print(
        f"{'tables':>6} {'clients':>7} {'rounds/s':>9} {'direct/s':>9} {'ratio':>7} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'actions':>7} {'errors':>6} {'srv CPU ms/round':>16} {'srv sys %':>9} {'cli CPU ms/round':>16} {'KB out/round':>12} {'RSS MB start':>12} {'RSS MB end':>10} "
        f"{'store':>6} {'vs memory':>9}"
    )
    mem_rps: dict[int, float] = {}
    env = dict(
        os.environ,
        PYTHONPATH=os.path.abspath(a.src) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        BENCH_WS=a.ws,
    )
    tmp = tempfile.mkdtemp(prefix="bench-server-")
    for tables, store in [(t, st) for t in counts for st in stores]:
        port = free_port()
        db = f"sqlite:///{tmp}/h{tables}.sqlite" if store == "sqlite" else ""
        if store == "pg":
            db = create_db(pg_base, f"server{tables}")
        n = max(1, a.servers)
        probe = os.path.join(tmp, f"probe-{tables}-{store}.json")  # (the first server's; the others' -1, -2)
        stages = os.path.join(tmp, f"stages-{tables}-{store}") if os.environ.get("BENCH_STAGES") else ""
        procs, bases = start_servers(
            n, db, a.ws_deflate, probe if a.probe == "on" else "", stages, env, first_port=port
        )
        try:
            ps = [psutil.Process(x.pid) for x in procs]
            rss0 = sum(x.memory_info().rss for x in ps) / 2**20
            spy = None
            if os.environ.get(
                "BENCH_PYSPY"
            ):  # (a profile of the server: py-spy's raw stacks, set-up included)
                out_txt = os.path.join(os.environ["BENCH_PYSPY"], f"spy-{tables}-{store}.txt")
                spy = subprocess.Popen(
                    [
                        os.path.join(os.path.dirname(sys.executable), "py-spy"),
                        "record",
                        "--pid",
                        str(procs[0].pid),
                    ]
                    + ["-r", "400", "-f", "raw", "-o", out_txt, "--nonblocking"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            cprof = None
            if os.environ.get("BENCH_CLIENT_CPROFILE"):  # (the clients' own profile, CPU time)
                import cProfile

                cprof = cProfile.Profile(time.thread_time)
                cprof.enable()
            res = asyncio.run(
                run_load(
                    bases,
                    tables,
                    a.players,
                    a.rounds,
                    a.preset,
                    FRAMES[a.frames],
                    ps,
                    a.client,
                    a.connect == "first",
                )
            )
            if cprof is not None:
                cprof.disable()
                cprof.dump_stats(os.environ["BENCH_CLIENT_CPROFILE"])
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                spy.wait(30)
            rss1 = sum(x.memory_info().rss for x in ps) / 2**20
            cpu_ms = res["cpu"] * 1000 / (tables * a.rounds)
            cli_ms = res["client_cpu"] * 1000 / (tables * a.rounds)
            sys_pct = 100 * res["kernel"] / res["cpu"] if res["cpu"] else 0.0
            kb_out = res["out"] / 1024 / (tables * a.rounds)
        finally:
            for x in procs:
                x.terminate()
            for x in procs:
                x.wait(10)
        lat = sorted(res["lat"])
        p50 = statistics.median(lat) * 1000 if lat else float("nan")
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] * 1000 if lat else float("nan")
        rps = tables * a.rounds / res["wall"]
        direct = baseline(tables, a.players, a.rounds, a.preset)
        if store == "memory":
            mem_rps[tables] = rps
        vs = f"{rps / mem_rps[tables]:.2f}x" if tables in mem_rps else "-"
        if os.path.exists(probe):  # what the server measured, before its row (the row is the run's last line)
            with open(probe, "rb") as f:
                report_probe(json.load(f), *res["play"])
            late = res["late"]
            if late:
                print(
                    f"  clients' own event loop late ms p50 {1000 * late[len(late) // 2]:.1f} "
                    f"p99 {1000 * late[min(len(late) - 1, int(0.99 * len(late)))]:.1f}"
                )
        seen = sorted(res["seen"])
        if seen:  # (the row's latency is to the read callback: this is the same to the player's task)
            print(
                f"  latency ms to the player's task (the clients' own queue in it, the row's before "
                f"2026-11-28 17:00): p50 {1000 * statistics.median(seen):.2f} p99 {1000 * pct(seen, 0.99):.2f}"
            )
        if a.by_kind and res["connect_s"]:
            print(
                f"  the {tables * a.players} sockets opened before the play in {1000 * res['connect_s']:.0f} ms"
            )
        if a.by_kind:
            report_kinds(res["kinds"], res["t0"], res["wall"], res["opened"])
        if os.environ.get("BENCH_KINDS_FILE"):  # (every latency: kind, sent at from the play's start, s)
            with open(f"{os.environ['BENCH_KINDS_FILE']}-{tables}-{store}.json", "w") as f:
                json.dump([(k, at - res["t0"], v) for k, at, v in res["kinds"]], f)
        if res["kids_cpu"]:  # (before the row: the row is the run's last line)
            kid_ms = res["kids_cpu"] * 1000 / (tables * a.rounds)
            print(f"  of the srv CPU, its child processes (the writer process): {kid_ms:.2f} ms/round")
        if stages:
            from server_stages import report

            report([f"{stages}-{i}.json" for i in range(n)], len(lat))
        print(
            f"{tables:>6} {tables * a.players:>7} {rps:>9.1f} {direct:>9.1f} {direct / rps:>6.1f}x {p50:>7.2f} "
            f"{p99:>7.2f} {len(lat):>7} {len(res['errors']):>6} {cpu_ms:>16.2f} {sys_pct:>9.0f} {cli_ms:>16.2f} {kb_out:>12.1f} {rss0:>12.1f} {rss1:>10.1f} "
            f"{store:>6} {vs:>9}",
            flush=True,
        )
    shutil.rmtree(tmp, ignore_errors=True)
    if cluster is not None:
        cluster.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
