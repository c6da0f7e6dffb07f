"""z-scores of the simulated house edge against the analyser's exact edge, over many seeds.

For each preset and strategy (basic: the analyser's chart; optimal: its composition table), runs
``--seeds`` independent simulations of ``--rounds`` rounds with a continuous shuffler (the
analyser's model: a full shoe every round), one box, no side bets, and prints per row: the exact
edge (``-solve(rules).ev_basic`` / ``ev_optimal``, as ``tests/sim/test_edge.py``), the pooled
simulated edge with its standard error, the pooled z, and the mean, sd and largest |z| of the
per-seed z-scores. Unbiased simulation and exact analysis: pooled z within about +-2, per-seed z
mean near 0 and sd near 1.

    .venv/bin/python bench/bench_zscores.py [--seeds 8] [--rounds 5000000] [--presets mbs,federal]
        [--strategies basic,optimal] [--seed0 1000]
"""

from __future__ import annotations

import argparse
import math
import time

from pontoon.analysis.strategy import solve
from pontoon.rules import resolve_rules
from pontoon.sim.api import simulate

PRESETS = "mbs,federal,rws-plus,rws-pandemonium,blackjack"


def row(preset: str, strategy: str, seeds: int, rounds: int, seed0: int) -> str:
    """One table row; the seeds are ``seed0 .. seed0 + seeds - 1`` (distinct per preset: mbs,
    rws-plus and rws-pandemonium play the same main game, so equal seeds give equal edges)."""
    rules = resolve_rules(preset)
    sol = solve(rules)
    exact = -float(sol.ev_basic if strategy == "basic" else sol.ev_optimal)
    edges, ses, zs = [], [], []
    t0 = time.perf_counter()
    for k in range(seeds):
        out = simulate(rules, rounds, csm=True, seed=seed0 + k, strategy=strategy, boxes=1)
        se = out["ci95"] / 1.96
        edges.append(out["house_edge"])
        ses.append(se)
        zs.append((out["house_edge"] - exact) / se)
    mean = sum(edges) / seeds
    se_pool = math.sqrt(sum(s * s for s in ses)) / seeds  # equal rounds per seed
    zbar = sum(zs) / seeds
    zsd = math.sqrt(sum((z - zbar) ** 2 for z in zs) / (seeds - 1)) if seeds > 1 else float("nan")
    return (
        f"| {preset} | {strategy} | {100 * exact:.4f}% | {100 * mean:.4f}% ± {100 * se_pool:.4f}% | "
        f"{(mean - exact) / se_pool:+.2f} | {zbar:+.2f} | {zsd:.2f} | {max(abs(z) for z in zs):.2f} | "
        f"{time.perf_counter() - t0:.0f} s |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5_000_000)
    ap.add_argument("--presets", default=PRESETS)
    ap.add_argument("--strategies", default="basic,optimal")
    ap.add_argument("--seed0", type=int, default=1000)
    a = ap.parse_args()
    print(f"{a.seeds} seeds x {a.rounds:,} rounds, --csm, 1 box; preset i takes seeds {a.seed0} + 1000 i + k")
    print("| table | strategy | exact | simulated ± se | pooled z | mean z | sd z | max abs z | time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, preset in enumerate(a.presets.split(",")):
        for strategy in a.strategies.split(","):
            print(row(preset, strategy, a.seeds, a.rounds, a.seed0 + 1000 * i), flush=True)


if __name__ == "__main__":
    main()
