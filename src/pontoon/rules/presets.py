"""The casino presets, one per rule document, found by id or alias through ``find_rules``."""

from __future__ import annotations

from decimal import Decimal

from pontoon.rules.model import CasinoRules, SuperBonusTier

D = Decimal

MBS = CasinoRules(
    preset="mbs",
    name="Pontoon, Marina Bay Sands (version 5)",
    document="000_0dcae5beef2b7697.txt",
    pair_bet=True,  # 000 3.5
    rescue_each_bettor=True,  # 000 3.11.4.1
    forced_draw_below=0,  # rulings 14: MBS has no forced draw
    super_bonus_other_scope="each_wager",  # 000 4.1.1.2
)

FEDERAL = CasinoRules(
    preset="federal",
    name="Federal Pontoon",
    document="001_5fc7207e45312bdf.txt",
    max_bettors_per_box=3,  # 001: up to two other players may bet in the same box
    max_split_hands=3,  # 001 Splits: up to 3 hands
    double_on="any",  # 001 Doubles: any total of two or more cards, even after splitting
    forced_draw_below=12,  # 001: you must hit on 11 or less
    super_bonus_tiers=(
        SuperBonusTier(min_wager=D(0), amount=D(1000)),  # 001: wagers $24 and less
        SuperBonusTier(min_wager=D(25), amount=D(5000)),  # 001: wagers $25 and above
    ),
    super_bonus_controlling_only=True,  # rulings 17
    super_bonus_other_scope="each_wager",  # 001: all other wagers $50
    split_loses_one_wager=True,  # 001 Splits: only one bet removed
    surrender_others_choose=True,  # 001 Surrenders
)

RWS_PANDEMONIUM = CasinoRules(
    preset="rws-pandemonium",
    name="Pontoon Pandemonium, Resorts World Sentosa (version 4)",
    document="002_fa7f36232f494aba.txt",
    pair_bet=True,  # 002 3.7.1
    pandemonium_bet=True,  # 002 3.8.1, 4.3
    forced_draw_below=12,  # 002 3.17
    super_bonus_other_scope="seated_per_box",  # 002 4.2
    side_bet_needs_own_main=True,  # 002 3.3, rul 37: "All Players must place an initial bet to participate"
)

RWS_PLUS = CasinoRules(
    preset="rws-plus",
    name="Pontoon Plus, Resorts World Sentosa (version 5)",
    document="004_61bddab2659c7787.txt",
    pair_bet=True,  # 004 3.14
    bonus_bet=True,  # 004 3.15, 4.1.3
    forced_draw_below=12,  # 004 3.22
    super_bonus_other_scope="seated_per_box",  # 004 4.1.2
    standing_may_decline_split=True,  # 004 3.24.1
    standing_may_decline_double=True,  # 004 3.25.1
    excess_cards_void=True,  # 004 5.5.2, rul 38: "any shortage or excess of cards in the deck"
)

BLACKJACK = CasinoRules(
    preset="blackjack",
    name="Casino blackjack (for validation and comparison)",
    document="",
    pack="standard52",
    decks=6,
    dealer_hole_card=True,
    dealer_peeks=True,
    dealer_hits_soft_17=False,
    player_21_wins=False,
    natural_vs_dealer_natural="push",
    pays_5_card_21=D(1),
    pays_6_card_21=D(1),
    pays_7_card_21=D(1),
    pays_678_mixed=D(1),
    pays_678_suited=D(1),
    pays_678_spades=D(1),
    pays_777_mixed=D(1),
    pays_777_suited=D(1),
    pays_777_spades=D(1),
    super_bonus=False,
    double_ace_counts_one=False,
    double_min_table_min=False,
    rescue=False,
    double_loses_original_only=False,
    surrender="none",
    forced_draw_below=0,
)

CASINO_PRESETS: dict[str, CasinoRules] = {
    r.preset: r for r in (MBS, FEDERAL, RWS_PANDEMONIUM, RWS_PLUS, BLACKJACK)
}
