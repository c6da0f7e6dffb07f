"""With a reshuffle before every round (continuous shuffler), the simulated house edge and side-bet
rates agree with the analyser's exact figures within three standard errors."""

from __future__ import annotations

import math

import pytest

from pontoon.rules import resolve_rules
from pontoon.sim.api import simulate

try:  # the analyser is another team's module: skip (saying so) only when it cannot be imported
    from pontoon.analysis.sidebets import side_bets as exact_side_bets
    from pontoon.analysis.strategy import solve
except ImportError as err:  # pragma: no cover
    pytest.skip(f"pontoon.analysis is not importable: {err}", allow_module_level=True)

PRESETS = ["mbs", "federal", "rws-pandemonium", "rws-plus", "blackjack"]


def _check(preset: str, rounds: int, seed: int) -> None:
    rules = resolve_rules(preset)
    exact = -float(solve(rules).ev_basic)
    out = simulate(rules, rounds, csm=True, seed=seed, side_bets=rules.side_bets, boxes=1)
    assert out["strategy"] == "analyser basic_strategy"
    se = out["ci95"] / 1.96
    assert abs(out["house_edge"] - exact) < 3 * se, (preset, out["house_edge"], exact, se)
    sides = exact_side_bets(rules)
    for name in rules.side_bets:
        p = sides[name]["hit_rate"]
        got = out["lines"][name]["hit_rate"]
        n = out["lines"][name]["wagers"]
        assert abs(got - p) < 3 * math.sqrt(p * (1 - p) / n) + 1e-12, (preset, name, got, p)
        if name != "pandemonium":  # the multiplier draw adds variance the binomial check ignores
            assert abs(-out["lines"][name]["return"] - sides[name]["house_edge"]) < 0.05


@pytest.mark.parametrize("preset", PRESETS)
def test_csm_edge_matches_analyser(preset: str) -> None:
    _check(preset, 300_000, seed=17)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_csm_edge_matches_analyser_large(preset: str) -> None:
    _check(preset, 40_000_000, seed=23)
