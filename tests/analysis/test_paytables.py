"""Side wagers' pay tables (analysis/paytables.py, issue 23 item 2)."""

from __future__ import annotations

import math
from decimal import Decimal
from itertools import product

import pytest

from pontoon.analysis.paytables import pay_tables
from pontoon.analysis.sidebets import bonus_bet, insurance_bet, pair_bet, pandemonium_bet
from pontoon.rules.load import resolve_rules


@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"])
def test_edges_equal_sidebets(preset: str) -> None:
    rules = resolve_rules(preset)
    t = pay_tables(rules)
    for name, fn in (
        ("pair", pair_bet),
        ("bonus", bonus_bet),
        ("pandemonium", pandemonium_bet),
        ("insurance", insurance_bet),
    ):
        if name in t:
            assert t[name]["house_edge"] == pytest.approx(fn(rules)["house_edge"], abs=1e-12)
            lines = t[name]["lines"]
            assert sum(x["probability"] for x in lines) + t[name]["loses"]["probability"] == pytest.approx(
                1.0, abs=1e-12
            )
            assert sum(x["return"] for x in lines) + t[name]["loses"]["return"] == pytest.approx(
                -t[name]["house_edge"], abs=1e-12
            )


def test_pair_by_hand_six_decks() -> None:
    """6 decks of 52: a pair is 13 * C(24, 2) = 3,588 of C(312, 2) = 48,516 combinations; at 11 to 1
    the edge is 1 - 12 * 3588 / 48516 = 11.25%, SD = sqrt(E[X^2] - E[X]^2)."""
    rules = resolve_rules("blackjack").with_(decks=6, pair_bet=True, pair_pays=Decimal(11))
    t = pay_tables(rules)["pair"]
    line = t["lines"][0]
    assert line["combinations"] == 13 * math.comb(24, 2)
    assert t["total_combinations"] == math.comb(312, 2)
    p = 3588 / 48516
    assert t["house_edge"] == pytest.approx(1 - 12 * p, abs=1e-12)
    ev = 12 * p - 1
    assert t["sd"] == pytest.approx(math.sqrt(p * 121 + (1 - p) - ev * ev), abs=1e-12)
    assert t["largest_payout"] == rules.side_max * 11
    assert t["max_exposure_per_round"] == rules.side_max * 11 * rules.max_boxes


def test_super_bonus_tiers() -> None:
    rules = resolve_rules("mbs")
    sb = pay_tables(rules)["super_bonus"]
    assert sb["largest_payout"] == max(t.amount for t in rules.super_bonus_tiers)
    # brute force over the suits: dealer 7 of suit su, then 7-7-7 of one suit s
    d, n = rules.decks, 48 * rules.decks
    want = 0.0
    for su, s in product("SHDC", repeat=2):
        k = d - (su == s)
        want += d / n * k / (n - 1) * (k - 1) / (n - 2) * (k - 2) / (n - 3)
    assert sb["probability_per_round"] == pytest.approx(want, rel=1e-12)
