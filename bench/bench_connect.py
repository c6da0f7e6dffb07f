"""What a table socket's connect costs the server: the connections' storm at the play's start.

``python bench/bench_connect.py [--tables 100] [--players 2] [--storms 5] [--store memory|sqlite|pg]
[--src DIR] [--profile FILE] [--callgrind FILE]``

A server process as bench_server.py's (``pontoon serve``'s app and uvicorn options, rate limits raised)
hosts T casino tables with P players each, joined over REST; then every player's socket is opened at
once (the raw client of bench/raw_ws.py, its seat token in ``Authorization``), each one's first frame
(its full state) read, and all are closed again at once: ``--storms`` times. Reported for each storm:
the server's CPU a connect and a disconnect (its process, its worker threads and its writer process,
by the scheduler's nanosecond count; its event loop's thread apart; the kernel's share by ``psutil``),
the wall time until the last socket held its first state, and each socket's time to its
101 and to its first frame (p50 / max): what a wager sent by the first players waits for while the
others still connect (bench_server.py ``--connect together``). The first storm differs from the
next (a table's first frames, the first session reads): it is shown apart. ``--profile FILE``: a
cProfile of the server's loop thread over the storms only (the set-up left out), by CPU time;
``--callgrind FILE``: the server under valgrind's callgrind, its instructions counted over the storms
only (the count in FILE's ``totals:`` line; the load does not move it). ``--src
DIR``: the server from another source tree (an old commit's ``src``: old against new).
Not a timed test; numbers depend on the machine (2 shared cores here).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx
import psutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import free_port, serve, wait_healthy  # noqa: E402
from raw_ws import connect_raw  # noqa: E402


def serve_profiled(port: int, db: str, out: str) -> None:
    """The bench server, its loop thread profiled between a first and a second SIGUSR1 (the storms)."""
    import cProfile

    prof = cProfile.Profile(time.thread_time)
    on = [False]

    def toggle(*_: Any) -> None:
        if not on[0]:
            prof.enable()
            on[0] = True
        else:
            prof.disable()
            prof.dump_stats(out)

    signal.signal(signal.SIGUSR1, toggle)
    serve(port, db)


async def setup(base: str, tables: int, players: int) -> list[tuple[str, str]]:
    """T tables of P players joined: each player's (socket URL, seat token)."""
    out = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        for t in range(tables):
            tid = (await http.post("/api/tables", json={"preset": "mbs", "seed": t})).json()["id"]
            for p in range(players):
                tok = (await http.post("/api/accounts", json={"name": f"t{t}p{p}"})).json()["token"]
                r = await http.post(
                    f"/api/tables/{tid}/join",
                    json={"box": p + 1, "buy_in": "1000"},
                    headers={"Authorization": f"Bearer {tok}"},
                )
                out.append((base.replace("http", "ws") + f"/ws/tables/{tid}?deltas=2", r.json()["token"]))
    return out


def _ran_s(pid: int) -> tuple[float, float]:
    """(every thread of ``pid``, its main thread): seconds on a CPU, from the scheduler's own count
    (``/proc/PID/task/TID/schedstat``, nanoseconds: ``psutil``'s CPU times count 10 ms ticks, too coarse
    for 200 connects)."""
    total = main = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ran = int(f.read().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):  # (a thread gone meanwhile)
            continue
        total += ran
        if int(tid) == pid:
            main = ran
    return total, main


def cpu_of(ps: list[psutil.Process]) -> tuple[float, float, float, float]:
    """The servers' CPU seconds (their threads and child processes: the writer process), and of it
    their event loops' (each process's main thread), their child processes' and the kernel's (this
    last one by ``psutil``'s ticks)."""
    kids = [c for x in ps for c in x.children(recursive=True)]
    own = [_ran_s(x.pid) for x in ps]
    kid = sum(_ran_s(x.pid)[0] for x in kids)
    kernel = sum(x.cpu_times()[1] for x in [*ps, *kids])
    return sum(t for t, _ in own) + kid, sum(m for _, m in own), kid, kernel


async def one(url: str, token: str, t0: float) -> tuple[Any, float, float]:
    proto = await connect_raw(url, {"Authorization": f"Bearer {token}"})
    opened = time.perf_counter() - t0
    await proto.recv()  # its first frame: the full state of its own view
    return proto, opened, time.perf_counter() - t0


async def storms(urls: list[tuple[str, str]], n: int, ps: list[psutil.Process]) -> list[dict[str, Any]]:
    got = []
    for _ in range(n):
        c0 = cpu_of(ps)
        t0 = time.perf_counter()
        res = await asyncio.gather(*(one(u, tok, t0) for u, tok in urls))
        wall = time.perf_counter() - t0
        await asyncio.sleep(0.1)  # (the broadcasts of the last connects made)
        c1 = cpu_of(ps)
        for proto, _, _ in res:
            proto.close()
        await asyncio.sleep(0.3)  # (the server's disconnects and their broadcasts done)
        c2 = cpu_of(ps)
        got.append(
            {
                "connect_cpu": (c1[0] - c0[0]) / len(urls),
                "connect_loop": (c1[1] - c0[1]) / len(urls),
                "connect_kids": (c1[2] - c0[2]) / len(urls),
                "connect_sys": (c1[3] - c0[3]) / len(urls),
                "close_cpu": (c2[0] - c1[0]) / len(urls),
                "wall": wall,
                "opened": sorted(x[1] for x in res),
                "first": sorted(x[2] for x in res),
            }
        )
    return got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--storms", type=int, default=5, help="connect-all-then-close-all storms")
    ap.add_argument("--store", default="memory", choices=("memory", "sqlite", "pg"))
    ap.add_argument("--src", default=os.path.join(ROOT, "src"), help="the server's source tree (old/new)")
    ap.add_argument("--profile", default="", help="a cProfile of the server's storms, to this file")
    ap.add_argument(
        "--callgrind",
        default="",
        help="the server under valgrind's callgrind, its instructions counted over the storms only, the "
        "output to this file (callgrind_annotate reads it): a count the machine's load does not move",
    )
    ap.add_argument("--serve", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--db", default="", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.serve is not None:
        if a.profile:
            serve_profiled(a.serve, a.db, a.profile)
        else:
            serve(a.serve, a.db)
        return 0
    if a.tables < 1 or a.players < 1 or a.storms < 1:
        print("--tables, --players and --storms: accepted are whole numbers of 1 or more", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="bench-connect-")
    cluster = None
    db = f"sqlite:///{tmp}/h.sqlite" if a.store == "sqlite" else ""
    if a.store == "pg":
        sys.path.insert(0, ROOT)
        from tests.history.pg import cluster as pg_cluster
        from tests.history.pg import create_db

        cluster = pg_cluster()
        db = create_db(cluster.__enter__(), "connect")
    env = dict(os.environ, PYTHONPATH=os.path.abspath(a.src) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    port = free_port()
    cmd = [sys.executable, os.path.abspath(__file__), "--serve", str(port), "--db", db]
    if a.callgrind:
        cmd = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={os.path.abspath(a.callgrind)}",
            *cmd,
        ]
    proc = psutil.Popen(cmd + (["--profile", os.path.abspath(a.profile)] if a.profile else []), env=env)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(20 if a.callgrind else 1):  # (valgrind starts it some 20 times slower)
            wait_healthy(base)
        urls = asyncio.run(setup(base, a.tables, a.players))
        if a.callgrind:
            subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], check=True, capture_output=True)
        if a.profile:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(0.2)
        res = asyncio.run(storms(urls, a.storms, [proc]))
        if a.callgrind:
            subprocess.run(["callgrind_control", "-i", "off", str(proc.pid)], check=True, capture_output=True)
        if a.profile:
            proc.send_signal(signal.SIGUSR1)
            time.sleep(1.0)
    finally:
        proc.terminate()
        proc.wait(10)
        if cluster is not None:
            cluster.__exit__(None, None, None)
    print(
        f"bench_connect: {a.tables} tables x {a.players} players = {len(urls)} sockets, store {a.store}, "
        f"src {a.src}, load {os.getloadavg()[0]:.2f}"
    )
    for i, r in enumerate(res):
        op, fi = r["opened"], r["first"]
        print(
            f"  storm {i + 1}: server CPU us a connect {1e6 * r['connect_cpu']:.0f} (its loop "
            f"{1e6 * r['connect_loop']:.0f}, its writer process {1e6 * r['connect_kids']:.0f}, the kernel "
            f"{1e6 * r['connect_sys']:.0f}), a disconnect "
            f"{1e6 * r['close_cpu']:.0f}; all open with their first state in {1000 * r['wall']:.1f} ms; "
            f"a socket's 101 ms p50 {1000 * statistics.median(op):.1f} max {1000 * op[-1]:.1f}, its first "
            f"state p50 {1000 * statistics.median(fi):.1f} max {1000 * fi[-1]:.1f}"
        )
    if len(res) > 1:
        rest = res[1:]
        print(
            f"  storms 2-{len(res)} mean: server CPU us a connect "
            f"{1e6 * statistics.mean(r['connect_cpu'] for r in rest):.0f} (its loop "
            f"{1e6 * statistics.mean(r['connect_loop'] for r in rest):.0f}, its writer process "
            f"{1e6 * statistics.mean(r['connect_kids'] for r in rest):.0f}, the kernel "
            f"{1e6 * statistics.mean(r['connect_sys'] for r in rest):.0f}), a disconnect "
            f"{1e6 * statistics.mean(r['close_cpu'] for r in rest):.0f}; the storm's wall ms "
            f"{1000 * statistics.mean(r['wall'] for r in rest):.1f}; first state p50 ms "
            f"{1000 * statistics.mean(statistics.median(r['first']) for r in rest):.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
