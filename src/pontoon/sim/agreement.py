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
