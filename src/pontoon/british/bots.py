"""Bot policies for the British game: one for players, one for the banker, configurable per seat.

Bots decide from the seat's own ``view`` (view.py) and the legal actions only, so they never see
what the seat may not see (the face-down cards of others, the pack order).

PlayerPolicy (documented defaults):
- stake: ``stake`` (default the table minimum); ``stake_ace_ten`` times that when the first card is
  an Ace or a ten-value card (capped at the table maximum).
- split: pairs whose rank is in ``split_ranks`` (default Aces and 8s).
- burn: a burnable hard 13/14 when ``burn`` is true (where the variation is played).
- draw: stick at ``stick_on`` (default 17, never below the table's stick minimum) or more; else
  draw. A card is bought (for the smallest amount allowed, the initial stake) while the hand's hard
  total is at most ``buy_up_to`` (default 11) and no card has been twisted; otherwise twisted.
  With four cards and a hard total of 11 or less the fifth card is always taken (a sure Five Card
  Trick), and it is twisted.
- shoot (Shoot Pontoon): before the second card, ``shoot_fraction`` of what may still be shot when
  the first card is an Ace or a ten-value card; before the fourth card, the same fraction when the
  three cards' hard total is ``shoot_fourth_up_to`` (default 11) or less. Rounded down to whole units.
- pass: any other shoot window.

BankerPolicy (documented defaults):
- double (variation): when the first card is an Ace or a ten-value card and ``double`` is true.
- draw: stay at ``stand_on`` (default 17) or more; with four cards and a hard total of 11 or less
  twist for a sure Five Card Trick; stay early at ``stand_on - 1`` when every other live hand has
  stuck and ``stand_early`` is true (off by default).
- kitty (Shoot Pontoon): put up ``kitty`` (default the kitty maximum) when a new kitty is needed;
  top it up to ``top_up_to`` before each deal when set (off by default); never buys or sells the bank.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Any

from pontoon.british.round import BritishRound, LegalAction
from pontoon.cards import Card
from pontoon.hands import hand_total, hard_total
from pontoon.rules.british import BritishRules

Decision = tuple[str, Decimal | None]


@dataclass(frozen=True, slots=True)
class PlayerPolicy:
    stake: Decimal | None = None
    stake_ace_ten: Decimal = Decimal(2)
    split_ranks: str = "A8"
    burn: bool = True
    stick_on: int = 17
    buy_up_to: int = 11
    shoot_fraction: Decimal = Decimal("0.25")
    shoot_fourth_up_to: int = 11


@dataclass(frozen=True, slots=True)
class BankerPolicy:
    stand_on: int = 17
    double: bool = True
    stand_early: bool = False
    kitty: Decimal | None = None
    top_up_to: Decimal | None = None


def _cards(strs: list[str]) -> list[Card]:
    return [Card.parse(s) for s in strs if s != "??"]


def _own_hand(view: dict[str, Any], seat: str) -> dict[str, Any] | None:
    cur = view.get("current_hand")
    if cur and cur["owner"] == seat:
        for h in view["hands"]:
            if h["owner"] == seat and h["hand"] == cur["hand"]:
                return h  # type: ignore[no-any-return]
    for h in view["hands"]:
        if h["owner"] == seat:
            return h  # type: ignore[no-any-return]
    return None


def _whole(x: Decimal, low: Decimal, high: Decimal) -> Decimal:
    v = x.to_integral_value(rounding=ROUND_FLOOR)
    return min(max(v, low), high)


def player_decision(
    view: dict[str, Any], legal: list[LegalAction], rules: BritishRules, policy: PlayerPolicy
) -> Decision:
    seat = view["seat"]
    by = {a.verb: a for a in legal}
    h = _own_hand(view, seat)
    cards = _cards(h["cards"]) if h else []
    if "stake" in by:
        a = by["stake"]
        assert a.low is not None and a.high is not None
        base = policy.stake if policy.stake is not None else rules.stake_min
        if cards and (cards[0].is_ace or cards[0].is_ten_value):
            base = base * policy.stake_ace_ten
        return "stake", min(max(base, a.low), a.high)
    if view["phase"] == "stake":
        return "pass", None  # rul 33: no stake is covered: he sits this round out
    if view["phase"] in ("shoot", "split_shoot"):
        first = cards[0] if cards else None
        if (
            "shoot" in by
            and first is not None
            and (first.is_ace or first.is_ten_value)
            and view["phase"] == "shoot"
        ):
            a = by["shoot"]
            assert a.low is not None and a.high is not None
            amt = _whole(a.high * policy.shoot_fraction, a.low, a.high)
            return "shoot", amt
        return "pass", None
    hard = hard_total(cards)
    best = hand_total(cards)[0]
    n = len(cards)
    if "split" in by and cards[0].rank in policy.split_ranks:
        return "split", None
    if "burn" in by and policy.burn:
        return "burn", None
    if "shoot" in by and n == 3 and hard <= policy.shoot_fourth_up_to:
        a = by["shoot"]
        assert a.low is not None and a.high is not None
        return "shoot", _whole(a.high * policy.shoot_fraction, a.low, a.high)
    sure_five = n == 4 and hard <= 11
    stick_at = max(policy.stick_on, rules.stick_minimum)
    if "stick" in by and best >= stick_at and not sure_five:
        return "stick", None
    if "buy" in by and hard <= policy.buy_up_to and not sure_five:
        return "buy", by["buy"].low
    if "twist" in by:
        return "twist", None
    if "buy" in by:
        return "buy", by["buy"].low
    return legal[0].verb, legal[0].low


def banker_decision(
    view: dict[str, Any], legal: list[LegalAction], rules: BritishRules, policy: BankerPolicy
) -> Decision:
    verbs = {a.verb for a in legal}
    cards = _cards(view["banker_cards"])
    if "double" in verbs:
        if policy.double and cards and (cards[0].is_ace or cards[0].is_ten_value):
            return "double", None
        return "pass", None
    if "twist" not in verbs:
        return "stick", None
    hard = hard_total(cards)
    best = hand_total(cards)[0]
    if len(cards) == 4 and hard <= 11:
        return "twist", None  # a sure Five Card Trick
    stand = policy.stand_on
    if policy.stand_early:
        others = [h for h in view["hands"] if h["status"] not in ("bust",)]
        if others and all(h["status"] in ("stuck", "five", "pontoon") for h in others):
            stand -= 1
    if best >= stand:
        return "stick", None
    return "twist", None


@dataclass
class Bots:
    """Policies per seat: ``players[seat]`` / ``bankers[seat]`` override the defaults."""

    player_default: PlayerPolicy = PlayerPolicy()
    banker_default: BankerPolicy = BankerPolicy()
    players: dict[str, PlayerPolicy] | None = None
    bankers: dict[str, BankerPolicy] | None = None

    def player(self, seat: str) -> PlayerPolicy:
        return (self.players or {}).get(seat, self.player_default)

    def banker(self, seat: str) -> BankerPolicy:
        return (self.bankers or {}).get(seat, self.banker_default)

    def decide(self, rnd: BritishRound) -> tuple[str, str, Decimal | None]:
        """The decision of the seat to act in ``rnd``: (seat, verb, amount)."""
        seat = rnd.to_act()
        if seat is None:
            raise ValueError("the round is over: nobody is to act")
        view = rnd.view(seat)
        legal = rnd.legal_actions()
        if seat == rnd.banker:
            verb, amt = banker_decision(view, legal, rnd.rules, self.banker(seat))
        else:
            verb, amt = player_decision(view, legal, rnd.rules, self.player(seat))
        return seat, verb, amt

    def kitty_for(self, rules: BritishRules, seat: str) -> Decimal:
        k = self.banker(seat).kitty
        return min(max(k, rules.kitty_min), rules.kitty_max) if k is not None else rules.kitty_max

    def prepare_table(self, game: Any) -> None:
        """Between rounds: a bot banker puts up or tops up the kitty (Shoot Pontoon)."""
        if not game.rules.shoot:
            return
        if game.needs_kitty:
            game.put_kitty(self.kitty_for(game.rules, game.banker))
        else:
            target = self.banker(game.banker).top_up_to
            if target is not None and game.kitty < target:
                game.top_up_kitty(target - game.kitty)


def play_round(game: Any, bots: Bots) -> dict[str, Any]:
    """Play one round of ``game`` (a BritishGame) with bots in every seat; returns end_round's summary."""
    bots.prepare_table(game)
    rnd = game.new_round()
    while not rnd.over:
        seat, verb, amt = bots.decide(rnd)
        rnd.act(seat, verb, amt)
    return game.end_round()  # type: ignore[no-any-return]
