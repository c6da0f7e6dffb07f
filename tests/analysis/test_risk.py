"""Bankroll risk (analysis/risk.py, issue 23 item 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pontoon.analysis.distribution import round_distribution
from pontoon.analysis.risk import bands, risk_report, ruin, ruin_with_goal, trip_ruin, z_of
from pontoon.rules.load import resolve_rules


def test_schlesinger_definitions() -> None:
    """Blackjack Attack ch. 10: N0 = (SD/EV)^2, DI = 1000 EV/SD, SCORE = DI^2 (a counter's 1.5% edge,
    SD 1.15 per round: N0 = 5,878 rounds, DI = 13.04, SCORE = 170)."""
    r = risk_report(0.015, 1.15, 400, None, 1000)
    assert r["n0"] == pytest.approx((1.15 / 0.015) ** 2)
    assert r["n0"] == pytest.approx(5878, abs=1)
    assert r["di"] == pytest.approx(13.04, abs=0.01)
    assert r["score"] == pytest.approx(170.1, abs=0.1)
    assert r["risk_of_ruin"] == pytest.approx(math.exp(-2 * 0.015 * 400 / 1.15**2))
    house = risk_report(-0.005, 1.13, 100, 50, 1000)
    assert house["risk_of_ruin"] == 1.0 and house["score"] == 0.0 and house["di"] < 0


def test_ruin_limits() -> None:
    assert ruin_with_goal(0.0, 1.0, 30, 10) == pytest.approx(10 / 40)
    assert ruin_with_goal(0.01, 1.1, 50, 1e6) == pytest.approx(ruin(0.01, 1.1, 50), rel=1e-9)
    assert ruin_with_goal(-0.01, 1.1, 50, 1e6) == pytest.approx(1.0)
    assert trip_ruin(0.01, 1.1, 50, 10**9) == pytest.approx(ruin(0.01, 1.1, 50), rel=1e-6)
    assert trip_ruin(-0.01, 1.1, 50, 10**8) == pytest.approx(1.0)
    # continuity through mu = 0
    assert ruin_with_goal(1e-9, 1.0, 30, 10) == pytest.approx(0.25, abs=1e-6)
    assert ruin_with_goal(-1e-9, 1.0, 30, 10) == pytest.approx(0.25, abs=1e-6)


def test_bands_are_normal_percentiles() -> None:
    b = bands(-0.005, 1.13, [100, 10_000])
    assert b[0]["p50"] == pytest.approx(-0.5)
    assert b[1]["p95"] - b[1]["p50"] == pytest.approx(1.6448536 * 113, rel=1e-6)
    assert z_of(0.975) == pytest.approx(1.959964, abs=1e-6)


def test_trip_ruin_against_walks_of_the_exact_distribution() -> None:
    """Walks drawn from MBS's exact round distribution: the chance of falling 20 units within 300
    rounds agrees with the diffusion formula (within its known bias: a few points)."""
    d = round_distribution(resolve_rules("mbs"), basic=True)
    v = np.array([o["net"] for o in d["outcomes"]])
    p = np.array([o["probability"] for o in d["outcomes"]])
    rng = np.random.default_rng(23)
    steps = rng.choice(v, size=(20_000, 300), p=p / p.sum())
    hit = (np.cumsum(steps, axis=1).min(axis=1) <= -20).mean()
    assert hit == pytest.approx(trip_ruin(d["mean"], d["sd"], 20, 300), abs=0.03)
