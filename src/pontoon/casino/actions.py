"""Casino actions: frozen records that round-trip through the scenario text form ``"1 hit"``."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pontoon.errors import ScenarioError
from pontoon.money import fmt, to_money

VERBS = ("insure", "surrender", "hit", "stand", "split", "double", "rescue", "walk", "interrupt")


@dataclass(frozen=True, slots=True)
class Action:
    """One decision. ``box`` is the box it concerns; ``player`` names a bettor for ``insure``.

    ``amount``: insurance stake, or the seated bettor's double increase (None = full wager).
    ``players``: for surrender/rescue, the bettors who take it (None = every bettor on the hand).
    ``decline``: standing bettors who do not follow a split or double (004 3.24.1, 3.25.1).
    """

    verb: str
    box: int | None = None
    player: str | None = None
    amount: Decimal | None = None
    players: tuple[str, ...] | None = None
    decline: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        parts = [] if self.box is None else [str(self.box)]
        parts.append(self.verb)
        if self.player is not None:
            parts.append(self.player)
        if self.amount is not None:
            parts.append(fmt(self.amount))
        s = " ".join(parts)
        if self.players is not None:
            s += f" players={','.join(self.players)}"
        if self.decline:
            s += f" decline={','.join(self.decline)}"
        return s

    @classmethod
    def parse(cls, spec: str | dict[str, Any]) -> Action:
        """``"1 hit"``, ``"2 insure ann 5"``, ``"3 double 50"`` or ``{"box": 2, "do": "split", "decline": ["cat"]}``."""
        if isinstance(spec, dict):
            return cls._from_obj(spec)
        if not isinstance(spec, str):
            raise ScenarioError(f"bad action {spec!r}: expected a string like '1 hit' or an object")
        words = spec.split()
        if words == ["interrupt"]:
            return cls("interrupt")
        if len(words) < 2:
            raise ScenarioError(f"bad action {spec!r}: expected 'BOX VERB [ARG...]', verbs: {', '.join(VERBS)}")
        try:
            box = int(words[0])
        except ValueError:
            raise ScenarioError(f"bad action {spec!r}: {words[0]!r} is not a box number") from None
        verb = words[1].lower()
        args = words[2:]
        if verb not in VERBS:
            raise ScenarioError(f"bad action {spec!r}: unknown verb {verb!r}; verbs: {', '.join(VERBS)}")
        if verb == "insure":
            if len(args) != 2:
                raise ScenarioError(f"bad action {spec!r}: expected 'BOX insure PLAYER AMOUNT'")
            return cls("insure", box, args[0], to_money(args[1], "insurance amount"))
        if verb == "double":
            if len(args) > 1:
                raise ScenarioError(f"bad action {spec!r}: expected 'BOX double [AMOUNT]'")
            return cls("double", box, amount=to_money(args[0], "double amount") if args else None)
        if args:
            raise ScenarioError(f"bad action {spec!r}: {verb} takes no arguments in the text form")
        return cls(verb, box)

    @classmethod
    def _from_obj(cls, obj: dict[str, Any]) -> Action:
        allowed = {"box", "do", "player", "amount", "players", "decline"}
        extra = set(obj) - allowed
        if extra:
            raise ScenarioError(f"bad action {obj!r}: unknown keys {sorted(extra)}; accepted: {sorted(allowed)}")
        verb = str(obj.get("do", "")).lower()
        if verb not in VERBS:
            raise ScenarioError(f"bad action {obj!r}: 'do' must be one of {', '.join(VERBS)}")
        box = obj.get("box")
        if verb != "interrupt" and (not isinstance(box, int) or isinstance(box, bool)):
            raise ScenarioError(f"bad action {obj!r}: 'box' must be a box number")
        amount = obj.get("amount")
        players = obj.get("players")
        decline = obj.get("decline", [])
        for name, val in (("players", players), ("decline", decline)):
            if val is not None and (not isinstance(val, list) or not all(isinstance(p, str) for p in val)):
                raise ScenarioError(f"bad action {obj!r}: {name!r} must be a list of player names")
        return cls(
            verb,
            box,
            obj.get("player"),
            None if amount is None else to_money(amount, f"{verb} amount"),
            None if players is None else tuple(players),
            tuple(decline),
        )
