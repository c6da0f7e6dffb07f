"""Would a writer PROCESS lift the stores' 100-table ratio? A measurement: the server is not changed.

Usage: ``python bench/writer_process.py --load DIR [--calls 12] [--reps 3] [--busy-us 338] [--extra-us 0]
[--window 100] [--actions N] [--part ship|model|both]``.

At 100 tables bench_server's server CPU a round times its rounds a second is one core for every store
(docs/scale-log.md, "On the idle machine (2026-11-28 15:11-15:26)"): the event loop and the group commit's writer thread
share one interpreter lock. This script measures what moving the SQLite writer into a child process would
give, on the table calls a ``bench_writer.py --save DIR`` recording holds (``commits.pkl``: each commit's
``(table_id, [Batch])`` items as ``Store.write_group`` got them; ``base.sqlite``: the tables set up).

1. ``ship``: the SENDING side's CPU (``time.thread_time``) to hand each commit's calls (regrouped
   ``--calls`` to a commit, as ``bench_writer --calls``) to another process, per commit and per event,
   for three encodings: ``pickle`` (the ``Batch``/``Row`` objects as they are, protocol 5), ``marshal``
   (each batch turned into plain tuples first: the turning is counted) and ``json`` (the same tuples as
   text), each sent over a ``multiprocessing`` pipe (``send_bytes``) and over a ``socketpair`` (length
   prefix + ``sendall``); a child reads and decodes everything (its CPU a commit is printed apart: it
   is off the parent's lock). Beside it, the in-thread writer's CPU a commit on the same commits
   (``bench_writer.replay``: ``Store.write_group`` on one thread, ``synchronous=OFF``): what today's
   writer holds the lock for.
2. ``model``: an end-to-end model. A main thread plays the recorded calls one by one as "actions": each
   spends ``--busy-us`` of its thread's CPU in Python (the lock held; 338 us is memory's loop thread an
   action at 100 tables) plus ``--extra-us`` (what a store adds on the loop whichever side writes: the
   recorder, 105 us with SQLite), then hands the call to a writer; at most ``--window`` calls are in
   flight (one a table: a table's client waits for its frame, so its next action waits for its commit;
   the oldest call is waited for when the window is full). Writers: ``none`` (no store: the busy work
   alone, ``--extra-us`` left out too), ``thread`` (today: the real ``Store.submit`` into the
   ``GroupCommitter`` thread, ``synchronous=FULL``), ``process`` (a child process running the real
   ``Store.write_group`` on its own connection, ``synchronous=FULL``: it takes every call waiting in the
   pipe as one commit and sends back one ack a commit, the number of calls it committed, which the main
   thread reads without blocking after each action, or blocking when the window is full). Each writer's
   database ends with the rows' digest of ``bench_writer.digest_of``: the recording's own, so the
   model's writers wrote what the recorded run wrote. Printed: actions/s for each and the ratios
   thread/none and process/none: the figure.

What the model leaves out: the commit's ack turned into frames on the event loop (a Future per call, the
``call_soon_threadsafe`` wake-up, the sends: here the ack is only read and counted); the fences
(``Store.fences``, run in the writer's transaction: none here); the audit, the checkpoints' idle hook,
recovery after a killed child (a child's death loses the calls in its pipe: the server would have to
replay them or refuse), the heads cache shared with the loop (``Store._heads``: a child keeps its own);
the clients' CPU (bench_server's 200 clients share the 2 cores); the GIL's switch-interval effects on a
loop that awaits I/O instead of spinning. The busy work is a Python loop on ``thread_time``.
"""

from __future__ import annotations

import gc
import json
import marshal
import multiprocessing as mp
import os
import pickle
import resource
import shutil
import socket
import statistics
import struct
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import Future
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT), str(ROOT / "bench")]

from pontoon.history import open_store  # noqa: E402
from pontoon.history.store import Batch  # noqa: E402
from pontoon.history.writer_wire import flat, unflat  # noqa: E402

Item = tuple[int, list[Batch]]


def _flat(items: list[Item]) -> list[Any]:
    """The calls as plain tuples (marshal and JSON take no dataclasses): the writer process's own
    (``writer_wire.flat``)."""
    return [(tid, flat(batches)) for tid, batches in items]


def _unflat(flat_items: list[Any]) -> list[Item]:
    """``writer_wire.unflat``, the tuples JSON made lists made tuples again."""
    out: list[Item] = []
    for tid, batches in flat_items:
        bs = unflat(batches)
        for b in bs:
            b.shoe = tuple(b.shoe) if b.shoe is not None else None  # type: ignore[assignment]
            b.round_end = tuple(b.round_end) if b.round_end is not None else None  # type: ignore[assignment]
        out.append((tid, bs))
    return out


ENCODE = {
    "pickle": lambda items: pickle.dumps(items, protocol=5),
    "marshal": lambda items: marshal.dumps(_flat(items)),
    "json": lambda items: json.dumps(_flat(items), separators=(",", ":")).encode(),
}
DECODE = {
    "pickle": pickle.loads,
    "marshal": lambda b: _unflat(marshal.loads(b)),
    "json": lambda b: _unflat(json.loads(b)),
}


def _reader(kind: str, via: str, end: Any, out: Any) -> None:
    """The child of ``ship``: read and decode every message until an empty one; send back its CPU (s)."""
    decode, spent = DECODE[kind], 0.0
    sock = end if via == "socket" else None
    while True:
        if sock is None:
            data = end.recv_bytes()
        else:
            head = _exact(sock, 4)
            data = _exact(sock, struct.unpack("<I", head)[0])
        if not data:
            break
        c = time.thread_time()
        decode(data)
        spent += time.thread_time() - c
    out.send(spent)


def _exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        got = sock.recv(n - len(buf))
        if not got:
            raise EOFError("the pipe closed")
        buf += got
    return bytes(buf)


def ship(commits: list[list[Item]], kind: str, via: str) -> tuple[float, float, int]:
    """One pass: the parent's thread CPU to encode and send every commit (s), the child's to decode (s),
    the bytes sent."""
    ctx = mp.get_context("spawn")
    back_r, back_w = ctx.Pipe(duplex=False)
    if via == "socket":
        a, b = socket.socketpair()
        child = ctx.Process(target=_reader, args=(kind, via, b, back_w))
        send = lambda data: a.sendall(struct.pack("<I", len(data)) + data)  # noqa: E731
    else:
        r, w = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_reader, args=(kind, via, r, back_w))
        send = w.send_bytes
    child.start()
    encode, sent = ENCODE[kind], 0
    gc.collect()
    gc.disable()
    c = time.thread_time()
    for items in commits:
        data = encode(items)
        send(data)
        sent += len(data)
    spent = time.thread_time() - c
    gc.enable()
    send(b"")
    child_s = back_r.recv()
    child.join()
    if via == "socket":
        a.close()
    return spent, child_s, sent


_PER_US = [0.0]  # the busy loop's iterations a microsecond of thread CPU (``_calibrate``)


def _calibrate() -> None:
    """The busy loop's speed: the best of 7 runs of 200,000 iterations (thread CPU, so the load weighs
    little). The busy work is plain Python (user time, the GIL held), as the loop's own work is."""
    best = float("inf")
    for _ in range(7):
        c = time.thread_time()
        for _i in range(200_000):
            pass
        best = min(best, time.thread_time() - c)
    _PER_US[0] = 200_000 / (best * 1e6)


def _busy(us: float) -> None:
    """``us`` of thread CPU in plain Python: chunks of ~10 us of the loop, the clock read between them
    (a system call: ~1 in 10 us, so the busy work is user time; it overshoots by under a chunk)."""
    chunk = max(1, int(10 * _PER_US[0]))
    end = time.thread_time() + us / 1e6
    while time.thread_time() < end:
        for _i in range(chunk):
            pass


def _writer_child(db: str, end: Any, encoding: str) -> None:
    """The writer process of ``model``: every call waiting in the pipe written as one commit
    (``Store.write_group``, synchronous=FULL), one ack a commit (the calls committed); stops at b""."""
    s = open_store(f"sqlite:///{db}", synchronous="FULL")
    conn = s.writer_connection()
    end.send_bytes(b"ready")
    stop, commits, c0 = False, 0, _cpu(resource.RUSAGE_SELF)
    while not stop:
        items: list[Item] = []
        data = end.recv_bytes()
        while True:
            if not data:
                stop = True
                break
            items.extend(DECODE[encoding](data))
            if not end.poll(0):
                break
            data = end.recv_bytes()
        if items:
            s.write_group(items, conn)
            commits += 1
            end.send_bytes(struct.pack("<I", len(items)))
    spent = _since(c0)
    s.release_writer(conn)
    s.close()
    end.send_bytes(pickle.dumps((spent, commits)))


def _cpu(who: int) -> tuple[float, float]:
    """This process's CPU (s): user + system, and system alone (the kernel's part: writes, fsync, pipes)."""
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime, r.ru_stime


def _since(c0: tuple[float, float]) -> tuple[float, float]:
    c1 = _cpu(resource.RUSAGE_SELF)
    return c1[0] - c0[0], c1[1] - c0[1]


def model(
    rec: Path, calls: list[Item], writer: str, a: dict[str, Any]
) -> tuple[float, str, tuple[float, float, float, float], int]:
    """One run of the model: actions/s (the first action to the last call committed), the rows' digest,
    the CPU an action (us): this process's (the main thread and the writer thread, if any), its system
    part, the writer child's (from its store open to its last commit) and its system part; the commits."""
    from bench_writer import digest_of

    with tempfile.TemporaryDirectory() as d:
        db = f"{d}/x.sqlite"
        shutil.copy(rec / "base.sqlite", db)
        busy = a["busy_us"] + (a["extra_us"] if writer != "none" else 0.0)
        if writer == "process":
            wall, cpu, child_s, commits = _model_process(
                db, calls, busy, a["window"], a["burst"], a["encoding"]
            )
        else:
            wall, cpu, commits = _model_local(db, calls, writer, busy, a["window"], a["burst"])
            child_s = (0.0, 0.0)
        n = len(calls)
        us = (cpu[0] / n * 1e6, cpu[1] / n * 1e6, child_s[0] / n * 1e6, child_s[1] / n * 1e6)
        return n / wall, digest_of(db) if writer != "none" else "", us, commits


def _model_process(
    db: str, calls: list[Item], busy: float, window: int, burst: int, encoding: str
) -> tuple[float, tuple[float, float], tuple[float, float], int]:
    """The writer child: each ``burst`` of calls sent as one message (``encoding``); the acks read
    without blocking at each send (as an event loop's selector would once an iteration), blocking while
    ``window`` calls are in flight."""
    open_store(f"sqlite:///{db}", synchronous="FULL").close()  # (migrated before the child opens it)
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    child = ctx.Process(target=_writer_child, args=(db, there, encoding))
    child.start()
    here.recv_bytes()  # (the child's store is open: its start-up is not timed)
    t0, done, sent, c0 = time.perf_counter(), 0, 0, _cpu(resource.RUSAGE_SELF)
    held: list[Item] = []
    encode = ENCODE[encoding]
    for k, call in enumerate(calls, 1):
        _busy(busy)
        held.append(call)
        if len(held) >= burst or k == len(calls):
            while here.poll(0):
                done += struct.unpack("<I", here.recv_bytes())[0]
            while sent - done >= window:
                done += struct.unpack("<I", here.recv_bytes())[0]
            here.send_bytes(encode(held))
            sent, held = sent + len(held), []
    while done < sent:
        done += struct.unpack("<I", here.recv_bytes())[0]
    wall, cpu = time.perf_counter() - t0, _since(c0)
    here.send_bytes(b"")
    child_s, commits = pickle.loads(here.recv_bytes())
    child.join()
    return wall, cpu, child_s, commits


def _model_local(
    db: str, calls: list[Item], writer: str, busy: float, window: int, burst: int
) -> tuple[float, tuple[float, float], int]:
    """No writer, or today's writer thread (``Store.submit``): each ``burst`` of calls submitted together."""
    s = open_store(f"sqlite:///{db}", synchronous="FULL")
    if writer == "thread":
        s.start_group()
    flight: deque[Future[str]] = deque()
    held: list[Item] = []
    t0, c0 = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
    for k, call in enumerate(calls, 1):
        _busy(busy)
        if writer != "thread":
            continue
        held.append(call)
        if len(held) >= burst or k == len(calls):
            while len(flight) >= window:
                flight.popleft().result()
            flight.extend(s.submit(tid, batches) for tid, batches in held)
            held = []
    for f in flight:
        f.result()
    wall, cpu = time.perf_counter() - t0, _since(c0)
    commits = s.group.groups if s.group is not None else 0
    s.close()
    return wall, cpu, commits


def _opt(name: str, default: str) -> str:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else default


KNOWN = {
    "--load",
    "--calls",
    "--reps",
    "--busy-us",
    "--extra-us",
    "--window",
    "--burst",
    "--actions",
    "--part",
    "--encoding",
}


def _args() -> dict[str, Any]:
    """The options, each checked: one line naming what was wrong and what is accepted (exit 2)."""
    i = 1
    while i < len(sys.argv):  # (every option takes a value: a value such as -3 is not an option)
        if sys.argv[i] not in KNOWN:
            _refuse(f"{sys.argv[i]}: the options are {', '.join(sorted(KNOWN))}")
        i += 2
    load = _opt("--load", "")
    if not load or not (Path(load) / "commits.pkl").is_file() or not (Path(load) / "base.sqlite").is_file():
        _refuse(f"--load {load!r}: a directory made by bench_writer.py --save DIR (commits.pkl, base.sqlite)")
    out: dict[str, Any] = {"load": Path(load)}
    for name, default, low in (
        ("--calls", "12", 1),
        ("--reps", "3", 1),
        ("--window", "100", 1),
        ("--burst", "12", 1),
        ("--actions", "0", 0),
    ):
        v = _opt(name, default)
        if not v.isdigit() or int(v) < low:
            _refuse(f"{name} {v!r}: a whole number >= {low}")
        out[name[2:]] = int(v)
    for name, default in (("--busy-us", "338"), ("--extra-us", "0")):
        v = _opt(name, default)
        try:
            f = float(v)
        except ValueError:
            f = -1.0
        if not 0 <= f <= 1e6:
            _refuse(f"{name} {v!r}: microseconds from 0 to 1000000")
        out[name[2:].replace("-", "_")] = f
    part = _opt("--part", "both")
    if part not in ("ship", "model", "both"):
        _refuse(f"--part {part!r}: one of ship, model, both")
    out["part"] = part
    enc = _opt("--encoding", "pickle")
    if enc not in ("pickle", "marshal"):
        _refuse(f"--encoding {enc!r}: one of pickle, marshal")
    out["encoding"] = enc
    return out


def _refuse(line: str) -> None:
    print(f"error: {line}", file=sys.stderr)
    sys.exit(2)


def run_ship(a: dict[str, Any], commits: list[list[Item]], events: int) -> None:
    from bench_writer import replay

    n = len(commits)
    today = sorted(replay(a["load"], commits, digest=False)[0] for _ in range(a["reps"]))
    print(
        f"in-thread writer (Store.write_group, synchronous=OFF), thread CPU: median "
        f"{statistics.median(today) / n * 1e6:.1f} us a commit, {statistics.median(today) / events * 1e6:.2f} us an event"
    )
    for kind in ENCODE:
        for via in ("pipe", "socket"):
            runs = sorted((ship(commits, kind, via) for _ in range(a["reps"])), key=lambda r: r[0])
            send_s, child_s, sent = runs[len(runs) // 2]
            print(
                f"ship {kind:7} over {via:6}: sender CPU median {send_s / n * 1e6:.1f} us a commit, "
                f"{send_s / events * 1e6:.2f} us an event (runs {' '.join(f'{r[0] / n * 1e6:.1f}' for r in runs)}); "
                f"{sent / n:.0f} bytes a commit; the child's decoding {child_s / n * 1e6:.1f} us a commit"
            )


def run_model(a: dict[str, Any], calls: list[Item], want: str) -> None:
    rates: dict[str, list[float]] = {"none": [], "thread": [], "process": []}
    cpus: dict[str, list[tuple[float, float, float, float, int]]] = {w: [] for w in rates}
    for _ in range(a["reps"]):
        for writer in rates:  # (each rep: the three one after the other)
            rate, digest, us, commits = model(a["load"], calls, writer, a)
            if writer != "none" and digest != want:
                print(f"error: the {writer} writer's rows' digest {digest} is not the recording's {want}")
                sys.exit(1)
            rates[writer].append(rate)
            cpus[writer].append((*us, commits))
    med = {w: statistics.median(r) for w, r in rates.items()}
    mine = {w: statistics.median(c[0] for c in cpus[w]) for w in rates}
    for w, r in rates.items():
        own = mine[w]
        own_sys, kid, kid_sys, made = (statistics.median(c[k] for c in cpus[w]) for k in (1, 2, 3, 4))
        print(
            f"model {w:7}: {med[w]:.0f} actions/s median ({' '.join(f'{x:.0f}' for x in r)}); CPU an action: "
            f"this process {own:.0f} us (system {own_sys:.0f}; one core's cap {1e6 / own:.0f} actions/s), "
            f"the writer child {kid:.0f} us (system {kid_sys:.0f}); "
            f"{made:.0f} commits ({len(calls) / max(made, 1):.1f} calls a commit)"
        )
    pairs = " ".join(
        f"{t / n:.2f}/{p / n:.2f}"
        for n, t, p in zip(rates["none"], rates["thread"], rates["process"], strict=True)
    )
    print(
        f"ratio to no writer: thread {med['thread'] / med['none']:.2f}x, process {med['process'] / med['none']:.2f}x "
        f"(busy {a['busy_us']:.0f} us + extra {a['extra_us']:.0f} us an action, window {a['window']}, burst {a['burst']}, {a['encoding']}, "
        f"{len(calls)} actions; each rep's thread/process: {pairs}); digests {want}"
    )
    print(
        f"one core's cap as a ratio (no writer's CPU an action over each's, this process only): thread "
        f"{mine['none'] / mine['thread']:.2f}x, process {mine['none'] / mine['process']:.2f}x"
    )


def main() -> None:
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        return
    a = _args()
    from bench_writer import digest_of

    commits = [pickle.loads(b) for b in pickle.loads((a["load"] / "commits.pkl").read_bytes())]
    flat = [item for items in commits for item in items]
    if a["actions"]:
        flat = flat[: a["actions"]]
    per = a["calls"]
    regrouped = [flat[i : i + per] for i in range(0, len(flat), per)]
    events = sum(len(b.rows) for _t, bs in flat for b in bs)
    print(
        f"{len(flat)} table calls, {events} events ({len(regrouped)} commits of {per} calls); "
        f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; cores {os.cpu_count()}"
    )
    if a["part"] in ("ship", "both"):
        run_ship(a, regrouped, events)
    if a["part"] in ("model", "both"):
        _calibrate()
        want = ""
        if not a["actions"]:
            want = digest_of(a["load"] / "recording.sqlite")
        else:  # (a prefix of the calls: the in-thread writer's digest is the reference)
            want = model(a["load"], flat, "thread", {**a, "busy_us": 0.0, "extra_us": 0.0})[1]
        run_model(a, flat, want)


if __name__ == "__main__":
    main()
