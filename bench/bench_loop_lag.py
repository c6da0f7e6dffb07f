"""Event-loop lag of the table server while it runs its analysis off the loop (``asyncio.to_thread``).

``python bench/bench_loop_lag.py [--quick]``; run it against any tree with that tree's Python and
``PYTHONPATH``, e.g. the compiled build (mypyc engine, numba kernels compiled ahead of time)::

    PYTHONPATH=/work/main/src /work/main/.venv/bin/python bench/bench_loop_lag.py
    PYTHONPATH=src .venv/bin/python bench/bench_loop_lag.py          # this tree (pure: PONTOON_PURE=1)

The real app (``create_app``, uvicorn, the options of ``pontoon serve``) serves on loopback in a thread of
this process, in an event loop of its own; a probe task in that loop sleeps 5 ms again and again and
records how late it wakes. A worker thread that holds the GIL (a native call that does not release it:
a numba kernel without ``nogil``, a numba.pycc export, a long mypyc loop) stops the loop for as long as
it holds it; interpreted Python in the worker gives the GIL back every switch interval (5 ms).

Each analysis call the server runs off the loop is triggered and timed, the probe's largest lateness
over the call reported:

- the exact edge of a custom table of each casino preset (``POST /api/tables`` with a rules file that
  differs from the preset: ``marks.exact_edge`` in a worker thread, the first time for these rules);
- a casino hint on every preset (the ``hints`` message at the hand to act: ``analysis.hints.action_values``);
- the British bots' set-up (``fill_bots`` at level ``best``: ``british_bots`` reads the shipped solution);
- British hints (``british_hint``) as a player, as the banker, and as the banker facing a split, with the
  seat's view, the public view and the stakes of an engine round (the same inputs as ``hint_inputs``),
  run by ``asyncio.to_thread`` inside the server's loop;
- bots' decisions: a casino table with a bot (exact-strategy decisions) and a British table of three
  seats with two ``best`` bots, played by one person for a few rounds (the probe over the whole play).

The client (httpx, websockets) runs in this process's main thread: it waits on sockets, so it takes the
GIL only briefly. Not a timed test; numbers depend on the machine (2 shared cores here).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import connect

PROBE_S = 0.005


class Probe:
    """A task in the server's loop: sleeps ``PROBE_S``, records (wake time, lateness)."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self.running = True

    async def run(self) -> None:
        while self.running:
            t = time.perf_counter()
            await asyncio.sleep(PROBE_S)
            now = time.perf_counter()
            self.samples.append((now, now - t - PROBE_S))

    def worst(self, t0: float, t1: float) -> float:
        """The largest lateness of a wake-up in [t0, t1] (a wake just after t1 counts: it was late during)."""
        got = [late for at, late in self.samples if t0 <= at <= t1 + 0.5 and at - late - PROBE_S <= t1]
        return max(got, default=0.0)


class Stalls:
    """A thread that, while the probe is overdue by more than ``STALL_S``, samples every thread's stack:
    the frames of the pontoon code that ran while the loop stood still (on the loop thread: work done on
    the loop; on a worker: what held the GIL, seen when it let this thread run)."""

    STALL_S = 0.2

    def __init__(self, probe: Probe) -> None:
        self.probe = probe
        self.seen: dict[str, int] = {}
        self.loop_ident = 0
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import traceback

        while self.running:
            time.sleep(0.05)
            last = self.probe.samples[-1][0] if self.probe.samples else time.perf_counter()
            if time.perf_counter() - last < self.STALL_S:
                continue
            for ident, frame in sys._current_frames().items():
                if ident == threading.get_ident():
                    continue
                stack = [f for f in traceback.extract_stack(frame) if "/pontoon/" in f.filename]
                if not stack:
                    continue
                where = "loop" if ident == self.loop_ident else "worker"
                top = " < ".join(f"{f.filename.rsplit('/pontoon/', 1)[1]}:{f.name}" for f in stack[::-1][:3])
                key = f"{where}: {top}"
                self.seen[key] = self.seen.get(key, 0) + 1

    def take(self) -> dict[str, int]:
        out, self.seen = self.seen, {}
        return out


class Server:
    """The app of ``pontoon serve`` under uvicorn in a thread with its own loop, the probe in that loop."""

    def __init__(self) -> None:
        from pontoon.web.app import create_app
        from pontoon.web.hosting import Settings
        from pontoon.web.transport import uvicorn_options

        s = Settings(
            join_burst=1e6,
            join_rate=1e6,
            action_burst=1e6,
            action_rate=1e6,
            test_mode=True,  # seeded tables (ruling 36)
            custom_rules=True,
            result_pause_s=0.0,
            max_player_edge=1.0,
            tables_per_address=10_000,
            tables_per_account=10_000,
            seats_per_account=10_000,
            seats_per_address=10_000,
            grace_s=3600.0,
        )
        self.app = create_app(s, None, tick_s=0.05)
        cfg = uvicorn.Config(self.app, host="127.0.0.1", port=0, log_level="warning", **uvicorn_options(s))
        self.server = uvicorn.Server(cfg)
        self.loop = asyncio.new_event_loop()
        self.probe = Probe()
        self.stalls = Stalls(self.probe)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        t0 = time.monotonic()
        while not self.server.started:
            if time.monotonic() - t0 > 30 or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.ws_url = f"ws://127.0.0.1:{port}/ws/tables"
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600)

    def _run(self) -> None:
        self.stalls.loop_ident = threading.get_ident()
        asyncio.set_event_loop(self.loop)
        self.loop.create_task(self.probe.run())
        self.loop.run_until_complete(self.server.serve())

    def stop(self) -> None:
        self.probe.running = False
        self.stalls.running = False
        self.server.should_exit = True
        self.thread.join(10)
        self.http.close()

    def off_loop(self, fn: Callable[..., Any], **kw: Any) -> Any:
        """``fn(**kw)`` as the server runs its analysis: ``asyncio.to_thread`` awaited in its loop."""
        return asyncio.run_coroutine_threadsafe(asyncio.to_thread(fn, **kw), self.loop).result(600)

    # REST and sockets ----------------------------------------------------------------------------
    def account(self, name: str) -> str:
        r = self.http.post("/api/accounts", json={"name": name})
        assert r.status_code == 201, r.text
        self.http.cookies.clear()
        return str(r.json()["token"])

    def table(self, token: str | None = None, **spec: Any) -> str:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        r = self.http.post("/api/tables", json=spec, headers=headers)
        assert r.status_code == 201, r.text
        self.http.cookies.clear()
        return str(r.json()["id"])

    def join(self, tid: str, token: str, **body: Any) -> str:
        r = self.http.post(f"/api/tables/{tid}/join", json=body, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return str(r.json()["token"])

    def host(self, tid: str, token: str, **msg: Any) -> None:
        r = self.http.post(
            f"/api/tables/{tid}/host", json={"msg": msg}, headers={"Authorization": f"Bearer {token}"}
        )
        assert r.status_code == 200, r.text


class Sock:
    def __init__(self, url: str, token: str) -> None:
        self.conn = connect(
            url, open_timeout=30, max_size=2**22, additional_headers={"Authorization": f"Bearer {token}"}
        ).__enter__()
        self.state: dict[str, Any] = {}

    def send(self, obj: Any) -> None:
        self.conn.send(json.dumps(obj))

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 120) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            m = json.loads(self.conn.recv(timeout=max(0.01, end - time.monotonic())))
            if m.get("type") == "state":
                self.state = m
            if pred(m):
                return m

    def close(self) -> None:
        self.conn.close()


ROWS: list[tuple[str, float, float, int]] = []
AOT_LONGEST: dict[str, tuple[float, int]] = {}  # an ahead-of-time export: (its longest call, calls)


def time_aot_exports() -> None:
    """Time every call of the analysis kernels compiled ahead of time (numba.pycc exports hold the GIL
    for the whole call: pycc has no ``nogil``): each export of ``pontoon.analysis._aot`` replaced by a
    timing wrapper before the kernel modules take them (``aot.kernel``). Nothing where the JIT serves."""
    from pontoon.analysis import aot

    st = aot.state()
    if st.mode != "aot" or st.module is None:
        return
    if any(m in sys.modules for m in aot.KERNEL_MODULES):
        raise RuntimeError("the kernel modules were imported before the exports could be timed")
    for name in dir(st.module):
        fn = getattr(st.module, name)
        if name.startswith("_") or not callable(fn) or name == aot.STAMP_FUNCTION:
            continue

        def timed(*a: Any, _fn: Any = fn, _name: str = name) -> Any:
            t = time.perf_counter()
            try:
                return _fn(*a)
            finally:
                d = time.perf_counter() - t
                worst, n = AOT_LONGEST.get(_name, (0.0, 0))
                AOT_LONGEST[_name] = (max(worst, d), n + 1)

        setattr(st.module, name, timed)


def busy(seconds: float) -> None:
    """The control: interpreted Python only (it gives the GIL back every switch interval)."""
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        x += 1


STACKS = False  # --stacks: where the code stood while the loop was stalled


def measure(srv: Server, label: str, fn: Callable[[], Any]) -> Any:
    srv.stalls.take()
    t0 = time.perf_counter()
    out = fn()
    t1 = time.perf_counter()
    time.sleep(0.05)  # the probe's wake after the call
    n = sum(1 for at, _ in srv.probe.samples if t0 <= at <= t1)
    ROWS.append((label, t1 - t0, srv.probe.worst(t0, t1), n))
    print(
        f"  {label:<44} {t1 - t0:8.3f} s  loop late at most {srv.probe.worst(t0, t1) * 1000:8.1f} ms",
        flush=True,
    )
    if STACKS:
        for key, n in sorted(srv.stalls.take().items(), key=lambda kv: -kv[1])[:4]:
            print(f"      stalled x{n}: {key}")
    return out


# the calls -------------------------------------------------------------------------------------


def edges(srv: Server, presets: list[str]) -> None:
    for p in presets:
        measure(
            srv,
            f"exact_edge (custom {p} table)",
            lambda p=p: srv.table(rules_toml=f'preset = "{p}"\ntable_max = 777\n'),
        )


def casino_hint(srv: Server, preset: str, n: int) -> None:
    tok = srv.account(f"h{n}")
    tid = srv.table(preset=preset, seed=12 + n)
    s = Sock(f"{srv.ws_url}/{tid}", srv.join(tid, tok, box=1))

    def my_turn(m: dict[str, Any]) -> bool:  # a bet at each new round until the hand to act is this seat's
        if m.get("type") != "state":
            return False
        if m["phase"] == "betting" and not (m.get("bets") or {}).get(m["you"]):
            s.send({"type": "bet", "amount": "10"})
        return bool(m["phase"] == "play" and m["to_act"] == m["you"])

    s.until(my_turn, timeout=60)

    def ask() -> Any:
        s.send({"type": "hints"})
        return s.until(lambda m: m.get("type") in ("hints", "error"))

    got = measure(srv, f"casino hint ({preset})", ask)
    assert got["type"] == "hints", got
    s.close()


def british_hints(srv: Server) -> None:
    from pontoon.analysis.british.bots import initial_stakes
    from pontoon.analysis.british.hints import british_hint
    from pontoon.british.pack import BritishPack
    from pontoon.british.round import BritishRound
    from pontoon.protocol import SPECTATOR
    from pontoon.rules.british import BRITISH

    def inputs(rnd: BritishRound, seat: str) -> dict[str, Any]:
        return {
            "rules": rnd.rules,
            "seat": seat,
            "view": rnd.view(seat),
            "public": rnd.view(SPECTATOR),
            "initials": initial_stakes(rnd),
        }

    def rnd_of(order: str) -> BritishRound:
        rnd = BritishRound(BRITISH, ["p"], "b", BritishPack.stacked_from(order, packs=BRITISH.packs_for(2)))
        rnd.act("p", "stake", "1")
        return rnd

    rnd = rnd_of("TS 5H 6D KC")
    v = measure(srv, "british hint, player", lambda: srv.off_loop(british_hint, **inputs(rnd, "p")))
    assert v["values"], v
    rnd = rnd_of("5S 5H 7D KC 4S 3H")
    rnd.act("p", "buy", "1")
    rnd.act("p", "twist")
    rnd.act("p", "stick")
    v = measure(srv, "british hint, banker", lambda: srv.off_loop(british_hint, **inputs(rnd, "b")))
    assert v["values"], v
    rnd = rnd_of("8S 9C 8H 7D 9S 9H 4C 4D 4H 4S 3C 3H 3S")
    rnd.act("p", "split")
    while rnd.to_act() == "p":
        rnd.act("p", "stick" if rnd.can("p", "stick") else "twist")
    v = measure(
        srv, "british hint, banker facing a split", lambda: srv.off_loop(british_hint, **inputs(rnd, "b"))
    )
    assert v["values"], v


def play(s: Sock, rounds: int, british: bool) -> None:
    """Play as the one person until ``rounds`` rounds were settled (the bots play the other seats)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests.web.play
    from tests.web.play import british_choice, casino_choice

    done = 0
    last = None
    end = time.monotonic() + 300
    while done < rounds and time.monotonic() < end:
        st = s.until(lambda m: m.get("type") == "state", timeout=120)
        hist = len(st.get("history") or [])
        if last is not None and hist != last:
            done += 1
        last = hist
        if british:
            pick = british_choice(st)
        elif st.get("phase") == "betting" and not (st.get("bets") or {}).get(st["you"]):
            pick = {"type": "bet", "amount": "10"}
        else:
            act = casino_choice(st)
            pick = None if act is None else {"type": "act", "action": act}
        if pick is not None:
            s.send(pick)


def bots(srv: Server, rounds: int) -> None:
    tok = srv.account("bc")
    tid = srv.table(preset="mbs", seed=3)
    s = Sock(f"{srv.ws_url}/{tid}", srv.join(tid, tok, box=1, buy_in="500"))
    srv.host(tid, tok, action="add_bot")
    measure(srv, f"casino bot decisions (mbs, {rounds} rounds)", lambda: play(s, rounds, british=False))
    s.close()
    tok = srv.account("bb")
    tid = srv.table(tok, preset="british", seats=3, seed=7)
    s = Sock(f"{srv.ws_url}/{tid}", srv.join(tid, tok, buy_in="300"))
    measure(
        srv,
        "british_bots set-up (fill_bots best)",
        lambda: srv.host(tid, tok, action="fill_bots", level="best"),
    )
    measure(srv, f"british bots, best, 3 seats ({rounds} rounds)", lambda: play(s, rounds, british=True))
    s.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--quick", action="store_true", help="one preset for each casino call, fewer rounds")
    ap.add_argument("--stacks", action="store_true", help="where the code stood while the loop was stalled")
    ap.add_argument("--only", default="", help="run only these parts: edge,hint,british,bots (default: all)")
    args = ap.parse_args(argv)
    global STACKS
    STACKS = args.stacks
    parts = set(args.only.split(",")) if args.only else {"edge", "hint", "british", "bots"}
    from pontoon.compiled import analysis_build, engine_build
    from pontoon.rules.presets import CASINO_PRESETS

    time_aot_exports()
    print(
        f"engine: {engine_build()}\nanalysis kernels: {analysis_build()}\nswitch interval {sys.getswitchinterval()} s"
    )
    presets = list(CASINO_PRESETS)[: 1 if args.quick else None]
    srv = Server()
    try:
        time.sleep(0.3)
        measure(srv, "idle (nothing running)", lambda: time.sleep(1.0))
        measure(srv, "control: 2 s of Python in a worker", lambda: srv.off_loop(busy, seconds=2.0))
        if "edge" in parts:
            edges(srv, presets)
        if "hint" in parts:
            for i, p in enumerate(presets):
                casino_hint(srv, p, i)
        if "british" in parts:
            british_hints(srv)
        if "bots" in parts:
            bots(srv, 2 if args.quick else 4)
    finally:
        srv.stop()
    if AOT_LONGEST:
        print("ahead-of-time kernels (they hold the GIL), the longest single call of each (> 10 ms):")
        for name, (d, n) in sorted(AOT_LONGEST.items(), key=lambda kv: -kv[1][0]):
            if d > 0.01:
                print(f"  {name:<32} {d * 1000:8.1f} ms  ({n} calls)")
    worst = max(ROWS, key=lambda r: r[2])
    print(f"worst: {worst[0]}: loop late {worst[2] * 1000:.1f} ms over a {worst[1]:.2f} s call")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
