"""The ``blackjack`` preset against published basic-strategy house edges.

Tolerance: 0.03 percentage points (published figures are quoted to 0.01%, and differ by about that
much between sources through split algorithms and rounding).
Sources:
  [WoO] Wizard of Odds, blackjack house edge calculator and "Blackjack Appendix 9" rule effects
        (wizardofodds.com/games/blackjack/calculator/, /appendix/9/).
  [GR]  P. Griffin, The Theory of Blackjack (6th ed.), basic strategy expectations.
  [SCH] D. Schlesinger, Blackjack Attack (3rd ed.), rule-variation table.
"""

from __future__ import annotations

import pytest

from pontoon.analysis.strategy import solve
from pontoon.rules.load import resolve_rules

TOL = 0.0003

CASES = [
    # 6 decks, S17, DAS, split to 4, no resplit of Aces, no surrender, peek: 0.40% [WoO calculator]
    ({}, 0.0040),
    # same, dealer hits soft 17: 0.62% [WoO calculator; H17 costs ~0.22%, SCH]
    ({"hits_soft_17": True}, 0.0062),
    # 8 decks S17 DAS: 0.43% [WoO calculator]
    ({"decks": 8}, 0.0043),
    # 6 decks S17 DAS with late surrender: 0.33% (late surrender worth ~0.07% in a shoe) [WoO, SCH]
    ({"surrender": "late"}, 0.0033),
    # single deck, S17, double any two, no DAS, one split: an even game (~0.00%) [GR]
    ({"decks": 1, "double_after_split": False, "max_split_hands": 2}, 0.0000),
]


@pytest.mark.parametrize(("sets", "published"), CASES)
def test_blackjack_house_edge(sets: dict[str, object], published: float) -> None:
    sol = solve(resolve_rules("blackjack", sets))
    assert -sol.ev_basic == pytest.approx(published, abs=TOL)


def test_no_hole_card_costs_about_a_tenth_of_a_percent() -> None:
    """European no-hole-card (all wagers lost to a natural) costs ~0.11% in a shoe [WoO appendix 9]."""
    peek = solve(resolve_rules("blackjack"))
    enhc = solve(resolve_rules("blackjack", {"dealer_peeks": False}))
    assert (peek.ev_basic - enhc.ev_basic) == pytest.approx(0.0011, abs=0.0003)


def test_blackjack_chart_is_the_textbook_chart(solutions) -> None:  # type: ignore[no-untyped-def]
    st = solutions["blackjack"].strategy
    assert st["hard"]["16"]["T"].startswith("H")  # 16 v T: hit (stand with 3+ cards)
    assert "S with 3+ cards" in st["hard"]["16"]["T"]
    assert st["hard"]["12"]["4"] == "S" and st["hard"]["12"]["3"] == "H"
    assert st["hard"]["11"]["A"] == "H" and st["hard"]["11"]["T"] == "D"  # S17 six decks
    assert st["soft"]["18"]["3"] == "Ds" and st["soft"]["18"]["9"] == "H"
    assert st["pair"]["9"]["7"] == "S" and st["pair"]["8"]["A"] == "P" and st["pair"]["T"]["6"] == "S"
