"""Effects of removal (analysis/eor.py) and the fixed chart's exact value (analysis/chart_ev.py)."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis.chart_ev import cell_code, chart_ev
from pontoon.analysis.eor import deck_removal_check, effects_of_removal, removal_changes
from pontoon.analysis.states import shoe_counts
from pontoon.analysis.strategy import basic_strategy, evaluate_policy, solve
from pontoon.rules.load import resolve_rules

from .enumerate_engine import engine_expectation, shoe_values
from .test_enumeration import FLAT


@pytest.mark.parametrize("preset", ["mbs", "federal", "blackjack"])
def test_chart_ev_equals_solve_basic_on_the_full_shoe(preset: str) -> None:
    rules = resolve_rules(preset)
    got = chart_ev(rules, basic_strategy(rules), shoe_counts(rules.pack, rules.decks))
    assert got == pytest.approx(solve(rules).ev_basic, abs=1e-13)


def test_cell_code_reads_exceptions_and_fallbacks() -> None:
    assert cell_code("H; S with 5+ cards", 2, False) == "H"
    assert cell_code("H; S with 5+ cards", 6, False) == "S"
    assert cell_code("S; H with 3 cards", 3, False) == "H"
    assert cell_code("S; H with 3 cards", 4, False) == "S"
    assert cell_code("Ds", 3, False) == "S"
    assert cell_code("D", 3, True) == "D"
    assert cell_code("Rs", 3, True) == "S"


@pytest.mark.parametrize("preset", ["mbs", pytest.param("federal", marks=pytest.mark.slow)])
def test_fixed_chart_effects_sum_to_zero_and_a_deck_removal_is_second_order(preset: str) -> None:
    """Under a fixed chart the expectation is a martingale as cards are removed at random, so the
    effects weighted by the shoe's cards sum to zero exactly; removing a whole deck leaves the
    proportions alone and changes the value only at second order (the number of decks), which is
    what the linear sum misses: small against the first-order terms it sums."""
    rules = resolve_rules(preset)
    eff = effects_of_removal(rules, what=("basic",))
    full = np.array(eff.shoe)
    assert float(np.dot(full, eff.raw["basic"])) == pytest.approx(0.0, abs=1e-13)
    linear, exact, err = deck_removal_check(rules, "basic")
    one = shoe_counts(rules.pack, 1)
    first_order = float(np.dot(one, np.abs(eff.raw["basic"])))
    assert linear == pytest.approx(0.0, abs=1e-13)
    assert 0 < abs(exact) < 0.02 * first_order  # fewer decks: a small gain to the player
    assert err == pytest.approx(abs(exact - linear))


def test_optimal_effects_gain_on_average_and_track_the_chart() -> None:
    """Optimal play re-decides on the smaller shoe: never worse than the chart there, so its
    weighted sum of effects is >= 0; per card it stays close to the chart's effect."""
    rules = resolve_rules("mbs")
    eff = effects_of_removal(rules, what=("basic", "optimal"))
    full = np.array(eff.shoe)
    assert float(np.dot(full, eff.raw["optimal"])) > 0
    for b, o in zip(eff.per_deck["basic"], eff.per_deck["optimal"], strict=True):
        assert abs(b - o) < 0.0005
    # the shape players know: small cards help when removed, Aces and tens hurt, the Ace most
    pd = eff.per_deck["basic"]
    assert all(pd[r] > 0 for r in range(1, 6)) and pd[0] < pd[9] < 0
    assert pd[0] == min(pd)


def test_side_wager_effects_insurance_is_the_ten_density() -> None:
    """Insurance pays 2 to 1 on a ten (given the dealer's Ace): removing a non-ten raises its value,
    a ten lowers it. The pair bet, settled on the first two cards of a random shoe, is a martingale
    under random removal: its effects weighted by the shoe's cards sum to zero."""
    rules = resolve_rules("mbs")
    eff = effects_of_removal(rules, what=("insurance", "pair"))
    ins = eff.raw["insurance"]
    n = int(sum(eff.shoe))
    tens = eff.shoe[9]
    assert ins[0] == pytest.approx(3 * tens / (n - 2) - 3 * tens / (n - 1), abs=1e-15)
    assert ins[9] < 0
    assert float(np.dot(eff.shoe, eff.raw["pair"])) == pytest.approx(0.0, abs=1e-12)
    # every rank holds 24 cards: one removed leaves P(pair) = 23/287 exactly, whichever it was
    assert all(abs(x) < 1e-12 for x in eff.raw["pair"])


def _stand_13(counts: tuple[int, ...], up: int) -> str:
    hard = sum((i + 1) * k for i, k in enumerate(counts))
    best = hard + 10 if counts[0] and hard + 10 <= 21 else hard
    if sum(counts) == 2 and hard == 11:
        return "D"
    return "S" if best >= 13 else "H"


def _rescue_15(total: int, up: int) -> bool:
    return total < 15


def _engine_vs_analysis(preset: str, cards: list[str]) -> None:
    rules = resolve_rules(preset).with_(**FLAT)

    def engine(shoe: np.ndarray) -> dict[str, float]:
        have = list(cards)
        for r in range(10):  # drop the cards of each value that ``shoe`` lacks
            while shoe_values(have)[r] > shoe[r]:
                have.pop(next(i for i, c in enumerate(have) if shoe_values([c])[r]))
        return {"v": engine_expectation(rules, have, _stand_13, _rescue_15)}

    def analysis(shoe: np.ndarray) -> dict[str, float]:
        return {"v": evaluate_policy(rules, tuple(int(x) for x in shoe), _stand_13, _rescue_15)}

    full = np.array(shoe_values(cards))
    b1, e1 = removal_changes(engine, full)
    b2, e2 = removal_changes(analysis, full)
    assert b1["v"] == pytest.approx(b2["v"], abs=1e-12)
    present = [r for r in range(10) if full[r]]
    assert len(present) >= 4  # each value present removed in turn
    for r in present:
        assert e1["v"][r] == pytest.approx(e2["v"][r], abs=1e-12)
    assert any(abs(e1["v"][r]) > 0.005 for r in present)


def test_removal_through_the_analysis_equals_the_engine_mbs() -> None:
    _engine_vs_analysis("mbs", ["KS", "KH", "QD", "QC", "JS", "9H", "AS", "5C"])


@pytest.mark.slow
def test_removal_through_the_analysis_equals_the_engine_federal() -> None:
    _engine_vs_analysis("federal", ["KS", "KH", "QD", "JC", "8S", "9H", "AS", "6C"])


# One-deck blackjack effects of removal as commonly published (Griffin, The Theory of Blackjack;
# the table as reproduced at http://www.averagejoeblackjack.com/cardeffect.html: 2 .38, 3 .44,
# 4 .55, 5 .69, 6 .46, 7 .28, 8 .00, 9 -.18, 10 -.51, A -.61, in percent, one card removed from
# one deck, basic strategy, dealer stands on soft 17, double on any two, no double after split).
# The published 6-deck Spanish 21 and blackjack tables are held in test_eor_spanish21.py.
GRIFFIN_1DECK = {0: -0.61, 1: 0.38, 2: 0.44, 3: 0.55, 4: 0.69, 5: 0.46, 6: 0.28, 7: 0.0, 8: -0.18, 9: -0.51}


def test_blackjack_one_deck_effects_match_the_published_table() -> None:
    rules = resolve_rules("blackjack").with_(decks=1, double_after_split=False, max_split_hands=2)
    eff = effects_of_removal(rules, what=("basic",))
    assert eff.scale == 1.0
    for r, pub in GRIFFIN_1DECK.items():
        # within 0.05 points: the table is rounded and its basic chart and split rules differ in detail
        assert eff.per_deck["basic"][r] * 100 == pytest.approx(pub, abs=0.05), r


def test_per_deck_normalisation_makes_decks_comparable() -> None:
    """Scaled by (N - 1) / (D - 1), the effects of 6 and 8 decks of the same table agree closely
    (the raw one-card changes differ by a third)."""
    six = effects_of_removal(resolve_rules("mbs"), what=("basic",))
    eight = effects_of_removal(resolve_rules("mbs").with_(decks=8), what=("basic",))
    for a, b, ra, rb in zip(
        six.per_deck["basic"], eight.per_deck["basic"], six.raw["basic"], eight.raw["basic"], strict=True
    ):
        assert a == pytest.approx(b, abs=1e-4)  # 0.01 percentage points
        if abs(ra) > 1e-4:
            assert ra / rb == pytest.approx(383 / 287, rel=0.05)
