"""Scenario runner for the British game (scenario-format.md, "British game").

``run_british_scenario(data: dict) -> dict`` plays exactly one round from a stacked pack through
the real round engine and returns the settlement as JSON-ready values.

Input keys: ``rules`` (``british`` / ``shoot`` or an alias), ``options`` (rule field overrides),
``players`` (from the banker's left), ``banker``, ``shoe`` (cards top first), ``kitty`` (Shoot
Pontoon: what the banker puts in the kitty; default ``kitty_max``), ``actions`` (``"SEAT VERB [AMOUNT]"``
strings, or objects ``{"seat": ..., "do": ..., "amount": ...}``). ``expect``, ``description``,
``title``, ``note`` and ``comment`` are ignored.

Verbs: ``stake AMOUNT``, ``buy AMOUNT`` (the amount added to the stake), ``twist``, ``stick``,
``split``, ``burn``, ``shoot AMOUNT``, ``pass`` (decline a shoot window or the banker's doubling),
``double`` (the banker, with ``banker_may_double``); the banker's ``twist`` and ``stick``.

Optional decisions need no action: when the seat to act is at a shoot window, or the banker may
double, and the next action is not that seat's ``shoot``/``pass``/``double``, the runner passes for
it; when a hand's only legal action is ``stick`` (a hard 21) and the next action is not that seat's,
it sticks.

Errors: ScenarioError for malformed input; IllegalAction (BetError for a bad amount) for an
action that is not legal at that moment, naming the action, who is to act and the legal actions.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.errors import BetError, IllegalAction, PontoonError, ScenarioError
from pontoon.money import money_json, to_money
from pontoon.rules.british import BritishRules
from pontoon.rules.load import apply_overrides, find_rules

ALLOWED_KEYS = {
    "rules",
    "options",
    "players",
    "banker",
    "shoe",
    "kitty",
    "actions",
    "expect",
    "description",
    "title",
    "note",
    "comment",
    "clause",
    "clauses",
}
VERBS = {"stake", "buy", "twist", "stick", "split", "burn", "shoot", "pass", "double"}


def _rules(data: dict[str, Any]) -> BritishRules:
    name = data.get("rules")
    if not isinstance(name, str):
        raise ScenarioError('scenario needs "rules": "british" or "shoot"')
    try:
        base = find_rules(name)
    except PontoonError as err:
        raise ScenarioError(str(err)) from None
    if not isinstance(base, BritishRules):
        raise ScenarioError(f"rules {name!r} is not a British preset: accepted british, shoot")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ScenarioError('"options" must be an object of rule fields, e.g. {"stick_minimum": 16}')
    if not options:
        return base
    try:
        return apply_overrides(base, options, source="options")  # type: ignore[return-value]
    except PontoonError as err:
        raise ScenarioError(str(err)) from None


def _parse_action(item: Any, n: int) -> tuple[str, str, str | None]:
    if isinstance(item, str):
        parts = item.split()
        if len(parts) not in (2, 3):
            raise ScenarioError(f'action {n} {item!r}: expected "SEAT VERB [AMOUNT]", e.g. "ann stake 5"')
        seat, verb = parts[0], parts[1].lower()
        amount = parts[2] if len(parts) == 3 else None
    elif isinstance(item, dict):
        s, v, a = item.get("seat"), item.get("do"), item.get("amount")
        if not isinstance(s, str) or not isinstance(v, str):
            raise ScenarioError(f'action {n} {item!r}: an object action needs "seat" and "do"')
        seat, verb = s, v.lower()
        amount = None if a is None else str(a)
    else:
        raise ScenarioError(f'action {n} {item!r}: an action is a string "SEAT VERB [AMOUNT]"')
    if verb not in VERBS:
        raise ScenarioError(
            f"action {n} {item!r}: unknown verb {verb!r}; accepted: {', '.join(sorted(VERBS))}"
        )
    return seat, verb, amount


def _auto(rnd: BritishRound, next_seat: str | None, next_verb: str | None) -> None:
    """Take the optional decisions the scenario did not write (see the module docstring)."""
    while not rnd.over:
        who = rnd.to_act()
        assert who is not None
        verbs = [a.verb for a in rnd.legal_actions()]
        if rnd.phase in ("shoot", "split_shoot", "double") and "pass" in verbs:
            if who == next_seat and next_verb in verbs:
                return
            rnd.act(who, "pass")
        elif who == next_seat:
            return
        elif verbs == ["stick"] and rnd.phase == "play":
            rnd.act(who, "stick")
        else:
            return


def build_round(data: dict[str, Any]) -> tuple[BritishRound, list[tuple[str, str, str | None]]]:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    unknown = set(data) - ALLOWED_KEYS
    if unknown:
        raise ScenarioError(
            f"unknown scenario keys {sorted(unknown)}; accepted: {', '.join(sorted(ALLOWED_KEYS))}"
        )
    rules = _rules(data)
    players = data.get("players")
    if (
        not isinstance(players, list)
        or not players
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise ScenarioError('"players" must be a non-empty list of names, listed from the banker\'s left')
    if any(len(p.split()) != 1 for p in players):
        raise ScenarioError(f"player names must be single words: {players}")
    banker = data.get("banker")
    if not isinstance(banker, str) or len(banker.split()) != 1:
        raise ScenarioError('"banker" must be a name (one word)')
    if len(set(players)) != len(players) or banker in players:
        raise ScenarioError(f"seat names must be distinct: players {players}, banker {banker!r}")
    shoe = data.get("shoe")
    if not isinstance(shoe, str | list) or (
        isinstance(shoe, list) and not all(isinstance(c, str) for c in shoe)
    ):
        raise ScenarioError('"shoe" must be the cards from the top, e.g. "9S 8H 7C"')
    try:
        pack = BritishPack.stacked_from(
            shoe, packs=rules.packs_for(len(players) + 1)
        )  # rul 28: the banker counts
    except PontoonError as err:
        raise ScenarioError(f"shoe: {err}") from None
    kitty: Decimal = Decimal(0)
    if rules.shoot:
        raw = data.get("kitty", rules.kitty_max)
        try:
            kitty = to_money(raw, "kitty")
        except BetError as err:
            raise ScenarioError(str(err)) from None
        # 003 Shoot: "any amount of money, between agreed minimum and maximum limits"
        if not rules.kitty_min <= kitty <= rules.kitty_max:
            raise ScenarioError(
                f"kitty {raw!r} is out of range: accepted {rules.kitty_min} to {rules.kitty_max}"
            )
    elif "kitty" in data:
        raise ScenarioError('"kitty" is only for Shoot Pontoon (rules "shoot")')
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError('"actions" must be a list of "SEAT VERB [AMOUNT]" strings')
    parsed = [_parse_action(a, i + 1) for i, a in enumerate(actions)]
    seats = {*players, banker}
    for i, (seat, _, _) in enumerate(parsed):
        if seat not in seats:
            raise ScenarioError(
                f"action {i + 1}: unknown seat {seat!r}; seats are {', '.join([*players, banker])}"
            )
    rnd = BritishRound(rules, players, banker, pack, kitty=kitty)
    return rnd, parsed


def run_british_scenario(data: dict[str, Any]) -> dict[str, Any]:
    """Play one British round from a parsed scenario and return its settlement (scenario-format.md)."""
    rnd, parsed = build_round(data)
    for i, (seat, verb, amount) in enumerate(parsed):
        text = f"{seat} {verb}" + (f" {amount}" if amount is not None else "")
        _auto(rnd, seat, verb)
        if rnd.over:
            if rnd.phase == "void":
                break
            raise IllegalAction(f"action {i + 1} {text!r}: the round is already over; no action is legal")
        try:
            rnd.act(seat, verb, amount)
        except IllegalAction as err:
            raise type(err)(f"action {i + 1} {text!r}: {err}") from None
    _auto(rnd, None, None)
    if not rnd.over:
        who = rnd.to_act()
        legal = ", ".join(str(a) for a in rnd.legal_actions())
        raise ScenarioError(
            f"the actions end before the round is over: {who} is to act; legal actions: {legal}"
        )
    return result_json(rnd)


def result_json(rnd: BritishRound) -> dict[str, Any]:
    """The settlement of a finished round as JSON-ready values."""
    hands = []
    for h in rnd.hands:
        entry: dict[str, Any] = {
            "player": h.owner,
            "hand": rnd.hand_number(h),
            "cards": [str(c) for c in h.cards],
            "stake": money_json(h.stake),
            "outcome": h.outcome,
            "result": h.result,
        }
        if h.burned:
            entry["burned"] = [str(c) for c in h.burned]
        if rnd.rules.shoot:
            entry["shoot"] = money_json(h.shoot)
        hands.append(entry)
    net = {s: {k: money_json(v) for k, v in d.items()} for s, d in rnd.net().items()}
    out: dict[str, Any] = {
        "status": "void" if rnd.phase == "void" else "settled",
        "void_reason": rnd.void_reason,
        "banker": rnd.banker,
        "banker_cards": [str(c) for c in rnd.banker_cards],
        "banker_outcome": rnd.banker_outcome,
        "bets_doubled": rnd.mult > 1,
        "hands": hands,
        "net": net,
        "house": 0,  # no house in the British game: the banker is a player
        "next_banker": rnd.next_banker,
        "shuffle": rnd.had_pontoon,
    }
    if rnd.rules.shoot:
        out["kitty"] = money_json(rnd.kitty())
    return out
