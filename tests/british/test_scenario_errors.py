"""The scenario runner's errors: ScenarioError for malformed input, IllegalAction for illegal actions."""

from __future__ import annotations

from typing import Any

import pytest

from pontoon.british import run_british_scenario
from pontoon.errors import BetError, IllegalAction, ScenarioError

BASE: dict[str, Any] = {
    "rules": "british",
    "players": ["ann"],
    "banker": "dan",
    "shoe": "9S 8H 7C 9D KD 9C",
    "actions": ["ann stake 5", "ann twist"],
}


def run(**changes: Any) -> dict[str, Any]:
    return run_british_scenario({**BASE, **changes})


@pytest.mark.parametrize(
    "changes, match",
    [
        ({"rules": "mbs"}, "not a British preset"),
        ({"rules": "nope"}, "unknown preset"),
        ({"options": {"decks": 2}}, "unknown rule field 'decks'"),
        ({"options": {"stick_minimum": 12}}, "stick_minimum=12"),
        ({"players": []}, "players"),
        ({"players": ["dan"]}, "distinct"),
        ({"banker": 5}, "banker"),
        ({"shoe": "9S XX"}, "shoe: bad card 'XX'"),
        ({"actions": ["ann"]}, "SEAT VERB"),
        ({"actions": ["ann fly"]}, "unknown verb 'fly'"),
        ({"actions": ["zed stake 5"]}, "unknown seat 'zed'"),
        ({"kitty": 5}, "only for Shoot Pontoon"),
        ({"rules": "shoot", "kitty": 1000}, "kitty 1000 is out of range"),
        ({"surprise": 1}, "unknown scenario keys"),
        ({"actions": ["ann stake 5"]}, "actions end before the round is over: ann is to act"),
    ],
)
def test_malformed(changes: dict[str, Any], match: str) -> None:
    with pytest.raises(ScenarioError, match=match):
        run(**changes)


def test_illegal_action_names_action_actor_and_legal_actions() -> None:
    with pytest.raises(
        IllegalAction,
        match=r"action 2 'ann split': ann split is not legal now; ann is to act on hand 1 \(play\); legal actions: buy 5..10, twist, stick",
    ):
        run(actions=["ann stake 5", "ann split"])
    with pytest.raises(
        IllegalAction, match=r"action 1 'dan twist': dan twist: not dan's turn; ann is to act"
    ):
        run(actions=["dan twist"])
    with pytest.raises(BetError, match="accepted 1 to 100"):
        run(actions=["ann stake 500"])
    with pytest.raises(IllegalAction, match="round is already over"):
        run(actions=["ann stake 5", "ann twist", "dan stick"])


def test_object_actions_and_auto_pass() -> None:
    # the shoot window is passed automatically when the next action is not the shooter's
    out = run_british_scenario(
        {
            "rules": "shoot",
            "kitty": 20,
            "players": ["ann"],
            "banker": "dan",
            "shoe": "9S 8H 7C 9D KD",
            "actions": [{"seat": "ann", "do": "stake", "amount": 5}, "ann twist"],
        }
    )
    assert out["net"]["ann"] == {"stake": -5, "shoot": 0, "total": -5} and out["kitty"] == 20
