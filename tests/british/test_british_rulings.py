"""Rulings 28-31 (shared/spec/rulings.md), the British readings, through the library API; the golden
files beside them are scenarios/british/rul28-*.json to rul31-*.json."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.errors import IllegalAction, PontoonError, ScenarioError
from pontoon.rules import find_rules
from pontoon.rules.british import BritishRules
from pontoon.scenario_runner import run_scenario

D = Decimal
ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------------------------
# rul 28: the banker counts among the players for "8 or more"
def _british() -> BritishRules:
    r = find_rules("british")
    assert isinstance(r, BritishRules)
    return r


@pytest.mark.parametrize(("seats", "packs"), [(2, 1), (7, 1), (8, 2), (10, 2)])
def test_rul28_table_packs_count_the_banker(seats: int, packs: int) -> None:
    rules = _british()
    names = [f"s{i}" for i in range(seats)]
    game = BritishGame(rules, names, banker=names[0], rng=1)
    assert game.pack.packs == packs == rules.packs_for(seats)
    assert len(game.pack) == 52 * packs
    # banker plus seven players: eight people, two packs (not 7 players -> one)
    assert len(game.players) == seats - 1


def test_rul28_number_of_packs_is_a_rule_field() -> None:
    rules = _british()
    if "packs" in type(rules).model_fields:
        fixed = rules.with_(packs=2)
        game = BritishGame(fixed, ["a", "b", "c"], banker="a", rng=1)
        assert len(game.pack) == 104
    lower = rules.with_(two_packs_from=3)
    assert len(BritishGame(lower, ["a", "b", "c"], banker="a", rng=1).pack) == 104
    assert len(BritishGame(lower, ["a", "b"], banker="a", rng=1).pack) == 52


def test_rul28_a_stacked_pack_may_repeat_a_card_only_with_two_packs() -> None:
    path = ROOT / "scenarios" / "british" / "rul28-banker-counts-two-packs-for-eight.json"
    data = json.loads(path.read_text())
    assert run_scenario(data)["status"] == "settled"
    # the same deal without gus: a banker and six players are seven people, one pack: KS twice is refused
    data["players"].remove("gus")
    cards = data["shoe"].split()
    data["shoe"] = " ".join(c for i, c in enumerate(cards) if i not in (6, 14))  # gus's QH and 8D
    data["actions"] = [a for a in data["actions"] if not a.startswith("gus ")]
    with pytest.raises(ScenarioError, match="KS appear.*1 pack"):
        run_scenario(data)
    with pytest.raises(PontoonError):
        BritishPack.stacked_from("KS KS", packs=1)
    assert len(BritishPack.stacked_from("KS KS KS", packs=None)) == 3  # no table size given: no check


# --------------------------------------------------------------------------------------------
# rul 29-31: the British readings
def _shoot_round(shoe: str, kitty: int = 30) -> BritishRound:
    rules = find_rules("shoot")
    assert isinstance(rules, BritishRules)
    return BritishRound(rules, ["ann"], "dan", BritishPack.stacked_from(shoe), kitty=D(kitty))


def test_rul31_shoot_on_the_new_split_hand_before_its_card() -> None:
    rnd = _shoot_round("8S TC 8H 7C 3S KD 4D KH")
    rnd.act("ann", "stake", 5)
    rnd.act("ann", "pass")
    rnd.act("ann", "split")
    assert rnd.phase == "split_shoot"
    assert [len(h.cards) for h in rnd.hands] == [1, 1]  # no new card yet
    rnd.act("ann", "shoot", 8)
    assert [len(h.cards) for h in rnd.hands] == [2, 2]
    assert rnd.hands[1].shoot == 8


def test_rul31_a_fourth_card_shoot_commits_the_player() -> None:
    rnd = _shoot_round("8S TC 8H 7C 3S KD 4D KH")
    for verb, amt in (("stake", 5), ("pass", None), ("split", None), ("shoot", 8), ("twist", None)):
        rnd.act("ann", verb, amt)
    assert "stick" in [a.verb for a in rnd.legal_actions("ann")]  # 15 in three cards
    rnd.act("ann", "shoot", 5)
    verbs = [a.verb for a in rnd.legal_actions("ann")]
    assert "stick" not in verbs and "twist" in verbs
    with pytest.raises(IllegalAction):
        rnd.act("ann", "stick")


def test_rul29_equal_pontoons_go_to_the_banker() -> None:
    rules = _british().with_(ace_picture_beats_ace_ten=True)
    rnd = BritishRound(rules, ["ann", "bob"], "dan", BritishPack.stacked_from("AS AH AC KS TD QC"))
    rnd.act("ann", "stake", 5)
    rnd.act("bob", "stake", 5)
    # dan A-Q (ace and picture); ann A-K: equal rank -> banker collects double; bob A-10 lower
    assert rnd.is_over()
    net = rnd.net()
    assert net["ann"]["total"] == -10 and net["bob"]["total"] == -10 and rnd.next_banker == "dan"
