"""z-scores of the simulated house edge against the analyser's exact edge, over many seeds.

For each preset and strategy (basic: the analyser's chart; optimal: its composition table), runs
``--seeds`` independent simulations of ``--rounds`` rounds with a continuous shuffler (the
analyser's model: a full shoe every round), one box, no side bets, and prints per row: the exact
edge (``-solve(rules).ev_basic`` / ``ev_optimal``, as ``tests/sim/test_edge.py``), the pooled
simulated edge with its standard error, the pooled z, and the mean, sd and largest |z| of the
per-seed z-scores. Unbiased simulation and exact analysis: pooled z within about +-2, per-seed z
mean near 0 and sd near 1.

    .venv/bin/python bench/bench_zscores.py [--seeds 8] [--rounds 5000000] [--presets mbs,federal]
        [--strategies basic,optimal] [--seed0 1000] [--side-bets]

With ``--side-bets`` every side bet the table offers is placed on the box as well, and a line per
side bet gives the z of its simulated hit rate against the analyser's (binomial standard error)
and, for the pair and Pandemonium bets, of its return (standard error from the exact pay
distribution: the Pandemonium multiplier drawn by its weights).
"""

from __future__ import annotations

import argparse
import math
import time

from pontoon.analysis.sidebets import side_bets as exact_side_bets
from pontoon.analysis.strategy import solve
from pontoon.rules import resolve_rules
from pontoon.sim.api import simulate

PRESETS = "mbs,federal,rws-plus,rws-pandemonium,blackjack"


def _z_stats(zs: list[float]) -> str:
    zbar = sum(zs) / len(zs)
    zsd = math.sqrt(sum((z - zbar) ** 2 for z in zs) / (len(zs) - 1)) if len(zs) > 1 else float("nan")
    return f"{zbar:+.2f} | {zsd:.2f} | {max(abs(z) for z in zs):.2f}"


def side_moments(rules, name: str, exact: dict) -> tuple[float, float, float]:  # type: ignore[no-untyped-def]
    """(hit rate, mean net per unit, sd of the net per unit) of a side bet, exact; the sd only
    where the pay is one figure or a drawn multiplier (pair, pandemonium), else nan."""
    p = exact[name]["hit_rate"]
    mean = -exact[name]["house_edge"]
    if name == "pair":
        m2 = p * float(rules.pair_pays) ** 2 + (1 - p)
    elif name == "pandemonium":  # a hit pays a multiplier drawn by the weights (002 3.9)
        m2 = p * sum(w * m * m for m, w in rules.pandemonium_probabilities()) + (1 - p)
    else:
        return p, mean, float("nan")
    return p, mean, math.sqrt(m2 - mean * mean)


def row(preset: str, strategy: str, seeds: int, rounds: int, seed0: int, sides: bool = False) -> str:
    """One table row; the seeds are ``seed0 .. seed0 + seeds - 1`` (distinct per preset: mbs,
    rws-plus and rws-pandemonium play the same main game, so equal seeds give equal edges).
    ``sides``: every side bet the table offers is placed too, and a line per side bet follows
    (z of its hit rate, binomial, and of its return where its sd is known exactly)."""
    rules = resolve_rules(preset)
    sol = solve(rules)
    exact = -float(sol.ev_basic if strategy == "basic" else sol.ev_optimal)
    bets = tuple(rules.side_bets) if sides else ()
    ex_side = exact_side_bets(rules) if bets else {}
    edges, ses, zs = [], [], []
    side_z: dict[str, tuple[list[float], list[float]]] = {b: ([], []) for b in bets}
    t0 = time.perf_counter()
    for k in range(seeds):
        out = simulate(rules, rounds, csm=True, seed=seed0 + k, strategy=strategy, boxes=1, side_bets=bets)
        se = out["ci95"] / 1.96
        edges.append(out["house_edge"])
        ses.append(se)
        zs.append((out["house_edge"] - exact) / se)
        for b in bets:
            line = out["lines"][b]
            n = line["wagers"]
            p, mean, sd = side_moments(rules, b, ex_side)
            side_z[b][0].append((line["hit_rate"] - p) / math.sqrt(p * (1 - p) / n))
            side_z[b][1].append((line["return"] - mean) / (sd / math.sqrt(n)))
    mean = sum(edges) / seeds
    se_pool = math.sqrt(sum(s * s for s in ses)) / seeds  # equal rounds per seed
    out_rows = [
        f"| {preset} | {strategy} | {100 * exact:.4f}% | {100 * mean:.4f}% ± {100 * se_pool:.4f}% | "
        f"{(mean - exact) / se_pool:+.2f} | {_z_stats(zs)} | {time.perf_counter() - t0:.0f} s |"
    ]
    for b in bets:
        hz, rz = side_z[b]
        pooled = sum(hz) / math.sqrt(seeds)
        ret = (
            f"return z: pooled {sum(rz) / math.sqrt(seeds):+.2f}, per seed {_z_stats(rz)}"
            if rz[0] == rz[0]
            else ""
        )
        out_rows.append(
            f"|   side bet {b} | hit rate {ex_side[b]['hit_rate']:.6f} | z pooled {pooled:+.2f} | "
            f"per seed (mean, sd, max abs) {_z_stats(hz)} | {ret} |"
        )
    return "\n".join(out_rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5_000_000)
    ap.add_argument("--presets", default=PRESETS)
    ap.add_argument("--strategies", default="basic,optimal")
    ap.add_argument("--seed0", type=int, default=1000)
    ap.add_argument("--side-bets", action="store_true", help="place every side bet the table offers too")
    a = ap.parse_args()
    print(f"{a.seeds} seeds x {a.rounds:,} rounds, --csm, 1 box; preset i takes seeds {a.seed0} + 1000 i + k")
    print("| table | strategy | exact | simulated ± se | pooled z | mean z | sd z | max abs z | time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, preset in enumerate(a.presets.split(",")):
        for strategy in a.strategies.split(","):
            print(row(preset, strategy, a.seeds, a.rounds, a.seed0 + 1000 * i, a.side_bets), flush=True)


if __name__ == "__main__":
    main()
