"""The simulator against the exact outcome distribution (sim/agreement.py, issue 23): every
outcome's frequency and the sample variance within a few standard errors."""

from __future__ import annotations

import pytest

from pontoon.analysis.distribution import round_distribution
from pontoon.rules.load import resolve_rules
from pontoon.sim.agreement import agreement, simulated_outcomes


def _check(preset: str, rounds: int, strategy: str, bound: float) -> dict:  # type: ignore[type-arg]
    rules = resolve_rules(preset)
    exact = round_distribution(rules, strategy == "basic")
    counts, _rep = simulated_outcomes(rules, rounds, strategy, seed=23)
    a = agreement(exact, counts)
    assert a["rounds"] == rounds
    assert sum(counts.values()) == rounds
    # every simulated outcome is one the distribution has
    support = {round(o["net"] * 2) / 2 for o in exact["outcomes"]}
    assert set(counts) <= support
    bad = [r for r in a["outcomes"] if r["probability"] > 0 and abs(r["z"]) > bound]
    assert not bad, bad
    assert abs(a["variance"]["z"]) < bound
    assert abs(a["mean"]["z"]) < bound
    return a


@pytest.mark.parametrize("preset", ["mbs", "blackjack"])
def test_simulator_agrees_small(preset: str) -> None:
    _check(preset, 200_000, "basic", 4.0)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"])
def test_simulator_agrees_large(preset: str) -> None:
    _check(preset, 10_000_000, "basic", 4.0)
