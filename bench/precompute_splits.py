"""Work out a preset's split rounds exactly, offline, and ship them (issue 23; ``analysis/dist_store.py``).

Each split (up card, pair) the preset's chart or optimal play takes is worked out by the compiled
recursion (``dist_box``) and written to ``--out`` as soon as it ends (with its CPU seconds), so a
run stopped part way keeps what it finished, and a run again skips what is there (the shipped cells
are read first). ``--ups`` orders the up cards (value indices 0 Ace .. 9 ten-value) and
``--pairs`` keeps only those pairs; every other split is approximated, as the report's default.

    nice -n 10 python bench/precompute_splits.py federal --ups 5 4 3 2 1 6 7 8 9 0 \\
        --out src/pontoon/analysis/data/splits-federal.json

``--jobs N --budget-s S --out-dir DIR`` (``bench/device_splits.sh``): the presets' splits (every
chart split and every optimal split that differs from the chart's) over N processes, one split
(up card, pair: the chart's, then optimal play's where it differs) a process, the cheaper pairs
(6-6 .. 9-9) first, then by the chance of the round; ``DIR/splits-<preset>.json`` rewritten as
each ends, the pool stopped at S seconds; ``--mem-gb`` parts the memory among the jobs (a split
that would hold more is given up, ``dist_box.MEM_LIMIT``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from pontoon.analysis import dist_store
from pontoon.analysis import distribution as D
from pontoon.rules.load import resolve_rules

NAMES = "A23456789T"


class _Saver(dict):  # type: ignore[type-arg]
    """``record``: each compiled split written to the file as it ends."""

    def __init__(self, out: Path, about: dict[str, Any]) -> None:
        super().__init__()
        self.out = out
        self.doc = json.loads(out.read_text()) if out.exists() else {"about": about, "cells": {}}
        self.label = ""

    def __setitem__(self, key: str, val: Any) -> None:
        ex, cpu = val
        cell = dist_store.to_json(ex, cpu)
        cell["label"] = self.label
        self.doc["cells"][key] = cell
        tmp = self.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.doc, indent=None, separators=(",", ":")))
        os.replace(tmp, self.out)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(
            f"{self.label}: {cpu:.1f} s CPU, {ex.work:,} ways, peak RSS {rss:.2f} GB",
            file=sys.stderr,
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="+")
    ap.add_argument("--strategies", nargs="*", choices=["basic", "optimal"], default=["basic", "optimal"])
    ap.add_argument("--ups", nargs="*", type=int, default=list(range(10)))
    ap.add_argument("--pairs", nargs="*", type=int, default=list(range(10)))
    ap.add_argument("--out")
    ap.add_argument("--jobs", type=int, default=0, help="processes (pool mode, with --out-dir)")
    ap.add_argument("--budget-s", type=float, default=480.0, help="pool mode: wall seconds in all")
    ap.add_argument("--mem-gb", type=float, default=8.0, help="pool mode: memory of all the jobs")
    ap.add_argument("--out-dir")
    ap.add_argument("--cells", nargs="*", help='pool mode: only these splits, "preset:up:pair", in order')
    a = ap.parse_args()
    if a.jobs:
        if not a.out_dir:
            ap.error("--jobs needs --out-dir")
        from device_pool import pool_main  # bench/device_pool.py

        pool_main(a.preset, a.jobs, a.budget_s, a.mem_gb, Path(a.out_dir), a.strategies, a.cells)
        return
    if len(a.preset) != 1 or not a.out:
        ap.error("one preset and --out (or --jobs and --out-dir)")
    preset = a.preset[0]
    rules = resolve_rules(preset)
    saver = _Saver(Path(a.out), {"preset": preset, "made_by": "bench/precompute_splits.py"})
    real = D.split_exact
    state = {"up": -1}

    def pick(*args: Any, **kw: Any) -> Any:
        solver, p = args[2], args[4]
        if solver.up != state["up"] or p not in a.pairs:
            return None  # approximated, as the report's default
        saver.label = f"{preset} {NAMES[solver.up]} up, {NAMES[p]}-{NAMES[p]}"
        return real(*args, **kw)

    D.split_exact = pick  # type: ignore[assignment]
    strategies = tuple(s == "basic" for s in a.strategies)
    t0 = time.process_time()
    for up in a.ups:
        state["up"] = up
        D.round_distributions(rules, strategies, exact_splits=True, record=saver)
        print(
            f"up {NAMES[up]} done, {time.process_time() - t0:.0f} s CPU so far", file=sys.stderr, flush=True
        )
    D.split_exact = real


if __name__ == "__main__":
    main()
