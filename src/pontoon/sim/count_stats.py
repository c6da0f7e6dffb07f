"""A simulated counter's figures from the kernel's sums, each with its standard error.

Written for the simulated case only (the exact risk figures of a flat bettor are the analysis'
business, analysis/risk.py): w is one played round's net in units of the table bet, over m
rounds played (n seen; the others wonged out), b its initial bet (units x boxes).

* advantage per initial bet a = sum w / sum b; its standard error by the ratio estimator,
  sqrt(Var(w - a b) / m) / mean b;
* per round played: mean mu, standard deviation sigma; win rate per 100 rounds played and seen;
* risk of ruin for a bankroll of B units: exp(-2 mu B / sigma^2) (the diffusion approximation,
  1 where mu <= 0);
* N0 = sigma^2 / mu^2 (rounds to win one standard deviation), DI = 1000 mu / sigma, SCORE = DI^2
  (= 10^6 mu^2 / sigma^2: the win per 100 rounds at the optimal scale for a bankroll of 10,000
  units).

Standard errors by the delta method from the sample moments: Var(mu^) = sigma^2 / m,
Var(sigma^2^) = (m4 - sigma^4) / m, Cov(mu^, sigma^2^) = m3 / m (m3, m4 the central moments).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

NSUMS = 11  # rounds seen, played, sum b, sum w, w^2, w^3, w^4, voids, boxes, sum b^2, sum w b


def figures(sums: np.ndarray, bankroll: float) -> dict[str, Any]:
    n, m, sb, s1, s2, s3, s4, voids, sbox, sbb, swb = (float(x) for x in sums[:NSUMS])
    out: dict[str, Any] = {"rounds": int(n), "rounds_played": int(m), "void_rounds": int(voids)}
    if m < 2:
        return out
    mu = s1 / m
    e2, e3, e4 = s2 / m, s3 / m, s4 / m
    var = max(e2 - mu * mu, 0.0)
    m3 = e3 - 3 * mu * e2 + 2 * mu**3
    m4 = e4 - 4 * mu * e3 + 6 * mu * mu * e2 - 3 * mu**4
    sd = math.sqrt(var)
    mb = sb / m
    adv = s1 / sb if sb else float("nan")
    # Var(w - a b) = E[w^2] - 2 a E[w b] + a^2 E[b^2] - (E[w] - a E[b])^2  (the last term is 0 at a)
    rvar = max(e2 - 2 * adv * swb / m + adv * adv * sbb / m, 0.0)
    se_mu = sd / math.sqrt(m)
    var_s2 = max(m4 - var * var, 0.0) / m
    cov = m3 / m
    out.update(
        {
            "advantage_per_initial_bet": adv,
            "advantage_se": math.sqrt(rvar / m) / mb if mb else float("nan"),
            "ev_per_round": mu,
            "ev_per_round_se": se_mu,
            "average_bet": mb,
            "average_boxes": sbox / m,
            "sd_per_round": sd,
            "sd_se": math.sqrt(var_s2) / (2 * sd) if sd > 0 else float("nan"),
            "win_per_100_played": 100 * mu,
            "win_per_100_seen": 100 * s1 / n,
            "share_played": m / n,
            "bankroll_units": bankroll,
        }
    )
    if sd > 0:
        di = 1000 * mu / sd
        # d DI = 1000 (d mu / sd - mu d(s2) / (2 sd^3))
        g_mu, g_s2 = 1000 / sd, -1000 * mu / (2 * sd**3)
        var_di = g_mu**2 * se_mu**2 + g_s2**2 * var_s2 + 2 * g_mu * g_s2 * cov
        se_di = math.sqrt(max(var_di, 0.0))
        out.update({"di": di, "di_se": se_di, "score": di * di, "score_se": 2 * abs(di) * se_di})
        if mu != 0:
            n0 = var / (mu * mu)
            out.update({"n0": n0, "n0_se": 2 * n0 * se_di / abs(di) if di else float("nan")})
        if mu > 0:
            ror = math.exp(-2 * mu * bankroll / var)
            d_mu, d_s2 = -2 * bankroll / var * ror, 2 * mu * bankroll / var**2 * ror
            v = d_mu**2 * se_mu**2 + d_s2**2 * var_s2 + 2 * d_mu * d_s2 * cov
            out.update({"risk_of_ruin": ror, "risk_of_ruin_se": math.sqrt(max(v, 0.0))})
        else:
            out.update({"risk_of_ruin": 1.0, "risk_of_ruin_se": 0.0})
    return out
