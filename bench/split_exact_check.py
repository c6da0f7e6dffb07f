"""One split worked out exactly on the rules' own shoe (``dist_exact`` past its affordability
limits) against the report's approximation of it: the outcome distribution of a round dealt one
pair against one up card, under the chart (``distribution.hand_distribution``).

    python bench/split_exact_check.py federal 9 7   # FED, 8-8 against a ten (value indices)

The exact side is dist_box (the recursion compiled): federal 8-8 against a ten, 8,889,830 ways, 3.4 s
on a nearly idle core (the Python recursion took 1055 s on a loaded one); docs/report-agreement.md
has its output.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from pontoon.analysis import dist_exact as E
from pontoon.analysis import distribution as D
from pontoon.rules.load import resolve_rules


def main() -> None:
    preset, up, p = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rules = resolve_rules(preset)
    real = E.split_exact
    D.split_exact = lambda *a, **k: None  # type: ignore[assignment]
    t = time.perf_counter()
    approx = D.hand_distribution(rules, True, up, p, p)
    print(f"approximation {time.perf_counter() - t:.1f} s", flush=True)
    E.SMALL_SHOE = 10**6

    def forced(*a: Any, **k: Any) -> E.SplitExact | None:
        t = time.perf_counter()
        ex = real(*a[:5], 10**9, True)  # compiled (dist_box)
        print(f"exact split {time.perf_counter() - t:.1f} s, {ex.work if ex else None} ways", flush=True)
        return ex

    D.split_exact = forced  # type: ignore[assignment]
    exact = D.hand_distribution(rules, True, up, p, p)
    ma = sum(v * q for v, q in approx.items())
    me = sum(v * q for v, q in exact.items())
    print(f"mean: approximation {ma:.12f}, exact {me:.12f}")
    print("| net | exact | approximation | relative gap |")
    print("| --- | --- | --- | --- |")
    for v in sorted(set(approx) | set(exact)):
        a, e = approx.get(v, 0.0), exact.get(v, 0.0)
        print(f"| {v:+g} | {e:.6e} | {a:.6e} | {(a - e) / e if e else float('nan'):+.2e} |")


if __name__ == "__main__":
    main()
