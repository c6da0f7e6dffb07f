"""Pure hand evaluation: totals, soft and hard, Pontoon, 21 classes, five card trick.

Functions take a sequence of cards and return plain values; nothing here knows about wagers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pontoon.cards import Card

SuitClass = Literal["mixed", "suited", "spades"]


def hard_total(cards: Sequence[Card]) -> int:
    """Every Ace counted 1 (000 1.1.3, 004 1.9)."""
    total = 0
    for c in cards:  # a plain loop: compiled, no generator object
        total += c.points
    return total


def hand_total(cards: Sequence[Card], aces_fixed_one: int = 0) -> tuple[int, bool]:
    """Best total not over 21 where possible, and whether it is soft (an Ace counted 11).

    ``aces_fixed_one``: the number of leading cards whose Aces must count 1 (2 for a doubled
    hand: 000 3.17.2, 002 3.14, 004 3.25.2; the doubling card's Ace may still count 11).
    """
    total = 0
    free_ace = False
    if aces_fixed_one:
        for i, c in enumerate(cards):
            total += c.points
            if c.rank == "A" and i >= aces_fixed_one:
                free_ace = True
    else:
        for c in cards:
            total += c.points
            if c.points == 1:  # an Ace (rulings 3: the only card worth 1)
                free_ace = True
    # 000 3.17.1: an Ace is 11 unless that would take the total over 21
    if free_ace and total + 10 <= 21:
        return total + 10, True
    return total, False


def best_total(cards: Sequence[Card], aces_fixed_one: int = 0) -> int:
    return hand_total(cards, aces_fixed_one)[0]


def is_soft(cards: Sequence[Card], aces_fixed_one: int = 0) -> bool:
    return hand_total(cards, aces_fixed_one)[1]


def is_bust(cards: Sequence[Card], aces_fixed_one: int = 0) -> bool:
    return hard_total(cards) > 21 if aces_fixed_one == 0 else hand_total(cards, aces_fixed_one)[0] > 21


def is_natural(cards: Sequence[Card]) -> bool:
    """An Ace and a ten-value card as exactly two cards (000 1.1.9, 004 1.20; 003 Pontoon).

    Whether the hand counts as a Pontoon also depends on it not coming from a split; the round
    engine checks that. In 48-card packs the ten-value card is always a picture (rulings 3).
    """
    if len(cards) != 2:
        return False
    a, b = cards
    return (a.rank == "A" and b.points == 10) or (b.rank == "A" and a.points == 10)


def is_pair_by_rank(a: Card, b: Card) -> bool:
    """Same rank: J-J is a pair, J-Q is not (rulings 10; 002 3.7.1, 004 3.14)."""
    return a.rank == b.rank


def is_pair_by_value(a: Card, b: Card) -> bool:
    """Same point value: J-Q may be split in casino games (rulings 10; 000 1.1.12, 004 3.24)."""
    return a.points == b.points


def three_card_class(cards: Sequence[Card]) -> tuple[str, SuitClass] | None:
    """The 6-7-8 / 7-7-7 bonus class of a three-card hand, or None (000 4.1, 004 4.1.1)."""
    if len(cards) != 3:
        return None
    ranks = sorted(c.rank for c in cards)
    if ranks == ["6", "7", "8"]:
        kind = "678"
    elif ranks == ["7", "7", "7"]:
        kind = "777"
    else:
        return None
    suits = {c.suit for c in cards}
    if len(suits) > 1:
        return kind, "mixed"
    return kind, ("spades" if suits == {"S"} else "suited")


def is_five_card_trick(cards: Sequence[Card]) -> bool:
    """Five cards totalling 21 or less (003 ranking)."""
    return len(cards) == 5 and hard_total(cards) <= 21
