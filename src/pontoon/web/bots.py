"""Bots in empty seats: what a bot does, decided from its seat's view only (ruling 35).

A bot is a member of the table played by the server, with a play-money account of its own
(``bot-1``, ``bot-2``, ...: made with the start balance like a guest's, never a person's login), so its
buy-in and pay-back go through the same accounts as a person's.

- Casino: the exact strategy of the analysis: the verb of highest expectation among the hand's
  legal verbs, valued by ``analysis.hints`` from the seat's view and the cards seen earlier in the
  shoe (``seat_view.view_hint``), as the hints show a person. Offers outside those verbs (insurance,
  a standing bettor's follow) are declined; a bot bets the table minimum.
- British and Shoot: ``british_bots(rules, level)``, the ONE place the web layer chooses the British
  policies: ``simple`` (``pontoon.british.bots``'s documented defaults), ``house``, ``solved`` and ``best``
  (``pontoon.analysis.british.bots``: the heads-up solution of the British analysis; ``best``: the banker's
  exact best response reading every hand, 20 ms a banker turn with 2 players, seconds with 6 or 7), the
  last three where a solution is shipped for the table's rules (the british and shoot presets; a rules
  file the same as one of them), since solving other rules takes about a minute; the same levels as
  ``pontoon play --bots``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pontoon.british.bots import Bots
from pontoon.british.round import BritishRound
from pontoon.cards import Card
from pontoon.errors import PontoonError
from pontoon.protocol import Action
from pontoon.rules.british import BritishRules
from pontoon.rules.model import CasinoRules

LEVELS = ("simple", "house", "solved", "best")  # British bot levels: analysis/british/bots.py LEVELS
BOT_PREFIX = "bot-"


class BotError(PontoonError):
    """A bot level or request the server does not offer."""


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise BotError(f"bot level {level!r} is not offered: accepted {', '.join(LEVELS)}")
    return level


def levels_for(rules: BritishRules) -> tuple[str, ...]:
    """The bot levels offered at a table of ``rules``: the solved ones only where a solution is shipped."""
    from pontoon.analysis.british.strategy import shipped_path

    return LEVELS if shipped_path(rules) is not None else ("simple",)


def british_bots(rules: BritishRules, level: str = "simple") -> Bots:
    """The British policies of a bot ``level``; a level not offered for these rules is a BotError. The
    first ``house``/``solved``/``best`` bots of a rules set read the shipped solution (a few seconds, then kept in
    memory): the host route builds them in a worker thread."""
    check_level(level)
    if level not in levels_for(rules):
        raise BotError(
            f"bot level {level!r} needs a solution shipped for these rules (the british and shoot presets): "
            "accepted here: simple"
        )
    if level == "simple":
        return Bots()
    import numpy as np

    from pontoon.analysis.british.bots import make_bots

    return make_bots(level, rules, np.random.default_rng())  # the server's own entropy: a fresh generator


def british_decision(rnd: BritishRound, seat: str, bots: Bots) -> Action:
    """The bot's action for ``seat``, the seat to act, from its own view and the legal actions."""
    who, verb, amount = bots.decide(
        rnd
    )  # from the seat's own view (british/bots.py, analysis/british/bots.py)
    if who != seat:
        raise BotError(f"the bot was asked to play for {seat}, but {who} is to act")
    return Action(verb, amount=amount)  # the hand to act is the round's (as Bots.decide plays it)


def casino_decision(
    rules: CasinoRules, view: Mapping[str, Any], seen_before: Iterable[Card], legal: list[Action]
) -> Action:
    """The exact strategy's verb for the hand to act (the bot's own view only), else a decline."""
    from pontoon.analysis.hints import best_action
    from pontoon.analysis.seat_view import view_hint

    at = view.get("hand_to_act") or {}
    mine = [a for a in legal if a.box == at.get("box")] or legal
    try:
        best = best_action(view_hint(rules, view, list(seen_before)))
    except PontoonError:  # no hand of the bot's own to value (an offer): decline it
        best = None
    for verb in (best, "decline", "stand", "hit"):
        pick = next((a for a in mine if a.verb == verb), None)
        if pick is not None:
            return pick_amount(pick)
    # never insurance unasked by the analysis (a side wager the exact strategy does not take)
    return pick_amount(next((a for a in mine if a.verb != "insure"), mine[0]))


def pick_amount(a: Action) -> Action:
    """A listed action as played: the smallest amount of its range."""
    if a.low is None:
        return Action(a.verb, a.box, a.player, None, a.players, a.decline, a.hand, what=a.what)
    return Action(a.verb, a.box, a.player, a.amount or a.low, a.players, a.decline, a.hand, what=a.what)
