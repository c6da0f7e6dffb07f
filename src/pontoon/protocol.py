"""The table protocol: one interface that every round engine implements and every interface drives.

Both engines (``casino.round.CasinoRound`` and ``british.round.BritishRound``) implement
``TableRound`` exactly; the terminal game, the scenario runner, the history store, the web server and
the RL environments drive a round only through it (architecture.md, "The table protocol").

- ``seats()`` the people at the round (casino: every bettor; British: the players and the banker).
- ``to_act()`` the person who must decide now, ``BETTING`` while wagers may still be placed (casino),
  or ``None`` once the round is over. The engines do the chance chores themselves (dealing, the
  dealer's play, settlement), so ``CHANCE`` is only seen by drivers that step chores one at a time.
- ``legal_actions(seat)`` what that person may do now: frozen ``Action`` records; an amount that
  the person chooses is given as the range ``low``..``high`` (``amount`` is then a suggestion).
- ``verify(seat, action)`` raises ``IllegalAction`` with the reason; ``can`` is its bool; ``act``
  does it and returns the frozen events it logged. An action for a box whose seated bettor is
  another person is refused; a standing bettor's own choices (insurance, his own surrender or
  rescue, declining a split or a double) are his.
- ``view(seat)`` plain JSON-ready data: exactly what that person may see. ``view(SPECTATOR)`` shows
  only what is public.
- ``events()`` the round's log, enough to replay it exactly (``pontoon.replay.replay``).

``TABLE`` is the authority of the table itself (a scripted scenario, the dealer's inspector): it may
take any box's action as the documents' scenario files do. It is an enum member, never a string, so no
player name can alias it (rulings 32).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import Any, Final

from pontoon.errors import ScenarioError
from pontoon.money import fmt, to_money
from pontoon.table_round import TableRound

# ``TableRound`` (the Protocol) is defined in ``table_round.py``, a module never compiled with mypyc:
# mypyc makes a Protocol a native trait, which cannot be runtime-checkable (setup.py compiles this one)
__all__ = [
    "BETTING",
    "BRITISH_VERBS",
    "CASINO_VERBS",
    "CHANCE",
    "SPECTATOR",
    "TABLE",
    "Action",
    "Actor",
    "Marker",
    "Seat",
    "TableRound",
]


class Marker(Enum):
    """Who acts when no person does; never equal to any seat name."""

    CHANCE = "chance"
    BETTING = "betting"
    SPECTATOR = "spectator"
    TABLE = "table"

    def __str__(self) -> str:
        return f"<{self.value}>"


CHANCE: Final = Marker.CHANCE
BETTING: Final = Marker.BETTING
SPECTATOR: Final = Marker.SPECTATOR
TABLE: Final = Marker.TABLE

Seat = str
Actor = str | Marker

CASINO_VERBS: Final = (
    "insure",
    "surrender",
    "hit",
    "stand",
    "split",
    "double",
    "rescue",
    "walk",
    "interrupt",
    "decline",
)
BRITISH_VERBS: Final = ("stake", "double", "pass", "shoot", "buy", "twist", "stick", "split", "burn")
# what ``to_money`` names for each verb's amount (made once, not per action)
_AMOUNT_OF: Final = {v: f"{v} amount" for v in (*CASINO_VERBS, *BRITISH_VERBS)}


@dataclass(
    frozen=True, slots=True, init=False
)  # __init__ written out: mypyc compiles it (a generated one stays interpreted)
class Action:
    """One decision, shared by both games.

    ``verb`` names it. Casino: ``box`` (and ``hand``, informative) is the box it concerns; ``player``
    names the bettor for ``insure``; ``players`` the bettors who take a surrender or rescue (None =
    every bettor on the hand the actor speaks for); ``decline`` the standing bettors who do not follow
    a split or double (004 3.24.1, 3.25.1); ``what`` the verb a standing bettor declines in advance
    (``decline``). British: ``hand`` is the actor's hand number. ``amount``: the chosen amount;
    ``low``/``high`` the accepted range in a legal-action listing.
    """

    verb: str
    box: int | None = None
    player: str | None = None
    amount: Decimal | None = None
    players: tuple[str, ...] | None = None
    decline: tuple[str, ...] = field(default=())
    hand: int | None = None
    low: Decimal | None = None
    high: Decimal | None = None
    what: str | None = None

    def __init__(
        self,
        verb: str,
        box: int | None = None,
        player: str | None = None,
        amount: Decimal | None = None,
        players: tuple[str, ...] | None = None,
        decline: tuple[str, ...] = (),
        hand: int | None = None,
        low: Decimal | None = None,
        high: Decimal | None = None,
        what: str | None = None,
    ) -> None:
        # the dataclass's fields in order, with its defaults; set as a frozen dataclass sets them
        object.__setattr__(self, "verb", verb)
        object.__setattr__(self, "box", box)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "amount", amount)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "decline", decline)
        object.__setattr__(self, "hand", hand)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "what", what)

    def with_amount(self, amount: object) -> Action:
        """The same action with a concrete amount (checked as money)."""
        return Action(
            self.verb,
            self.box,
            self.player,
            to_money(amount, _AMOUNT_OF.get(self.verb) or f"{self.verb} amount"),
            self.players,
            self.decline,
            self.hand,
            None,
            None,
            self.what,
        )

    def __str__(self) -> str:
        parts = [] if self.box is None else [str(self.box)]
        parts.append(self.verb)
        if self.what is not None:
            parts.append(self.what)
        if self.player is not None:
            parts.append(self.player)
        if self.amount is not None:
            parts.append(fmt(self.amount))
        elif self.low is not None:
            parts.append(f"{fmt(self.low)}..{fmt(self.high if self.high is not None else self.low)}")
        s = " ".join(parts)
        if self.players is not None:
            s += f" players={','.join(self.players)}"
        if self.decline:
            s += f" decline={','.join(self.decline)}"
        return s

    def to_json(self) -> dict[str, Any]:
        """Plain data (amounts as exact decimal text)."""
        out: dict[str, Any] = {"verb": self.verb}
        for k in ("box", "player", "hand", "what"):
            v = getattr(self, k)
            if v is not None:
                out[k] = v
        for k in ("amount", "low", "high"):
            v = getattr(self, k)
            if v is not None:
                out[k] = fmt(v)
        if self.players is not None:
            out["players"] = list(self.players)
        if self.decline:
            out["decline"] = list(self.decline)
        return out

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
            raise ScenarioError(
                f"bad action {spec!r}: expected 'BOX VERB [ARG...]', verbs: {', '.join(CASINO_VERBS)}"
            )
        try:
            box = int(words[0])
        except ValueError:
            raise ScenarioError(f"bad action {spec!r}: {words[0]!r} is not a box number") from None
        verb = words[1].lower()
        args = words[2:]
        if verb not in CASINO_VERBS:
            raise ScenarioError(
                f"bad action {spec!r}: unknown verb {verb!r}; verbs: {', '.join(CASINO_VERBS)}"
            )
        if verb == "insure":
            if len(args) != 2:
                raise ScenarioError(f"bad action {spec!r}: expected 'BOX insure PLAYER AMOUNT'")
            return cls("insure", box, args[0], to_money(args[1], "insurance amount"))
        if verb == "decline":
            if len(args) != 2:
                raise ScenarioError(
                    f"bad action {spec!r}: expected 'BOX decline split|double|surrender|rescue PLAYER'"
                )
            return cls("decline", box, args[1], what=args[0].lower())
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
            raise ScenarioError(
                f"bad action {obj!r}: unknown keys {sorted(extra)}; accepted: {sorted(allowed)}"
            )
        verb = str(obj.get("do", "")).lower()
        if verb not in CASINO_VERBS:
            raise ScenarioError(f"bad action {obj!r}: 'do' must be one of {', '.join(CASINO_VERBS)}")
        box = obj.get("box")
        if verb != "interrupt" and (not isinstance(box, int) or isinstance(box, bool)):
            raise ScenarioError(f"bad action {obj!r}: 'box' must be a box number")
        player = obj.get("player")
        if player is not None and not isinstance(player, str):
            raise ScenarioError(f"bad action {obj!r}: 'player' must be a player name")
        amount = obj.get("amount")
        players = obj.get("players")
        decline = obj.get("decline", [])
        for name, val in (("players", players), ("decline", decline)):
            if val is not None and (not isinstance(val, list) or not all(isinstance(p, str) for p in val)):
                raise ScenarioError(f"bad action {obj!r}: {name!r} must be a list of player names")
        return cls(
            verb,
            box,
            player,
            None if amount is None else to_money(amount, f"{verb} amount"),
            None if players is None else tuple(players),
            tuple(decline or ()),  # "decline": null is no decline (as from_json reads it)
        )

    @classmethod
    def from_json(cls, obj: object) -> Action:
        """The inverse of ``to_json``; a one-line ScenarioError names what is wrong."""
        if not isinstance(obj, dict):
            raise ScenarioError(f"bad action {obj!r}: expected an object with 'verb'")
        allowed = {"verb", "box", "player", "hand", "what", "amount", "low", "high", "players", "decline"}
        extra = set(obj) - allowed
        if extra:
            raise ScenarioError(f"bad action: unknown keys {sorted(extra)}; accepted: {sorted(allowed)}")
        verb = obj.get("verb")
        if verb not in CASINO_VERBS and verb not in BRITISH_VERBS:
            raise ScenarioError(
                f"bad action: verb {verb!r} is not one of {', '.join(sorted(set(CASINO_VERBS + BRITISH_VERBS)))}"
            )
        ints: dict[str, int | None] = {}
        for k in ("box", "hand"):
            v = obj.get(k)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 0 < v < 1000):
                raise ScenarioError(f"bad action: {k!r} must be a whole number from 1 to 999, not {v!r}")
            ints[k] = v
        strs: dict[str, str | None] = {}
        for k in ("player", "what"):
            v = obj.get(k)
            if v is not None and not isinstance(v, str):
                raise ScenarioError(f"bad action: {k!r} must be a string, not {type(v).__name__}")
            strs[k] = v
        lists: dict[str, tuple[str, ...] | None] = {}
        for k in ("players", "decline"):
            v = obj.get(k)
            if v is not None and (not isinstance(v, list) or not all(isinstance(p, str) for p in v)):
                raise ScenarioError(f"bad action: {k!r} must be a list of names")
            lists[k] = None if v is None else tuple(v)
        money: dict[str, Decimal | None] = {}
        for k in ("amount", "low", "high"):
            v = obj.get(k)
            money[k] = None if v is None else to_money(v, f"action {k}")
        return cls(
            str(verb),
            ints["box"],
            strs["player"],
            money["amount"],
            lists["players"],
            lists["decline"] or (),
            ints["hand"],
            money["low"],
            money["high"],
            strs["what"],
        )
