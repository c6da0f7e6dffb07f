"""The shoe: several packs shuffled from an injected RNG, a cut card, and stacked shoes.

Randomness is always injected: pass a ``numpy.random.Generator`` or an integer seed. A stacked
shoe deals exactly the cards it was given, in order, and is what scenario files use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypeAlias

import numpy as np

from pontoon.cards import Card, pack_cards, parse_cards
from pontoon.errors import CardError, ShoeExhausted

RngLike: TypeAlias = np.random.Generator | int | None


def make_rng(rng: RngLike) -> np.random.Generator:
    """Normalise a seed or Generator into a Generator (``None`` means fresh OS entropy)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, int | np.integer):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be a numpy Generator, an int seed or None, not {type(rng).__name__}")


class Shoe:
    """An ordered stack of cards dealt from the top, with a cut card.

    ``penetration`` is the fraction of the shoe dealt before the cut card comes out; once it has,
    ``needs_shuffle`` is true and the table reshuffles before the next round.
    """

    __slots__ = ("_cards", "_pos", "cut_index", "pack", "decks", "stacked", "synthetic")

    def __init__(
        self,
        cards: Sequence[Card],
        *,
        cut_index: int | None = None,
        pack: str = "pontoon48",
        decks: int = 1,
        stacked: bool = False,
        synthetic: bool = False,
    ) -> None:
        self._cards: list[Card] = list(cards)
        self._pos = 0
        self.cut_index = len(self._cards) if cut_index is None else cut_index
        self.pack = pack
        self.decks = decks
        self.stacked = stacked
        # a composition no real shoe need hold (the simulator's differential tests draw biased shoes to
        # reach rare hands): not checked against the decks; every other stacked shoe is (rulings 38)
        self.synthetic = synthetic

    # construction -------------------------------------------------------------------------
    @classmethod
    def shuffled(
        cls, decks: int, rng: RngLike, *, pack: str = "pontoon48", penetration: float = 0.75
    ) -> Shoe:
        if decks < 1:
            raise CardError(f"decks must be at least 1, got {decks}")
        if not 0.0 < penetration <= 1.0:
            raise CardError(f"penetration must be in (0, 1], got {penetration}")
        base = list(pack_cards(pack)) * decks
        order = make_rng(rng).permutation(len(base))
        cards = [base[i] for i in order]
        return cls(cards, cut_index=int(len(cards) * penetration), pack=pack, decks=decks)

    @classmethod
    def stacked_from(
        cls, cards: str | Iterable[str] | Iterable[Card], *, pack: str = "pontoon48", synthetic: bool = False
    ) -> Shoe:
        """A shoe that deals exactly these cards, top first (``"7S 9H QD"``); ``synthetic``: see
        ``__init__`` (a round refuses or voids a stacked shoe its decks could not hold, rulings 38)."""
        if isinstance(cards, str):
            lst = parse_cards(cards)
        else:
            lst = [c if isinstance(c, Card) else Card.parse(c) for c in cards]
        return cls(lst, pack=pack, stacked=True, synthetic=synthetic)

    # dealing ------------------------------------------------------------------------------
    def draw(self) -> Card:
        if self._pos >= len(self._cards):
            raise ShoeExhausted(f"the shoe is empty after {self._pos} cards")
        card = self._cards[self._pos]
        self._pos += 1
        return card

    def peek(self, n: int = 1) -> list[Card]:
        return self._cards[self._pos : self._pos + n]

    def put_back(self, n: int = 1) -> None:
        """Undo the last ``n`` draws (used to roll back a refused action)."""
        if n > self._pos:
            raise ValueError("cannot put back more cards than were drawn")
        self._pos -= n

    @property
    def dealt(self) -> int:
        return self._pos

    @property
    def remaining(self) -> int:
        return len(self._cards) - self._pos

    def __len__(self) -> int:
        return len(self._cards)

    @property
    def needs_shuffle(self) -> bool:
        """True once the cut card has come out."""
        return self._pos >= self.cut_index

    def dealt_cards(self) -> list[Card]:
        return self._cards[: self._pos]

    def remaining_cards(self) -> list[Card]:
        return self._cards[self._pos :]

    def excess(self, decks: int) -> list[str]:
        """The cards this shoe holds more often than ``decks`` packs of its pack can (each as
        ``"5 x 7S"``), in card order; cards foreign to the pack are not counted here (rulings 1)."""
        allowed = set(pack_cards(self.pack))
        seen = Counter(c for c in self._cards if c in allowed)
        return [f"{n} x {c}" for c, n in sorted(seen.items(), key=lambda x: x[0].code) if n > decks]

    def remaining_counts(self) -> Counter[str]:
        """Remaining cards by rank (``{"A": 24, "2": 24, ...}``), as the analyser wants them."""
        return Counter(c.rank for c in self._cards[self._pos :])

    def __str__(self) -> str:
        return " ".join(str(c) for c in self._cards[self._pos :])
