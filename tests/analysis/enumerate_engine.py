"""Exact expectation of a fixed strategy by playing every distinct ordering of a small stacked shoe
through the casino round engine (one box, one bettor)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction

from pontoon.analysis.states import card_index
from pontoon.cards import Card
from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.hands import hand_total
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe

Policy = Callable[[tuple[int, ...], int], str]
Rescue = Callable[[int, int], bool]


def distinct_orders(cards: list[str]) -> Iterator[list[str]]:
    """Every distinct ordering of a multiset of card strings (each equally likely in a shuffle)."""
    counts = Counter(cards)
    keys = sorted(counts)
    n = len(cards)
    out: list[str] = []

    def rec() -> Iterator[list[str]]:
        if len(out) == n:
            yield list(out)
            return
        for k in keys:
            if counts[k]:
                counts[k] -= 1
                out.append(k)
                yield from rec()
                out.pop()
                counts[k] += 1

    yield from rec()


def shoe_values(cards: list[str]) -> tuple[int, ...]:
    v = [0] * 10
    for c in cards:
        v[card_index(Card.parse(c))] += 1
    return tuple(v)


def play_round(rules: CasinoRules, order: list[str], policy: Policy, rescue: Rescue) -> Decimal:
    # synthetic: an enumerated order may hold more of one card than the decks (suits are not drawn; rul 38)
    rnd = CasinoRound(rules, Shoe.stacked_from(order, pack=rules.pack, synthetic=True))
    rnd.place_bet(1, "p", "main", Decimal(10))
    rnd.close_bets()
    while not rnd.is_over():
        h = rnd.current_hand()
        assert h is not None, "the engine waits but no hand is to act"
        up = card_index(rnd.dealer_cards[0])
        if h.awaiting_rescue:
            t, _ = hand_total(h.cards, 2 if rules.double_ace_counts_one else 0)
            rnd.act(Action("rescue" if rescue(t, up) else "stand", 1))
            continue
        counts = [0] * 10
        for c in h.cards:
            counts[card_index(c)] += 1
        code = policy(tuple(counts), up)
        legal = {a.verb for a in rnd.legal_actions() if a.box == 1}
        if code == "P" and "split" in legal:
            verb = "split"
        elif code in ("R", "Rs") and "surrender" in legal:
            verb = "surrender"
        elif code in ("D", "Ds") and "double" in legal:
            verb = "double"
        elif code in ("S", "Ds", "Rs", "P") and "stand" in legal:
            verb = "stand"
        else:
            verb = "hit"
        rnd.act(Action(verb, 1))
    res = rnd.result()
    assert res.status == "settled", f"round void ({res.void_reason}) for shoe {' '.join(order)}"
    return res.net["p"]["total"]


def engine_expectation(rules: CasinoRules, cards: list[str], policy: Policy, rescue: Rescue) -> float:
    total = Fraction(0)
    n = 0
    for order in distinct_orders(cards):
        total += Fraction(play_round(rules, order, policy, rescue)) / 10
        n += 1
    return float(total / n)
