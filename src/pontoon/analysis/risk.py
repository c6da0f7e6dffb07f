"""Bankroll risk of flat betting (issue 23 item 3), from a round's mean and standard deviation.

Figures as blackjack players use them (D. Schlesinger, *Blackjack Attack*, 3rd ed., ch. 10 "The
Ultimate Risk of Ruin"): with mean ``mu`` and standard deviation ``sigma`` per round in units of the
wager,

* N0 = (sigma / mu)^2: the rounds after which the expectation equals one standard deviation;
* DI = 1000 * mu / sigma (the desirability index), SCORE = DI^2 = 10^6 (mu / sigma)^2: the win per
  100 rounds of a 10,000-unit bankroll bet at the Kelly optimum (0 where mu <= 0: no bet is made);
* risk of ruin of a bankroll of B units, betting one unit a round for ever: exp(-2 mu B / sigma^2)
  where mu > 0, else 1;
* with a win goal of G units (stop once G units up): the chance of ruin first, for a Brownian
  motion with drift (a = 2 mu / sigma^2): 1 - (1 - e^{-aB}) / (1 - e^{-a(B + G)}), G / (B + G) at
  mu = 0;
* trip ruin within N rounds: P(min of the path over N rounds <= -B) =
  Phi((-B - mu N) / (sigma sqrt N)) + e^{-aB} Phi((-B + mu N) / (sigma sqrt N)).

These are the diffusion (Brownian) approximations that Schlesinger's formulas are; the bands of
the result after N rounds are normal (central limit) percentiles mu N + z sigma sqrt N.
"""

from __future__ import annotations

import math
from typing import Any

PERCENTILES = (1, 5, 25, 50, 75, 95, 99)


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def z_of(p: float) -> float:
    """The standard normal quantile (bisection on ``phi``; 1e-12)."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if phi(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def ruin(mu: float, sigma: float, bankroll: float) -> float:
    """Risk of ruin betting one unit a round for ever."""
    if bankroll <= 0:
        return 1.0
    if mu <= 0:
        return 1.0
    return math.exp(-2 * mu * bankroll / sigma**2)


def ruin_with_goal(mu: float, sigma: float, bankroll: float, goal: float) -> float:
    """The chance of losing ``bankroll`` units before winning ``goal`` units."""
    if bankroll <= 0:
        return 1.0
    if goal <= 0:
        return 0.0
    a = 2 * mu / sigma**2
    if abs(a) * (bankroll + goal) < 1e-12:
        return goal / (bankroll + goal)
    # P(win first) = (1 - e^{aB}) / (e^{-aG} - e^{aB}); in a stable form for either sign of a
    if a > 0:
        num = -math.expm1(-a * bankroll)  # 1 - e^{-aB}
        den = -math.expm1(-a * (bankroll + goal))
        return 1.0 - num / den
    b = -a
    num = -math.expm1(-b * goal)  # by symmetry: ruin = P(a drift +|mu| walk wins B before losing G)
    den = -math.expm1(-b * (bankroll + goal))
    return num / den


def trip_ruin(mu: float, sigma: float, bankroll: float, rounds: int) -> float:
    """The chance that the result falls to ``-bankroll`` at some time within ``rounds`` rounds."""
    if bankroll <= 0:
        return 1.0
    if rounds <= 0:
        return 0.0
    s = sigma * math.sqrt(rounds)
    first = phi((-bankroll - mu * rounds) / s)
    second_cdf = phi((-bankroll + mu * rounds) / s)
    second = 0.0
    if second_cdf > 0:
        second = math.exp(-2 * mu * bankroll / sigma**2 + math.log(second_cdf))
    return min(1.0, first + second)


def bands(
    mu: float, sigma: float, rounds: list[int], percentiles: tuple[int, ...] = PERCENTILES
) -> list[dict[str, Any]]:
    """The result after N rounds (units) at each percentile (normal approximation)."""
    zs = {p: z_of(p / 100) for p in percentiles}
    return [
        {"rounds": n, **{f"p{p}": mu * n + z * sigma * math.sqrt(n) for p, z in zs.items()}} for n in rounds
    ]


def risk_report(
    mu: float, sigma: float, bankroll_units: float, goal_units: float | None, trip_rounds: int
) -> dict[str, Any]:
    """Every figure of the module for one table and one bankroll (all in units of the flat bet)."""
    di = 1000 * mu / sigma
    out: dict[str, Any] = {
        "mean_per_round": mu,
        "sd_per_round": sigma,
        "n0": (sigma / mu) ** 2 if mu != 0 else None,
        "di": di,
        "score": di * di if mu > 0 else 0.0,
        "bankroll_units": bankroll_units,
        "risk_of_ruin": ruin(mu, sigma, bankroll_units),
        "trip_rounds": trip_rounds,
        "trip_ruin": trip_ruin(mu, sigma, bankroll_units, trip_rounds),
    }
    if goal_units is not None:
        out["win_goal_units"] = goal_units
        out["risk_of_ruin_with_goal"] = ruin_with_goal(mu, sigma, bankroll_units, goal_units)
    rounds = sorted({max(1, trip_rounds * k // 10) for k in range(1, 11)})
    out["bands"] = bands(mu, sigma, rounds)
    return out
