"""British hand classes and their order (003 ranking; rulings 21), with the house variations.

Pure functions of cards and rules; nothing here knows about stakes or turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pontoon.cards import Card
from pontoon.hands import hand_total, hard_total
from pontoon.rules.british import BritishRules

_TOTAL_TEXT: Final = [str(t) for t in range(22)]  # ``str(total)`` of a hand not bust, made once


def is_pontoon(cards: Sequence[Card], rules: BritishRules, *, split: bool = False) -> bool:
    """003: "21 points in two cards ... ace plus a picture card or ten"; not on a split hand
    (003 New Deal "without splitting"; rulings 21). Variation: "A-10 is not a pontoon at all"."""
    if split or len(cards) != 2:
        return False
    a, b = cards
    other = b if a.points == 1 else a if b.points == 1 else None  # an ace: the only card worth 1 (rulings 3)
    if other is None or other.points != 10:
        return False
    if rules.ace_ten_not_pontoon and other.rank == "T":  # 003 variation "A-10 ... just an ordinary 21"
        return False
    return True


def pontoon_grade(cards: Sequence[Card], rules: BritishRules) -> tuple[int, int]:
    """Order among Pontoons (higher beats lower; equal grades go to the banker).

    003 variations: "A-K or A-Q is a natural pontoon, which beats a plain pontoon of A-J or A-10";
    "a Pontoon consisting of an ace and a picture beats a Pontoon which is an ace and a ten".
    """
    other = next(c for c in cards if not c.is_ace) if any(not c.is_ace for c in cards) else cards[1]
    natural = 1 if rules.natural_beats_plain and other.rank in "KQ" else 0
    picture = 1 if rules.ace_picture_beats_ace_ten and other.is_picture else 0
    return natural, picture


def is_royal_pontoon(cards: Sequence[Card], rules: BritishRules) -> bool:
    """003 variation: "a hand of three sevens held by a player (not the banker) is a Royal Pontoon"."""
    return len(cards) == 3 and rules.royal_pontoon and all(c.rank == "7" for c in cards)


def is_five_card_trick(cards: Sequence[Card]) -> bool:
    """003: "a hand of five cards totaling 21 or less"."""
    return len(cards) == 5 and hard_total(cards) <= 21


def is_bust(cards: Sequence[Card]) -> bool:
    """003: "Hands with more than 21 points are bust" (every Ace counted 1)."""
    return hard_total(cards) > 21


def best(cards: Sequence[Card]) -> int:
    """The best total not over 21 where possible (003: ace is worth 1 or 11 at the holder's choice)."""
    return hand_total(cards)[0]


def can_burn(cards: Sequence[Card], rules: BritishRules) -> bool:
    """003 variation: two cards totalling a "hard" 13 (not A-2), or 14 (not A-3), may be burned."""
    target = rules.burn_total
    if target is None or len(cards) != 2 or any(c.is_ace for c in cards):
        return False
    return hard_total(cards) == target


def describe(cards: Sequence[Card], rules: BritishRules, *, split: bool = False, banker: bool = False) -> str:
    """A short name for a finished hand: ``royal pontoon``, ``pontoon``, ``five card trick``, ``bust``, ``18``."""
    if is_bust(cards):
        return "bust"
    if not banker and is_royal_pontoon(cards, rules):
        return "royal pontoon"
    if is_pontoon(cards, rules, split=split):
        return "pontoon"
    if is_five_card_trick(cards):
        return "five card trick"
    return _TOTAL_TEXT[best(cards)]  # not bust: at most 21
