"""Unit tests of the British round engine, each citing the 003 sentence it checks."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.errors import BetError, IllegalAction, RulesError
from pontoon.protocol import SPECTATOR
from pontoon.rules.british import BRITISH, SHOOT, BritishRules
from pontoon.rules.load import apply_overrides, find_rules

D = Decimal


def make(
    shoe: str, players: tuple[str, ...] = ("ann",), rules: BritishRules = BRITISH, **opts: Any
) -> BritishRound:
    if opts:
        rules = rules.with_(**opts)
    kitty = D(20) if rules.shoot else D(0)
    return BritishRound(rules, list(players), "dan", BritishPack.stacked_from(shoe), kitty=kitty)


def snapshot(r: BritishRound) -> Any:
    return (
        r.phase,
        r.to_act(),
        len(r.ledger.transfers),
        len(r.pack),
        r.cur,
        [
            (h.owner, list(h.cards), list(h.up), h.stake, h.shoot, h.status, h.twisted, h.last_buy)
            for h in r.hands
        ],
        list(r.banker_cards),
        len(r.log),
        dict(r.ledger.balances),
    )


def verbs(r: BritishRound) -> set[str]:
    return {a.verb for a in r.legal_actions()}


# --- rules model -------------------------------------------------------------------------------
def test_presets_and_aliases() -> None:
    assert find_rules("uk") is BRITISH and find_rules("shoot-pontoon") is SHOOT
    assert BRITISH.stake_min == 1 and BRITISH.stake_max == 100  # rulings 15a
    assert BRITISH.stick_minimum == 15  # 003 Stick "at least 15"
    # rulings 23: every variation off by default
    assert not (
        BRITISH.split_only_aces
        or BRITISH.banker_may_double
        or BRITISH.royal_pontoon
        or BRITISH.ace_picture_beats_ace_ten
        or BRITISH.ace_ten_not_pontoon
        or BRITISH.natural_beats_plain
        or BRITISH.no_buy_fifth_at_11_or_less
        or BRITISH.shoot
    )
    assert BRITISH.burn == "none" and BRITISH.pontoon_pays == 2 and BRITISH.banker_pontoon_collects == 2
    assert SHOOT.shoot


def test_rules_errors_are_clear() -> None:
    with pytest.raises(RulesError, match="unknown rule field 'decks'.*stick_minimum"):
        apply_overrides(BRITISH, {"decks": 2})
    with pytest.raises(RulesError, match="stick_minimum=14"):
        apply_overrides(BRITISH, {"stick_minimum": 14})
    with pytest.raises(RulesError, match="burn="):
        apply_overrides(BRITISH, {"burn": "hard15"})
    with pytest.raises(RulesError, match="kitty_min"):
        apply_overrides(SHOOT, {"kitty_min": 500})
    with pytest.raises(RulesError, match="frozen|immutable|Instance is frozen"):
        try:
            BRITISH.stick_minimum = 16  # type: ignore[misc]
        except Exception as err:  # pydantic ValidationError
            raise RulesError(str(err)) from None


def test_two_packs_for_eight_or_more() -> None:
    # 003: "For a large number of players, say 8 or more, two 52 packs can be mixed together"
    assert BRITISH.packs_for(7) == 1 and BRITISH.packs_for(8) == 2


# --- stakes ------------------------------------------------------------------------------------
def test_stake_limits() -> None:
    # 003 The Deal and Initial Stakes: "must bet at least the minimum"; rulings 15a 1 to 100
    r = make("9S 8H 7C 9D KD 9C")
    before = snapshot(r)
    with pytest.raises(BetError, match="accepted 1 to 100"):
        r.stake("ann", 101)
    with pytest.raises(BetError, match="accepted 1 to 100"):
        r.stake("ann", "0.5")
    with pytest.raises(BetError, match="needs an amount"):
        r.stake("ann", None)
    assert snapshot(r) == before
    assert not r.can_stake("ann", 0) and r.can_stake("ann", 100)


def test_first_card_face_down_players_first_then_banker() -> None:
    # 003 The Deal: "one card face down to each player, starting with the player to dealer's left ... ending with the dealer"
    r = make("2S 3S 4S 5S 6S 7S", players=("ann", "bob"))
    assert [str(h.cards[0]) for h in r.hands] == ["2S", "3S"] and [str(c) for c in r.banker_cards] == ["4S"]
    assert r.to_act() == "ann"
    assert r.view("bob")["hands"][0]["cards"] == ["??"]
    assert r.view("ann")["hands"][0]["cards"] == ["2S"]
    # 003: "All the players except the banker may look at their card"
    assert r.view("dan")["banker_cards"] == ["??"]


# --- buying, twisting, sticking --------------------------------------------------------------
def test_buy_limits() -> None:
    # 003 Buy a card: first buy from the initial stake to twice it; later between the initial stake and the previous buy
    r = make("2S TC 3H 7D 4D 5S 3C 2C")
    r.stake("ann", 6)
    with pytest.raises(BetError, match="accepted 6 to 12"):
        r.buy("ann", 13)
    with pytest.raises(BetError, match="accepted 6 to 12"):
        r.buy("ann", 5)
    r.buy("ann", 10)
    assert r.hands[0].stake == 16
    with pytest.raises(BetError, match="accepted 6 to 10"):
        r.buy("ann", 11)
    r.buy("ann", 6)
    assert r.hands[0].stake == 22
    with pytest.raises(BetError, match="accepted 6 to 6"):
        r.buy("ann", 7)


def test_no_buy_after_twist() -> None:
    # 003: "once you have asked for a card to be twisted you can no longer buy cards"
    r = make("2S TC 3H 7D 4D 5S 3C")
    r.stake("ann", 5)
    r.twist("ann")
    assert "buy" not in verbs(r)
    with pytest.raises(IllegalAction, match="legal actions: twist"):
        r.buy("ann", 5)


def test_stick_minimum() -> None:
    # 003 Stick: "If the total value of your cards is at least 15 you may say stick"
    r = make("9S 8C 5C 7D 2D")
    r.stake("ann", 5)
    assert "stick" not in verbs(r)  # 14
    with pytest.raises(IllegalAction, match="stick is not legal"):
        r.stick("ann")
    r.twist("ann")  # 16
    assert r.can_stick("ann")
    # variation: at least 16 to stick
    r16 = make("9S 8C 6C 7D", stick_minimum=16)
    r16.stake("ann", 5)
    assert not r16.can_stick("ann")


def test_bust_stake_goes_to_banker_at_once() -> None:
    # 003: "you must immediately throw in your hand face up, and the banker takes your stake"
    r = make("9S 8H 7C 7D 9D 9C KD", players=("ann", "bob"))
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.twist("ann")
    assert r.hands[0].status == "bust" and r.ledger.balances["dan"] == 5 and r.to_act() == "bob"
    assert r.view("bob")["hands"][0]["cards"] == ["9S", "7D", "KD"]  # thrown in face up
    # 003: "adds your cards to the bottom of the pack" (a stacked pack keeps them aside)
    assert [str(c) for c in r.pack.discards] == ["9S", "7D", "KD"]


def test_five_card_trick_stops_the_hand() -> None:
    # 003: "When your hand reaches five cards without going over 21 ... not allowed any more cards"
    r = make("2S TC 3H 7D 2D 3D 4D", players=("ann",))
    r.stake("ann", 5)
    for _ in range(3):
        r.twist("ann")
    assert r.hands[0].status == "five" and r.phase == "banker"


def test_draw_on_soft_total_holder_choice() -> None:
    # 003: "ace is worth 1 or 11 at the holder's choice": A-5-5 may stick on 21 or draw on 11
    r = make("AS TC 5H 7D 5D 2C")
    r.stake("ann", 5)
    r.twist("ann")
    assert {"twist", "stick"} <= verbs(r)


def test_hard_21_can_only_stick() -> None:
    r = make("7S TC 7H 7D 7D")
    r.stake("ann", 5)
    r.twist("ann")
    assert verbs(r) == {"stick"}


def test_no_buy_fifth_variation() -> None:
    # 003 variation: "If you have 4 cards totaling 11 or less ... you cannot buy a fifth card, only twist one"
    shoe = "2S TC 3H 7D 2D 3D 4D"
    r = make(shoe, no_buy_fifth_at_11_or_less=True)
    r.stake("ann", 5)
    r.buy("ann", 5)
    r.buy("ann", 5)
    assert "buy" not in verbs(r) and "twist" in verbs(r)
    r2 = make(shoe)
    r2.stake("ann", 5)
    r2.buy("ann", 5)
    r2.buy("ann", 5)
    assert "buy" in verbs(r2)


# --- splitting and burning ---------------------------------------------------------------------
def test_split_only_equal_ranks() -> None:
    # 003: "two queens can be split but a queen and a jack [cannot]"; rulings 10
    r = make("QS TC JH 7D")
    r.stake("ann", 5)
    assert "split" not in verbs(r)
    r2 = make("QS TC QH 7D 5S 6S")
    r2.stake("ann", 5)
    assert "split" in verbs(r2)
    r2.split("ann")
    # "placing another bet equal to your initial bet"
    assert [h.stake for h in r2.hands] == [5, 5] and r2.ledger.balances["ann"] == -10


def test_split_only_aces_variation() -> None:
    # 003 variation: "only aces can be split, not other pairs of cards"
    r = make("8S TC 8H 7D", split_only_aces=True)
    r.stake("ann", 5)
    assert "split" not in verbs(r)
    r2 = make("AS TC AH 7D 5S 6S", split_only_aces=True)
    r2.stake("ann", 5)
    assert "split" in verbs(r2)


def test_split_up_to_four_hands() -> None:
    # 003: "three or even (theoretically) four separate hands"
    r = make("8S TC 8H 7D 8D 8C 2S 3S TS 9S TD TH 2C 3C 4C")
    r.stake("ann", 5)
    r.split("ann")  # hands 8S 8D and 8H 8C
    r.split("ann")  # hands 8S 2S, 8D 3S, 8H 8C
    assert len(r.hands) == 3
    # the third hand (8H 8C) may split into a fourth hand later; then no more
    while r.hands[r.cur].owner == "ann" and r.cur < 2:
        r.act("ann", "stick" if r.can_stick("ann") else "twist")
    assert r.cur == 2 and "split" in verbs(r)
    r.split("ann")
    assert len(r.hands) == 4 and "split" not in verbs(r)


def test_split_cards_face_up_new_cards_face_down() -> None:
    # 003 Split: "putting them face up on the table ... deals another card face down to each of your hands"
    r = make("QS 2C TC QH 3C 7D 5S 6S", players=("ann", "bob"))
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.split("ann")
    v = r.view("bob")
    assert v["hands"][0]["cards"] == ["QS", "??"] and v["hands"][1]["cards"] == ["QH", "??"]


def test_burn_keeps_stake_and_shows_cards() -> None:
    # 003 variation: burned cards "are shown and discarded, and two new cards dealt. The player's bet remains"
    r = make("6S 2C TS 7H 3C 8S 9C TC", players=("ann", "bob"), burn="hard13")
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.burn("ann")
    assert r.hands[0].stake == 5 and [str(c) for c in r.hands[0].cards] == ["9C", "TC"]
    assert r.view("bob")["hands"][0]["burned"] == ["6S", "7H"]
    assert r.view("bob")["hands"][0]["cards"] == ["??", "??"]


def test_burn_not_soft_13() -> None:
    # 003 variation: "a 'hard' 13 (not A-2, which can be 3 or 13)"
    r = make("AS TC 2H 7D", burn="hard13")
    r.stake("ann", 5)
    assert "burn" not in verbs(r)
    r14 = make("7S TC 7H 7D", burn="hard13")
    r14.stake("ann", 5)
    assert "burn" not in verbs(r14)
    r14b = make("7S TC 7H 7D", burn="hard14")
    r14b.stake("ann", 5)
    assert {"burn", "split"} <= verbs(r14b)


# --- turns and errors --------------------------------------------------------------------------
def test_wrong_seat_is_refused_naming_who_is_to_act() -> None:
    r = make("9S 8H 7C 9D KD 9C", players=("ann", "bob"))
    before = snapshot(r)
    with pytest.raises(IllegalAction, match="not bob's turn; ann is to act \\(stake\\)$"):
        r.stake("bob", 5)
    with pytest.raises(IllegalAction, match="not dan's turn"):
        r.twist("dan")
    assert snapshot(r) == before


def test_banker_turn_and_cards_turned_up() -> None:
    # 003 The Banker's Turn: "the banker's two cards are turned face up"; "dealing them face up one at a time"
    r = make("9S 8H 7C 5D KD 9C", players=("ann",))
    r.stake("ann", 5)
    assert r.view("ann")["banker_cards"] == ["??", "??"]
    assert r.view("dan")["banker_cards"] == ["8H", "5D"]
    r.stick("ann")
    assert r.phase == "banker" and r.view("ann")["banker_cards"] == ["8H", "5D"]
    assert verbs(r) == {"twist", "stick"}  # the banker may stay at any total
    r.twist("dan")
    assert r.over and r.banker_outcome == "bust" and r.net()["ann"]["total"] == 5


def test_declared_pontoon_shows_ace_only() -> None:
    # 003 Declare a Pontoon: "the ten point card face down and the ace face up on top of it"
    r = make("AS 9C 8H KS 8C 9D 2C", players=("ann", "bob"))
    r.stake("ann", 5)
    r.stake("bob", 5)
    assert r.hands[0].status == "pontoon" and r.to_act() == "bob"
    assert r.view("bob")["hands"][0]["cards"] == ["AS", "??"]


def test_an_undeclared_pontoon_beaten_at_the_deal_stays_hidden() -> None:
    # 003 The Deal: "If the banker has a Pontoon this is immediately exposed" and collects; the
    # players' hands are not exposed, so ann's Pontoon (never declared: the round ended before her turn)
    # must not show in bob's view, nor in a spectator's (ruling 35): the same frame as a plain 19
    pontoon = make("AS 9C AH KS 8C TD", players=("ann", "bob"))
    plain = make("9S 9C AH KS 8C TD", players=("ann", "bob"))
    for r in (pontoon, plain):
        r.stake("ann", 5)
        r.stake("bob", 5)
        assert r.over and r.banker_outcome == "pontoon" and r.hands[0].status == "waiting"
    assert pontoon.hands[0].outcome == "pontoon"  # the engine knows; the watchers may not
    for seat in ("bob", SPECTATOR):
        seen = pontoon.view(seat)["hands"][0]
        assert seen["cards"] == ["??", "??"] and "outcome" not in seen and seen["result"] == "lose"
        assert pontoon.view(seat) == plain.view(seat)
    assert pontoon.view("ann")["hands"][0]["outcome"] == "pontoon"  # her own hand: she sees it


def test_bought_card_face_down_twisted_face_up() -> None:
    # 003 Buy: "deals you another card face down"; Twist: "deals you one card face up"
    r = make("2S 3S 9C 4S 5S 8C 6D 7D", players=("ann", "bob"))
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.buy("ann", 5)
    r.twist("ann")
    assert r.view("bob")["hands"][0]["cards"] == ["??", "??", "??", "7D"]
    assert r.view("ann")["hands"][0]["cards"] == ["2S", "4S", "6D", "7D"]


def test_everyone_exposes_when_banker_stays() -> None:
    # 003: "Everyone then exposes their cards"
    r = make("9S 2C TH 9C 8D 9D 9H", players=("ann", "bob"))
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.stick("ann")
    r.twist("bob")
    r.stick("bob")
    r.stick("dan")
    assert "??" not in r.view("ann")["hands"][1]["cards"]


def test_banker_double_variation() -> None:
    # 003 variation: "the banker looks at his own first card and can choose to double the bets"
    r = make("9S AC TC 7D", banker_may_double=True)
    r.stake("ann", 5)
    assert r.to_act() == "dan" and verbs(r) == {"double", "pass"}
    assert r.view("dan")["banker_cards"] == ["AC"]
    r.double("dan")
    assert r.mult == 2


# --- Shoot Pontoon ------------------------------------------------------------------------------
def test_shoot_total_within_kitty() -> None:
    # 003 Shoot: "the total of all the shoot bets is not more than what is in the kitty"
    r = make("9S 5H 8C TC 8D 9C KD", players=("ann", "bob"), rules=SHOOT)
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.shoot("ann", 15)
    with pytest.raises(BetError, match="accepted 1 to 5"):
        r.shoot("bob", 6)
    r.shoot("bob", 5)
    # the whole kitty is shot: the play starts
    assert r.phase == "play"


def test_whole_kitty_shot_closes_window() -> None:
    # 003 Shoot: "if the first player decides to shoot the whole kitty, the remaining players cannot ... place any shoot bets"
    r = make("9S 5H 8C TC 8D 9C KD", players=("ann", "bob"), rules=SHOOT)
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.shoot("ann", 20)
    assert r.phase == "play" and r.to_act() == "ann"


def test_fourth_card_shoot_then_must_draw() -> None:
    # 003 Shoot "The fourth card": the shoot bet is placed "before receiving the card"; none after the fourth
    r = make("2S TC 3H 8C 4D 9S 2D", rules=SHOOT)
    r.stake("ann", 5)
    r.pass_("ann")
    assert "shoot" not in verbs(r)  # no shoot on the third card
    r.twist("ann")
    assert "shoot" in verbs(r)
    r.shoot("ann", 4)
    assert verbs(r) == {"twist"}  # twisted before: only twist; no stick once the bet is placed
    r.twist("ann")
    assert "shoot" not in verbs(r)  # "no further opportunity to shoot after you see your fourth card"


def test_busted_shoot_bet_to_kitty_at_once() -> None:
    # 003 Shoot "Going bust": "that hand's shoot bet ... is immediately added to the kitty"
    r = make("9S 5H 8C 7C 8D 9C KD", players=("ann", "bob"), rules=SHOOT)
    r.stake("ann", 5)
    r.stake("bob", 5)
    r.shoot("ann", 10)
    r.pass_("bob")
    r.twist("ann")
    assert r.kitty() == 30 and r.shoot_capacity() == 30
