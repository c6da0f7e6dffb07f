"""The mutable state of a British hand (owned by ``BritishRound``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Final

from pontoon.cards import Card

ZERO: Final = Decimal(0)
CARD_TEXT: Final = [str(Card.from_code(i)) for i in range(52)]  # each card's text (``str(c)``), by its code


@dataclass(init=False)  # __init__ written out: mypyc compiles it (a generated one stays interpreted)
class BritishHand:
    """A player's hand: cards with their face-up flags, stake, shoot bet and state."""

    owner: str
    cards: list[Card]
    up: list[bool]
    stake: Decimal = ZERO
    initial: Decimal = ZERO
    last_buy: Decimal | None = None
    twisted: bool = False
    split: bool = False
    shoot: Decimal = ZERO
    shoot_open: bool = False  # shoot bet still on the layout
    shot_fourth: bool = False  # 003 Shoot "The fourth card": used
    must_draw: bool = False  # shot before the fourth card: the card must now be taken
    status: str = "waiting"  # waiting, playing, stuck, bust, pontoon, five; out (sat out: rul 33)
    burned: list[Card] = field(default_factory=list)
    returned: bool = False  # cards already back in the pack (bust)
    result: str = ""  # win / lose once settled
    net: Decimal = ZERO  # the owner's net on this hand's stake (shoot bet not included)
    outcome: str = ""  # pontoon, royal pontoon, five card trick, bust, or the total

    def __init__(
        self,
        owner: str,
        cards: list[Card],
        up: list[bool],
        stake: Decimal = ZERO,
        initial: Decimal = ZERO,
        last_buy: Decimal | None = None,
        twisted: bool = False,
        split: bool = False,
        shoot: Decimal = ZERO,
        shoot_open: bool = False,
        shot_fourth: bool = False,
        must_draw: bool = False,
        status: str = "waiting",
        burned: list[Card] | None = None,
        returned: bool = False,
        result: str = "",
        net: Decimal = ZERO,
        outcome: str = "",
    ) -> None:
        self.owner = owner
        self.cards = cards
        self.up = up
        self.stake = stake
        self.initial = initial
        self.last_buy = last_buy
        self.twisted = twisted
        self.split = split
        self.shoot = shoot
        self.shoot_open = shoot_open
        self.shot_fourth = shot_fourth
        self.must_draw = must_draw
        self.status = status
        self.burned = [] if burned is None else burned
        self.returned = returned
        self.result = result
        self.net = net
        self.outcome = outcome

    @property
    def live(self) -> bool:
        return self.status != "bust" and self.status != "out"
