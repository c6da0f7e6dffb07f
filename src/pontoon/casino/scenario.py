"""The casino part of the scenario runner (spec: shared/spec/scenario-format.md).

``run_casino_scenario(data)`` plays exactly one round from a stacked shoe through the real round
engine and returns the settlement as a JSON-ready dict. Malformed input raises ScenarioError, an
illegal action raises IllegalAction; nothing is settled or printed in either case.
"""

from __future__ import annotations

from typing import Any

from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.errors import ScenarioError
from pontoon.money import money_json
from pontoon.rules import CasinoRules, apply_overrides, find_rules
from pontoon.shoe import Shoe

TOP_KEYS = {
    "rules",
    "options",
    "shoe",
    "boxes",
    "jackpot",
    "actions",
    "expect",
    "description",
    "name",
    "//",
    "cites",
}
WAGER_KINDS = ("main", "pair", "bonus", "pandemonium")


def build_round(data: dict[str, Any]) -> tuple[CasinoRound, list[Action]]:
    extra = set(data) - TOP_KEYS
    if extra:
        raise ScenarioError(f"unknown scenario keys {sorted(extra)}; accepted: {sorted(TOP_KEYS)}")
    rules = find_rules(str(data.get("rules", "")))
    if not isinstance(rules, CasinoRules):
        raise ScenarioError(f"preset {rules.preset!r} is not a casino game")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise ScenarioError("'options' must be an object of rule fields, e.g. {\"decks\": 6}")
    if options:
        rules = apply_overrides(rules, options, source="options")
    shoe_spec = data.get("shoe")
    if not isinstance(shoe_spec, str | list) or (
        isinstance(shoe_spec, list) and not all(isinstance(c, str) for c in shoe_spec)
    ):
        raise ScenarioError("'shoe' must be a string of cards like \"7S 9H QD\" (or a list of card strings)")
    try:
        shoe = Shoe.stacked_from(shoe_spec, pack=rules.pack)
    except ValueError as err:
        raise ScenarioError(f"shoe: {err}") from None
    jackpot = data.get("jackpot", [])
    if not isinstance(jackpot, list) or not all(
        isinstance(m, int) and not isinstance(m, bool) for m in jackpot
    ):
        raise ScenarioError("'jackpot' must be a list of whole-number multipliers, e.g. [25]")
    rnd = CasinoRound(rules, shoe, jackpot=jackpot)
    boxes = data.get("boxes")
    if not isinstance(boxes, dict) or not boxes:
        raise ScenarioError(
            '\'boxes\' must map box numbers to lists of bettors, e.g. {"1": [{"player": "ann", "main": 10}]}'
        )
    entries: list[tuple[int, str, str, Any]] = []
    for key, bettors in boxes.items():
        try:
            box = int(key)
        except (TypeError, ValueError):
            raise ScenarioError(f"box key {key[:20]!r} is not a box number") from None
        if not 1 <= box <= rules.max_boxes:
            raise ScenarioError(f"box {key[:20]!r} does not exist: boxes are 1 to {rules.max_boxes}")
        if not isinstance(bettors, list) or not bettors:
            raise ScenarioError(f"box {key}: expected a non-empty list of bettors")
        for b in bettors:
            if not isinstance(b, dict) or not isinstance(b.get("player"), str):
                raise ScenarioError(f"box {key}: each bettor is an object with a 'player' name and wagers")
            bad = set(b) - {"player", *WAGER_KINDS}
            if bad:
                raise ScenarioError(
                    f"box {key}, {b['player']}: unknown wager kinds {sorted(bad)}; accepted: {', '.join(WAGER_KINDS)}"
                )
            for kind in WAGER_KINDS:
                if kind in b:
                    entries.append((box, b["player"], kind, b[kind]))
    # main wagers first (a side bet needs a main wager on its box), in box and seat order
    for box, player, kind, amount in sorted(entries, key=lambda e: (e[2] != "main", e[0])):
        rnd.place_bet(box, player, kind, amount)
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("'actions' must be a list")
    if not all(isinstance(a, str | dict) for a in actions):
        raise ScenarioError('each action is a string such as "hit 1" (or an action object)')
    return rnd, [Action.parse(a) for a in actions]


def run_casino_scenario(data: dict[str, Any]) -> dict[str, Any]:
    rnd, actions = build_round(data)
    rnd.close_bets()
    for a in actions:
        if rnd.is_over() and rnd.void_reason is not None and rnd.shoe.dealt == 0:
            break  # void at the deal (rul 38, 004 5.5.2): the round never took place, its actions do not apply
        if rnd.is_over():
            raise ScenarioError(f"action '{a}' comes after the round is over")
        rnd.act(a)
    if not rnd.is_over():
        legal = ", ".join(str(a) for a in rnd.legal_actions())
        where = rnd.hand_to_act
        raise ScenarioError(
            f"the actions ended before the round did: box {where[0]} hand {where[1]} is to act; legal: {legal}"
            if where
            else f"the actions ended before the round did; legal: {legal}"
        )
    return result_json(rnd)


def result_json(rnd: CasinoRound) -> dict[str, Any]:
    res = rnd.result()
    return {
        "status": res.status,
        "void_reason": res.void_reason,
        "dealer": list(res.dealer),
        "hands": [
            {"box": h.box, "hand": h.hand, "cards": list(h.cards), "result": h.result} for h in res.hands
        ],
        "net": {p: {k: money_json(v) for k, v in d.items()} for p, d in res.net.items()},
        "house": money_json(res.house),
    }
