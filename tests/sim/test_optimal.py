"""``--strategy optimal``: the analyser's composition-dependent decisions as the kernel's table.

With a reshuffle before every round the simulated edge agrees with the analyser's
``house_edge.optimal`` within three standard errors; the table's decisions are the argmax of the
hint values (``hints.action_values``) for the same hands."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from pontoon.cards import Card, pack_cards
from pontoon.rules import resolve_rules
from pontoon.sim import _kernels as K
from pontoon.sim.api import build_spec, simulate
from pontoon.sim.tables import comp_table

try:
    from pontoon.analysis.hints import action_values
    from pontoon.analysis.optimal_table import optimal_decisions
    from pontoon.analysis.strategy import solve
except ImportError as err:  # pragma: no cover
    pytest.skip(f"pontoon.analysis is not importable: {err}", allow_module_level=True)


def test_table_covers_every_starting_hand() -> None:
    rules = resolve_rules("mbs")
    dec = optimal_decisions(rules)
    # 55 unordered value pairs less the natural, 10 up cards
    assert len(dec["two"]) == 54 * 10
    assert set(dec["two"].values()) <= {"H", "S", "D", "P", "R"}
    t = comp_table(dec)
    assert t.shape == (3, 11, K.COMP_KEYS)
    assert t[0, 6, 5 * 1000 + 9 * 100] == K.C_S  # 6 + T stands against a 6 (up card points 6)
    spec = build_spec(rules, strategy="optimal")
    assert spec.P[K.P_COMP] == 1
    assert build_spec(rules).P[K.P_COMP] == 0


@pytest.mark.parametrize(
    "hand,up",
    [("TS 6H", "7C"), ("9S 7H", "TC"), ("5S 6H", "AC"), ("8S 8H", "TC"), ("AS 7H", "9C"), ("2S 3H", "6C")],
)
def test_two_card_decisions_are_the_hint_argmax(hand: str, up: str) -> None:
    rules = resolve_rules("mbs")
    dec = optimal_decisions(rules)
    cards = [Card.parse(c) for c in hand.split()]
    upc = Card.parse(up)
    rem = Counter(c.rank for c in pack_cards(rules.pack) for _ in range(rules.decks))
    for c in (*cards, upc):
        rem[c.rank] -= 1
    rem_t: Counter[str] = Counter()
    for r, n in rem.items():
        rem_t["T" if r in "TJQK" else r] += n
    legal = ["hit", "stand", "double"] + (["split"] if cards[0].points == cards[1].points else [])
    vals = action_values(rules, rem_t, cards, upc, legal=legal)
    best = max(vals, key=lambda k: vals[k])
    key = (*sorted(c.points - 1 for c in cards), upc.points - 1)
    assert {"hit": "H", "stand": "S", "double": "D", "split": "P"}[best] == dec["two"][key], vals


def _check(preset: str, rounds: int, seed: int) -> None:
    rules = resolve_rules(preset)
    sol = solve(rules)
    exact = -float(sol.ev_optimal)
    out = simulate(rules, rounds, csm=True, seed=seed, strategy="optimal")
    assert out["strategy"].startswith("analyser optimal_decisions")
    se = out["ci95"] / 1.96
    assert abs(out["house_edge"] - exact) < 3 * se, (preset, out["house_edge"], exact, se)
    assert exact <= -float(sol.ev_basic) + 1e-12


def test_optimal_edge_matches_analyser() -> None:
    _check("federal", 300_000, seed=5)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "blackjack"])
def test_optimal_edge_matches_analyser_large(preset: str) -> None:
    _check(preset, 10_000_000, seed=23)


def test_optimal_beats_basic_with_common_numbers() -> None:
    """Not a proof, a smoke check: same seed, optimal does not lose much more than basic."""
    rules = resolve_rules("federal")
    b = simulate(rules, 200_000, csm=True, seed=3)
    o = simulate(rules, 200_000, csm=True, seed=3, strategy="optimal")
    assert o["house_edge"] < b["house_edge"] + 2 * b["ci95"]
    assert np.isfinite(o["house_edge"])
