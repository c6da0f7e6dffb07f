"""Golden scenarios and API tests for the RWS presets ``rws-plus`` and ``rws-pandemonium``.

Clauses are cited as ``004 N`` (``004_61bddab2659c7787.txt``, Pontoon Plus v5) and ``002 N``
(``002_fa7f36232f494aba.txt``, Pontoon Pandemonium v4); "rul N" is ``shared/spec/rulings.md``.

* ``test_scenario``: every file under ``scenarios/rws-plus`` and ``scenarios/rws-pandemonium`` is played
  through the scenario runner and must match its hand-computed ``expect``.
* The other tests use the Python API for what a scenario file cannot express: refusals (which must raise
  BetError / IllegalAction and leave the round unchanged), a side bet orphaned before the deal (004 5.15),
  and the return value of ``interrupt()`` (004 5.4).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pontoon.casino.round import CasinoRound, Phase
from pontoon.errors import BetError, IllegalAction, ScenarioError
from pontoon.rules import find_rules
from pontoon.scenario_runner import compare, run_scenario
from pontoon.shoe import Shoe

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIRS = [ROOT / "scenarios" / "rws-plus", ROOT / "scenarios" / "rws-pandemonium"]
FILES = sorted(p for d in SCENARIO_DIRS for p in d.glob("*.json"))
D = Decimal


# ------------------------------------------------------------------------------------- golden files
def test_scenario_files_exist() -> None:
    for d in SCENARIO_DIRS:
        assert len(list(d.glob("*.json"))) >= 30, f"too few scenarios in {d}"


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    assert data["rules"] == path.parent.name, "a scenario lives in the folder of its preset"
    assert data.get("description"), "every scenario names the clause(s) it covers"
    assert "expect" in data
    result = run_scenario(data)
    diffs = compare(data["expect"], result)
    assert not diffs, f"{path.name}: " + "; ".join(diffs)
    # money is conserved: the house pays what the players win
    # (compared as decimals: a JSON number such as 49.995 is not a binary float sum)
    assert Decimal(str(result["house"])) == -sum(Decimal(str(d["total"])) for d in result["net"].values())


# ------------------------------------------------------------------------------------- helpers
def new_round(preset: str, shoe: str, jackpot: list[int] | None = None, **options: Any) -> CasinoRound:
    rules = find_rules(preset)
    if options:
        rules = rules.with_(**options)
    return CasinoRound(rules, Shoe.stacked_from(shoe, pack=rules.pack), jackpot=jackpot or [])


def snapshot(rnd: CasinoRound) -> tuple[Any, ...]:
    """Everything a refused bet or action must leave unchanged."""
    return (
        rnd.phase,
        len(rnd.ledger.transfers),
        rnd.shoe.dealt,
        len(rnd.log),
        rnd.hand_to_act,
        tuple(str(c) for c in rnd.dealer),
        tuple(
            (h.box, h.index, tuple(str(c) for c in h.cards), h.doubled, h.finished) for h in rnd.all_hands()
        ),
        tuple(
            (n, x.player, x.main, x.placed, tuple(sorted(x.side.items())), x.insurance)
            for n, b in sorted(rnd.boxes.items())
            for x in b.bettors
        ),
    )


def net(rnd: CasinoRound) -> dict[str, dict[str, Decimal]]:
    return rnd.result().net


BOTH = ["rws-plus", "rws-pandemonium"]


# ------------------------------------------------------------------------------------- betting
@pytest.mark.parametrize("preset", BOTH)
def test_side_bet_without_main_wager_refused(preset: str) -> None:
    """004 3.9, 5.15; 002 3.3: a side bet needs an initial bet on its box; refused, nothing changes."""
    rnd = new_round(preset, "9S 8D 9H QD")
    rnd.place_bet(1, "ann", "main", 10)
    before = snapshot(rnd)
    with pytest.raises(BetError):
        rnd.place_bet(2, "bob", "pair", 5)
    assert snapshot(rnd) == before
    assert not rnd.can_place_bet(2, "bob", "pair", 5)


def test_orphaned_side_bet_returned_at_close() -> None:
    """004 5.15: a Player Pair / Bonus left on a box without an initial bet is removed and returned."""
    rnd = new_round("rws-plus", "KS 8D 9S QD")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.place_bet(1, "bob", "pair", 5)
    rnd.place_bet(1, "bob", "bonus", 5)
    rnd.place_bet(2, "cat", "main", 10)
    rnd.withdraw_bet(1, "ann", "main")  # box 1 has no initial bet any more
    rnd.close_bets()
    assert rnd.boxes[1].hands == []  # no cards to the orphaned box (004 3.11)
    assert [e for e in rnd.log if e.kind == "side_bet_returned"]
    assert rnd.ledger.balances["bob"] == 0  # both side bets back in full
    rnd.stand(2)  # cat: K-9 = 19 against the dealer 8-Q = 18
    res = net(rnd)
    assert res["bob"]["total"] == 0
    assert res["ann"]["total"] == 0
    assert res["cat"]["main"] == 10


def test_over_box_maximum_refused_seated_first() -> None:
    """004 5.1: bets over the box maximum are rejected; the seated player has priority, a standing player
    may add only up to the maximum."""
    rnd = new_round("rws-plus", "KS 8D 9S QD", table_max=100)
    rnd.place_bet(1, "ann", "main", 80)
    before = snapshot(rnd)
    with pytest.raises(BetError, match="at most 20 more"):
        rnd.place_bet(1, "bob", "main", 30)
    assert snapshot(rnd) == before
    rnd.place_bet(1, "bob", "main", 20)
    rnd.close_bets()
    rnd.stand(1)
    res = net(rnd)
    assert (res["ann"]["main"], res["bob"]["main"]) == (80, 20)


@pytest.mark.parametrize("preset", BOTH)
def test_box_below_minimum_refused_at_close(preset: str) -> None:
    """004 5.2: a box below the minimum is not dealt; the player may increase (here: withdraw and
    re-place) or withdraw his bet. Nothing is dealt by the refused close."""
    rnd = new_round(preset, "KS 8D 9S QD")
    rnd.place_bet(1, "ann", "main", 5)
    before = snapshot(rnd)
    with pytest.raises(BetError, match="below the table minimum"):
        rnd.close_bets()
    assert snapshot(rnd) == before
    assert rnd.phase is Phase.BETTING and rnd.shoe.dealt == 0
    rnd.withdraw_bet(1, "ann", "main")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    rnd.stand(1)
    assert net(rnd)["ann"]["main"] == 10


@pytest.mark.parametrize("preset", BOTH)
def test_no_more_bets_after_close(preset: str) -> None:
    """004 3.10, 5.8; 002 3.2, 5.2: after "No more bets" no bet may be placed, increased or withdrawn."""
    rnd = new_round(preset, "9S 8D 7H QD")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    before = snapshot(rnd)
    with pytest.raises(BetError):
        rnd.place_bet(2, "bob", "main", 10)
    with pytest.raises(BetError):
        rnd.place_bet(1, "ann", "pair", 5)
    with pytest.raises(BetError):
        rnd.withdraw_bet(1, "ann", "main")
    assert snapshot(rnd) == before


@pytest.mark.parametrize("preset", BOTH)
def test_side_bets_settled_before_subsequent_deal(preset: str) -> None:
    """004 3.13, 5.16; 002 3.7: the Player Pair is settled at the interim settlement, before any
    further card (here 8-8: 11 to 1 already paid when the first decision is due)."""
    rnd = new_round(preset, "8S 9H 8D KC")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.place_bet(1, "ann", "pair", 5)
    rnd.close_bets()
    assert rnd.shoe.dealt == 3
    assert rnd.ledger.balances["ann"] == D(-10) + D(55)  # main on the layout, pair paid
    rnd.stand(1)
    assert net(rnd)["ann"] == {"main": D(-10), "pair": D(55), "total": D(45)}


# ------------------------------------------------------------------------------------- decisions refused
@pytest.mark.parametrize("preset", BOTH)
def test_insurance_more_than_half_refused(preset: str) -> None:
    """004 3.17.1; 002 3.9: insurance must be half or less than half the initial bet."""
    rnd = new_round(preset, "9S AD 9H 7C")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.close_bets()
    before = snapshot(rnd)
    with pytest.raises(IllegalAction, match="at most half"):
        rnd.insure(1, "ann", "10.01")
    assert snapshot(rnd) == before
    assert rnd.can_insure(1, "ann", 10)


@pytest.mark.parametrize("preset", BOTH)
def test_insurance_and_surrender_window_closes_with_first_card(preset: str) -> None:
    """004 3.17.1, 3.18; 002 3.9, 3.10: only before any additional card is dealt to any player
    (rul 8, 9); also: no other player may insure another player's box (004 3.17)."""
    rnd = new_round(preset, "9S 9C AD 3H 8H KD 9D")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.place_bet(2, "bob", "main", 20)
    rnd.close_bets()
    with pytest.raises(IllegalAction, match="no main wager"):
        rnd.insure(2, "ann", 5)
    rnd.hit(1)  # 9-3 draws the 9D: the window is closed
    before = snapshot(rnd)
    with pytest.raises(IllegalAction):
        rnd.insure(2, "bob", 10)
    with pytest.raises(IllegalAction):
        rnd.surrender(2)
    assert snapshot(rnd) == before


@pytest.mark.parametrize("preset", BOTH)
def test_surrender_refused_against_low_card_and_after_split(preset: str) -> None:
    """004 3.18, 3.24; 002 3.10, 3.13: surrender only against an Ace or picture, never after a split."""
    rnd = new_round(preset, "9S 9D 7H 7C")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.close_bets()
    before = snapshot(rnd)
    with pytest.raises(IllegalAction, match="Ace or a picture"):
        rnd.surrender(1)
    assert snapshot(rnd) == before

    rnd = new_round(preset, "8S KD 8H 2C 9C")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.close_bets()
    rnd.verify_surrender(1)  # legal before the split
    rnd.split(1)
    before = snapshot(rnd)
    with pytest.raises(IllegalAction):
        rnd.surrender(1)
    assert snapshot(rnd) == before


@pytest.mark.parametrize("preset", BOTH)
def test_stand_below_12_refused(preset: str) -> None:
    """004 3.22; 002 3.17: below 12 the hand must draw; stand is refused, hit/double stay legal."""
    rnd = new_round(preset, "5S 9D 6H 3C 8D")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    before = snapshot(rnd)
    with pytest.raises(IllegalAction, match="below 12 must draw"):
        rnd.stand(1)
    assert snapshot(rnd) == before
    assert rnd.can_hit(1) and rnd.can_double(1)
    rnd.hit(1)  # 5-6-3 = 14
    rnd.stand(1)
    assert rnd.is_over()


@pytest.mark.parametrize("preset", BOTH)
def test_split_limits(preset: str) -> None:
    """004 3.24.2; 002 3.13: at most four hands; split Aces once only, one card each, no double."""
    rnd = new_round(preset, "8S 6C 8H 8D 8C 8H")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    for _ in range(3):
        rnd.split(1)
    assert len(rnd.boxes[1].hands) == 4
    before = snapshot(rnd)
    with pytest.raises(IllegalAction, match="at most 4 hands"):
        rnd.split(1)  # hand 1 is 8-8 again
    assert snapshot(rnd) == before

    rnd = new_round(preset, "AS 6C AH 5D 9S KD 8C")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    assert rnd.can_double(1)  # A-A may double before splitting (soft 12 is not a Pontoon or soft 21)
    rnd.split(1)
    # each Ace took exactly one card and no decision remains: the dealer played at once
    assert rnd.is_over()
    assert [len(h.cards) for h in rnd.all_hands()] == [2, 2]


@pytest.mark.parametrize("preset", BOTH)
def test_split_aces_cannot_resplit_or_double(preset: str) -> None:
    """004 3.24.2, 3.25 (ii): Aces split once only; a split Ace pair cannot double."""
    rnd = new_round(preset, "AS 6C AH AD 9S KD 8C")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    rnd.split(1)  # hand 1 draws AD: A-A again, but Aces split once only -> finished
    assert rnd.is_over()
    assert [[str(c) for c in h.cards] for h in rnd.all_hands()] == [["AS", "AD"], ["AH", "9S"]]


@pytest.mark.parametrize("preset", BOTH)
def test_double_refusals(preset: str) -> None:
    """004 1.5, 3.25; 002 3.14: a double is at most the initial bet, only on the first two cards,
    one card only, and not below the table minimum (rul 12)."""
    rnd = new_round(preset, "2S 9D 3H 4C 9C 5C KD")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.close_bets()
    before = snapshot(rnd)
    with pytest.raises(IllegalAction, match="at most the original wager"):
        rnd.double(1, 25)
    with pytest.raises(IllegalAction, match="table minimum"):
        rnd.double(1, 5)
    assert snapshot(rnd) == before
    rnd.hit(1)  # 2-3-4 = 9
    with pytest.raises(IllegalAction, match="first two cards"):
        rnd.double(1)
    rnd.hit(1)  # 18
    rnd.stand(1)
    assert rnd.is_over()

    rnd = new_round(preset, "6S 9D 5H 2C KD")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.close_bets()
    rnd.double(1)  # 6-5-2 = 13
    before = snapshot(rnd)
    with pytest.raises(IllegalAction):
        rnd.hit(1)  # 004 3.25: only one additional card
    assert snapshot(rnd) == before


@pytest.mark.parametrize("preset", BOTH)
def test_no_rescue_on_doubled_21(preset: str) -> None:
    """004 3.25.3, 3.26; 002 3.14, 3.15; rul 13: a doubled 21 is paid 1 to 1 at once; no rescue."""
    rnd = new_round(preset, "5S 9D 5H AC")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.close_bets()
    rnd.double(1)  # 5-5-A = 21 (the doubling card's Ace counts 11)
    assert rnd.is_over()
    assert net(rnd)["ann"]["main"] == 40
    with pytest.raises(IllegalAction):
        rnd.rescue(1)


def test_standing_bettor_may_decline_in_plus_only() -> None:
    """004 3.24.1, 3.25.1 let a standing bettor decline a split or double; 002 has no such rule, so the
    standing bettors follow the seated player (rul 15)."""
    plus = new_round("rws-plus", "8S 9D 8H KC 9S 8C")
    plus.place_bet(1, "ann", "main", 20)
    plus.place_bet(1, "bob", "main", 10)
    plus.close_bets()
    assert plus.can_split(1, decline=["bob"]) and plus.can_double(1, decline=["bob"])
    with pytest.raises(IllegalAction, match="only standing bettors"):
        plus.split(1, decline=["ann"])  # the seated player cannot decline his own split

    pan = new_round("rws-pandemonium", "8S 9D 8H KC 9S 8C")
    pan.place_bet(1, "ann", "main", 20)
    pan.place_bet(1, "bob", "main", 10)
    pan.close_bets()
    before = snapshot(pan)
    with pytest.raises(IllegalAction, match="follow the split"):
        pan.split(1, decline=["bob"])
    with pytest.raises(IllegalAction, match="follow the double"):
        pan.double(1, decline=["bob"])
    assert snapshot(pan) == before


@pytest.mark.parametrize("preset", BOTH)
def test_standing_bettors_follow_surrender(preset: str) -> None:
    """rul 9 (004 3.18-3.19, 002 3.10): in PLUS and PAN the standing bettors follow the seated
    player's surrender; a partial surrender is refused."""
    rnd = new_round(preset, "9S KC 7D 8H")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.place_bet(1, "bob", "main", 10)
    rnd.close_bets()
    before = snapshot(rnd)
    with pytest.raises(IllegalAction, match="follow the seated player's surrender"):
        rnd.surrender(1, players=["ann"])
    assert snapshot(rnd) == before


def test_walk_away_refused_with_other_bettors() -> None:
    """004 5.3: the House draws for an absent player only when he is the only player on the box."""
    rnd = new_round("rws-plus", "2S 9D 7H 7C")
    rnd.place_bet(1, "ann", "main", 20)
    rnd.place_bet(1, "bob", "main", 10)
    rnd.close_bets()
    before = snapshot(rnd)
    with pytest.raises(IllegalAction, match="only bettor"):
        rnd.walk_away(1)
    assert snapshot(rnd) == before


# ------------------------------------------------------------------------------------- interruption, void
def test_interrupt_before_any_outcome_voids() -> None:
    """004 5.4.2, 5.17: no bet has won or lost yet: the round is void and every bet returned."""
    rnd = new_round("rws-plus", "9S 5C 7D KD")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.close_bets()
    assert rnd.interrupt() == "void"
    assert rnd.is_over()
    res = rnd.result()
    assert res.status == "void" and "5.4.2" in (res.void_reason or "")
    assert res.net["ann"]["total"] == 0
    assert rnd.ledger.on_layout() == 0


def test_interrupt_after_an_outcome_continues() -> None:
    """004 5.4.1: box 1's Pontoon was paid at the interim settlement (an outcome is established): play
    continues after the interruption and the round is concluded."""
    rnd = new_round("rws-plus", "AS 9S 5C KH 7D KD 8H")
    rnd.place_bet(1, "ann", "main", 10)
    rnd.place_bet(2, "bob", "main", 10)
    rnd.close_bets()
    before = snapshot(rnd)
    assert rnd.interrupt() == "continue"
    assert snapshot(rnd)[:3] == before[:3]  # same phase, no money moved, no card dealt
    rnd.stand(2)  # 9-7 = 16; dealer 5-K-8 busts
    res = rnd.result()
    assert res.status == "settled"
    assert res.net["ann"]["main"] == 15 and res.net["bob"]["main"] == 10


@pytest.mark.parametrize("preset", BOTH)
def test_void_returns_interim_payments(preset: str) -> None:
    """004 5.5.1, 5.17; 002 5.1.1; rul 1: a foreign card voids the round; the Pontoon and the side
    bets already paid at the interim settlement are returned too."""
    side = "bonus" if preset == "rws-plus" else "pandemonium"
    rnd = new_round(preset, "AS 9S 5C KH 7D TD", jackpot=[50])
    rnd.place_bet(1, "ann", "main", 10)
    rnd.place_bet(1, "ann", side, 5)
    rnd.place_bet(2, "bob", "main", 10)
    rnd.close_bets()
    assert rnd.ledger.balances["ann"] > 0  # Pontoon and side bet paid
    rnd.hit(2)  # draws the ten: foreign to the 48-card pack
    res = rnd.result()
    assert res.status == "void" and res.void_reason == "foreign card TD"
    assert all(d["total"] == 0 for d in res.net.values())
    assert rnd.ledger.on_layout() == 0


def test_jackpot_multiplier_must_be_on_the_meter() -> None:
    """002 4.3: the Games Multiplier is one of 2, 3, 5, 10, 20, 25, 50, 100."""
    with pytest.raises(ScenarioError, match="not on the meter"):
        run_scenario(
            {
                "rules": "rws-pandemonium",
                "shoe": "AS 9D KH",
                "boxes": {"1": [{"player": "ann", "main": 20, "pandemonium": 5}]},
                "jackpot": [7],
                "actions": [],
            }
        )


def test_pandemonium_not_offered_in_plus_nor_bonus_in_pandemonium() -> None:
    """004 3.9 offers Player Pair and Bonus; 002 3.3 offers Pontoon Pandemonium and Player Pair."""
    plus = new_round("rws-plus", "9S 8D 9H")
    plus.place_bet(1, "ann", "main", 10)
    with pytest.raises(BetError):
        plus.place_bet(1, "ann", "pandemonium", 5)
    pan = new_round("rws-pandemonium", "9S 8D 9H")
    pan.place_bet(1, "ann", "main", 10)
    with pytest.raises(BetError):
        pan.place_bet(1, "ann", "bonus", 5)
