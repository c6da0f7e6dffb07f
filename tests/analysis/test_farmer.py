"""Overall expectations of plain blackjack against Eric Farmer's combinatorial analyser.

Reference: E. Farmer, "Blackjack Basic Strategy Calculator" version 7.6 (``strategy.cpp`` in the
public repository github.com/possibly-wrong/blackjack, commit a1f7dbb, built with g++ -O3
-march=native). His code is not part of this project; the figures below are his program's
"Total" line (overall expected value in percent, 9 decimals), for these rules, typed into his
prompts: double down on any two cards (any total, soft included), no double after hitting, double
after splitting, resplits to 4 hands, no resplit of Aces (one card each, no hit), no surrender,
blackjack pays 3:2, dealer peeks (his overall value counts the dealer's natural), post-split
strategy CDZ- / CDP1 / CDP as named. Rows: shoe, dealer hits soft 17, strategy, his figure.

His split algorithm (his paper "Optimal expected values for blackjack splits", the code's
``computeSplit``): every pair card drawn is resplit while fewer than 4 hands exist; the split's
value is a sum over how the hands' second cards fall of the hands' values, each hand played
against the shoe less the up card, the pair cards known to be out and the non-pair second cards
known to be out (the other cards are exchangeable), the latter through a removal recursion from
the values with only pair cards removed. CDZ-: split hands take the option that is best for the
same cards unsplit; CDP1: split hands are re-optimised for the shoe less the two pair cards and
keep those decisions when more pair cards are out; CDP: re-optimised for each number of pair cards
out. ``pontoon analyze --split-strategy cdz|cdp1|cdp`` values splits the same way
(``UpcardSolver.split_value``), so the overall optimal expectation must agree to 1e-9 (his
figures are rounded at 5e-12).
"""

from __future__ import annotations

import pytest

from pontoon.analysis.strategy import solve
from pontoon.rules.load import resolve_rules

SPANISH = "6x48"  # six 48-card decks (the ten-spots removed): pack=pontoon48, decks=6

# (shoe, H17, strategy, Farmer's overall expected value in percent)
FARMER = [
    ("1", True, "cdz", -0.008734733),
    ("1", True, "cdp1", -0.008053671),
    ("1", True, "cdp", -0.008029732),
    ("1", False, "cdz", 0.181934306),
    ("1", False, "cdp1", 0.183073339),
    ("1", False, "cdp", 0.183111744),
    ("2", True, "cdz", -0.380445075),
    ("2", True, "cdp1", -0.380242991),
    ("2", True, "cdp", -0.380233880),
    ("2", False, "cdz", -0.178859906),
    ("2", False, "cdp1", -0.178481700),
    ("2", False, "cdp", -0.178469318),
    ("6", True, "cdz", -0.615389123),
    ("6", True, "cdp1", -0.615389123),
    ("6", True, "cdp", -0.615387095),
    ("6", False, "cdz", -0.402870236),
    ("6", False, "cdp1", -0.402864343),
    ("6", False, "cdp", -0.402861523),
    ("8", True, "cdz", -0.644553852),
    ("8", True, "cdp1", -0.644553852),
    ("8", True, "cdp", -0.644553714),
    ("8", False, "cdz", -0.430580629),
    ("8", False, "cdp1", -0.430580629),
    ("8", False, "cdp", -0.430577794),
    (SPANISH, True, "cdz", -2.725146002),
    (SPANISH, True, "cdp1", -2.725045529),
    (SPANISH, True, "cdp", -2.725032352),
    (SPANISH, False, "cdz", -2.297378910),
    (SPANISH, False, "cdp1", -2.297303121),
    (SPANISH, False, "cdp", -2.297301044),
]

# the default (non-slow) run: one case of each strategy, each shoe size once
QUICK = {("1", True, "cdp"), ("6", True, "cdp1"), ("6", False, "cdz"), (SPANISH, True, "cdp1")}


def _rules(shoe: str, h17: bool):  # type: ignore[no-untyped-def]
    sets: dict[str, object] = {
        "hits_soft_17": h17,
        "double_after_split": True,
        "max_split_hands": 4,
        "resplit_aces": False,
        "hit_split_aces": False,
        "surrender": "none",
        "dealer_peeks": True,
    }
    if shoe == SPANISH:
        sets.update(decks=6, pack="pontoon48")
    else:
        sets["decks"] = int(shoe)
    return resolve_rules("blackjack", sets)


def _cases(quick: bool) -> list[object]:
    out: list[object] = []
    for shoe, h17, strat, ev in FARMER:
        fast = (shoe, h17, strat) in QUICK
        if fast == quick:
            out.append(pytest.param(shoe, h17, strat, ev, id=f"{shoe}-{'H17' if h17 else 'S17'}-{strat}"))
    return out


def _check(shoe: str, h17: bool, strat: str, ev_percent: float) -> None:
    sol = solve(_rules(shoe, h17), split_strategy=strat)
    assert sol.ev_optimal == pytest.approx(ev_percent / 100, abs=1e-9)


@pytest.mark.parametrize(("shoe", "h17", "strat", "ev_percent"), _cases(True))
def test_overall_ev_equals_farmer(shoe: str, h17: bool, strat: str, ev_percent: float) -> None:
    _check(shoe, h17, strat, ev_percent)


@pytest.mark.slow
@pytest.mark.parametrize(("shoe", "h17", "strat", "ev_percent"), _cases(False))
def test_overall_ev_equals_farmer_all(shoe: str, h17: bool, strat: str, ev_percent: float) -> None:
    _check(shoe, h17, strat, ev_percent)


def test_strategies_order_as_expected() -> None:
    """More freedom never costs: CDP >= CDP1 >= CDZ- (single deck, where they differ most)."""
    r = _rules("1", False)
    cdz, cdp1, cdp = (solve(r, split_strategy=s).ev_optimal for s in ("cdz", "cdp1", "cdp"))
    assert cdz < cdp1 < cdp
    assert cdp - cdz == pytest.approx((0.183111744 - 0.181934306) / 100, abs=1e-9)


def test_unknown_split_strategy_is_a_one_line_error() -> None:
    from pontoon.errors import PontoonError

    with pytest.raises(PontoonError, match="cdz, cdp1, cdp"):
        solve(_rules("6", True), split_strategy="cdx")
