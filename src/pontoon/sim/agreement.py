"""The simulator against the exact outcome distribution (issue 23): z-scores of every outcome's
frequency and of the sample variance of a round's main-wager net.

The simulator plays one box, a continuous shuffler (every round from a full shoe, as the analysis
assumes) and ``session_length=1``, so its session histogram (``sessions.SessionHistogram``) holds
one count per round's net. Its bins may be wider than one money quantum when the outcomes span
more than 4,096 quanta (the Super Bonus), but every outcome of the main wager is a multiple of half
a wager, far apart from the next, so each non-empty bin holds exactly one outcome.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pontoon.rules.model import CasinoRules
from pontoon.sim.api import simulate


def simulated_outcomes(
    rules: CasinoRules, rounds: int, strategy: str, seed: int
) -> tuple[dict[float, int], dict[str, Any]]:
    """(count of each net outcome in units of the wager, the simulator's report)."""
    rep = simulate(rules, rounds, strategy=strategy, csm=True, seed=seed, session_length=1)
    h, w = rep.pop("_session_hist")
    counts: dict[float, int] = {}
    for k in np.nonzero(h.counts)[0].tolist():
        lo = (h.start + k) * h.width  # quanta
        mid = (lo + (h.width - 1) / 2) / w
        v = round(mid * 2) / 2  # outcomes are multiples of half a wager
        counts[v] = counts.get(v, 0) + int(h.counts[k])
    return counts, rep


def agreement(exact: dict[str, Any], counts: dict[float, int]) -> dict[str, Any]:
    """z-scores: each outcome's count against n p (binomial SE), and the sample variance against the
    exact variance (SE sqrt((mu4 - sigma^4) / n))."""
    n = sum(counts.values())
    probs = {round(o["net"] * 2) / 2: o["probability"] for o in exact["outcomes"]}
    rows = []
    for v in sorted(set(probs) | set(counts)):
        p = probs.get(v, 0.0)
        c = counts.get(v, 0)
        se = math.sqrt(n * p * (1 - p)) if p > 0 else float("nan")
        z = (c - n * p) / se if p > 0 else (float("inf") if c else 0.0)
        rows.append({"net": v, "probability": p, "expected": n * p, "count": c, "z": z})
    mean = sum(v * c for v, c in counts.items()) / n
    var = sum((v - mean) ** 2 * c for v, c in counts.items()) / (n - 1)
    mu = exact["mean"]
    sig2 = exact["variance"]
    mu4 = sum((o["net"] - mu) ** 4 * o["probability"] for o in exact["outcomes"])
    se_var = math.sqrt(max(mu4 - sig2 * sig2, 0.0) / n)
    se_mean = math.sqrt(sig2 / n)
    return {
        "rounds": n,
        "outcomes": rows,
        "mean": {"simulated": mean, "exact": mu, "z": (mean - mu) / se_mean},
        "variance": {"simulated": var, "exact": sig2, "z": (var - sig2) / se_var},
        "max_abs_z": max(abs(r["z"]) for r in rows if r["probability"] > 0 or r["count"]),
        **_deviation(rows, n),
    }


def _deviation(rows: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """The largest gap between an outcome's exact probability and its simulated frequency, and a
    three-standard-error upper bound on the distribution's error in any outcome: max over outcomes of
    |frequency - p| + 3 sqrt(p (1 - p) / n)."""
    worst = max(rows, key=lambda r: abs(r["count"] / n - r["probability"]))
    bound = max(
        abs(r["count"] / n - r["probability"]) + 3 * math.sqrt(r["probability"] * (1 - r["probability"]) / n)
        for r in rows
    )
    return {
        "max_deviation": {"net": worst["net"], "deviation": worst["count"] / n - worst["probability"]},
        "deviation_bound": bound,
    }


def pool_runs(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs of one preset and strategy (distinct seeds) as one sample: every outcome's counts
    summed (so the rounds too, and the sample mean and variance are those of the pooled moments,
    ``agreement`` of the summed counts). Each run: ``preset``, ``strategy``, ``seed`` and
    ``outcomes`` (``net``, ``count``), as ``bench/report_agreement.py`` keeps them. ValueError where
    the runs mix presets or strategies or repeat a seed (the same sample twice)."""
    if not runs:
        raise ValueError("pool_runs: no runs given (one or more runs of one preset and strategy)")
    kinds = {(r["preset"], r["strategy"]) for r in runs}
    if len(kinds) > 1:
        shown = ", ".join(f"{p} {s}" for p, s in sorted(kinds))
        raise ValueError(f"pool_runs: runs of one preset and strategy only, got {shown}")
    seeds = [r["seed"] for r in runs]
    if len(set(seeds)) < len(seeds):
        raise ValueError(
            f"pool_runs: each run a distinct seed (the same seed is the same sample), got {seeds}"
        )
    counts: dict[float, int] = {}
    for r in runs:
        for o in r["outcomes"]:
            c = int(o["count"])
            if c < 0:
                raise ValueError(f"pool_runs: a count is a whole number >= 0, got {c} for net {o['net']}")
            if c:
                v = round(float(o["net"]) * 2) / 2
                counts[v] = counts.get(v, 0) + c
    (preset, strategy) = kinds.pop()
    return {
        "preset": preset,
        "strategy": strategy,
        "seeds": seeds,
        "rounds": sum(counts.values()),
        "counts": counts,
        "seconds": sum(float(r.get("seconds", 0.0)) for r in runs),
    }
