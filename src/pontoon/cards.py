"""Cards: rank and suit, parsed from and printed as two-character strings (``"7S"``, ``"QH"``).

Cards are small immutable values that round-trip through text: ``Card.parse(str(c)) == c``.
Each card also has an integer ``code`` (``rank_index * 4 + suit_index``, 0..51) used by the
array kernels of the analyser and the simulator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from pontoon.errors import CardError

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"  # spades, hearts, diamonds, clubs
SUIT_NAMES: Final = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
PICTURES: Final = frozenset("JQK")

# rulings 3: picture cards count 10; an Ace counts 1 here (soft totals are in hands.py)
_POINTS: Final = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in RANKS}


class Card:
    """One playing card. Immutable; equal cards compare equal (a shoe holds several copies)."""

    __slots__ = ("rank", "suit", "points", "code")
    rank: str
    suit: str
    points: int
    code: int

    def __init__(self, rank: str, suit: str) -> None:
        r, s = rank.upper(), suit.upper()
        if r not in RANKS or len(r) != 1:
            raise CardError(f"unknown rank {rank!r}: accepted ranks are {' '.join(RANKS)}")
        if s not in SUITS or len(s) != 1:
            raise CardError(f"unknown suit {suit!r}: accepted suits are {' '.join(SUITS)}")
        object.__setattr__(self, "rank", r)
        object.__setattr__(self, "suit", s)
        object.__setattr__(self, "points", _POINTS[r])
        object.__setattr__(self, "code", RANKS.index(r) * 4 + SUITS.index(s))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"7S"``, ``"th"``, ``"QC"``; raise CardError naming the bad text otherwise."""
        t = text.strip()
        if len(t) != 2:
            raise CardError(
                f"bad card {text!r}: a card is a rank ({' '.join(RANKS)}) then a suit ({' '.join(SUITS)}), e.g. 7S"
            )
        try:
            return _CACHE[t.upper()]
        except KeyError:
            raise CardError(
                f"bad card {text!r}: a card is a rank ({' '.join(RANKS)}) then a suit ({' '.join(SUITS)}), e.g. 7S"
            ) from None

    @classmethod
    def from_code(cls, code: int) -> Card:
        return _BY_CODE[code]

    @property
    def is_ace(self) -> bool:
        return self.rank == "A"

    @property
    def is_picture(self) -> bool:
        return self.rank in PICTURES

    @property
    def is_ten_value(self) -> bool:
        return self.points == 10

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self.rank + self.suit!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.code == self.code

    def __hash__(self) -> int:
        return self.code

    def __reduce__(self) -> tuple[type[Card], tuple[str, str]]:
        return (Card, (self.rank, self.suit))


_BY_CODE: Final = [Card(RANKS[i // 4], SUITS[i % 4]) for i in range(52)]
_CACHE: Final = {str(c): c for c in _BY_CODE}


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"7S 9H QD"`` (or a list of card strings) into cards."""
    parts = text.split() if isinstance(text, str) else list(text)
    return [Card.parse(p) for p in parts]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


# The packs. rulings 1: casino games use 48-card decks (the four tens removed); BRIT and
# blackjack use the 52-card pack.
PACKS: Final = {
    "pontoon48": tuple(c for c in _BY_CODE if c.rank != "T"),  # 000 2.1, 001, 002 2.2.1, 004 2.2.1
    "standard52": tuple(_BY_CODE),  # 003 "standard 52 card pack"
}


def pack_cards(pack: str) -> tuple[Card, ...]:
    try:
        return PACKS[pack]
    except KeyError:
        raise CardError(f"unknown pack {pack!r}: accepted packs are {', '.join(PACKS)}") from None


def in_pack(card: Card, pack: str) -> bool:
    """True when the card's rank belongs to the pack (a ten is foreign to a 48-card pack)."""
    return not (pack == "pontoon48" and card.rank == "T")
