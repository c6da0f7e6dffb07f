"""Where the exact split distribution's time goes (analysis/dist_box.py, issue 23): CPU seconds and
ways of every split the preset's strategy takes, by pair and up card, with every split round exact
(``round_distribution(..., exact_splits=True)``); ``--ups`` / ``--pairs`` (value indices, 0 Ace .. 9
ten-value) keep only those splits exact (the others approximated, as the report's default), and
``--out`` writes the distribution (the exact one where nothing was left out).

    python bench/bench_dist_box.py federal [--strategy basic] [--ups 9] [--pairs 7] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from pontoon.analysis import distribution as D
from pontoon.rules.load import resolve_rules

NAMES = "A23456789T"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset")
    ap.add_argument("--strategy", choices=["basic", "optimal"], default="basic")
    ap.add_argument("--ups", nargs="*", type=int, default=list(range(10)))
    ap.add_argument("--pairs", nargs="*", type=int, default=list(range(10)))
    ap.add_argument("--out")
    a = ap.parse_args()
    real = D.split_exact
    rows: list[tuple[int, int, float, int]] = []

    def timed(*args: Any, **kw: Any) -> Any:
        solver, p = args[2], args[4]
        if solver.up not in a.ups or p not in a.pairs:
            return None  # approximated, as the report's default
        t = time.process_time()
        got = real(*args, **kw)
        rows.append((solver.up, p, time.process_time() - t, got.work if got is not None else -1))
        up, _p, sec, ways = rows[-1]
        print(
            f"{NAMES[up]} up, {NAMES[p]}-{NAMES[p]}: {sec:.2f} s, {ways:,} ways", file=sys.stderr, flush=True
        )
        return got

    D.split_exact = timed  # type: ignore[assignment]
    t0 = time.process_time()
    d = D.round_distribution(resolve_rules(a.preset), a.strategy == "basic", exact_splits=True)
    total = time.process_time() - t0
    D.split_exact = real
    print("| up | pair | CPU s | ways |")
    print("| --- | --- | --- | --- |")
    for up, p, s, w in sorted(rows, key=lambda r: -r[2]):
        print(f"| {NAMES[up]} | {NAMES[p]}-{NAMES[p]} | {s:.2f} | {w:,} |")
    split_s = sum(r[2] for r in rows)
    print(
        f"{a.preset} {a.strategy}: {len(rows)} splits exact in {split_s:.1f} s of CPU, {total:.1f} s in all"
    )
    print(f"exact split probability {d['exact_split_probability']:.6g} of {d['split_probability']:.6g}")
    if a.out:
        d["exact_splits"] = d["exact_split_probability"] == d["split_probability"]  # none left out
        d["cpu_seconds"] = total
        Path(a.out).write_text(json.dumps(d, indent=1))


if __name__ == "__main__":
    main()
