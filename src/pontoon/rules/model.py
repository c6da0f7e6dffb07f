"""The casino rules model: one frozen, validated object that says everything that governs play
or payment. Presets (``presets.py``) are instances of it; a casino describes its own table in a
TOML file that names a preset and overrides fields (``load.py``).

Pay odds are Decimals (3 to 2 is ``Decimal("1.5")``): money stays exact (architecture: house rules).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pontoon.rules.overrides import apply_overrides

MAX_AMOUNT = 10**12  # the largest amount anywhere (money.MAX_AMOUNT; README "Limits")
# an amount: a finite decimal of at most two places, 0 to MAX_AMOUNT (a field adds gt=0 where 0 is no table)
Money = Annotated[Decimal, Field(ge=0, le=MAX_AMOUNT, decimal_places=2, allow_inf_nan=False)]
# a pay multiple: finite, 0 to 10,000 times the wager
Odds = Annotated[Decimal, Field(ge=0, le=10_000, allow_inf_nan=False)]


class SuperBonusTier(BaseModel):
    """A main wager of at least ``min_wager`` (and below the next tier) receives ``amount``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    min_wager: Money = Field(ge=0)
    amount: Money = Field(ge=0)


class BonusPayTable(BaseModel):
    """The Pontoon Plus Bonus side bet on the box's first two cards (004 4.1.3; rulings 19)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    suited_aces: Odds = Decimal(40)
    aces: Odds = Decimal(11)
    high_pair: Odds = Decimal(8)  # K-K, Q-Q, J-J
    ace_picture: Odds = Decimal(4)
    low_pair: Odds = Decimal(3)  # 2-2 .. 9-9
    ace_low: Odds = Decimal(1)  # A-2 .. A-9


class CasinoRules(BaseModel):
    """Every rule of a casino table (Pontoon presets and plain blackjack)."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    # identity
    preset: str = Field(description="preset id this table is based on", max_length=40)
    name: str = Field("", max_length=200)
    document: str = Field("", description="rule document file", max_length=200)

    # cards and shoe (rulings 1)
    pack: Literal["pontoon48", "standard52"] = "pontoon48"
    decks: int = Field(6, ge=1, le=8)
    penetration: float = Field(
        0.75,
        gt=0.1,
        le=1.0,
        allow_inf_nan=False,
        description="fraction dealt before the cut card, above 0.1 and at most 1",
    )

    # table (rulings 15a)
    max_boxes: int = Field(7, ge=1, le=12)
    max_bettors_per_box: int = Field(7, ge=1, le=20)
    table_min: Money = Field(Decimal(10), gt=0)
    table_max: Money = Field(Decimal(10000), gt=0)
    side_min: Money = Field(Decimal(5), gt=0)
    side_max: Money = Field(Decimal(1000), gt=0)
    over_limit: Literal["reject", "pro_rata"] = Field(
        "reject", description="bets over the box maximum: refused, or settled pro rata (004 5.1)"
    )

    # dealer
    dealer_hole_card: bool = False  # rulings 4: no hole card in casino Pontoon
    dealer_peeks: bool = False  # blackjack: peek for a natural with a hole card
    dealer_hits_soft_17: bool = True  # rulings 7; 000 3.19

    # naturals and 21
    pontoon_pays: Odds = Decimal("1.5")  # 000 4.1
    regular_pays: Odds = Decimal(1)
    player_21_wins: bool = True  # rulings 5: a player's 21 is paid at once and can no longer lose
    natural_vs_dealer_natural: Literal["win", "push"] = "win"  # 001: player Pontoon paid as a win
    pays_5_card_21: Odds = Decimal("1.5")
    pays_6_card_21: Odds = Decimal(2)
    pays_7_card_21: Odds = Decimal(3)  # seven or more cards
    pays_678_mixed: Odds = Decimal("1.5")
    pays_678_suited: Odds = Decimal(2)
    pays_678_spades: Odds = Decimal(3)
    pays_777_mixed: Odds = Decimal("1.5")
    pays_777_suited: Odds = Decimal(2)
    pays_777_spades: Odds = Decimal(3)

    # Super Bonus (rulings 17)
    super_bonus: bool = True
    super_bonus_tiers: tuple[SuperBonusTier, ...] = Field(
        (
            SuperBonusTier(min_wager=Decimal(10), amount=Decimal(1000)),
            SuperBonusTier(min_wager=Decimal(100), amount=Decimal(5000)),
        ),
        max_length=16,
    )
    super_bonus_controlling_only: bool = False  # FED: to the controlling player's wager only
    super_bonus_other_payment: Money = Decimal(50)
    super_bonus_other_scope: Literal["each_wager", "seated_per_box"] = "each_wager"

    # splits (rulings 11)
    split_by: Literal["value", "rank"] = "value"  # rulings 10
    max_split_hands: int = Field(4, ge=1, le=4)
    resplit_aces: bool = False
    hit_split_aces: bool = False
    split_ace_21_is_natural: bool = False  # 000 3.9.2: split Aces cannot make a Pontoon

    # doubles (rulings 12, 13)
    double_on: Literal["two_cards", "any"] = "two_cards"
    double_after_split: bool = True
    double_split_aces: bool = False
    double_ace_counts_one: bool = True  # 000 3.17.2
    double_min_table_min: bool = True  # 000 1.1.1: increase not below the table minimum
    rescue: bool = True  # 000 3.11.4
    rescue_each_bettor: bool = (
        True  # 000 3.11.4.1; rul 27: in every casino game each bettor decides for his own wager
    )

    # dealer Pontoon / natural against live hands (rulings 6)
    double_loses_original_only: bool = True  # 000 4.4.1
    split_loses_one_wager: bool = False  # 001 Splits: only one bet removed

    # surrender and insurance (rulings 8, 9)
    surrender: Literal["none", "early", "late"] = "early"
    surrender_others_choose: bool = False  # FED: other bettors choose to surrender or play on
    insurance: bool = True
    insurance_pays: Odds = Decimal(2)

    # forced draws (rulings 14): a hand whose best total is below this must draw (0 = none)
    forced_draw_below: int = Field(0, ge=0, le=21)

    # standing bettors (rulings 15)
    standing_may_decline_split: bool = False
    standing_may_decline_double: bool = False

    # side bets (rulings 18-20)
    pair_bet: bool = False
    pair_pays: Odds = Decimal(11)
    bonus_bet: bool = False
    bonus_pays: BonusPayTable = BonusPayTable()
    pandemonium_bet: bool = False
    pandemonium_multipliers: tuple[Annotated[int, Field(ge=1, le=10_000)], ...] = Field(
        (2, 3, 5, 10, 20, 25, 50, 100), min_length=1, max_length=64
    )
    # 002 gives no probabilities for the multipliers (rulings 20). This documented default has a
    # mean multiplier of 20.31, a house edge of about 11% on 6 decks: a casino sets its own.
    pandemonium_weights: tuple[Annotated[float, Field(ge=0, allow_inf_nan=False)], ...] = Field(
        (0.10, 0.12, 0.15, 0.20, 0.15, 0.12, 0.10, 0.06), min_length=1, max_length=64
    )

    # 002 3.3, rulings 37: a Pandemonium or Pair wager needs the player's OWN main wager on its box
    # (MBS 000 3.5.2 and PLUS 004 3.9: a main wager on the box, anyone's)
    side_bet_needs_own_main: bool = False
    # 004 5.5.2, rulings 38: a shoe holding more of a card than its decks can voids the round; where
    # false (no such clause) such a stacked shoe is refused as malformed
    excess_cards_void: bool = False

    # walking away (004 5.3): the House draws for the absent player to this total
    walk_away_draw_to: int = Field(12, ge=2, le=21)

    @model_validator(mode="after")
    def _check(self) -> CasinoRules:
        # rulings 1: Pontoon is dealt from 48-card Spanish-style decks. Plain blackjack (the comparison
        # preset) may be dealt from either pack: a shoe of 48-card decks is how the exact analyser is
        # compared with published blackjack analysers on Spanish shoes (issue 15).
        if self.preset != "blackjack" and self.pack != "pontoon48":
            raise ValueError(
                f"pack={self.pack!r} does not describe a {self.preset} table: Pontoon presets use pontoon48 (rulings 1)"
            )
        if self.preset != "blackjack" and not 4 <= self.decks <= 8:
            raise ValueError(
                f"decks={self.decks} is out of range: Pontoon tables use 4 to 8 decks of 48 cards"
            )
        if self.table_min > self.table_max:
            raise ValueError(f"table_min={self.table_min} is above table_max={self.table_max}")
        if self.side_min > self.side_max:
            raise ValueError(f"side_min={self.side_min} is above side_max={self.side_max}")
        if len(self.pandemonium_weights) != len(self.pandemonium_multipliers):
            raise ValueError("pandemonium_weights needs one weight per multiplier")
        if (
            not all(math.isfinite(w) and w >= 0 for w in self.pandemonium_weights)
            or sum(self.pandemonium_weights) <= 0
        ):
            raise ValueError("pandemonium_weights must be finite, non-negative and not all zero")
        mins = [t.min_wager for t in self.super_bonus_tiers]
        if mins != sorted(set(mins)):
            raise ValueError("super_bonus_tiers must list strictly increasing min_wager values")
        if self.super_bonus and not self.super_bonus_tiers:
            raise ValueError("super_bonus=true needs at least one super_bonus_tiers entry")
        if self.regular_pays <= 0:
            raise ValueError(
                f"regular_pays={self.regular_pays}: an ordinary win pays a positive multiple (1 = even money)"
            )
        if self.dealer_peeks and not self.dealer_hole_card:
            raise ValueError("dealer_peeks=true needs dealer_hole_card=true")
        return self

    # convenience ------------------------------------------------------------------------
    @property
    def is_pontoon(self) -> bool:
        return self.pack == "pontoon48"

    @property
    def side_bets(self) -> tuple[str, ...]:
        out = []
        if self.pair_bet:
            out.append("pair")
        if self.bonus_bet:
            out.append("bonus")
        if self.pandemonium_bet:
            out.append("pandemonium")
        return tuple(out)

    def super_bonus_amount(self, wager: Money) -> Money:
        """The fixed Super Bonus for a main wager of this size (0 below the lowest tier)."""
        amount = Decimal(0)
        for tier in self.super_bonus_tiers:
            if wager >= tier.min_wager:
                amount = tier.amount
        return amount

    def pandemonium_probabilities(self) -> list[tuple[int, float]]:
        s = sum(self.pandemonium_weights)
        return [
            (m, w / s) for m, w in zip(self.pandemonium_multipliers, self.pandemonium_weights, strict=True)
        ]

    def with_(self, **changes: object) -> CasinoRules:
        """A validated copy with some fields changed (raises RulesError on bad values)."""
        return apply_overrides(self, changes, source="overrides")  # type: ignore[return-value]
