"""How long a server takes to rebuild its tables in place after its writer process dies (web/respawn.py).

``python bench/bench_respawn.py [--tables 10,100] [--rounds 3]``, or ``--deaths N [--store sqlite|pg]``
(the writer process alone on an event loop: see ``deaths``).

For each table count T: a fresh server process (``bench_server.py``'s, rate limits raised; its writer in a
child process, as ``pontoon serve``) with T casino tables of one player each, played over REST
(``POST /api/tables/{id}/messages``) for ``--rounds`` rounds, then a wager each (the round dealt).
The writer child is stopped (SIGSTOP), every table is sent one action at once (its write stays in
flight, unacknowledged), then the child is killed (SIGKILL): every table is dropped (its calls fail
with ``WriterGone``) and rebuilt in place by the same server. Reported: the tables rebuilt (the
server's log lines), the time from the kill until every table is served again (in the lobby's list, ``GET /api/tables``),
the first table back, the event loop's time in the rebuilds (the sum of the chunks' times the log
gives, and the longest chunk: what one turn of the loop was held), the longest answer to ``/healthz``
asked every 5 ms meanwhile (what the loop was held longest: before, the new child's start too; now
that starts off the loop), the server's CPU from the kill until all were back (it serves those asks
meanwhile), and when the new writer child was ready after the kill (the server's log; nan where the
server does not say it).
Then one more round on every table and the store's audit (integrity ok). Not a timed test; numbers
depend on the machine (2 shared cores here).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import psutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
from bench_server import free_port, wait_healthy  # noqa: E402
from tests.web.play import casino_choice  # noqa: E402

# the pauses between two asks of /healthz, and two rounds of asks whether the tables are back (asked
# without a pause, they took a core from the new writer child starting beside the served loop)
PAUSE_S, BACK_S = 0.005, 0.02
READY_RE = re.compile(r"writer process was restarted: pid \d+, ready ([\d.]+) s after the death")
CHUNK_RE = re.compile(
    r"table (\w+): rebuilt in place .*?\(writer restarts \d+; ([\d.]+) ms for (\d+) tables\)"
)


def _writer(pid: int, not_pid: int = 0) -> psutil.Process:
    for _ in range(400):
        for ch in psutil.Process(pid).children(recursive=True):
            try:
                if ch.pid != not_pid and "pontoon.history.writer_child" in " ".join(ch.cmdline()):
                    return ch
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.05)
    raise RuntimeError("no writer child")


def _msg(http: httpx.Client, tid: str, tok: str, message: dict[str, Any]) -> httpx.Response:
    return http.post(f"/api/tables/{tid}/messages", json={"token": tok, "message": message})


def _play_from(http: httpx.Client, tid: str, tok: str, st: dict[str, Any]) -> None:
    """From a seat's state: hit below 17 and stand, to the round's end."""
    for _ in range(40):
        pick = casino_choice(st)
        if pick is None:
            if st.get("phase") != "betting":
                raise RuntimeError(f"table {tid}: nothing to do in {st.get('phase')}")
            return
        st = _msg(http, tid, tok, {"type": "act", "action": pick}).json()
    raise RuntimeError(f"table {tid}: the round did not end")


def _round(http: httpx.Client, tid: str, tok: str) -> None:
    """A wager of 10, then the round played to its end."""
    _play_from(http, tid, tok, _msg(http, tid, tok, {"type": "bet", "amount": "10"}).json())


class _Held:
    """A thread asking ``/healthz`` without a pause: the longest wait for an answer (the event loop held)."""

    def __init__(self, base: str) -> None:
        self.base, self.longest, self.running = base, 0.0, True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=60) as c:
            while self.running:
                t = time.perf_counter()
                c.get("/healthz")
                self.longest = max(self.longest, time.perf_counter() - t)
                time.sleep(PAUSE_S)

    def stop(self) -> float:
        self.running = False
        self.thread.join()
        return self.longest


def one(tables: int, rounds: int, db: str, log_path: str) -> dict[str, Any]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as logf:
        server = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "bench_server.py"), "--serve", str(port), "--db", db],
            env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")),
            stderr=logf,
        )
    try:
        wait_healthy(base)
        http = httpx.Client(base_url=base, timeout=60)
        seats: dict[str, tuple[str, str]] = {}  # table -> (player, seat token)
        for i in range(tables):
            name = f"p{i}"
            acct = http.post("/api/accounts", json={"name": name}).json()["token"]
            tid = http.post("/api/tables", json={"preset": "mbs", "seed": 1000 + i}).json()["id"]
            r = http.post(
                f"/api/tables/{tid}/join",
                json={"box": 1, "buy_in": "500"},
                headers={"Authorization": f"Bearer {acct}"},
            )
            seats[tid] = (name, r.json()["token"])

        def play(t: str) -> None:
            c = httpx.Client(base_url=base, timeout=60)
            for _ in range(rounds):
                _round(c, t, seats[t][1])
            c.close()

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(play, seats))
        states = {}
        for tid, (_n, tok) in seats.items():  # a wager each: the round dealt, an action to come
            states[tid] = _msg(http, tid, tok, {"type": "bet", "amount": "10"}).json()
        acting = {t: casino_choice(s) for t, s in states.items()}
        acting = {t: p for t, p in acting.items() if p is not None}  # (a dealer's natural ended some)
        child = _writer(server.pid)
        child.send_signal(signal.SIGSTOP)
        with ThreadPoolExecutor(max(1, len(acting))) as pool:

            def act(t: str, p: dict[str, Any]) -> tuple[int, Any]:
                with httpx.Client(base_url=base, timeout=60) as c:
                    r = _msg(c, t, seats[t][1], {"type": "act", "action": p})
                    return r.status_code, r.json() if r.status_code == 200 else None

            futs = [pool.submit(act, t, p) for t, p in acting.items()]
            time.sleep(1.0)  # every action's write sent to the stopped child
            cpu0 = sum(psutil.Process(server.pid).cpu_times()[:2])
            t0 = time.perf_counter()
            held = _Held(base)  # /healthz asked again and again: the longest answer is the loop held
            child.send_signal(signal.SIGKILL)
            answers = dict(zip(acting, (f.result() for f in futs), strict=True))
            codes = [code for code, _st in answers.values()]
        back: set[str] = set()
        first_back_s = 0.0
        while len(back) < tables:  # (one ask a round, the lobby's list: one ask a table loaded the loop)
            here = {t["id"] for t in http.get("/api/tables").json() if t.get("served_here")}
            if here & set(seats) - back:
                back |= here & set(seats)
                first_back_s = first_back_s or time.perf_counter() - t0
            if time.perf_counter() - t0 > 60:
                break
            time.sleep(BACK_S)
        all_back_s = time.perf_counter() - t0
        held_s = held.stop()
        cpu = sum(psutil.Process(server.pid).cpu_times()[:2]) - cpu0
        _writer(server.pid, not_pid=child.pid)

        def finish(t: str) -> None:  # the round in play then one more
            c = httpx.Client(base_url=base, timeout=60)
            if t in acting and answers[t][0] == 200:  # (sent after the death: held, committed)
                _play_from(c, t, seats[t][1], answers[t][1])
            elif t in acting:  # (refused: never committed) sent again
                r = _msg(c, t, seats[t][1], {"type": "act", "action": acting[t]})
                r.raise_for_status()
                _play_from(c, t, seats[t][1], r.json())
            _round(c, t, seats[t][1])
            c.close()

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(finish, seats))
        http.close()
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    text = open(log_path, encoding="utf-8", errors="replace").read()
    chunks: dict[tuple[float, int], int] = {}
    rebuilt = 0
    for m in CHUNK_RE.finditer(text):
        rebuilt += 1
        key = (float(m.group(2)), int(m.group(3)))
        chunks[key] = chunks.get(key, 0) + 1
    ready = READY_RE.search(text)  # (a successor started off the loop says when it was ready)
    return {
        "ready_s": float(ready.group(1)) if ready else float("nan"),
        "tables": tables,
        "in_flight": len(acting),
        "refused": sum(1 for c in codes if c == 409),
        "rebuilt": rebuilt,
        "all_back_s": all_back_s,
        "first_back_s": first_back_s,
        "held_s": held_s,
        "loop_ms": sum(ms for ms, _k in chunks),
        "chunk_max_ms": max((ms for ms, _k in chunks), default=0.0),
        "cpu_s": cpu,
    }


def deaths(n: int, db: str) -> list[tuple[float, float, int]]:
    """``--deaths N``: no server, the writer process alone on an event loop (uvloop, as served): N
    times, the child killed with nothing in flight while a 1 ms timer ticks on the loop. Each death:
    the longest gap between two ticks from the kill until the new child took over (the loop held),
    the time from the kill until a call to it was committed, and the ticks meanwhile."""
    import asyncio

    import uvloop

    from pontoon.history import open_store
    from pontoon.history.store import Batch, Row
    from pontoon.history.writer_proc import start_writer_process
    from pontoon.web.wakeups import Wakeups

    store = open_store(db)
    out: list[tuple[float, float, int]] = []
    try:
        tid = store.create_table("casino", "mbs", {}, label="bench")
        group = start_writer_process(store)
        wakeups = Wakeups()

        def note(k: int) -> list[Batch]:
            return [Batch(rows=[Row(1, k, "note", {"n": k})])]

        async def run() -> None:
            group.use_loop(asyncio.get_running_loop())
            k = 0
            for _ in range(n):
                await wakeups.wait(store.enqueue(tid, note(k)))
                k += 1
                pid = group.pid
                t0 = last = time.perf_counter()
                longest, ticks = 0.0, 0
                os.kill(pid, signal.SIGKILL)
                while group.pid == pid:  # (before: nothing ran here until the new child was ready)
                    await asyncio.sleep(0.001)
                    now = time.perf_counter()
                    longest, last, ticks = max(longest, now - last), now, ticks + 1
                longest = max(longest, time.perf_counter() - last)
                await wakeups.wait(store.enqueue(tid, note(k)))
                k += 1
                out.append((longest, time.perf_counter() - t0, ticks))

        uvloop.run(run())
    finally:
        store.close()
    return out


def audit_ok(db: str) -> str:
    from pontoon.history import open_store
    from pontoon.history.audit import audit

    store = open_store(db)
    try:
        return str(audit(store)["integrity"])
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="10,100")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--deaths", type=int, default=0, help="the writer process alone: N deaths (no server)")
    ap.add_argument("--store", default="sqlite", choices=("sqlite", "pg"), help="(--deaths) its database")
    a = ap.parse_args(argv)
    if a.deaths < 0 or a.rounds < 1:
        ap.error("--deaths: accepted is 0 (the server's run) or more; --rounds: 1 or more")
    parts = [x for x in a.tables.split(",") if x]
    if not parts or not all(x.isdigit() and int(x) > 0 for x in parts):
        ap.error(f"--tables {a.tables!r}: accepted are table counts of 1 or more, comma separated")
    tmp = tempfile.mkdtemp(prefix="bench-respawn-")
    try:
        if a.deaths and a.store == "pg":
            from tests.history.pg import cluster, create_db

            with cluster() as base:
                got = deaths(a.deaths, create_db(base, "deaths"))
        elif a.deaths:
            got = deaths(a.deaths, f"sqlite:///{tmp}/d.sqlite")
        if a.deaths:
            print("death  longest loop gap s  kill to a commit by the new child s  loop ticks meanwhile")
            for i, (gap, back, ticks) in enumerate(got, 1):
                print(f"{i:5d}  {gap:18.3f}  {back:35.3f}  {ticks:20d}")
            return 0
        print(
            "tables  in flight  refused  rebuilt  first back s  all back s  rebuilds' loop ms (sum / max chunk)"
            "  longest /healthz s  server CPU s  writer ready s  audit"
        )
        for t in (int(x) for x in a.tables.split(",") if x):
            db = f"sqlite:///{tmp}/h{t}.sqlite"
            r = one(t, a.rounds, db, f"{tmp}/serve{t}.log")
            print(
                f"{r['tables']:6d}  {r['in_flight']:9d}  {r['refused']:7d}  {r['rebuilt']:7d}  {r['first_back_s']:12.3f}"
                f"  {r['all_back_s']:10.3f}  {r['loop_ms']:16.1f} / {r['chunk_max_ms']:6.1f}           {r['held_s']:18.3f}"
                f"  {r['cpu_s']:12.3f}  {r['ready_s']:14.3f}  {audit_ok(db)}",
                flush=True,
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
