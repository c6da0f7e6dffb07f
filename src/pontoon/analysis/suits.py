"""Suits matter only for the 6-7-8 / 7-7-7 three-card 21s and the Super Bonus (rulings 16, 17).

The analyser tracks card values; at the few places where suits change a payment it averages over
the suits exactly, from a shoe holding ``decks`` copies of every card less the cards known to be out.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from itertools import product

from pontoon.rules.model import CasinoRules

SUITS = "SHDC"
# value indices of the bonus hands: 6 -> 5, 7 -> 6, 8 -> 7
BONUS_COMPLETION = {(5, 6): 7, (5, 7): 6, (6, 7): 5, (6, 6): 6}


def super_bonus_units(rules: CasinoRules, bet: Decimal | float | int) -> float:
    """The Super Bonus in units of the main wager (rulings 17), 0 where the table has none."""
    if not rules.super_bonus:
        return 0.0
    b = Decimal(str(bet))
    if b <= 0:
        return 0.0
    return float(rules.super_bonus_amount(b) / b)


def _multiplier(rules: CasinoRules, kind: str, suits: Sequence[str]) -> float:
    if len(set(suits)) > 1:
        return float(rules.pays_678_mixed if kind == "678" else rules.pays_777_mixed)
    if suits[0] == "S":
        return float(rules.pays_678_spades if kind == "678" else rules.pays_777_spades)
    return float(rules.pays_678_suited if kind == "678" else rules.pays_777_suited)


def three_card_multiplier(rules: CasinoRules, kind: str, suits: Sequence[str]) -> float:
    """The pay of a 6-7-8 (``kind`` "678") or 7-7-7 ("777") of these suits (rulings 16)."""
    return _multiplier(rules, kind, suits)


def average_three_card_pay(rules: CasinoRules, kind: str) -> float:
    """Expected payout of a 6-7-8 or 7-7-7 over random suits from a full shoe (used for split hands)."""
    d = rules.decks
    tot = 0.0
    if kind == "678":
        for s in product(SUITS, repeat=3):
            tot += _multiplier(rules, kind, s) / 64.0
        return tot
    n = 4 * d
    for s1, s2, s3 in product(SUITS, repeat=3):
        p = d / n
        p *= (d - (s2 == s1)) / (n - 1)
        p *= (d - (s3 == s1) - (s3 == s2)) / (n - 2)
        if p > 0:
            tot += p * _multiplier(rules, kind, (s1, s2, s3))
    return tot


def completion_classes(
    rules: CasinoRules,
    i: int,
    j: int,
    up: int,
    sb_units: float,
    known: Sequence[tuple[int, str]] | None = None,
) -> list[tuple[float, float]]:
    """(weight, expected payout when the third card completes the bonus hand) by suit class.

    ``i``, ``j``: value indices of the first two cards (a bonus pair from BONUS_COMPLETION);
    ``up``: the dealer's card. Suits of the player's cards and the upcard are averaged exactly
    unless ``known`` gives them ((index, suit) for the two player cards, then the upcard).
    """
    key = (min(i, j), max(i, j))
    c = BONUS_COMPLETION[key]
    kind = "777" if key == (6, 6) else "678"
    d = rules.decks
    n = 4 * d
    # the pay of each suit pattern, read from the rules once (_multiplier by pattern)
    pays = {pat: _multiplier(rules, kind, pat) for pat in (("S", "H"), ("S",), ("H",))}
    out: dict[float, float] = {}
    if known is not None:
        combos = [((known[0][1], known[1][1], known[2][1]), 1.0)]
    else:
        combos = []
        for s1, s2, su in product(SUITS, repeat=3):
            p = 0.25
            p *= (d - (up == i and su == s1)) / (n - (up == i))
            p *= (d - (up == j and su == s2) - (i == j and s1 == s2)) / (n - (up == j) - (i == j))
            if p > 0:
                combos.append(((s1, s2, su), p))
    for (s1, s2, su), p in combos:
        removed = {s: 0 for s in SUITS}
        k = 0
        for idx, s in ((i, s1), (j, s2), (up, su)):
            if idx == c:
                removed[s] += 1
                k += 1
        m = 0.0
        for s3 in SUITS:
            q = (d - removed[s3]) / (n - k) if n - k > 0 else 0.0
            if q <= 0:
                continue
            v = pays[("S", "H")] if not s1 == s2 == s3 else pays[("S",)] if s1 == "S" else pays[("H",)]
            # rulings 17: 7-7 of one suit, third 7 of that suit, dealer's first card any 7
            if kind == "777" and up == 6 and s1 == s2 == s3:
                v += sb_units
            m += q * v
        m = round(m, 12)
        out[m] = out.get(m, 0.0) + p
    return [(w, m) for m, w in out.items()]
