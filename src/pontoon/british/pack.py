"""The British pack: dealt from the top, used cards added to the bottom (003 The New Deal).

Unlike a casino shoe, the British pack is not reshuffled between deals unless there was a
Pontoon: "the dealer adds all the used cards to the bottom of the pack and without shuffling
deals a new hand". A busted hand's cards go to the bottom at once (003 "adds your cards to the
bottom of the pack"). A stacked pack (scenario files) deals exactly the cards it was given; cards
put to its bottom are kept aside and never dealt, so running out voids the round (rulings 2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from pontoon.cards import RANKS, SUITS, Card
from pontoon.errors import CardError, ShoeExhausted
from pontoon.rules.british import BritishRules
from pontoon.shoe import RngLike, Shoe, make_rng

try:  # mypyc reads this decorator when it compiles the module (setup.py); without mypy_extensions it does nothing
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover  (an install without mypy: the pure-Python engine)

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[type], type]:  # type: ignore[misc]
        return lambda cls: cls


def one_pack(rules: BritishRules) -> list[Card]:
    """The cards of one pack, ace to king, suit by suit: 003's 52, or the reduced pack of the rules fields
    ``pack_ranks`` and ``pack_suits`` (the first suits of S H D C)."""
    return [Card(r, s) for r in RANKS if r in rules.pack_ranks for s in SUITS[: rules.pack_suits]]


@mypyc_attr(
    allow_interpreted_subclasses=True
)  # the British analysis's probe pack (analysis/british/enumerate.py)
class BritishPack:
    __slots__ = ("_cards", "stacked", "discards", "packs", "drawn")

    def __init__(self, cards: Iterable[Card], *, stacked: bool = False, packs: int = 1) -> None:
        # the cards bottom first: the top card is the list's last (dealt with a list's pop, no deque call)
        self._cards: list[Card] = list(cards)
        self._cards.reverse()
        self.stacked = stacked
        self.discards: list[Card] = []  # stacked packs only: cards put to the bottom
        self.packs = packs
        self.drawn = (
            0  # cards drawn since this pack was made or last shuffled (a fair shoe's reveal counts them)
        )

    @classmethod
    def shuffled(cls, packs: int, rng: RngLike, one_pack: Sequence[Card] | None = None) -> BritishPack:
        """``packs`` 52-card packs (or ``packs`` copies of a reduced ``one_pack``: rules ``pack_ranks``)
        shuffled (and so cut) with the injected RNG (003 "shuffled and cut")."""
        if one_pack is not None:
            base = list(one_pack) * packs
            order = make_rng(rng).permutation(len(base))
            return cls([base[i] for i in order], packs=packs)
        shoe = Shoe.shuffled(packs, rng, pack="standard52", penetration=1.0)
        return cls(shoe.remaining_cards(), packs=packs)

    @classmethod
    def stacked_from(cls, cards: str | Iterable[str], *, packs: int | None = None) -> BritishPack:
        """Exactly these cards, top first (``"9S 8H 7C"``).

        With ``packs`` (the table's ``rules.packs_for(people)``, banker included: rul 28), a card may
        appear at most ``packs`` times: a table of fewer than 8 people plays one 52-card pack (003), so a
        stacked pack that repeats a card describes no real deal.
        """
        shoe = Shoe.stacked_from(cards, pack="standard52")
        dealt = shoe.remaining_cards()
        if packs is not None:
            seen = Counter(str(c) for c in dealt)
            over = sorted(c for c, n in seen.items() if n > packs)
            if over:
                raise CardError(
                    f"{', '.join(over)} appear(s) more than {packs} time(s): this table uses {packs} pack(s) of "
                    f"52 (003: two packs for 8 or more people, the banker included: rul 28)"
                )
        return cls(dealt, stacked=True, packs=packs or 1)

    def draw(self) -> Card:
        if not self._cards:
            raise ShoeExhausted("the pack has no card left to deal")
        self.drawn += 1
        return self._cards.pop()

    def to_bottom(self, cards: Iterable[Card]) -> None:
        """003: used cards are added to the bottom of the pack, in the order given."""
        if self.stacked:
            self.discards.extend(cards)
        else:
            under = list(cards)
            under.reverse()
            self._cards[:0] = under  # the first of them just below the cards already in the pack

    def reshuffle(self, extra: Iterable[Card], rng: RngLike) -> None:
        """003 "If there was a Pontoon, the cards are shuffled and cut before the next deal"."""
        everything = self.cards()
        everything.extend(extra)
        # numpy shuffles a list in place with the same draws, swap for swap, as it shuffles the indices of
        # ``permutation(len(everything))``: the order ``[everything[i] for i in permutation(n)]``
        make_rng(rng).shuffle(everything)
        everything.reverse()
        self._cards = everything
        self.drawn = 0

    def cards(self) -> list[Card]:
        """The cards in the pack, top first (never part of any seat's view)."""
        return self._cards[::-1]

    def __len__(self) -> int:
        return len(self._cards)
