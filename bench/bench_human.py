"""Human-paced load on one ``pontoon serve`` process: many tables, two people each acting every few seconds.

``python bench/bench_human.py [--tables 1000] [--every 2] [--seconds 180] [--store sqlite|memory|pg]
[--client lean|websockets] [--client-loop uvloop|asyncio] [--client-procs N] [--servers N] [--probe on|off]
[--src DIR]``

A fresh server process (the app of ``pontoon serve``, as ``bench_server.py`` starts it) hosts T casino
tables of ``mbs`` with two WebSocket players each (all in this process's event loop). A player acts
(bets the minimum, hits below 17, stands) only at its own pace: at most one message every ``--every``
seconds (each player's first at a random offset), as a person would, and only on the state that answers
his last message (``Person``): a wager names the round he saw open, as the page does.

What the latency measures, so that it is the server's and not the clients': from the moment a message is
written to its socket (not when the person's timer task got to run) to the moment the frame answering it
came off the socket (``Stamped``: noted in the event loop's read callback, not when the person's task got
to it behind the other people's frames). The answer is the first later frame that is not still open for
betting without his wager (``_answers``), or the server's refusal: never the frame made by the other
person's wager (taken as the answer, the person bet again once his pace allowed, and his second wager
came after the deal his first had made: a refusal, "dealt before it came", and a latency that was not
his). What the clients' own event loop adds is then only how late it woke to read the socket: printed
beside (the loop's lateness), with a line when it is more than a quarter of the p99 (then spread the
clients, ``--client-procs``). So the clients are cheap on purpose, their CPU being taken from the
server's cores: by default (``--client lean``) each person is a ``RawWS`` protocol (bench/raw_ws.py)
whose read callback hands every frame to the person at once (no task per person or message), the
deltas are applied in place (``LeanFrames``) and the loop is uvloop's (``--client-loop``): 0.28-0.30 ms
of client CPU an action at 1,000 tables against 0.47 with the ``websockets`` client on asyncio's loop
(``--client websockets --client-loop asyncio``, the client before 2026-11-28 12:00; docs/scale.md).
The people are spread over two client processes by default (``--client-procs``). ``--checkpointer-ab
S``: the SQLite server's WAL checkpointer off and on in windows of S s of one run
(``AB_ORDER``), each window and each side reported (``report_ab``).
At the end a person waits up to 30 s for his last answer; one never answered is counted
(``unanswered``), not dropped from the tail unseen.
Reported: the action latency at p50/p99/max, the actions, refusals and unanswered, the server process's CPU
(seconds over the run, per action: the clients' CPU is not in it), and the server's memory
(RSS) sampled every few seconds (the curve), so that a leak shows as a rising line. ``--servers N``
starts N server processes on the one store with table leases (as ``pontoon serve --lease-ttl``) and
makes table ``t`` on server ``t mod N`` (its CPU and RSS are the processes' sums). The latency is of
the messages sent once everyone has sat down (the arrivals, about 200 handshakes a second, are a burst
of their own: their p99 is printed beside); at the end people stop acting and leave only once their last
message is answered, so that the leaving is not counted either. After it, what the server measured
itself over the same span (``--probe on``, bench/server_probe.py): its handling time per message, the
commit's wait, a frame's time from queued to sent, how late its event loop woke, its collections and
what held the loop in its stalls; beside the clients' own loop lateness, this says on which side the
tail is. ``--src DIR``: the server from another source tree (old against new).
Not a timed test; on a small machine run fewer tables or a shorter time (the clients share its cores).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any

import httpx
import orjson
import psutil

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import FRAMES, ROOT, free_port, wait_healthy  # noqa: E402
from human_clients import _worker  # noqa: E402
from server_probe import report_probe  # noqa: E402


async def setup(bases: list[str], tables: int, at_once: int = 32) -> list[str]:
    """The tables (table ``t`` made on, and so served by, server ``t mod len(bases)``), the people's
    accounts and seats (REST, ``at_once`` tables at a time: with a store each request waits for its
    commit, and one at a time the set-up of 1,000 tables took minutes); each person's WebSocket URL and
    seat token, in table order."""
    urls: list[str] = [""] * (2 * tables)
    # no cookie jar: every call names its account (a session cookie kept by a shared client would make
    # the next tables in its name, over the 3 open tables an account may make)
    jar = lambda: CookieJar(DefaultCookiePolicy(allowed_domains=[]))  # noqa: E731
    https = [httpx.AsyncClient(base_url=b, timeout=120, cookies=jar()) for b in bases]
    gate = asyncio.Semaphore(at_once)

    async def one(t: int) -> None:
        base, http = bases[t % len(bases)], https[t % len(bases)]
        async with gate:
            made = await http.post("/api/tables", json={"preset": "mbs", "seed": t})
            if made.status_code != 201:
                raise RuntimeError(f"making table {t}: {made.status_code} {made.text[:200]}")
            tid = made.json()["id"]
            for p in range(2):
                tok = (await http.post("/api/accounts", json={"name": f"h{t}p{p}"})).json()["token"]
                r = await http.post(
                    f"/api/tables/{tid}/join",
                    json={"box": p + 1, "buy_in": "1000"},
                    headers={"Authorization": f"Bearer {tok}"},
                )
                urls[2 * t + p] = base.replace("http", "ws") + f"/ws/tables/{tid}#{r.json()['token']}"

    try:
        await asyncio.gather(*(one(t) for t in range(tables)))
    finally:
        for h in https:
            await h.aclose()
    return urls


def load(
    bases: list[str],
    tables: int,
    every: float,
    seconds: float,
    pids: list[int],
    deltas: int,
    procs: int,
    client: str = "lean",
    loop: str = "uvloop",
    ab: float = 0.0,
) -> dict[str, Any]:
    urls = asyncio.run(setup(bases, tables))
    servers = [psutil.Process(pid) for pid in pids]
    # the servers' CPU counts their writer processes too (pontoon serve --writer process: children)
    counted = [*servers, *(c for p in servers for c in p.children(recursive=True))]
    rss: list[tuple[float, float]] = []
    cpu0 = sum(sum(p.cpu_times()[:2]) for p in counted)
    kern0 = _kernel(servers)
    t0 = time.perf_counter()
    epoch0 = time.time()
    warm = t0 + len(urls) / 200 + 2.0  # everyone has sat down (about 200 arrivals a second), and 2 s more
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0 if not rss else max(1.0, seconds / 12)):
            rss.append((time.perf_counter() - t0, sum(p.memory_info().rss for p in servers) / 2**20))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    windows: list[tuple[float, float, str, float]] = []  # (perf_counter, time.time(), mode, server CPU s)

    def toggle() -> None:  # --checkpointer-ab: the windows of AB_ORDER, each ``ab`` s, from ``warm`` on
        on = True  # (the server starts with it)
        for k, mode in enumerate(AB_ORDER):
            at = warm + k * ab
            if stop.wait(max(0.0, at - time.perf_counter())):
                return
            if (mode == "on") != on:
                for p in servers:
                    p.send_signal(signal.SIGUSR1)
                on = mode == "on"
            windows.append((at, epoch0 + (at - t0), mode, sum(sum(p.cpu_times()[:2]) for p in counted)))
        stop.wait(max(0.0, warm + len(AB_ORDER) * ab - time.perf_counter()))
        windows.append(
            (
                warm + len(AB_ORDER) * ab,
                epoch0 + (warm - t0) + len(AB_ORDER) * ab,
                "end",
                sum(sum(p.cpu_times()[:2]) for p in counted),
            )
        )

    toggler = threading.Thread(target=toggle, daemon=True)
    if ab > 0:
        toggler.start()
    jobs = [(urls[i::procs], every, seconds, deltas, i + 1, procs, client, loop) for i in range(procs)]
    if procs == 1:
        parts = [_worker(jobs[0])]
    else:  # the clients in several processes: one event loop no longer carries them all
        with ProcessPoolExecutor(procs, mp_context=multiprocessing.get_context("fork")) as ex:
            parts = list(ex.map(_worker, jobs))
    if ab > 0:
        toggler.join()
    stop.set()
    sampler.join()
    rss.append((time.perf_counter() - t0, sum(p.memory_info().rss for p in servers) / 2**20))
    cpu = sum(sum(p.cpu_times()[:2]) for p in counted) - cpu0
    kern = [b - a for a, b in zip(kern0, _kernel(servers), strict=True)]
    return {
        "lat": [x for p in parts for x in p["lat"]],
        "errors": [x for p in parts for x in p["errors"]],
        "unanswered": sum(1 for p in parts for at in p["left"] if at >= warm),
        "lag": [x for p in parts for x in p["lag"]],
        "client_cpu": sum(p["cpu"] for p in parts),
        "rss": rss,
        "wall": time.perf_counter() - t0,
        "cpu": cpu,
        "warm": warm - t0,
        "play_from": epoch0,
        "play_to": epoch0 + seconds,
        "steady": [x for at, x, _ in (p for part in parts for p in part["lat"]) if at >= warm],
        "kinds": [(k, x) for at, x, k in (p for part in parts for p in part["lat"]) if at >= warm],
        "windows": windows,
        "kernel": kern,
    }


def _kernel(servers: list[psutil.Process]) -> list[int]:
    """The server processes' page faults (minor, major: /proc/PID/stat) and context switches (voluntary,
    involuntary: preempted, waiting for a core), summed: a loop stall with little CPU in it is one of
    these (a first touch of new memory on a virtual machine, the run queue)."""
    out = [0, 0, 0, 0]
    for p in servers:
        with open(f"/proc/{p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        sw = p.num_ctx_switches()
        for i, v in enumerate((int(fields[7]), int(fields[9]), sw.voluntary, sw.involuntary)):
            out[i] += v
    return out


AB_ORDER = ("off", "on", "on", "off", "off", "on")  # --checkpointer-ab: three pairs, the order balanced


def _pq(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def report_ab(res: dict[str, Any], probes: list[dict[str, Any]]) -> None:
    """``--checkpointer-ab``: each window's figures (the checkpointer off or on in the server, SIGUSR1
    from ``load``), then the windows of each mode pooled: the people's latency (the messages sent in
    the window), the clients' loop lateness, the server's CPU an action, and from its probe the commit's
    wait (``Server.settled``), the COMMITs that ran SQLite's own checkpoint and COMMIT's p99/max."""
    wins = res["windows"]
    pooled: dict[str, dict[str, list[float]]] = {}
    print(
        "checkpointer A/B windows (ms): mode, start s, actions, p50, p99, max, clients late p99, "
        "server CPU ms/action, commit wait p99, COMMITs with a checkpoint, COMMIT p99/max, passes"
    )
    for (s0, e0, mode, c0), (s1, e1, _, c1) in zip(wins, wins[1:], strict=False):
        lat = sorted(x for at, x, _ in res["lat"] if s0 <= at < s1)
        lag = sorted(x for at, x in res["lag"] if s0 <= at < s1)

        def cut(key: str, e0: float = e0, e1: float = e1) -> list[Any]:
            return [r for pr in probes for r in pr.get(key, []) if e0 <= r[0] < e1]

        wait = sorted(r[1] for r in cut("settle"))
        commits = cut("commits")
        cm = sorted(r[7] for r in commits)
        ck = sum(1 for r in commits if r[9])
        passes = len(cut("passes"))
        cpu = 1000 * (c1 - c0) / max(1, len(lat))
        pool = pooled.setdefault(mode, {"lat": [], "lag": [], "wait": [], "commit": [], "ck": [], "cpu": []})
        pool["lat"] += lat
        pool["lag"] += lag
        pool["wait"] += wait
        pool["commit"] += cm
        pool["ck"].append(ck)
        pool["cpu"].append(cpu)
        print(
            f"  {mode:>3} {s0 - wins[0][0]:5.0f} {len(lat):6} {1000 * _pq(lat, 0.5):7.1f} {1000 * _pq(lat, 0.99):7.1f} "
            f"{1000 * lat[-1] if lat else float('nan'):7.1f} {1000 * _pq(lag, 0.99):7.1f} {cpu:5.2f} "
            f"{_pq(wait, 0.99):7.1f} {ck:4} {_pq(cm, 0.99):6.1f}/{cm[-1] if cm else float('nan'):.1f} {passes}"
        )
    for mode, pool in sorted(pooled.items()):
        lat, lag, wait, cm = (sorted(pool[k]) for k in ("lat", "lag", "wait", "commit"))
        print(
            f"  checkpointer {mode}, {len(pool['cpu'])} windows pooled: {len(lat)} actions, latency ms p50 "
            f"{1000 * _pq(lat, 0.5):.1f} p99 {1000 * _pq(lat, 0.99):.1f}; clients late p99 {1000 * _pq(lag, 0.99):.1f}; "
            f"server CPU ms/action {sum(pool['cpu']) / len(pool['cpu']):.2f}; commit wait p99 {_pq(wait, 0.99):.1f}; "
            f"COMMITs with a checkpoint {sum(pool['ck'])}; COMMIT ms p99 {_pq(cm, 0.99):.1f}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--every", type=float, default=2.0, help="seconds between one person's actions")
    ap.add_argument("--seconds", type=float, default=180.0)
    ap.add_argument("--store", default="sqlite", choices=("sqlite", "memory", "pg"))
    ap.add_argument(
        "--frames",
        default="split",
        choices=tuple(FRAMES),
        help="as bench_server.py (split: as the page asks)",
    )
    ap.add_argument(
        "--client-procs",
        type=int,
        default=2,
        help="processes the people are spread over (2: at 1,000 tables one client loop, even the lean one, "
        "was late by 50-110 ms at p99, two by 7-37: docs/scale.md)",
    )
    ap.add_argument(
        "--client",
        default="lean",
        choices=("lean", "websockets"),
        help="the people's WebSocket client: lean (bench/raw_ws.py, each frame handled in the loop's read "
        "callback: the clients share the server's cores) or the websockets library's",
    )
    ap.add_argument(
        "--client-loop",
        default="uvloop",
        choices=("uvloop", "asyncio"),
        help="the clients' event loop (uvloop: as the server's, cheaper per callback)",
    )
    ap.add_argument(
        "--checkpointer-ab",
        type=float,
        default=0.0,
        metavar="S",
        help="SQLite: the server's WAL checkpointer (history/checkpoints.py) off and on in windows of S s "
        f"once everyone sat ({', '.join(AB_ORDER)}; --seconds raised to hold them), each window reported",
    )
    ap.add_argument(
        "--servers",
        type=int,
        default=1,
        help="server processes on the one store (table leases; the tables spread over them round-robin)",
    )
    ap.add_argument(
        "--probe",
        default="on",
        choices=("on", "off"),
        help="time inside the server too (bench/server_probe.py): handling, sending, loop lateness, GC",
    )
    ap.add_argument(
        "--src",
        default=os.path.join(ROOT, "src"),
        help="the server's source tree (e.g. an old commit's, from git archive), for old-against-new runs",
    )
    a = ap.parse_args(argv)
    for flag, value, least in (
        ("--tables", a.tables, 1),
        ("--client-procs", a.client_procs, 1),
        ("--servers", a.servers, 1),
        ("--checkpointer-ab", a.checkpointer_ab, 0),
    ):
        if value < least:
            print(f"{flag}: {value} is below {least}; give {least} or more", file=sys.stderr)
            return 2
    for flag, value in (("--every", a.every), ("--seconds", a.seconds)):
        if not value > 0 or value == float("inf"):
            print(f"{flag}: {value} is not a number of seconds above 0", file=sys.stderr)
            return 2
    if a.servers > 1 and a.store == "memory":
        print("--servers: several processes need a store (sqlite or pg) to share", file=sys.stderr)
        return 2
    if a.checkpointer_ab > 0:
        if a.store != "sqlite" or a.probe != "on":
            print("--checkpointer-ab: for --store sqlite with --probe on", file=sys.stderr)
            return 2
        a.seconds = max(a.seconds, 2 * a.tables / 200 + 3.0 + len(AB_ORDER) * a.checkpointer_ab)
        os.environ["PROBE_CHECKPOINTER_AB"] = "1"
    env = dict(os.environ, PYTHONPATH=os.path.abspath(a.src) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    tmp = tempfile.mkdtemp(prefix="bench-human-")
    port = free_port()
    cluster = None
    db = ""
    if a.store == "sqlite":
        db = f"sqlite:///{tmp}/h.sqlite"
    elif a.store == "pg":
        sys.path.insert(0, ROOT)
        from tests.history.pg import cluster as pg_cluster
        from tests.history.pg import create_db

        cluster = pg_cluster()
        db = create_db(cluster.__enter__(), "human")
    bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_server.py")
    n = max(1, a.servers)
    lease = ["--lease-ttl", "30"] if n > 1 else []  # several processes on one database: table leases
    procs = []
    try:
        bases = []
        for i in range(n):
            port = port if i == 0 else free_port()
            probe = ["--probe-file", os.path.join(tmp, f"probe{i}.json")] if a.probe == "on" else []
            procs.append(
                subprocess.Popen(
                    [sys.executable, bench, "--serve", str(port), "--db", db, *lease, *probe], env=env
                )
            )
            bases.append(f"http://127.0.0.1:{port}")
        for base in bases:
            wait_healthy(base)
        res = load(
            bases,
            a.tables,
            a.every,
            a.seconds,
            [p.pid for p in procs],
            FRAMES[a.frames],
            max(1, a.client_procs),
            a.client,
            a.client_loop,
            a.checkpointer_ab,
        )
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(20)
        probes = [
            orjson.loads(open(f, "rb").read())
            for f in (os.path.join(tmp, f"probe{i}.json") for i in range(n))
            if os.path.exists(f)
        ]
        if cluster is not None:
            cluster.__exit__(None, None, None)
        if os.environ.get("BENCH_KEEP_PROBE"):  # (a directory: the server's probe files copied there)
            for i in range(n):
                f = os.path.join(tmp, f"probe{i}.json")
                if os.path.exists(f):
                    shutil.copy(
                        f, os.path.join(os.environ["BENCH_KEEP_PROBE"], f"probe{i}-{int(time.time())}.json")
                    )
        shutil.rmtree(tmp, ignore_errors=True)
    every_lat = sorted(x for _, x, _ in res["lat"])
    lat = sorted(res["steady"])
    pct = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")  # noqa: E731
    p99_all = (
        every_lat[min(len(every_lat) - 1, int(0.99 * len(every_lat)))] * 1000 if every_lat else float("nan")
    )
    lag = sorted(x for _, x in res["lag"])
    pl = lambda q: lag[min(len(lag) - 1, int(q * len(lag)))] if lag else float("nan")  # noqa: E731
    print(
        f"bench_human: {a.tables} tables x 2 people, one action per person every {a.every:g} s, "
        f"{a.seconds:g} s, store {a.store}, frames {a.frames}, {max(1, a.servers)} server process(es), "
        f"{os.cpu_count()} CPUs"
    )
    print(
        f"actions {len(every_lat)} ({len(every_lat) / res['wall']:.0f}/s)  errors {len(res['errors'])}  "
        f"unanswered {res['unanswered']}  "
        f"latency ms p50 {pct(0.5):.1f} p99 {pct(0.99):.1f} max {lat[-1] * 1000 if lat else float('nan'):.1f} "
        f"(the {len(lat)} sent once everyone sat, after {res['warm']:.0f} s; with the arrivals p99 {p99_all:.1f})"
    )
    print("RSS MB over time: " + "  ".join(f"{t:.0f}s {m:.0f}" for t, m in res["rss"]))
    print(
        f"server CPU {res['cpu']:.1f} s in {res['wall']:.0f} s ({100 * res['cpu'] / res['wall']:.0f}% of a core), "
        f"{1000 * res['cpu'] / max(1, len(every_lat)):.2f} ms per action; clients ({a.client_procs} process(es)) "
        f"{a.client} on {a.client_loop}: CPU {res['client_cpu']:.1f} s, {1000 * res['client_cpu'] / max(1, len(every_lat)):.2f} ms per action, "
        f"their event loop late by p50 {1000 * pl(0.5):.1f} ms p99 {1000 * pl(0.99):.1f} ms; the server's page "
        f"faults minor {res['kernel'][0]:,} major {res['kernel'][1]:,}, context switches voluntary "
        f"{res['kernel'][2]:,} involuntary {res['kernel'][3]:,}"
    )
    if lag and lat and pl(0.99) > max(0.01, 0.25 * lat[min(len(lat) - 1, int(0.99 * len(lat)))]):
        print(
            "the clients' own loop was late by more than 10 ms and a quarter of the latency's p99: the tail is partly "
            "theirs (spread them with --client-procs, or run fewer tables)"
        )
    by: dict[str, list[float]] = {}
    for k, x in res["kinds"]:
        by.setdefault(k, []).append(x)
    print(
        "latency by message ms p50/p99 (count): "
        + "; ".join(
            f"{k} {1000 * v[len(v) // 2]:.1f}/{1000 * v[min(len(v) - 1, int(0.99 * len(v)))]:.1f} ({len(v)})"
            for k, v in sorted((k, sorted(v)) for k, v in by.items())
        )
    )
    for pr in probes:
        report_probe(pr, res["play_from"] + res["warm"], res["play_to"])
    if res["windows"]:
        report_ab(res, probes)
    kinds: dict[str, int] = {}
    for e in res["errors"]:  # e.g. a connection refused under load, a wager for a round dealt without it
        kinds[e[:110]] = kinds.get(e[:110], 0) + 1
    for e, n in sorted(kinds.items(), key=lambda x: -x[1])[:3]:
        print(f"refused x{n}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
