"""Rulings 24-27 (shared/spec/rulings.md) through the library API; the golden files beside them are
scenarios/*/rul2*.json (British rulings 28-31: tests/british/test_british_rulings.py; rul 32: test_names.py)."""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.casino.round import CasinoRound
from pontoon.errors import IllegalAction
from pontoon.protocol import Action
from pontoon.rules import find_rules
from pontoon.rules.model import CasinoRules
from pontoon.scenario_runner import run_scenario
from pontoon.shoe import Shoe

D = Decimal
CASINO = ["mbs", "federal", "rws-plus", "rws-pandemonium"]


def casino(preset: str, shoe: str, **options: Any) -> CasinoRound:
    rules = find_rules(preset)
    assert isinstance(rules, CasinoRules)
    if options:
        rules = rules.with_(**options)
    return CasinoRound(rules, Shoe.stacked_from(shoe, pack=rules.pack))


# --------------------------------------------------------------------------------------------
# rul 24: pro rata
@settings(max_examples=200, deadline=None)
@given(
    wagers=st.lists(st.integers(1, 400_00).map(lambda c: D(c) / 100), min_size=1, max_size=7),
    maximum=st.integers(10, 300),
)
def test_rul24_each_share_rounded_down_raised_to_minimum_small_wager_whole(
    wagers: list[Decimal], maximum: int
) -> None:
    rnd = casino("rws-plus", "KS 8D 9S QD", over_limit="pro_rata", table_max=maximum)
    names = [f"p{i}" for i in range(len(wagers))]
    for n, w in zip(names, wagers, strict=True):
        rnd.place_bet(1, n, "main", w)
    total = sum(wagers, D(0))
    if total < rnd.rules.table_min:
        return  # 004 5.2: a box below the minimum is not dealt
    rnd.close_bets()
    b = rnd.boxes[1]
    lo, hi = rnd.rules.table_min, rnd.rules.table_max
    for n, w in zip(names, wagers, strict=True):
        x = b.bettor(n)
        assert x is not None
        if total <= hi or w < lo:
            expected = w  # within the maximum, or 004 5.1.2: under the minimum plays whole
        else:
            expected = max((w * hi / total).quantize(D("0.01"), rounding=ROUND_DOWN), lo)
        assert x.main == expected
        assert x.main <= w
        # the excess is back with the player before the deal; the share is on the layout
        assert rnd.ledger.balances[n] == -expected
    assert rnd.ledger.total() == 0


def test_rul24_under_minimum_bettor_does_not_stop_pro_rata_for_the_others() -> None:
    rnd = casino("rws-plus", "KS 8D 9S QD", over_limit="pro_rata", table_max=100)
    rnd.place_bet(1, "ann", "main", 150)
    rnd.place_bet(1, "bob", "main", 5)
    rnd.close_bets()
    assert rnd.boxes[1].bettor("ann").main == D("96.77")  # type: ignore[union-attr]
    assert rnd.boxes[1].bettor("bob").main == D(5)  # type: ignore[union-attr]
    ev = [e for e in rnd.log.events if e.kind == "pro_rata"]
    assert ev and ev[0].data["whole_wager"] == ["bob"]


# --------------------------------------------------------------------------------------------
# rul 25: a wager under 10 on the Super Bonus hand
@pytest.mark.parametrize("preset", ["mbs", "rws-plus", "rws-pandemonium"])
def test_rul25_under_10_on_the_super_bonus_hand_gets_777_payout_only(preset: str) -> None:
    data = {
        "rules": preset,
        "shoe": "7S 9S 7C 7S 9D 7S KD",
        "boxes": {
            "1": [{"player": "ann", "main": 5}, {"player": "bob", "main": "9.99"}],
            "2": [{"player": "cat", "main": 10}],
        },
        "actions": ["1 hit", "2 stand"],
    }
    out = run_scenario(data)
    for p, w in (("ann", D(5)), ("bob", D("9.99"))):
        assert D(str(out["net"][p]["main"])) == w * 3  # 7-7-7 all spades, 3 to 1
        assert out["net"][p].get("super_bonus", 0) == 0
    assert out["net"]["cat"]["super_bonus"] == 50


def test_rul25_does_not_apply_to_federal_tiers() -> None:
    """FED pays 1,000 for a controlling wager of 24 or less (rul 17): no floor of 10."""
    data = {
        "rules": "federal",
        "shoe": "7S 9S 7C 7S 9D 7S KD",
        "boxes": {"1": [{"player": "ann", "main": 10}], "2": [{"player": "cat", "main": 10}]},
        "actions": ["1 hit", "2 stand"],
    }
    out = run_scenario(data)
    assert out["net"]["ann"]["super_bonus"] == 1000


# --------------------------------------------------------------------------------------------
# rul 26: FED busted split hand against the dealer's Pontoon
SPLIT_BUST = ("8S AD 8H 5C KC 8D 9C 9S KD", ["1 split", "1 hit", "1 split", "1 stand", "1 stand"])


def test_rul26_busted_split_hand_stays_lost_and_one_live_wager_is_taken() -> None:
    shoe, actions = SPLIT_BUST
    rnd = casino("federal", shoe)
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    for a in actions:
        rnd.act(a)
    assert rnd.is_over() and rnd.dealer_natural
    outcomes = [h.outcome["ann"] for h in rnd.all_hands()]
    assert outcomes == ["lose", "lose", "push"]
    assert rnd.ledger.net()["ann"]["total"] == -20


def test_rul26_other_games_lose_every_live_split_wager() -> None:
    """Ruling 6: in MBS, PAN and PLUS every live split wager is lost to the dealer's Pontoon."""
    shoe, actions = SPLIT_BUST
    rnd = casino("mbs", shoe)
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    for a in actions:
        rnd.act(a)
    assert rnd.ledger.net()["ann"]["total"] == -30


# --------------------------------------------------------------------------------------------
# rul 27: each bettor decides the forfeit of his own doubled wager, in every casino game
DOUBLE_SHOE = "6S 6D 5H 2C KD 9C"  # 6-5 doubled to 13; the dealer's 6-K draws 9 and busts


@pytest.mark.parametrize("preset", CASINO)
def test_rul27_a_standing_bettor_forfeits_alone(preset: str) -> None:
    rnd = casino(preset, DOUBLE_SHOE)
    rnd.place_bet(1, "ann", "main", 20)
    rnd.place_bet(1, "bob", "main", 10)
    rnd.close_bets()
    rnd.act("1 double")
    # through the protocol: bob's own rescue is among his legal actions, and he may take it himself
    mine = Action("rescue", 1, players=("bob",))
    assert mine in rnd.legal_actions("bob")
    assert not rnd.can("bob", Action("rescue", 1, players=("ann",)))
    rnd.act("bob", mine)
    assert not rnd.is_over()  # ann has not decided yet
    rnd.act("ann", Action("stand", 1))
    net = rnd.ledger.net()
    assert net["bob"]["total"] == -10 and net["ann"]["total"] == 40


@pytest.mark.parametrize("preset", CASINO)
def test_rul27_the_seated_player_forfeits_alone(preset: str) -> None:
    rnd = casino(preset, DOUBLE_SHOE)
    rnd.place_bet(1, "ann", "main", 20)
    rnd.place_bet(1, "bob", "main", 10)
    rnd.close_bets()
    rnd.act("1 double")
    rnd.act({"box": 1, "do": "rescue", "players": ["ann"]})
    net = rnd.ledger.net()
    assert net["ann"]["total"] == -20 and net["bob"]["total"] == 20


def test_rul27_a_bettor_who_declined_the_double_has_nothing_to_forfeit() -> None:
    rnd = casino("rws-plus", DOUBLE_SHOE)
    for p, w in (("ann", 20), ("bob", 10), ("cat", 10)):
        rnd.place_bet(1, p, "main", w)
    rnd.close_bets()
    rnd.act({"box": 1, "do": "double", "decline": ["cat"]})
    with pytest.raises(IllegalAction, match="did not follow the double plays on"):
        rnd.act({"box": 1, "do": "rescue", "players": ["cat"]})
    assert Action("rescue", 1, players=("cat",)) not in rnd.legal_actions("cat")
    rnd.act("1 rescue")
    h = rnd.all_hands()[0]
    assert h.outcome == {"ann": "forfeit", "bob": "forfeit", "cat": "win"}
    assert rnd.ledger.net()["cat"]["total"] == 10


def test_rul27_option_off_restores_the_box_decision() -> None:
    rnd = casino("federal", DOUBLE_SHOE, rescue_each_bettor=False)
    rnd.place_bet(1, "ann", "main", 20)
    rnd.place_bet(1, "bob", "main", 10)
    rnd.close_bets()
    rnd.act("1 double")
    assert not rnd.can(Action("rescue", 1, players=("bob",)))
