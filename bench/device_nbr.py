"""The players' best response to the banker reading every hand, N = 3..7, one pack and two, on many cores, and
the pooling of such runs (issue 27 item 3; docs/analysis.md "Pooled runs"; ``reading_pool``).

    python bench/device_nbr.py run --jobs J --budget S --out DIR [--seed-base B] [--cells 3x1,5x2] [--unit U]
    python bench/device_nbr.py control FILE... --out DIR [--cells 5x2,7x1]
    python bench/device_nbr.py check --cells 7x1 [--deals D] [--seed S]
    python bench/device_nbr.py pool FILE... [--json OUT]

``run``: a tiny case first (one deal of two players, one pack and two: fails in seconds if anything is wrong,
and compiles numba's kernels once, before the workers fork, so they share them), then J worker processes
draw deals until S seconds after the start (none starts a deal it cannot finish by then, and whatever runs
at S plus a margin is stopped). Work comes in units of U seconds, unit k of the cells' cycle, deals
``default_rng([seed, j, 0])`` with ``seed = seed_of(B, cell, k)``: independent of every other unit, run and
base. Written as they come (a partial run still gives data): ``nbr-deals.jsonl`` (one line per deal: its
cell, seed, number, the reading gain and the fixed deviations' gains), ``nbr-z-{3-4,5-7}-{1,2}pack.bin``
(the deals' terminal values summed over batches, ``reading_pool.write_batch``; each file capped at 15 MiB)
and ``nbr-log.txt`` (the progress lines): six files.

``control``: the control variate (``reading_control``) of runs written without it, each deal replayed (no
programme): ``nbr-control.jsonl`` and ``nbr-zc-*.bin`` in DIR (``run`` writes them with each deal now).
``check``: the control's mean over fresh deals against its exact mean.

``pool``: every run's files together (deals counted once), per cell the figures of ``reading_pool.pool_cell``
and ``summary``, with the control where the files have it; prints a table and, with ``--json``, writes them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from typing import Any

import numpy as np

CELLS = [(n, p) for n in range(3, 8) for p in (1, 2)]
CAP = 15 * 2**20  # bytes per z file (16 MiB come back)
DEAL_S = {3: 1.5, 4: 2.0, 5: 3.0, 6: 5.0, 7: 8.0}  # a first guess at a deal's seconds (two packs: x2)


def seed_of(base: int, cell: tuple[int, int], k: int) -> int:
    return int(
        np.random.SeedSequence([base, cell[0], cell[1], k]).generate_state(1, np.uint64)[0] >> np.uint64(1)
    )


def z_name(cell: tuple[int, int], control: bool = False) -> str:
    """The z file of a cell (``nbr-zc-...``: the control's sums, ``reading_control``)."""
    return f"nbr-z{'c' if control else ''}-{'3-4' if cell[0] <= 4 else '5-7'}-{cell[1]}pack.bin"


class Out:
    """The run's files, appended under one lock (each record in one write)."""

    def __init__(self, folder: str, lock: Any, deals: str = "nbr-deals.jsonl") -> None:
        self.folder, self.lock, self.deals = folder, lock, deals

    def log(self, msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        # a worker stopped while holding the lock never releases it: the parent then writes without it
        got = self.lock.acquire(timeout=5)
        try:
            print(line, flush=True)
            with open(os.path.join(self.folder, "nbr-log.txt"), "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        finally:
            if got:
                self.lock.release()

    def deal(self, rec: dict[str, Any]) -> None:
        with self.lock, open(os.path.join(self.folder, self.deals), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec) + "\n")

    def batch(
        self, cell: tuple[int, int], header: dict[str, Any], zsum: np.ndarray, cap: int | None = CAP
    ) -> bool:
        """Appends a batch record to the cell's z file unless that file is past ``cap`` bytes (None: no cap;
        ``control`` writes one file per cell, uncapped, ``nbr-zc-NxP.bin``)."""
        from pontoon.analysis.british.reading_pool import write_batch

        control = bool(header.get("control"))
        name = f"nbr-zc-{header['cell']}.bin" if control and cap is None else z_name(cell, control)
        path = os.path.join(self.folder, name)
        with self.lock:
            if cap is not None and os.path.exists(path) and os.path.getsize(path) > cap - 200_000:
                return False
            with open(path, "ab") as fh:
                write_batch(fh, header, zsum)
        return True


_TABLES: dict[tuple[int, int], Any] = {}  # built once per process (the parent's are shared by the fork)


def get_table(cell: tuple[int, int]) -> Any:
    from pontoon.analysis.british.reading_pool import table
    from pontoon.rules.british import BRITISH

    if cell not in _TABLES:
        _TABLES[cell] = table(BRITISH.with_(packs=cell[1]), cell[0])
    return _TABLES[cell]


def run_unit(
    out: Out, cell: tuple[int, int], seed: int, until: float, deadline: float, per_batch: int
) -> int:
    """Deals of ``cell`` from ``seed`` until ``until`` (never starting one that would end after ``deadline``
    at the pace so far); records written as they come, the z sums every ``per_batch`` deals."""
    from pontoon.analysis.british.reading_pool import cell_key, deal_record

    t = get_table(cell)
    key = cell_key(*cell)
    zsum = np.zeros(len(t.y0))
    csum = np.zeros(len(t.y0))
    first, count, j, spent = 0, 0, 0, 0.0
    guess = DEAL_S[cell[0]] * cell[1]
    while time.time() < until:
        pace = spent / j if j else guess
        if time.time() + 1.5 * pace > deadline:
            break
        t0 = time.time()
        rec, z, c = deal_record(t, seed, j)
        dt = time.time() - t0
        spent += dt
        out.deal({"cell": key, **rec, "s": round(dt, 3)})
        zsum += z
        csum += c
        count += 1
        j += 1
        if count >= per_batch:
            _flush(out, cell, key, seed, first, count, zsum, csum)
            first, count = j, 0
            zsum[:] = 0.0
            csum[:] = 0.0
    if count:
        _flush(out, cell, key, seed, first, count, zsum, csum)
    return j


def _flush(
    out: Out,
    cell: tuple[int, int],
    key: str,
    seed: int,
    first: int,
    count: int,
    zsum: np.ndarray,
    csum: np.ndarray,
) -> None:
    header = {"cell": key, "seed": seed, "first": first, "deals": count}
    if not out.batch(cell, header, zsum):
        out.log(f"{key}: z file full, batch {seed}:{first} ({count} deals) kept as scalars only")
    elif not out.batch(cell, header | {"control": True}, csum):
        out.log(f"{key}: control file full, batch {seed}:{first} ({count} deals) without its control sums")


def worker(
    wid: int, folder: str, lock: Any, counter: Any, args: Any, deadline: float, cells: list[tuple[int, int]]
) -> None:
    out = Out(folder, lock)
    try:
        while True:
            now = time.time()
            if deadline - now < 5:
                return
            with counter.get_lock():
                k = counter.value
                counter.value += 1
            cell = cells[k % len(cells)]
            # batches: about 40 z vectors per cell a run (the files' cap), whatever the deals' pace
            # a cell listed k times in --cells gets k shares of the workers' time
            share = args.jobs * (deadline - now) * cells.count(cell) / len(cells)
            per_batch = args.per_batch or max(1, round(share / (DEAL_S[cell[0]] * cell[1]) / 40))
            seed = seed_of(args.seed_base, cell, k)
            t0 = time.time()
            n = run_unit(out, cell, seed, min(deadline, now + args.unit), deadline, per_batch)
            out.log(
                f"worker {wid}: {cell[0]} players {cell[1]} pack(s), unit {k}: {n} deals in {time.time() - t0:.0f} s"
            )
    except Exception as e:  # noqa: BLE001 (the log is what comes back)
        out.log(f"worker {wid}: error: {type(e).__name__}: {e}")
        raise


def smoke(out: Out) -> None:
    """One deal of two players, one pack and two (compiles the kernels once, before the fork)."""
    import numba

    from pontoon.analysis.british.reading_pool import deal_record

    out.log(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, cores {os.cpu_count()}"
    )
    for cell in [(2, 1), (2, 2), (4, 1)]:
        t0, c0 = time.time(), time.process_time()
        t = get_table(cell)
        t1 = time.time()
        rec, z, _ = deal_record(t, 1, 0)
        if not np.isfinite(z).all() or not all(np.isfinite(v) for v in rec.values()):
            raise SystemExit(f"error: smoke deal {cell} gave non-finite values")
        out.log(
            f"smoke {cell}: table {t1 - t0:.1f} s, one deal {time.time() - t1:.1f} s (JIT compile included), "
            f"CPU {time.process_time() - c0:.1f} s"
        )
    from pontoon.analysis.british import reading_last as rl

    kernels = [rl._k_plans, rl._weights]  # those called from Python (the others compile with them, or load)
    t0, j = time.time(), 1
    while not all(getattr(k, "signatures", [1]) for k in kernels) and j < 40:  # the table of sums' kernels
        deal_record(get_table((4, 1)), 1, j)
        j += 1
    if not all(getattr(k, "signatures", [1]) for k in kernels):
        raise SystemExit("error: smoke: 40 four-player deals never used the table of sums")
    out.log(f"smoke (4, 1): {j - 1} more deals to compile the table of sums, {time.time() - t0:.1f} s")
    _TABLES.pop((2, 1))
    _TABLES.pop((2, 2))


def parse_cell(text: str) -> tuple[int, int]:
    """``NxP`` (players, packs): 3 to 7 players, one pack or two; else the one-line error, exit 2."""
    parts = text.strip().split("x")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        cell = (int(parts[0]), int(parts[1]))
        if cell[0] in DEAL_S and cell[1] in (1, 2):
            return cell
    print(f"error: cell {text!r}: accepted NxP with N 3 to 7 and P 1 or 2 (e.g. 5x2)", file=sys.stderr)
    sys.exit(2)


def run(args: Any) -> None:
    start = time.time()
    deadline = start + args.budget - args.margin
    os.makedirs(args.out, exist_ok=True)
    ctx = mp.get_context("fork")
    lock = ctx.Lock()
    out = Out(args.out, lock)
    cells = [parse_cell(c) for c in args.cells.split(",")] if args.cells else CELLS
    if args.per_batch < 0:
        print(
            f"error: --per-batch {args.per_batch}: accepted 0 (automatic) or a positive count",
            file=sys.stderr,
        )
        sys.exit(2)
    smoke(out)
    out.log(
        f"start: {args.jobs} workers, {len(cells)} cells, {deadline - time.time():.0f} s left, seed base {args.seed_base}"
    )
    counter = ctx.Value("l", 0)
    procs = [
        ctx.Process(target=worker, args=(w, args.out, lock, counter, args, deadline, cells))
        for w in range(args.jobs)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=max(0.0, deadline + args.margin * 0.6 - time.time()))
    for p in procs:
        if p.is_alive():
            out.log(f"stopping worker pid {p.pid} (past the deadline)")
            p.terminate()
            p.join(5)
    out.log(f"done in {time.time() - start:.0f} s")


def control(args: Any) -> None:
    """Each deal of the runs' files replayed for its control (``reading_control.control_record``: no
    programme, about a tenth of a second a deal): ``nbr-control.jsonl`` (a line per deal: its cell, seed,
    number and control scalars) and ``nbr-zc-*.bin`` (the control's sums over each of the runs' batches)."""
    from pontoon.analysis.british.reading_control import CTL, control_record
    from pontoon.analysis.british.reading_pool import load_runs

    try:
        records, batches, controls = load_runs(args.files)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    cells = [parse_cell(c) for c in args.cells.split(",")] if args.cells else None
    os.makedirs(args.out, exist_ok=True)
    out = Out(args.out, mp.get_context("fork").Lock(), "nbr-control.jsonl")
    for key in sorted(records, key=lambda k: tuple(int(x) for x in k.split("x"))):
        cell = tuple(int(x) for x in key.split("x"))
        if cells is not None and cell not in cells:
            continue
        t, t0, done = get_table((cell[0], cell[1])), time.time(), 0
        todo = {(int(r["seed"]), int(r["j"])) for r in records[key] if not any(k.endswith(CTL) for k in r)}
        have = {(h["seed"], h["first"], h["deals"]) for h, _ in controls.get(key, [])}
        for h, _ in sorted(batches.get(key, []), key=lambda b: (b[0]["seed"], b[0]["first"])):
            if (h["seed"], h["first"], h["deals"]) in have:
                continue
            csum = np.zeros(len(t.y0))
            for j in range(int(h["first"]), int(h["first"]) + int(h["deals"])):
                rec, c = control_record(t, int(h["seed"]), j)
                csum += c
                if (rec["seed"], j) in todo:
                    out.deal({"cell": key, **rec})
                    todo.discard((rec["seed"], j))
                    done += 1
            out.batch((cell[0], cell[1]), {**h, "control": True}, csum, cap=None)
        for seed, j in sorted(todo):
            rec, _ = control_record(t, seed, j)
            out.deal({"cell": key, **rec})
            done += 1
        out.log(f"control {key}: {done} deals, {len(batches.get(key, []))} batches, {time.time() - t0:.0f} s")


def check(args: Any) -> None:
    """The control's mean over fresh deals against its exact mean (``reading_control.check``), per cell."""
    from pontoon.analysis.british.reading_control import check as check_cell

    for text in args.cells.split(","):
        cell = parse_cell(text)
        t0 = time.time()
        got = check_cell(get_table(cell), args.seed, args.deals)
        print(f"{text}: {got['deals']} deals from seed {args.seed}, {time.time() - t0:.0f} s")
        for name, v in got.items():
            if name != "deals":
                z = (v["mean"] - v["exact"]) / v["se"]
                print(
                    f"  {name}: mean {100 * v['mean']:+.3f}% +/- {100 * v['se']:.3f}%, "
                    f"exact {100 * v['exact']:+.3f}% ({z:+.2f} standard errors)",
                    flush=True,
                )


def _interval(s: dict[str, Any]) -> str:
    pct = lambda x: f"{100 * x:+.3f}%"  # noqa: E731
    return f"{pct(s['edge_at_least'])} to {pct(s['edge_at_most'])} (+/- {100 * s['edge_se']:.3f}%)"


def pool(args: Any) -> None:
    from pontoon.analysis.british.reading_pool import load_runs, pool_cell, summary

    try:
        records, batches, controls = load_runs(args.files)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    result = {}
    pct = lambda x: f"{100 * x:+.3f}%"  # noqa: E731
    print(
        "| players | packs | deals (z) | with the control (z) | edge vs solved | lower: gain (by) | upper: in-sample "
        "| banker's edge vs best response | without the control | resolved |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted(records, key=lambda k: tuple(int(x) for x in k.split("x"))):
        n, p = (int(x) for x in key.split("x"))
        cell = pool_cell(get_table((n, p)), records[key], batches.get(key, []), controls.get(key, []))
        cell["summary"] = raw = summary(cell)
        ctl = cell.get("controlled")
        if ctl is not None:
            ctl["summary"] = summary(ctl)
        s, c = (raw, cell) if ctl is None else (ctl["summary"], ctl)
        result[key] = cell
        with_ctl = "-" if ctl is None else f"{ctl['deals_with_control']} ({ctl['fit_deals_with_control']})"
        print(
            f"| {n} | {p} | {cell['deals']} ({cell.get('fit_deals', 0)}) | {with_ctl} "
            f"| {pct(c['edge_vs_solved'])} +/- {100 * c['edge_vs_solved_se']:.3f}% "
            f"| {pct(s['lower'])} +/- {100 * s['lower_se']:.3f}% ({s['lower_by']}) | {pct(s['upper'])} "
            f"| {_interval(s)} | {'-' if ctl is None else _interval(raw)} | {'yes' if s['resolved'] else 'no'} |",
            flush=True,
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "1")))
    r.add_argument("--budget", type=float, default=float(os.environ.get("BUDGET_S", "60")))
    r.add_argument("--out", default=os.environ.get("OUT", "nbr-out"))
    r.add_argument("--seed-base", type=int, default=3127)
    r.add_argument(
        "--cells", default="", help="cells NxP, comma-separated; a cell listed k times gets k shares"
    )
    r.add_argument(
        "--per-batch", type=int, default=0, help="deals per z batch (0: about 40 batches per cell)"
    )
    r.add_argument("--unit", type=float, default=120.0, help="seconds per unit of work (a seed of its own)")
    r.add_argument("--margin", type=float, default=20.0, help="seconds kept at the end to stop and write")
    q = sub.add_parser("pool")
    q.add_argument("files", nargs="+")
    q.add_argument("--json", default=None)
    c = sub.add_parser("control")
    c.add_argument("files", nargs="+")
    c.add_argument("--out", required=True, help="folder for nbr-control.jsonl and nbr-zc-*.bin")
    c.add_argument("--cells", default="", help="cells NxP, comma-separated (default: every cell given)")
    k = sub.add_parser("check")
    k.add_argument("--cells", required=True, help="cells NxP, comma-separated")
    k.add_argument("--deals", type=int, default=200)
    k.add_argument("--seed", type=int, default=2027)
    a = ap.parse_args()
    if a.cmd == "run":
        if a.jobs < 1 or a.budget < 30:
            print("error: --jobs at least 1 and --budget at least 30 seconds", file=sys.stderr)
            sys.exit(2)
        run(a)
    elif a.cmd == "control":
        control(a)
    elif a.cmd == "check":
        check(a)
    else:
        pool(a)


if __name__ == "__main__":
    main()
