"""Mutable per-round state of a casino table: bettors, boxes and hands (owned by CasinoRound)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final

from pontoon.cards import Card
from pontoon.hands import hand_total

ZERO: Final = Decimal(0)


# The records below are dataclasses (fields, equality, repr, ``replace``) whose ``__init__`` is written
# out: mypyc compiles a hand-written ``__init__`` but leaves a generated one interpreted, and the engine
# makes a box, a bettor and a hand every round. Each ``__init__`` takes the dataclass's fields, in order,
# with the same defaults (``None`` for a fresh empty container).
@dataclass(slots=True, init=False)
class Bettor:
    player: str
    main: Decimal = ZERO  # the wager that plays (after pro rata, 004 5.1.1)
    placed: Decimal = ZERO  # what was put on the layout
    side: dict[str, Decimal] = field(default_factory=dict)
    insurance: Decimal = ZERO

    def __init__(
        self,
        player: str,
        main: Decimal = ZERO,
        placed: Decimal = ZERO,
        side: dict[str, Decimal] | None = None,
        insurance: Decimal = ZERO,
    ) -> None:
        self.player = player
        self.main = main
        self.placed = placed
        self.side = {} if side is None else side
        self.insurance = insurance


@dataclass(slots=True, init=False)
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

    def __init__(
        self,
        box: int,
        index: int,
        cards: list[Card],
        stakes: dict[str, Decimal],
        doubles: dict[str, Decimal] | None = None,
        from_split: bool = False,
        split_aces: bool = False,
        doubled: bool = False,
        acted: bool = False,
        finished: bool = False,
        awaiting_rescue: bool = False,
        no_more_cards: bool = False,
        walked: bool = False,
        super_bonus: bool = False,
        surrendered: set[str] | None = None,
        rescued: set[str] | None = None,
        outcome: dict[str, str] | None = None,
    ) -> None:
        self.box = box
        self.index = index
        self.cards = cards
        self.stakes = stakes
        self.doubles = {} if doubles is None else doubles
        self.from_split = from_split
        self.split_aces = split_aces
        self.doubled = doubled
        self.acted = acted
        self.finished = finished
        self.awaiting_rescue = awaiting_rescue
        self.no_more_cards = no_more_cards
        self.walked = walked
        self.super_bonus = super_bonus
        self.surrendered = set() if surrendered is None else surrendered
        self.rescued = set() if rescued is None else rescued
        self.outcome = {} if outcome is None else outcome

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


@dataclass(slots=True, init=False)
class Box:
    number: int
    bettors: list[Bettor] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    jackpot_multiplier: int | None = None

    def __init__(
        self,
        number: int,
        bettors: list[Bettor] | None = None,
        hands: list[Hand] | None = None,
        jackpot_multiplier: int | None = None,
    ) -> None:
        self.number = number
        self.bettors = [] if bettors is None else bettors
        self.hands = [] if hands is None else hands
        self.jackpot_multiplier = jackpot_multiplier

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


# frozen dataclasses with a written-out __init__ (mypyc compiles it; a generated one stays interpreted)
@dataclass(frozen=True, slots=True, init=False)
class HandResult:
    box: int
    hand: int
    cards: tuple[str, ...]
    result: str

    def __init__(self, box: int, hand: int, cards: tuple[str, ...], result: str) -> None:
        object.__setattr__(self, "box", box)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "result", result)


@dataclass(frozen=True, slots=True, init=False)
class RoundResult:
    status: str  # settled | void
    void_reason: str | None
    dealer: tuple[str, ...]
    hands: tuple[HandResult, ...]
    net: dict[str, dict[str, Decimal]]
    house: Decimal

    def __init__(
        self,
        status: str,
        void_reason: str | None,
        dealer: tuple[str, ...],
        hands: tuple[HandResult, ...],
        net: dict[str, dict[str, Decimal]],
        house: Decimal,
    ) -> None:
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "void_reason", void_reason)
        object.__setattr__(self, "dealer", dealer)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "net", net)
        object.__setattr__(self, "house", house)
