"""Every side wager's pay table (issue 23 item 2): each line's probability, combinations and return
contribution, hit frequency, standard deviation, house edge, the largest payout and the table's
largest exposure per round at its limits.

Counts are over card identities (rank and suit, ``decks`` copies of each) as in ``sidebets``, so
the house edges equal ``sidebets``' (tested). A two-card wager's combinations are unordered pairs
of the shoe's cards (C(n, 2) in all).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from itertools import combinations_with_replacement
from typing import Any

from pontoon.analysis.sidebets import super_bonus_probability
from pontoon.cards import pack_cards
from pontoon.rules.model import CasinoRules

PICTURES = "JQK"


def _table(lines: list[dict[str, Any]], total: float | int, stake_max: Decimal, boxes: int) -> dict[str, Any]:
    """Summary of a wager paying ``odds`` to 1 on each line and losing the stake otherwise."""
    p_hit = sum(x["probability"] for x in lines)
    ev = sum(x["probability"] * x["odds"] for x in lines) - (1 - p_hit)
    ex2 = sum(x["probability"] * x["odds"] ** 2 for x in lines) + (1 - p_hit)
    for x in lines:
        x["return"] = x["probability"] * x["odds"]
    top = max((x["odds"] for x in lines), default=0.0)
    largest = Decimal(str(top)) * stake_max
    return {
        "lines": lines,
        "loses": {"probability": 1 - p_hit, "return": -(1 - p_hit)},
        "total_combinations": total,
        "hit_frequency": p_hit,
        "house_edge": -ev,
        "sd": math.sqrt(max(ex2 - ev * ev, 0.0)),
        "largest_payout": largest,
        "max_exposure_per_round": largest * boxes,
    }


def _two_card(
    rules: CasinoRules, line_of: Callable[[tuple[str, str], tuple[str, str]], str | None]
) -> tuple[dict[str, float], dict[str, int], int]:
    """Combinations of each line over the unordered pairs of card identities."""
    kinds = [(c.rank, c.suit) for c in pack_cards(rules.pack)]
    d = rules.decks
    combos: dict[str, int] = {}
    total = 0
    for a, b in combinations_with_replacement(kinds, 2):
        k = d * (d - 1) // 2 if a == b else d * d
        total += k
        name = line_of(a, b)
        if name is not None and k:
            combos[name] = combos.get(name, 0) + k
    return {n: c / total for n, c in combos.items()}, combos, total


def pair_table(rules: CasinoRules) -> dict[str, Any]:
    """rulings 18: the Pair pays ``pair_pays`` to 1 on two cards of one rank (J-Q is not a pair)."""
    probs, combos, total = _two_card(rules, lambda a, b: "pair" if a[0] == b[0] else None)
    lines = [
        {
            "line": "pair",
            "odds": float(rules.pair_pays),
            "combinations": combos.get("pair", 0),
            "probability": probs.get("pair", 0.0),
        }
    ]
    return _table(lines, total, rules.side_max, rules.max_boxes)


def bonus_table(rules: CasinoRules) -> dict[str, Any]:
    """rulings 19 (004 4.1.3): the Pontoon Plus Bonus, the highest line only."""
    t = rules.bonus_pays

    def line(a: tuple[str, str], b: tuple[str, str]) -> str | None:
        ra, rb = a[0], b[0]
        if ra == "A" and rb == "A":
            return "suited aces" if a[1] == b[1] else "aces"
        if ra == rb and ra in PICTURES:
            return "high pair"
        if "A" in (ra, rb):
            other = rb if ra == "A" else ra
            return "ace + picture or ten" if other in PICTURES or other == "T" else "ace + low card"
        return "low pair" if ra == rb else None

    odds = {
        "suited aces": t.suited_aces,
        "aces": t.aces,
        "high pair": t.high_pair,
        "ace + picture or ten": t.ace_picture,
        "low pair": t.low_pair,
        "ace + low card": t.ace_low,
    }
    probs, combos, total = _two_card(rules, line)
    lines = [
        {"line": n, "odds": float(o), "combinations": combos.get(n, 0), "probability": probs.get(n, 0.0)}
        for n, o in odds.items()
    ]
    return _table(lines, total, rules.side_max, rules.max_boxes)


def pandemonium_table(rules: CasinoRules) -> dict[str, Any]:
    """rulings 20: wins on a box Pontoon, paid at a multiplier drawn with the configured weights."""

    def line(a: tuple[str, str], b: tuple[str, str]) -> str | None:
        nat = (a[0] == "A" and b[0] in "TJQK") or (b[0] == "A" and a[0] in "TJQK")
        return "pontoon" if nat else None

    probs, combos, total = _two_card(rules, line)
    p = probs.get("pontoon", 0.0)
    lines = [
        {
            "line": f"pontoon x{m}",
            "odds": float(m),
            "combinations": combos.get("pontoon", 0) * w,
            "probability": p * w,
        }
        for m, w in rules.pandemonium_probabilities()
    ]
    return _table(lines, total, rules.side_max, rules.max_boxes)


def insurance_table(rules: CasinoRules) -> dict[str, Any]:
    """rulings 8: against the dealer's Ace, pays ``insurance_pays`` to 1 on a ten-value second card
    (averaged over the player's cards: the shoe less the Ace). Its stake is up to half the main
    wager, so its largest payout is at half the table maximum."""
    kinds = [k.rank for k in pack_cards(rules.pack)]
    n = len(kinds) * rules.decks - 1
    tens = sum(1 for r in kinds if r in "TJQK") * rules.decks
    lines = [
        {
            "line": "dealer Pontoon",
            "odds": float(rules.insurance_pays),
            "combinations": tens,
            "probability": tens / n,
        }
    ]
    return _table(lines, n, rules.table_max / 2, rules.max_boxes)


def super_bonus_table(rules: CasinoRules, hits_suited_sevens: bool = True) -> dict[str, Any]:
    """rulings 17: not a wager but a payment on the main wager: the tiers, the chance per round for
    one box (dealer's first card a 7, the box's 7-7 of one suit, the third 7 of that suit), and the
    largest payment of a round (the top tier to the box and ``super_bonus_other_payment`` to every
    other wager at the table)."""
    p = super_bonus_probability(rules, hits_suited_sevens)
    tiers = [{"min_wager": t.min_wager, "amount": t.amount} for t in rules.super_bonus_tiers]
    top = max((t.amount for t in rules.super_bonus_tiers), default=Decimal(0))
    others = rules.super_bonus_other_payment * (rules.max_boxes * rules.max_bettors_per_box - 1)
    return {
        "tiers": tiers,
        "probability_per_round": p,
        "one_in": (1 / p) if p > 0 else None,
        "largest_payout": top,
        "max_exposure_per_round": top + others,
    }


def pay_tables(rules: CasinoRules, hits_suited_sevens: bool = True) -> dict[str, dict[str, Any]]:
    """The pay table of every side wager this table offers (and the Super Bonus's tiers)."""
    out: dict[str, dict[str, Any]] = {}
    if rules.pair_bet:
        out["pair"] = pair_table(rules)
    if rules.bonus_bet:
        out["bonus"] = bonus_table(rules)
    if rules.pandemonium_bet:
        out["pandemonium"] = pandemonium_table(rules)
    if rules.insurance:
        out["insurance"] = insurance_table(rules)
    if rules.super_bonus:
        out["super_bonus"] = super_bonus_table(rules, hits_suited_sevens)
    return out
