"""Side bets, exactly, from a full shoe: Pair, Bonus, Pandemonium, insurance, Super Bonus odds.

Every figure is a sum over card identities (rank and suit) with the shoe's ``decks`` copies of each
card, so suits are handled exactly. House edges are per unit wagered (positive: the house wins).
"""

from __future__ import annotations

from itertools import product
from typing import Any

from pontoon.cards import pack_cards
from pontoon.rules.model import CasinoRules

SUITS = "SHDC"


Counts = dict[tuple[str, str], int]


def _cards(rules: CasinoRules) -> tuple[list[tuple[str, str]], int]:
    kinds = [(c.rank, c.suit) for c in pack_cards(rules.pack)]
    return kinds, rules.decks


def full_counts(rules: CasinoRules) -> Counts:
    """Copies of each card (rank, suit) in the rules' full shoe."""
    kinds, d = _cards(rules)
    return dict.fromkeys(kinds, d)


def _two_card_bet(rules: CasinoRules, payout: Any, counts: Counts | None = None) -> tuple[float, float]:
    """(expectation, hit rate) of a bet settled on the box's first two cards, dealt from the full
    shoe or from ``counts`` (copies of each card, for a shoe partly dealt: analysis/eor.py)."""
    cnt = full_counts(rules) if counts is None else counts
    kinds = list(cnt)
    n = sum(cnt.values())
    ev = 0.0
    hit = 0.0
    for a, b in product(kinds, repeat=2):
        p = cnt[a] / n * ((cnt[a] - 1) if a == b else cnt[b]) / (n - 1)
        if p <= 0:
            continue
        odds = payout(a, b)
        if odds is None:
            ev -= p
        else:
            ev += p * odds
            hit += p
    return ev, hit


def pair_bet(rules: CasinoRules, counts: Counts | None = None) -> dict[str, float]:
    """rulings 18: 11 to 1 on two cards of the same rank (rulings 10: J-J is a pair, J-Q is not)."""
    odds = float(rules.pair_pays)
    ev, hit = _two_card_bet(rules, lambda a, b: odds if a[0] == b[0] else None, counts)
    return {"house_edge": -ev, "hit_rate": hit}


def bonus_bet(rules: CasinoRules, counts: Counts | None = None) -> dict[str, float]:
    """rulings 19 (004 4.1.3): the Pontoon Plus Bonus on the first two cards, highest line only."""
    t = rules.bonus_pays
    pictures = "JQK"

    def pay(a: tuple[str, str], b: tuple[str, str]) -> float | None:
        ra, rb = a[0], b[0]
        if ra == "A" and rb == "A":
            return float(t.suited_aces if a[1] == b[1] else t.aces)
        if ra == rb and ra in pictures:
            return float(t.high_pair)
        if "A" in (ra, rb):
            other = rb if ra == "A" else ra
            if other in pictures or other == "T":
                return float(t.ace_picture)
            return float(t.ace_low)
        if ra == rb:
            return float(t.low_pair)
        return None

    ev, hit = _two_card_bet(rules, pay, counts)
    return {"house_edge": -ev, "hit_rate": hit}


def pandemonium_bet(rules: CasinoRules, counts: Counts | None = None) -> dict[str, float]:
    """rulings 20: wins on a box Pontoon, paid at a multiplier drawn with the configured weights."""
    mean = sum(m * w for m, w in rules.pandemonium_probabilities())
    cnt = full_counts(rules) if counts is None else counts
    n = sum(cnt.values())
    aces = sum(v for k, v in cnt.items() if k[0] == "A")
    tens = sum(v for k, v in cnt.items() if k[0] in "TJQK")
    p = 2 * aces * tens / (n * (n - 1))
    ev = p * mean - (1 - p)
    return {"house_edge": -ev, "hit_rate": p, "mean_multiplier": mean}


def insurance_bet(rules: CasinoRules, counts: Counts | None = None) -> dict[str, float]:
    """rulings 8: pays 2 to 1 when the dealer's Ace gets a ten-value second card.

    Averaged over the player's cards this is the chance of a ten-value card from the shoe less the
    dealer's Ace (the player's cards are exchangeable with the dealer's second card)."""
    cnt = full_counts(rules) if counts is None else counts
    n = sum(cnt.values())
    tens = sum(v for k, v in cnt.items() if k[0] in "TJQK")
    p = tens / (n - 1)
    ev = p * float(rules.insurance_pays) - (1 - p)
    return {"house_edge": -ev, "hit_rate": p}


def super_bonus_probability(rules: CasinoRules, hits_suited_sevens: bool = True) -> float:
    """rulings 17: per round for one box: dealer's first card a 7, the box's first two cards 7s of
    one suit, and (when the strategy hits them) a third 7 of that suit."""
    if not rules.super_bonus or not hits_suited_sevens:
        return 0.0
    d = rules.decks
    n = len(pack_cards(rules.pack)) * d
    total = 0.0
    for su, s1 in product(SUITS, repeat=2):
        p = d / n  # dealer's first card: the 7 of suit su
        k = d - (su == s1)
        p *= k / (n - 1) * (k - 1) / (n - 2) * (k - 2) / (n - 3)
        if p > 0:
            total += p
    return total


def side_bets(rules: CasinoRules, basic_pair_77: str | None = None) -> dict[str, dict[str, float]]:
    """The side bets this table offers (insurance wherever offered) and the Super Bonus odds."""
    out: dict[str, dict[str, float]] = {}
    if rules.pair_bet:
        out["pair"] = pair_bet(rules)
    if rules.bonus_bet:
        out["bonus"] = bonus_bet(rules)
    if rules.insurance:
        ins = insurance_bet(rules)
        out["insurance"] = {"house_edge": ins["house_edge"]}
    if rules.pandemonium_bet:
        pan = pandemonium_bet(rules)
        out["pandemonium"] = {"house_edge": pan["house_edge"], "hit_rate": pan["hit_rate"]}
    if rules.super_bonus:
        hits = basic_pair_77 is None or basic_pair_77.split(";")[0].strip() == "H"
        out["super_bonus"] = {"probability": super_bonus_probability(rules, hits)}
    return out
