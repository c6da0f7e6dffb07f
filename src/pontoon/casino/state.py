"""Mutable per-round state of a casino table: bettors, boxes and hands (owned by CasinoRound)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from pontoon.cards import Card
from pontoon.hands import hand_total

ZERO = Decimal(0)


@dataclass(slots=True)
class Bettor:
    player: str
    main: Decimal = ZERO  # the wager that plays (after pro rata, 004 5.1.1)
    placed: Decimal = ZERO  # what was put on the layout
    side: dict[str, Decimal] = field(default_factory=dict)
    insurance: Decimal = ZERO


@dataclass(slots=True)
class Hand:
    box: int
    index: int  # 1-based within its box
    cards: list[Card]
    stakes: dict[str, Decimal]  # original wager of each bettor on this hand
    doubles: dict[str, Decimal] = field(default_factory=dict)
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False
    acted: bool = False  # any decision taken on it (closes surrender for it)
    finished: bool = False
    awaiting_rescue: bool = False
    no_more_cards: bool = False  # FED: bettors who play on after a surrender get no more cards
    walked: bool = False
    super_bonus: bool = False
    surrendered: set[str] = field(default_factory=set)
    rescued: set[str] = field(default_factory=set)
    outcome: dict[str, str] = field(default_factory=dict)  # bettor -> win/lose/push/surrender/forfeit

    @property
    def aces_fixed(self) -> int:
        return 2 if self.doubled else 0

    def total(self, ace_one_on_double: bool = True) -> tuple[int, bool]:
        return hand_total(self.cards, 2 if (self.doubled and ace_one_on_double) else 0)

    def live_bettors(self) -> list[str]:
        """Bettors whose wager on this hand is not settled yet."""
        return [p for p in self.stakes if p not in self.outcome]

    @property
    def is_settled(self) -> bool:
        return all(p in self.outcome for p in self.stakes)

    def result_word(self) -> str:
        if not self.outcome:
            return "pending"
        first = next(iter(self.stakes))
        return self.outcome.get(first, next(iter(self.outcome.values())))


@dataclass(slots=True)
class Box:
    number: int
    bettors: list[Bettor] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    jackpot_multiplier: int | None = None

    @property
    def seated(self) -> Bettor | None:
        for b in self.bettors:
            if b.main > 0:
                return b
        return None

    def bettor(self, player: str) -> Bettor | None:
        for b in self.bettors:
            if b.player == player:
                return b
        return None

    @property
    def main_total(self) -> Decimal:
        return sum((b.placed for b in self.bettors), ZERO)

    @property
    def has_main(self) -> bool:
        for b in self.bettors:
            if b.main > 0:
                return True
        return False
