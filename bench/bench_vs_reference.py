"""``pontoon analyze`` against Eric Farmer's combinatorial analyser, side by side (issue 15).

    python bench/bench_vs_reference.py [PATH] [--runs N]

PATH (or the environment variable ``FARMER_BLACKJACK``) is a checkout of the public repository
github.com/possibly-wrong/blackjack; its ``src/strategy.cpp`` is built here with
``g++ -O3 -march=native`` into a temporary folder (his code is not part of this project). Without
a path, or without g++, the script says so and exits 0.

Both programs analyse plain blackjack, 6 decks, S17, double any two, DAS, split to 4 hands, no
resplit of Aces, no surrender, 3:2, peek, split hands CDP1: his ``strategy`` (answers typed on
stdin) and a whole ``pontoon analyze --rules blackjack --json`` process (start-up, imports,
loading the cached compiled kernels and the analysis), alternately, ``--runs`` times each. It
prints each program's best and median wall time and CPU time (user + system of the child: on a
shared machine the wall time also counts waiting for a core), their ratios, and both overall
expectations (they must agree to 1e-9).

It also times, the same way, the full mbs analysis (``pontoon analyze --rules mbs --json``: side
bets, suits, rescue), the blackjack analysis without the shoe's dealer distributions read from the
disk (``PONTOON_NO_ROWS_CACHE=1``: computed, as by the first process for a shoe; the like-for-like
comparison with Farmer, who computes everything each run), the same for mbs, and with numba's
JIT kernels instead of the ahead-of-time compiled ones (``PONTOON_NO_AOT=1``), the floor under any
numba program: a process that imports numpy and numba and calls one tiny cached kernel (numba's
start-up: its import, its CPU target's first refresh, the first cached library loaded), and a bare
``python -c pass``. It prints which build of the analysis kernels ran (``python -m pontoon.compiled``).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANSWERS = "6\nn\ny\ny\nn\ny\ny\nn\nn\ny\nn\n1.5\n{out}\n0 0\n"  # decks, S17, DOA, soft, DAN, DAS, SPL, RSA, CDZ, CDP1, LS, BJ


def _build(src: Path, work: Path) -> Path | None:
    gxx = shutil.which("g++")
    if gxx is None:
        print("skipped: no g++ on this machine")
        return None
    exe = work / "strategy"
    files = [
        src / "src" / "strategy.cpp",
        src / "src" / "blackjack.cpp",
        src / "src" / "pdf" / "blackjack_pdf.cpp",
        src / "src" / "indices.cpp",
    ]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        print(f"skipped: {src} is not a checkout of possibly-wrong/blackjack (missing {missing[0]})")
        return None
    cmd = [
        gxx,
        "-O3",
        "-march=native",
        "-std=c++17",
        f"-I{src / 'src'}",
        f"-I{src / 'src' / 'pdf'}",
        "-o",
        str(exe),
        *map(str, files),
    ]
    print("building:", " ".join(cmd[:4]), "...", flush=True)
    subprocess.run(cmd, check=True)
    return exe


def _timed(
    cmd: list[str], stdin: str | None = None, env: dict[str, str] | None = None
) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True, env=env).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def _kernels_build() -> str:
    done = subprocess.run([sys.executable, "-m", "pontoon.compiled"], capture_output=True, text=True)
    lines = [x for x in done.stdout.splitlines() if x.startswith("pontoon analysis kernels:")]
    return lines[0].split(":", 1)[1].strip() if lines else f"unknown ({done.stderr.strip()[-200:]})"


def _pontoon_cmd() -> list[str]:
    script = Path(sys.executable).with_name("pontoon")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from pontoon.cli.app import main; sys.exit(main())"]


FLOOR = """import numpy as np
from numba import njit


@njit(cache=True)
def one(a):
    s = 0.0
    for x in a:
        s += x
    return s


one(np.zeros(3))
"""


def main(argv: list[str]) -> int:
    runs = 5
    if "--runs" in argv:
        i = argv.index("--runs")
        runs = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    where = argv[0] if argv else os.environ.get("FARMER_BLACKJACK")
    if not where:
        print("skipped: give the path of a possibly-wrong/blackjack checkout (argument or FARMER_BLACKJACK)")
        return 0
    src = Path(where)
    load0 = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        exe = _build(src, work)
        if exe is None:
            return 0
        ours_cmd = [*_pontoon_cmd(), "analyze", "--rules", "blackjack", "--split-strategy", "cdp1", "--json"]
        _timed(ours_cmd)  # warm the numba cache and the dealer trie file once (not timed)
        floor = work / "numba_floor.py"
        floor.write_text(FLOOR)
        floor_cmd = [sys.executable, str(floor)]
        _timed(floor_cmd)  # its cache, once
        bare_cmd = [sys.executable, "-c", "pass"]
        mbs_cmd = [*_pontoon_cmd(), "analyze", "--rules", "mbs", "--json"]
        _timed(mbs_cmd)
        env_rows = {**os.environ, "PONTOON_NO_ROWS_CACHE": "1"}
        env_jit = {**os.environ, "PONTOON_NO_AOT": "1"}
        _timed(ours_cmd, env=env_jit)  # numba's cache of the JIT kernels, once
        mbs_t: list[tuple[float, float]] = []
        rows_t: list[tuple[float, float]] = []
        mbs_rows_t: list[tuple[float, float]] = []
        jit_t: list[tuple[float, float]] = []
        his_t: list[tuple[float, float]] = []
        our_t: list[tuple[float, float]] = []
        floor_t: list[tuple[float, float]] = []
        bare_t: list[tuple[float, float]] = []
        his_ev = our_ev = float("nan")
        for k in range(runs):
            out_file = work / f"farmer{k}.txt"
            w, c, _ = _timed([str(exe)], ANSWERS.format(out=out_file))
            his_t.append((w, c))
            total = next(x for x in out_file.read_text().splitlines() if x.strip().startswith("Total"))
            his_ev = float(total.split("|")[1].split()[0]) / 100
            w, c, out = _timed(ours_cmd)
            our_t.append((w, c))
            our_ev = -float(json.loads(out)["house_edge"]["optimal"])
            w, c, _ = _timed(mbs_cmd)
            mbs_t.append((w, c))
            w, c, _ = _timed(ours_cmd, env=env_rows)
            rows_t.append((w, c))
            w, c, _ = _timed(mbs_cmd, env=env_rows)
            mbs_rows_t.append((w, c))
            w, c, _ = _timed(ours_cmd, env=env_jit)
            jit_t.append((w, c))
            w, c, _ = _timed(floor_cmd)
            floor_t.append((w, c))
            w, c, _ = _timed(bare_cmd)
            bare_t.append((w, c))
    print(f"load average before / after: {load0} / {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"analysis kernels: {_kernels_build()}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        # an editable install's modules are then compiled from source by every process (about 0.04 s
        # of a blackjack analysis); pip's installs of the libraries carry their bytecode
        print(
            "python bytecode: not written (PYTHONDONTWRITEBYTECODE is set): pontoon's modules are compiled "
            "by every run unless an earlier run wrote their .pyc"
        )
    for name, ts in (
        ("Farmer strategy", his_t),
        ("pontoon analyze", our_t),
        ("analyze mbs", mbs_t),
        ("rows computed", rows_t),
        ("mbs rows comp.", mbs_rows_t),
        ("JIT kernels", jit_t),
        ("numba floor", floor_t),
        ("python -c pass", bare_t),
    ):
        walls = [t[0] for t in ts]
        cpus = [t[1] for t in ts]
        print(
            f"{name:16s} wall best {min(walls):6.3f} s median {statistics.median(walls):6.3f} s   "
            f"cpu best {min(cpus):6.3f} s median {statistics.median(cpus):6.3f} s"
        )
    for name, ts in (
        ("pontoon", our_t),
        ("mbs", mbs_t),
        ("rows computed", rows_t),
        ("mbs rows computed", mbs_rows_t),
        ("JIT kernels", jit_t),
        ("numba floor", floor_t),
    ):
        print(
            f"ratio {name}/Farmer: wall (median) "
            f"{statistics.median(t[0] for t in ts) / statistics.median(t[0] for t in his_t):.2f}"
            f"   cpu (median) {statistics.median(t[1] for t in ts) / statistics.median(t[1] for t in his_t):.2f}"
        )
    print(f"overall EV: Farmer {his_ev:.12f}  pontoon {our_ev:.12f}  difference {our_ev - his_ev:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
