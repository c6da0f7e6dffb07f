"""The analyser's expectation of a fixed strategy equals the exact figure obtained by playing
every distinct ordering of a small stacked shoe through the round engine."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pontoon.analysis.strategy import evaluate_policy
from pontoon.rules.load import resolve_rules

from .enumerate_engine import engine_expectation, shoe_values


def _best(counts: tuple[int, ...]) -> int:
    hard = sum((i + 1) * n for i, n in enumerate(counts))
    return hard + 10 if counts[0] and hard + 10 <= 21 else hard


def policy(counts: tuple[int, ...], up: int) -> str:
    """A fixed strategy using every verb but split: surrender, double, hit, stand."""
    n = sum(counts)
    hard = sum((i + 1) * k for i, k in enumerate(counts))
    best = _best(counts)
    if n == 2 and best == 16 and up in (0, 9):
        return "R"
    if n == 2 and hard in (10, 11):
        return "D"
    if n == 2 and best == 15 and up == 9:
        return "Ds"
    return "H" if best < 15 or (best < 17 and up in (0, 7, 8, 9) and n < 4) else "S"


def rescue(total: int, up: int) -> bool:
    return total < 17 and up in (0, 7, 8, 9)


# uniform 6-7-8 / 7-7-7 pays make suits irrelevant (a stacked shoe has arbitrary suits)
FLAT = {
    "pays_678_mixed": Decimal("1.5"),
    "pays_678_suited": Decimal("1.5"),
    "pays_678_spades": Decimal("1.5"),
    "pays_777_mixed": Decimal("1.5"),
    "pays_777_suited": Decimal("1.5"),
    "pays_777_spades": Decimal("1.5"),
    "super_bonus": False,
}

SHOES = {
    "pictures": ["KS", "KS", "QH", "9C", "9C", "5D", "AS", "2H"],
    "small": ["KS", "JH", "6C", "7D", "8S", "AS", "2H", "3C"],
    "aces": ["AS", "AS", "QH", "KD", "5C", "6H", "9S", "4D"],
}
FAST = {  # seven cards, ~1,000 orderings each
    "mbs": ["KS", "KS", "9C", "5D", "AS", "2H", "6C"],
    "federal": ["AS", "AS", "QH", "QH", "5C", "6H", "4D"],
    "rws-plus": ["KS", "JH", "6C", "7D", "8S", "AS", "3C"],
}


@pytest.mark.parametrize("preset", sorted(FAST))
def test_pontoon_presets_match_engine_fast(preset: str) -> None:
    rules = resolve_rules(preset).with_(**FLAT)
    cards = FAST[preset]
    exact = engine_expectation(rules, cards, policy, rescue)
    analysed = evaluate_policy(rules, shoe_values(cards), policy, rescue)
    assert analysed == pytest.approx(exact, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium"])
@pytest.mark.parametrize("shoe", sorted(SHOES))
def test_pontoon_presets_match_engine(preset: str, shoe: str) -> None:
    rules = resolve_rules(preset).with_(**FLAT)
    cards = SHOES[shoe]
    exact = engine_expectation(rules, cards, policy, rescue)
    analysed = evaluate_policy(rules, shoe_values(cards), policy, rescue)
    assert analysed == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("peek", [True, False])
def test_blackjack_matches_engine(peek: bool) -> None:
    # insurance off: with it on, the engine defers the peek past the first play action, so a double
    # taken in the insurance window is lost to a dealer natural (reported to the engine's owner)
    rules = resolve_rules("blackjack", {"dealer_peeks": peek, "surrender": "late", "insurance": False})
    cards = ["TS", "KS", "9C", "AS", "AD", "5D", "6H"]
    exact = engine_expectation(rules, cards, policy, rescue)
    analysed = evaluate_policy(rules, shoe_values(cards), policy, rescue)
    assert analysed == pytest.approx(exact, abs=1e-12)
