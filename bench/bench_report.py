"""Time the whole math report of one preset (``python bench/bench_report.py [preset] [--runs N]``).

Each run is a fresh process-like start of the work: the analysis's caches are cleared, then the
report is built (analysis, both outcome distributions, pay tables, risk) and written as HTML with
its three charts. Wall and CPU time (on a shared machine the wall time counts waiting for a core).
Target (issue 23): at most 2 s for one preset.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from pontoon.analysis import strategy  # noqa: E402
from pontoon.analysis.mathreport import math_report  # noqa: E402
from pontoon.cli import report_render  # noqa: E402
from pontoon.rules.load import resolve_rules  # noqa: E402


def one(preset: str) -> tuple[float, float, dict[str, float]]:
    strategy._CACHE.clear()
    rules = resolve_rules(preset)
    w0, c0 = time.perf_counter(), time.process_time()
    rep = math_report(rules)
    w1 = time.perf_counter()
    html = report_render.to_html([rep])
    w2, c2 = time.perf_counter(), time.process_time()
    assert html.startswith("<!doctype html>")
    return w2 - w0, c2 - c0, {"report": w1 - w0, "html + charts": w2 - w1}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="?", default="mbs")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    one(a.preset)  # warm: kernels loaded, matplotlib imported, the dealer trie read
    walls, cpus = [], []
    for _ in range(a.runs):
        w, c, parts = one(a.preset)
        walls.append(w)
        cpus.append(c)
        print(
            f"{a.preset}: wall {w:.3f} s  cpu {c:.3f} s  "
            + "  ".join(f"{k} {v:.3f} s" for k, v in parts.items())
        )
    print(f"best: wall {min(walls):.3f} s  cpu {min(cpus):.3f} s (target 2 s)")


if __name__ == "__main__":
    main()
