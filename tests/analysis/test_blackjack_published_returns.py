"""The ``blackjack`` preset's hand returns and round variance against Wizard of Odds' tables (issue 23,
"published figures where the rules match").

Sources:
  [WoO9] Wizard of Odds, "Blackjack Appendix 9", 1 deck, dealer stands on soft 17, resplit to four
         hands except Aces, no drawing to split Aces (wizardofodds.com/games/blackjack/appendix/9/1ds17r4/):
         the expected return of standing, hitting and doubling each two-card hand, "created using a
         recursive combinatorial program that considered the exact hand composition at every step";
         against an Ace, conditioned on the dealer not having blackjack. Game return +0.001839 (double
         after split), its splits "only considered how many hands the player had already split".
  [WoO4] Wizard of Odds, "Variance in blackjack", Blackjack Appendix 4
         (wizardofodds.com/games/blackjack/appendix/4/), summary table: variance per round under basic
         strategy, six decks unless stated, from about 10^10 simulated hands each (a cut-card game).
"""

from __future__ import annotations

import pytest

from pontoon.analysis.distribution import round_distribution
from pontoon.analysis.strategy import solve
from pontoon.rules.load import resolve_rules

# [WoO9], dealer Ace, player's two cards (value indices: 0 Ace .. 9 ten): stand, hit, double
ACE_ROWS = {
    (1, 0): (-0.661732, -0.067808, -0.593281),  # 2,A
    (2, 0): (-0.661047, -0.100568, -0.595803),  # 3,A
    (2, 1): (-0.659375, -0.291565, -1.318751),  # 3,2
    (3, 0): (-0.658818, -0.153931, -0.619882),  # 4,A
    (3, 1): (-0.658712, -0.334901, -1.295655),  # 4,2
    (3, 2): (-0.657967, -0.345048, -1.126423),  # 4,3
    (4, 0): (-0.659151, -0.206061, -0.656070),  # 5,A
    (4, 1): (-0.657529, -0.331115, -1.125237),  # 5,2
    (4, 2): (-0.656761, -0.217133, -0.793964),  # 5,3
    (4, 3): (-0.654533, -0.070215, -0.395771),  # 5,4
    (5, 0): (-0.482815, -0.199899, -0.527213),  # 6,A
    (5, 1): (-0.639160, -0.225772, -0.799095),  # 6,2
    (5, 2): (-0.638344, -0.078495, -0.401329),  # 6,3
    (5, 3): (-0.636118, 0.081506, 0.048615),  # 6,4
    (5, 4): (-0.634013, 0.172946, 0.240259),  # 6,5
    (6, 0): (-0.101015, -0.108386, -0.357778),  # 7,A
}


def test_single_deck_hand_returns_against_an_ace_match_wizard_of_odds() -> None:
    """Every two-card hand's stand, hit and double return against an Ace equals [WoO9] to the
    published six decimals (the analysis charges a dealer natural in each option: its return given
    no natural is (v + q) / (1 - q), q the natural's chance given the three cards)."""
    sol = solve(resolve_rules("blackjack", {"decks": 1}))
    ur = next(u for u in sol.upcards if u.detail["solver"].up == 0)
    solver = ur.detail["solver"]
    for (i, j), published in ACE_ROWS.items():
        lo, hi = min(i, j), max(i, j)
        q = solver.q_nat(solver.state_of(lo, hi))
        opts = ur.hands[(lo, hi)]
        got = tuple((opts[k] + q) / (1 - q) for k in ("S", "H", "D"))
        assert got == pytest.approx(published, abs=1.5e-6), (i, j)


def test_single_deck_game_return_matches_wizard_of_odds() -> None:
    """[WoO9]'s game return +0.001839 with double after split; its splits are approximate (the
    hands drawn before are not removed), ours exact for the post-split strategy: 1e-4 apart at most."""
    sol = solve(resolve_rules("blackjack", {"decks": 1}))
    assert float(sol.ev_optimal) == pytest.approx(0.001839, abs=1e-4)


# [WoO4] summary table: decks, dealer hits soft 17, double after split, surrender, resplit Aces: variance
WOO4 = [
    (6, False, True, True, True, 1.303),
    (6, False, False, False, False, 1.295),
    (6, True, True, True, True, 1.312),
    (6, True, False, False, False, 1.308),
    (6, True, True, False, False, 1.346),
    (6, True, False, True, False, 1.272),
    (6, True, False, False, True, 1.311),
    (8, True, False, False, False, 1.309),
    (2, True, True, False, False, 1.341),
]


@pytest.mark.parametrize(("decks", "h17", "das", "surrender", "rsa", "variance"), WOO4)
def test_round_variance_matches_wizard_of_odds(
    decks: int, h17: bool, das: bool, surrender: bool, rsa: bool, variance: float
) -> None:
    """The exact variance of a round under the chart is within 0.012 of [WoO4]'s simulated figure.
    Measured: the rows with double after split agree to 0.001 (two decks: +0.010), those without are
    0.007 below WoO's (a continuous shuffler here, a cut card there); our simulator agrees with ours
    (6 decks, no DAS, 10^7 rounds: 1.28793 against 1.28808, z -0.4). The rule effects WoO lists
    (DAS +0.038, surrender -0.036) are three times that tolerance."""
    rules = resolve_rules(
        "blackjack",
        {
            "decks": decks,
            "dealer_hits_soft_17": h17,
            "double_after_split": das,
            "surrender": "late" if surrender else "none",
            "resplit_aces": rsa,
        },
    )
    d = round_distribution(rules, basic=True)
    assert d["variance"] == pytest.approx(variance, abs=0.012)
