"""The writer process's CPU a commit, fed as the server feeds it: ``python bench/child_cpu.py --load DIR
[--calls 1,20] [--reps 3] [--sync FULL] [--profile FILE]``.

``DIR`` is a ``bench_writer.py --save DIR`` recording (``commits.pkl``: the loop driver's table calls,
``base.sqlite``: the tables set up). The recorded calls, in order, are regrouped ``--calls`` to a commit
(1: the human-paced server's lone call, 20: a group at 10-100 tables) and each commit's calls are made
the messages the server sends (``writer_wire.encode`` of ``("w", seq, table, ordinal, web, flat(batches))``,
not timed: the server's work); then, timed on this thread (``time.thread_time``, the collector on, as in
the child), the writer process's own work for them: the messages decoded (``Reader``'s), handed to the
real ``writer_child.Child`` (``handle``) and committed (``Child.commit``: ``GroupCommitter._commit``, the
store's ``write_group`` on its own connection, ``synchronous`` ``--sync``, the acknowledgement encoded and
sent). The acknowledgements are read from the other end of the socket, untimed. Each rep runs on a
fresh copy of the set-up; the first rep's rows' digest (``bench_writer.digest_of``) must be the
recording's.

Printed for each ``--calls``: the thread CPU a commit (median of the reps, and each rep's), of it the
system part (``getrusage``: the writes and the fsync's kernel time), and the wall time a commit (the
fsync's wait in it on ``FULL``). ``--profile FILE``: a cProfile of the last rep of the first ``--calls``,
written to FILE (``python -m pstats FILE``). A tree's own ``src`` is imported (this file's parent's):
copy this script into an old tree's ``bench/`` to measure old against new on the same recording.
"""

from __future__ import annotations

import cProfile
import os
import pickle
import resource
import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT), str(ROOT / "bench")]

from pontoon.history import open_store  # noqa: E402
from pontoon.history.seal import history_key  # noqa: E402
from pontoon.history.writer_child import Child, _open  # noqa: E402
from pontoon.history.writer_wire import Reader, encode, flat  # noqa: E402


def _messages(commits: list[list[Any]]) -> list[bytes]:
    """Each commit's calls as the bytes the server sends for them (one loop turn's, joined)."""
    out, seq = [], 0
    for items in commits:
        parts = []
        for tid, batches in items:
            seq += 1
            parts.append(encode(("w", seq, tid, seq, None, flat(batches))))
        out.append(b"".join(parts))
    return out


def _drain(sock: socket.socket) -> int:
    """The acknowledgements sent so far, read and dropped (their bytes)."""
    got = 0
    while True:
        try:
            chunk = sock.recv(1 << 20, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return got
        got += len(chunk)


def one(
    rec: Path, sent: list[bytes], sync: str, prof: cProfile.Profile | None, check: bool
) -> tuple[float, float, float, str]:
    """One rep: the child's thread CPU (s), its system part (s), the wall time (s), the rows' digest
    (``check``: the first rep's; the others write the same rows with the same code, and without the
    digest a rep's instruction count is its commits' and its store's opening only)."""
    from bench_writer import digest_of

    with tempfile.TemporaryDirectory() as d:
        db = f"{d}/x.sqlite"
        shutil.copy(rec / "base.sqlite", db)
        open_store(f"sqlite:///{db}", synchronous=sync).close()  # (migrated, as the server does first)
        key = history_key(create=False)
        store = _open(f"sqlite:///{db}", sync, None if key is None else (key.key, key.source))
        ours, theirs = socket.socketpair()
        reader = Reader(theirs)
        child = Child(theirs, reader, store)
        cpu = sys_s = wall = 0.0
        for data in sent:
            r0, c0, w0 = resource.getrusage(resource.RUSAGE_THREAD), time.thread_time(), time.perf_counter()
            if prof is not None:
                prof.enable()
            reader.buf += data  # (what ``recv`` would have read: the decoding is timed)
            child.handle(reader._whole())
            child.commit()
            if prof is not None:
                prof.disable()
            cpu += time.thread_time() - c0
            wall += time.perf_counter() - w0
            sys_s += resource.getrusage(resource.RUSAGE_THREAD).ru_stime - r0.ru_stime
            _drain(ours)
        store.close()
        ours.close()
        theirs.close()
        return cpu, sys_s, wall, digest_of(db) if check else ""


def main() -> None:
    if "-h" in sys.argv or "--help" in sys.argv:
        print(__doc__)
        return
    known = {"--load", "--calls", "--reps", "--sync", "--profile"}
    args = sys.argv[1:]
    opts: dict[str, str] = {}
    for i in range(0, len(args), 2):
        if args[i] not in known or i + 1 >= len(args):
            print(
                f"error: {args[i]}: the options are {', '.join(sorted(known))}, each with a value",
                file=sys.stderr,
            )
            sys.exit(2)
        opts[args[i]] = args[i + 1]
    rec = Path(opts.get("--load", ""))
    if not (rec / "commits.pkl").is_file() or not (rec / "base.sqlite").is_file():
        print(f"error: --load {str(rec)!r}: a directory made by bench_writer.py --save DIR", file=sys.stderr)
        sys.exit(2)
    try:
        sizes = [int(x) for x in opts.get("--calls", "1,20").split(",")]
        reps = int(opts.get("--reps", "3"))
    except ValueError:
        print("error: --calls N[,N...] and --reps N: whole numbers >= 1", file=sys.stderr)
        sys.exit(2)
    sync = opts.get("--sync", "FULL").upper()
    if sync not in ("FULL", "NORMAL", "OFF") or min(sizes) < 1 or reps < 1:
        print("error: --sync FULL|NORMAL|OFF; --calls and --reps whole numbers >= 1", file=sys.stderr)
        sys.exit(2)
    from bench_writer import digest_of

    commits = [pickle.loads(b) for b in pickle.loads((rec / "commits.pkl").read_bytes())]
    calls = [item for items in commits for item in items]
    want = digest_of(rec / "recording.sqlite")
    print(
        f"{len(calls)} table calls; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; src {ROOT / 'src'}"
    )
    for k, per in enumerate(sizes):
        grouped = [calls[i : i + per] for i in range(0, len(calls), per)]
        sent = _messages(grouped)
        n = len(grouped)
        runs = []
        for r in range(reps):
            prof = (
                cProfile.Profile(time.thread_time)
                if "--profile" in opts and k == 0 and r == reps - 1
                else None
            )
            cpu, sys_s, wall, digest = one(rec, sent, sync, prof, r == 0)
            if r == 0 and digest != want:
                print(f"error: the rows' digest {digest} is not the recording's {want}", file=sys.stderr)
                sys.exit(1)
            runs.append((cpu, sys_s, wall))
            if prof is not None:
                prof.dump_stats(opts["--profile"])
        med = statistics.median(c for c, _s, _w in runs)
        print(
            f"--calls {per:3}: {n} commits, child CPU a commit median {med / n * 1e6:.1f} us "
            f"(reps {' '.join(f'{c / n * 1e6:.1f}' for c, _s, _w in runs)}), of it system "
            f"{statistics.median(s for _c, s, _w in runs) / n * 1e6:.1f} us; wall a commit "
            f"{statistics.median(w for _c, _s, w in runs) / n * 1e6:.1f} us; {sync}; digest {want}"
        )


if __name__ == "__main__":
    main()
