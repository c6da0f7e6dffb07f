"""British Pontoon rules (003): the banker game, its house variations, and Shoot Pontoon.

One frozen, validated object says everything that governs play or payment of a British round.
The main text of 003 gives the defaults; every house variation of 003 is an option that is off
by default (rulings 23). Stakes and kitty limits are rule fields (rulings 15a): stakes 1 to 100.

Field names are the names accepted by scenario ``options`` and ``--set``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pontoon.rules.overrides import apply_overrides

RANKS = "A23456789TJQK"  # pontoon.cards.RANKS (the rules layer sits below the cards)
MAX_AMOUNT = 10**12  # the largest amount anywhere (money.MAX_AMOUNT; README "Limits")
Money = Annotated[Decimal, Field(le=MAX_AMOUNT, decimal_places=2, allow_inf_nan=False)]


class BritishRules(BaseModel):
    """Every rule of a British Pontoon table (``british``) or a Shoot Pontoon table (``shoot``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    # identity
    preset: str = Field(description="preset id this table is based on", max_length=40)
    name: str = Field("", max_length=200)
    document: str = Field("003_8651e4cdf686b569.txt", max_length=200)

    # cards: 003 "standard 52 card pack ... say 8 or more, two 52 packs can be mixed together"
    pack: Literal["standard52"] = "standard52"
    two_packs_from: int = Field(
        default=8,
        ge=2,
        le=50,
        description="people at the table (banker included) from which two packs are used",
    )
    # rul 28: the banker counts among the 8 players; the number of packs is a rule field that may be set
    packs: int | None = Field(
        default=None, ge=1, le=2, description="packs used whatever the table size (None: by two_packs_from)"
    )
    # a reduced pack (not in 003: for checking the exact analysis against every deal of a small pack, issue
    # 27): only these ranks, in the first ``pack_suits`` suits of S H D C; the default is 003's 52 cards
    pack_ranks: str = Field(
        default=RANKS,
        min_length=1,
        max_length=13,
        description="ranks in the pack (a reduced pack: e.g. A257T)",
    )
    pack_suits: int = Field(default=4, ge=1, le=4, description="suits in the pack, first of S H D C")

    # stakes: 003 "A minimum and maximum for initial bets must be agreed" (rulings 15a: 1 to 100)
    stake_min: Money = Field(default=Decimal(1), gt=0)
    stake_max: Money = Field(default=Decimal(100), gt=0)

    # 003 Stick: "at least 15"; variation "at least 16 points (rather than 15) to stick"
    stick_minimum: int = Field(default=15, ge=15, le=16)

    # 003 Split: "three or even (theoretically) four separate hands"
    max_split_hands: int = Field(
        default=4, ge=1, le=4, description="most hands one player may hold after splits (1 = no split)"
    )
    # variation: "only aces can be split, not other pairs of cards"
    split_only_aces: bool = False

    # variation: "the banker looks at his own first card and can choose to double the bets"
    banker_may_double: bool = False

    # 003 "Pontoons and Five Card Tricks are paid double" (rulings 21, 22);
    # variation: "pay a single or a treble stake, rather than double"
    pontoon_pays: Decimal = Field(
        default=Decimal(2), ge=1, le=3, description="multiple of the stake paid to a player's Pontoon"
    )
    # 003 "the banker collects double the amount staked"; variation: "the players are paid double
    # but the dealer only collects a single stake for a pontoon"
    banker_pontoon_collects: Decimal = Field(default=Decimal(2), ge=1, le=3)
    five_card_trick_pays: Decimal = Field(
        default=Decimal(2),
        ge=1,
        le=3,
        description="paid to a player's Five Card Trick; also what a banker's Five Card Trick collects",
    )

    # variation: "If you have 4 cards totaling 11 or less ... you cannot buy a fifth card, only twist one"
    no_buy_fifth_at_11_or_less: bool = False

    # variation: "three sevens held by a player (not the banker) is a Royal Pontoon ... paid treble"
    royal_pontoon: bool = False
    royal_pontoon_pays: Decimal = Field(default=Decimal(3), ge=1, le=5)

    # variations on the Pontoon itself
    ace_picture_beats_ace_ten: bool = (
        False  # "an ace and a picture beats a Pontoon which is an ace and a ten"
    )
    ace_ten_not_pontoon: bool = False  # "A-10 is not a pontoon at all, but just an ordinary 21"
    natural_beats_plain: bool = (
        False  # "A-K or A-Q is a natural pontoon, which beats a plain pontoon of A-J or A-10"
    )

    # variation: burning a "hard" 13 (or 14): "two cards are shown and discarded, and two new cards dealt"
    burn: Literal["none", "hard13", "hard14"] = "none"

    # Shoot Pontoon
    shoot: bool = False
    kitty_min: Money = Field(
        default=Decimal(1),
        gt=0,
        description="003 Shoot: the kitty is formed between agreed minimum and maximum limits",
    )
    kitty_max: Money = Field(default=Decimal(100), gt=0)
    shoot_min: Money = Field(default=Decimal(1), gt=0, description="smallest shoot bet accepted")

    @model_validator(mode="after")
    def _check(self) -> BritishRules:
        if self.stake_min > self.stake_max:
            raise ValueError(f"stake_min={self.stake_min} is above stake_max={self.stake_max}")
        if self.kitty_min > self.kitty_max:
            raise ValueError(f"kitty_min={self.kitty_min} is above kitty_max={self.kitty_max}")
        if self.shoot and self.shoot_min > self.kitty_max:
            raise ValueError(
                f"shoot_min={self.shoot_min} is above kitty_max={self.kitty_max}: no shoot could be accepted"
            )
        bad = sorted({r for r in self.pack_ranks if r not in RANKS})
        if bad or len(set(self.pack_ranks)) != len(self.pack_ranks):
            raise ValueError(
                f"pack_ranks={self.pack_ranks!r}: give each rank once, from {RANKS}"
                + (f" (unknown: {' '.join(bad)})" if bad else " (a rank repeats)")
            )
        if self.ace_ten_not_pontoon and self.ace_picture_beats_ace_ten:
            raise ValueError(
                "ace_picture_beats_ace_ten needs A-10 to be a Pontoon; it conflicts with ace_ten_not_pontoon=true"
            )
        return self

    # convenience ------------------------------------------------------------------------
    @property
    def burn_total(self) -> int | None:
        """The hard two-card total that may be burned, or None when burning is not played."""
        return {"none": None, "hard13": 13, "hard14": 14}[self.burn]

    @property
    def reduced_pack(self) -> bool:
        """Whether the pack is a reduced one (``pack_ranks``/``pack_suits``) rather than 003's 52 cards."""
        return self.pack_suits != 4 or set(self.pack_ranks) != set(RANKS)

    def packs_for(self, people: int) -> int:
        """Packs used for a table of ``people`` (banker included): 003 "two 52 packs" for 8 or more."""
        if self.packs is not None:  # rul 28: set by the table
            return self.packs
        return 2 if people >= self.two_packs_from else 1

    def with_(self, **changes: object) -> BritishRules:
        """A validated copy with some fields changed (raises RulesError on bad values)."""
        return apply_overrides(self, changes, source="overrides")  # type: ignore[return-value]


BRITISH = BritishRules(preset="british", name="British Pontoon (banker game)")
SHOOT = BritishRules(preset="shoot", name="Shoot Pontoon", shoot=True)
BRITISH_PRESETS: dict[str, BritishRules] = {"british": BRITISH, "shoot": SHOOT}
