"""Golden scenarios and rule checks for the `mbs` (000_0dcae5beef2b7697.txt, Marina Bay Sands v5) and
`federal` (001_5fc7207e45312bdf.txt, Federal Pontoon) presets.

Every file under scenarios/mbs and scenarios/federal is one round with an ``expect`` computed by hand
from the documents and shared/spec/rulings.md; it is run through the real scenario runner and must
match exactly. The unit tests below cover what a scenario file cannot express: refused bets
(000 5.3, 5.4; 001 box limits) and refused actions (IllegalAction), which must leave the round
exactly as it was.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.casino.scenario import build_round
from pontoon.errors import BetError, IllegalAction
from pontoon.rules import find_rules
from pontoon.scenario_runner import compare, run_scenario
from pontoon.shoe import Shoe

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIRS = {"mbs": ROOT / "scenarios" / "mbs", "federal": ROOT / "scenarios" / "federal"}
FILES = sorted(p for d in SCENARIO_DIRS.values() for p in d.glob("*.json"))


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


# ------------------------------------------------------------------------------------ golden files
def test_scenario_files_exist() -> None:
    for preset, d in SCENARIO_DIRS.items():
        assert sorted(d.glob("*.json")), f"no scenario files for {preset} in {d}"


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    preset = path.parent.name
    assert data["rules"] == preset, f"{path.name}: rules {data['rules']!r} in the {preset} folder"
    desc = data.get("description", "")
    assert desc.startswith(("000 ", "001 ", "rulings ")), f"{path.name}: description must name its clause(s)"
    assert "expect" in data and "net" in data["expect"], f"{path.name}: needs an expect with net"
    actual = run_scenario(data)
    diffs = compare(data["expect"], actual)
    assert not diffs, f"{path.name} ({desc}):\n  " + "\n  ".join(diffs) + f"\nactual: {json.dumps(actual)}"
    # money is conserved: the house result is minus the sum of the players' totals
    assert abs(actual["house"] + sum(p["total"] for p in actual["net"].values())) < 1e-9


# ------------------------------------------------------------------------------------ helpers
def make(
    preset: str, shoe: str, boxes: dict[int, list[dict[str, Any]]], options: dict[str, Any] | None = None
) -> CasinoRound:
    """A round with its bets placed (not yet closed)."""
    data: dict[str, Any] = {"rules": preset, "shoe": shoe, "boxes": {str(k): v for k, v in boxes.items()}}
    if options:
        data["options"] = options
    rnd, _ = build_round(data)
    return rnd


def deal(
    preset: str, shoe: str, boxes: dict[int, list[dict[str, Any]]], *actions: str | dict[str, Any]
) -> CasinoRound:
    rnd = make(preset, shoe, boxes)
    rnd.close_bets()
    for a in actions:
        rnd.act(a)
    return rnd


def snapshot(rnd: CasinoRound) -> tuple[Any, ...]:
    """Everything an action could change."""
    hands = tuple(
        (
            h.box,
            h.index,
            tuple(str(c) for c in h.cards),
            tuple(sorted(h.stakes.items())),
            tuple(sorted(h.doubles.items())),
            h.doubled,
            h.finished,
            h.acted,
            h.awaiting_rescue,
            tuple(sorted(h.surrendered)),
            tuple(sorted(h.outcome.items())),
        )
        for h in rnd.all_hands()
    )
    bettors = tuple(
        (n, x.player, x.main, x.placed, tuple(sorted(x.side.items())), x.insurance)
        for n, b in sorted(rnd.boxes.items())
        for x in b.bettors
    )
    return (
        rnd.phase,
        rnd.shoe.dealt,
        tuple(str(c) for c in rnd.dealer),
        len(rnd.ledger.transfers),
        rnd.ledger.on_layout(),
        hands,
        bettors,
        rnd.hand_to_act,
        len(rnd.log),
    )


def refused(rnd: CasinoRound, action: str | dict[str, Any], exc: type[Exception] = IllegalAction) -> str:
    """The action raises ``exc`` and leaves the round unchanged; returns the message."""
    before = snapshot(rnd)
    a = Action.parse(action)
    assert not rnd.can(a), f"{action} should not be legal"
    assert a not in rnd.legal_actions()
    with pytest.raises(exc) as info:
        rnd.act(a)
    assert snapshot(rnd) == before, f"refused action {action} changed the round"
    return str(info.value)


def main(player: str, amount: float | int, **side: float | int) -> dict[str, Any]:
    return {"player": player, "main": amount, **side}


# ------------------------------------------------------------------------------------ 000 MBS: bets
def test_000_5_3_no_wager_placed_or_increased_after_no_more_bets() -> None:
    """000 3.2, 5.3: after "No more bets" a wager may be neither placed nor increased."""
    rnd = deal("mbs", "KS 9D 8H 8C 5C", {1: [main("ann", 10, pair=5)]})
    before = snapshot(rnd)
    with pytest.raises(BetError, match="no more bets"):
        rnd.place_bet(2, "bob", "main", 10)  # a new wager
    with pytest.raises(BetError, match="no more bets"):
        rnd.place_bet(1, "cat", "main", 10)  # a new bettor on a box in play
    with pytest.raises(BetError, match="no more bets"):
        rnd.place_bet(1, "ann", "main", 20)  # an increase
    with pytest.raises(BetError, match="no more bets"):
        rnd.place_bet(1, "cat", "pair", 5)  # a side bet after the deal (3.5: before the cards)
    assert not rnd.can_place_bet(2, "bob", "main", 10)
    assert snapshot(rnd) == before


def test_000_5_4_no_withdrawal_after_no_more_bets() -> None:
    """000 5.4: after "No more bets" no wager may be withdrawn; it is won or lost on the result."""
    rnd = deal("mbs", "KS 9D 8H 8C 5C", {1: [main("ann", 10, pair=5)]})
    before = snapshot(rnd)
    for kind in ("main", "pair"):
        with pytest.raises(BetError, match="cannot be withdrawn"):
            rnd.withdraw_bet(1, "ann", kind)
    assert snapshot(rnd) == before
    rnd.act("1 stand")  # 18 against 9-8 = 17: the wager is still won, the 8-K pair bet lost
    net = rnd.result().net["ann"]
    assert net["main"] == Decimal(10) and net["pair"] == Decimal(-5)


def test_000_5_4_withdrawal_before_no_more_bets_returns_the_wager() -> None:
    """000 3.1, 5.4: while bets are open a wager may still be taken back in full."""
    rnd = make("mbs", "KS 9D 8H 8C", {1: [main("ann", 10)], 2: [main("bob", 20)]})
    rnd.withdraw_bet(2, "bob", "main")
    assert rnd.ledger.balances["bob"] == 0
    rnd.close_bets()  # only box 1 is dealt
    assert [h.box for h in rnd.all_hands()] == [1]


def test_000_3_5_2_pair_bet_needs_a_main_wager_on_the_box() -> None:
    """000 3.5.2: a Pair bet may only be placed on a playing area that contains a main wager."""
    rnd = make("mbs", "KS 9D 8H", {1: [main("ann", 10)]})
    with pytest.raises(BetError, match="needs a main wager"):
        rnd.place_bet(2, "bob", "pair", 5)
    rnd.place_bet(1, "bob", "pair", 5)  # another player, no main wager of his own: accepted


def test_000_3_4_a_main_wager_is_needed_before_the_deal() -> None:
    """000 3.4: players must first place a wager before receiving cards."""
    rnd = CasinoRound(find_rules("mbs"), Shoe.stacked_from("KS 9D 8H"))
    with pytest.raises(BetError, match="no box has a main wager"):
        rnd.close_bets()


# ------------------------------------------------------------------------------------ 000 MBS: actions
def test_000_3_8_split_needs_two_cards_of_the_same_value() -> None:
    """000 3.8, 1.1.12: K-9 may not be split (J-Q may: scenarios/mbs/08)."""
    rnd = deal("mbs", "KS 9D 9H 8C", {1: [main("ann", 10)]})
    refused(rnd, "1 split")


def test_000_3_9_no_fifth_hand() -> None:
    """000 3.9: not more than four hands from splitting in one betting area."""
    rnd = deal("mbs", "8S 6D 8H 8C 8D 8S", {1: [main("ann", 10)]}, "1 split", "1 split", "1 split")
    assert len(rnd.boxes[1].hands) == 4
    assert [str(c) for c in rnd.boxes[1].hands[0].cards] == ["8S", "8S"]
    msg = refused(rnd, "1 split")
    assert "at most 4 hands" in msg


def test_000_3_9_1_split_aces_one_card_no_action() -> None:
    """000 3.9.1, 3.11.2: split Aces take one card each; they may not be hit, doubled or split again."""
    rnd = deal("mbs", "AS 5S 9D AH 9S KC 4D", {1: [main("ann", 10)], 2: [main("bob", 10)]}, "1 split")
    assert [len(h.cards) for h in rnd.boxes[1].hands] == [2, 2]
    assert all(h.finished for h in rnd.boxes[1].hands)
    assert rnd.hand_to_act == (2, 1)
    for a in ("1 hit", "1 double", "1 split", "1 stand"):
        refused(rnd, a)


def test_000_3_10_surrender_only_against_ace_or_picture() -> None:
    """000 3.10: surrender is allowed only when the dealer's first card is an Ace, K, Q or J."""
    rnd = deal("mbs", "9S 9D 7H 8C", {1: [main("ann", 20)]})
    refused(rnd, "1 surrender")
    rnd = deal("mbs", "9S JD 7H 8C", {1: [main("ann", 20)]})
    assert rnd.can(Action.parse("1 surrender"))


def test_000_3_10_2_no_surrender_after_split() -> None:
    """000 3.10.2: a player may not surrender after splitting."""
    rnd = deal("mbs", "8S KD 8H 9C 9D 7C", {1: [main("ann", 20)]}, "1 split")
    refused(rnd, "1 surrender")


def test_000_3_10_surrender_window_closes_with_first_additional_card() -> None:
    """000 3.10 "prior to the subsequent deal", 3.12; rulings 8, 9: once box 1 has drawn, box 2 may
    neither surrender nor insure."""
    boxes = {1: [main("ann", 10)], 2: [main("bob", 20)]}
    rnd = deal("mbs", "5S 9S AD 6H 7H 2C 3C", boxes)
    assert rnd.can(Action.parse("2 surrender")) and rnd.can(Action.parse("2 insure bob 10"))
    rnd.act("1 hit")
    refused(rnd, "2 surrender")
    refused(rnd, "2 insure bob 10")


def test_000_3_10_surrender_not_on_pontoon() -> None:
    """rulings 9: surrender only on a two-card hand that is not a Pontoon (it is paid at once: 3.7)."""
    rnd = deal("mbs", "AS 9S KD KH 7H 2C", {1: [main("ann", 10)], 2: [main("bob", 10)]})
    refused(rnd, "1 surrender")


def test_000_3_11_double_amount_limits() -> None:
    """000 3.11, 1.1.1: the double is at most the original wager and not less than the table minimum."""
    rnd = deal("mbs", "6S 9D 5H 9C 8C", {1: [main("ann", 40)]})
    assert "table minimum" in refused(rnd, "1 double 5")
    assert "at most the original wager" in refused(rnd, "1 double 40.01")
    assert rnd.can(Action.parse("1 double 10")) and rnd.can(Action.parse("1 double 40"))


def test_000_3_11_1_double_only_on_first_two_cards() -> None:
    """000 3.11.1: in MBS a double is only on the first two cards (after a hit it is refused)."""
    rnd = deal("mbs", "2S 9D 3H 4C 9C 8C", {1: [main("ann", 10)]}, "1 hit")
    refused(rnd, "1 double")


def test_000_3_11_3_doubled_hand_gets_one_card_only() -> None:
    """000 3.11.3: a doubled hand receives only one additional card; then rescue or stand."""
    rnd = deal("mbs", "6S 9D 5H 2C 9C 8C", {1: [main("ann", 20)]}, "1 double")
    assert len(rnd.boxes[1].hands[0].cards) == 3
    refused(rnd, "1 hit")
    refused(rnd, "1 double")
    refused(rnd, "1 split")
    assert {a.verb for a in rnd.legal_actions()} == {"stand", "rescue"}


def test_000_3_11_4_no_rescue_without_a_double() -> None:
    """000 3.11.4: only the doubled portion may be withdrawn: no rescue on an undoubled hand."""
    rnd = deal("mbs", "6S 9D 5H 2C 9C 8C", {1: [main("ann", 20)]})
    refused(rnd, "1 rescue")


def test_000_3_11_4_no_rescue_on_21() -> None:
    """000 3.11.4 (point total after the double less than 21), 3.15: a doubled 21 is paid at once."""
    rnd = deal("mbs", "6S 9S 9D 5H 8C KC", {1: [main("ann", 20)], 2: [main("bob", 10)]}, "1 double")
    assert rnd.boxes[1].hands[0].outcome == {"ann": "win"}
    assert rnd.hand_to_act == (2, 1)
    refused(rnd, "1 rescue")


def test_000_3_12_insurance_at_most_half_and_only_against_ace() -> None:
    """000 3.12: insurance only when the dealer's first card is an Ace, at most half the wager, once."""
    rnd = deal("mbs", "9S AD 9H KC", {1: [main("ann", 20)]})
    refused(rnd, "1 insure ann 10.01")
    refused(rnd, "1 insure bob 5")  # no wager on the box
    rnd.act("1 insure ann 10")
    refused(rnd, "1 insure ann 1")
    rnd = deal("mbs", "9S KD 9H KC", {1: [main("ann", 20)]})
    refused(rnd, "1 insure ann 5")


def test_000_3_15_no_draw_or_double_on_21() -> None:
    """000 3.15: a hand of 21 may not draw or double; play moves on."""
    rnd = deal("mbs", "9S 8S 7D 5H 9H 7C 4C KC", {1: [main("ann", 10)], 2: [main("bob", 10)]}, "1 hit")
    assert rnd.hand_to_act == (2, 1)
    for a in ("1 hit", "1 double", "1 stand"):
        refused(rnd, a)


def test_000_3_16_bust_hand_cannot_act() -> None:
    """000 3.16: a bust hand loses at once and takes no further decision."""
    rnd = deal("mbs", "KS KC 6D 6H 8H 9C KD 8S", {1: [main("ann", 10)], 2: [main("bob", 10)]}, "1 hit")
    assert rnd.boxes[1].hands[0].outcome == {"ann": "lose"}
    assert rnd.ledger.net()["ann"]["main"] == Decimal(-10)
    refused(rnd, "1 hit")


def test_000_3_11_4_1_no_rescue_for_a_player_not_on_the_hand() -> None:
    """000 3.11.4.1: each bettor in the box decides for his own wager, and only for it."""
    rnd = deal("mbs", "6S 9D 5H 2C 5C KD", {1: [main("ann", 20), main("bob", 10)]}, "1 double")
    refused(rnd, {"box": 1, "do": "rescue", "players": ["cat"]})
    assert rnd.can(Action.parse({"box": 1, "do": "rescue", "players": ["bob"]}))


def test_000_actions_refused_before_the_deal_and_after_the_round() -> None:
    """000 3.2, 3.6: no decision before the cards are dealt; none once the round is over."""
    rnd = make("mbs", "KS 9D 8H 8C", {1: [main("ann", 10)]})
    with pytest.raises(IllegalAction, match="bets are still open"):
        rnd.act("1 stand")
    rnd.close_bets()
    rnd.act("1 stand")
    assert rnd.is_over()
    with pytest.raises(IllegalAction, match="round is over"):
        rnd.act("1 hit")


def test_000_5_2_interruption_before_any_settlement_voids() -> None:
    """000 5.2 (nearest engine form): a round stopped before any interim settlement is void."""
    rnd = deal("mbs", "KS 9D 6H 8C", {1: [main("ann", 10)]})
    assert rnd.interrupt() == "void"
    assert rnd.result().status == "void" and rnd.result().net["ann"]["total"] == 0


def test_000_5_1_void_returns_everything() -> None:
    """000 5.1.1; rulings 1: a foreign card voids the round; the layout is empty and nobody is out of pocket."""
    rnd = deal("mbs", "JS AS 9D JH KC TD", {1: [main("ann", 10, pair=5)], 2: [main("bob", 10)]}, "1 hit")
    res = rnd.result()
    assert res.status == "void" and res.void_reason == "foreign card TD"
    assert rnd.ledger.on_layout() == 0
    assert all(d["total"] == 0 for d in res.net.values())


# ------------------------------------------------------------------------------------ 001 Federal
def test_001_at_most_three_bettors_per_box() -> None:
    """001 How to play: up to two other players may bet using the same box (three in all)."""
    rnd = make("federal", "KS 9D 8H", {1: [main("ann", 10), main("bob", 10), main("cat", 10)]})
    with pytest.raises(BetError, match="at most 3"):
        rnd.place_bet(1, "dan", "main", 10)
    rnd.place_bet(2, "dan", "main", 10)  # another box is fine


def test_001_box_total_within_table_maximum() -> None:
    """001 How to play: the total of all bets in a box must stay within the table maximum."""
    rnd = make("federal", "KS 9D 8H", {1: [main("ann", 9000)]})
    with pytest.raises(BetError, match="over the table maximum"):
        rnd.place_bet(1, "bob", "main", 1001)
    rnd.place_bet(1, "bob", "main", 1000)  # exactly 10,000


def test_001_box_total_within_table_minimum() -> None:
    """001 How to play: the total of all bets in a box must reach the table minimum (3 + 3 + 3 < 10)."""
    rnd = make("federal", "KS 9D 8H", {1: [main("ann", 3), main("bob", 3), main("cat", 3)]})
    before = snapshot(rnd)
    with pytest.raises(BetError, match="below the table minimum"):
        rnd.close_bets()
    assert snapshot(rnd) == before


def test_001_no_pair_bet() -> None:
    """001 offers no Pair bet (its pay table has none)."""
    rnd = make("federal", "KS 9D 8H", {1: [main("ann", 10)]})
    with pytest.raises(BetError, match="not offered"):
        rnd.place_bet(1, "ann", "pair", 5)


@pytest.mark.parametrize(
    "shoe", ["5S 9D 6H 8C", "2S 9D 3H 8C", "AS 9D AH 8C"], ids=["11", "5", "A-A=12-soft-stand-ok"]
)
def test_001_must_hit_on_11_or_less(shoe: str) -> None:
    """001 How to play: "you must hit if the point total of your dealt cards is 11 or less"; rulings 14
    (best total: A-A is 12 and may stand)."""
    rnd = deal("federal", shoe, {1: [main("ann", 10)]})
    if shoe.startswith("AS"):
        assert rnd.can(Action.parse("1 stand"))
        return
    assert "must draw" in refused(rnd, "1 stand")
    assert rnd.can(Action.parse("1 hit")) and rnd.can(Action.parse("1 double"))


def test_001_forced_draw_after_split() -> None:
    """001 How to play (forced draw) on a split hand: 8-2 may not stand."""
    rnd = deal("federal", "8S 6D 8H 2S 9S", {1: [main("ann", 10)]}, "1 split")
    refused(rnd, "1 stand")


def test_001_no_fourth_split_hand() -> None:
    """001 Splits: players may form up to 3 hands in each box."""
    rnd = deal("federal", "9S 7D 9H 9C 9D", {1: [main("ann", 10)]}, "1 split", "1 split")
    assert len(rnd.boxes[1].hands) == 3
    assert "at most 3 hands" in refused(rnd, "1 split")


def test_001_doubled_hand_one_card_only() -> None:
    """001 Doubles: a doubled hand receives one additional card only (even when below 12)."""
    rnd = deal("federal", "AS 9D 2H 7C 8C", {1: [main("ann", 20)]}, "1 double")
    refused(rnd, "1 hit")
    assert rnd.can(Action.parse("1 stand"))  # 10 on a doubled hand: no forced draw (rulings 14)


def test_001_no_forfeit_without_double() -> None:
    """001 Forfeits: a player who has not doubled must play the hand."""
    rnd = deal("federal", "6S 9D 5H 2C 8C", {1: [main("ann", 20)]})
    refused(rnd, "1 rescue")


def test_001_forfeit_is_decided_by_each_bettor() -> None:
    """rul 27 (001 Forfeits "Players may forfeit a doubled hand"): each bettor whose wager was doubled
    decides for his own wager, in FED too (before rul 27 the box forfeited together)."""
    rnd = deal("federal", "6S 9D 5H 2C 8C", {1: [main("ann", 20), main("bob", 10)]}, "1 double")
    refused(rnd, {"box": 1, "do": "rescue", "players": ["cat"]})
    assert rnd.can(Action.parse({"box": 1, "do": "rescue", "players": ["bob"]}))
    rnd.act({"box": 1, "do": "rescue", "players": ["bob"]})
    # ann keeps her doubled 13 (40) against 9-8 = 17: -40; bob forfeits his 10: -10
    assert rnd.is_over() and [str(c) for c in rnd.dealer] == ["9D", "8C"]
    net = rnd.ledger.net()
    assert net["ann"]["total"] == -40 and net["bob"]["total"] == -10
    # the option off (not a document's rule): the seated player decides for the box
    off = make(
        "federal", "6S 9D 5H 2C 8C", {1: [main("ann", 20), main("bob", 10)]}, {"rescue_each_bettor": False}
    )
    off.close_bets()
    off.act("1 double")
    refused(off, {"box": 1, "do": "rescue", "players": ["bob"]})


def test_001_surrender_is_decided_by_the_controlling_player() -> None:
    """001 Surrenders: the controlling player surrenders, the others choose; they cannot surrender alone."""
    rnd = deal("federal", "9S KD 7H 6C 8C", {1: [main("ann", 20), main("bob", 10)]})
    refused(rnd, {"box": 1, "do": "surrender", "players": ["bob"]})
    refused(rnd, {"box": 1, "do": "surrender", "players": ["ann", "zed"]})


def test_001_surrender_only_against_ace_or_picture() -> None:
    """001 Surrenders: only if the Dealer's first card is an Ace, King, Queen or Jack."""
    rnd = deal("federal", "9S 8D 7H 6C 8C", {1: [main("ann", 20)]})
    refused(rnd, "1 surrender")


def test_001_insurance_before_any_additional_card() -> None:
    """001 Insurance: only against the Dealer's Ace, up to half the initial wager, before any player on
    the table receives additional cards."""
    rnd = deal("federal", "5S 9S AD 6H 7H 2C 3C", {1: [main("ann", 10)], 2: [main("bob", 20)]})
    refused(rnd, "2 insure bob 10.5")
    assert rnd.can(Action.parse("2 insure bob 10"))
    rnd.act("1 hit")
    refused(rnd, "2 insure bob 10")


def test_001_surrender_play_on_gets_no_more_cards() -> None:
    """001 Surrenders: remaining players who play on are not dealt additional cards to the hand."""
    rnd = deal(
        "federal",
        "9S KD 7H 6C 8C",
        {1: [main("ann", 20), main("bob", 10)]},
        {"box": 1, "do": "surrender", "players": ["ann"]},
    )
    assert rnd.is_over()
    assert [str(c) for c in rnd.boxes[1].hands[0].cards] == ["9S", "7H"]
