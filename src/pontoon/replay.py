"""Replay a round from its event log: ``replay(rules, events)`` rebuilds the round through the engine.

A round's log holds everything that decided it: every wager placed or taken back, every card drawn (in
order), every Pandemonium multiplier, every action with the person (or the table) who took it. Replay
stacks a shoe (or pack) with the drawn cards, feeds the jackpot multipliers back, places the same wagers
and takes the same actions through the protocol; then every re-made event must equal the logged one.
The first difference raises ``ReplayMismatch``, naming the event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.cards import parse_cards
from pontoon.casino.round import CasinoRound
from pontoon.errors import PontoonError
from pontoon.events import Event
from pontoon.protocol import TABLE, Action, Actor
from pontoon.rules.british import BritishRules
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe


class ReplayMismatch(PontoonError):
    """A replayed round differs from its log; the message names the first difference."""


def _as_event(e: Event | Mapping[str, Any]) -> Event:
    if isinstance(e, Event):
        return e
    if not isinstance(e, Mapping) or "kind" not in e:
        raise ReplayMismatch(f"an event is an object with 'seq', 'kind' and 'data', not {e!r:.80}")
    return Event(int(e.get("seq", 0)), str(e["kind"]), dict(e.get("data") or {}), str(e.get("clause", "")))


def event_json(e: Event) -> dict[str, Any]:
    """An event as plain JSON data (its ``data`` is already JSON-ready)."""
    return {"seq": e.seq, "kind": e.kind, "data": e.data, "clause": e.clause}


def _actor(data: Mapping[str, Any]) -> Actor:
    if data.get("authority") == "table":
        return TABLE
    seat = data.get("seat")
    if not isinstance(seat, str):
        raise ReplayMismatch(f"action event without a seat: {dict(data)!r:.120}")
    return seat


def _drawn_casino(events: Sequence[Event]) -> list[str]:
    cards: list[str] = []
    for e in events:
        if e.kind == "card":
            cards.append(str(e.data["card"]))
        elif e.kind == "void" and str(e.data.get("reason", "")).startswith("foreign card "):
            cards.append(str(e.data["reason"]).split()[2])
    return cards


def replay_casino(rules: CasinoRules, events: Sequence[Event]) -> CasinoRound:
    shoe = Shoe.stacked_from(_drawn_casino(events), pack=rules.pack)
    jackpots = [int(e.data["multiplier"]) for e in events if e.kind == "jackpot"]
    rnd = CasinoRound(rules, shoe, jackpot=jackpots)
    if events and events[0].kind == "round_start":  # a table's round: the table logged its start
        rnd.log.add("round_start", events[0].clause, **events[0].data)
    for e in events:
        k = e.kind
        if k == "bet":
            rnd.place_bet(
                int(e.data["box"]), str(e.data["player"]), str(e.data["kind"]), Decimal(e.data["amount"])
            )
        elif k == "withdraw":
            rnd.withdraw_bet(int(e.data["box"]), str(e.data["player"]), str(e.data["kind"]))
        elif k == "no_more_bets":
            rnd.close_bets()
        elif k == "action":
            act = Action.from_json(e.data["act"])
            if act.verb == "interrupt":
                rnd.interrupt()  # 004 5.4: declared by the table; logged as its action either way
            else:
                rnd.act(_actor(e.data), act)
    return rnd


def replay_british(rules: BritishRules, events: Sequence[Event]) -> BritishRound:
    start = events[0].data
    cards = parse_cards([str(e.data["card"]) for e in events if e.kind == "draw"])
    pack = BritishPack(cards, stacked=True)
    funds = start.get("funds")  # rul 33: the holdings the round checked bank cover against
    rnd = BritishRound(
        rules,
        list(start["players"]),
        str(start["banker"]),
        pack,
        kitty=Decimal(start["kitty"]),
        funds=None if funds is None else {str(s): Decimal(str(v)) for s, v in funds.items()},
    )
    for e in events:
        if e.kind == "action":
            act = Action.from_json(e.data["act"])
            rnd.act(_actor(e.data), act)
    return rnd


def replay(
    rules: CasinoRules | BritishRules, events: Iterable[Event | Mapping[str, Any]]
) -> CasinoRound | BritishRound:
    """Rebuild a round from its log and check that every re-made event equals the logged one."""
    evs = [_as_event(e) for e in events]
    if not evs:
        raise ReplayMismatch("no events to replay")
    try:
        rnd: CasinoRound | BritishRound
        if isinstance(rules, BritishRules):
            if evs[0].kind != "round_start":
                raise ReplayMismatch(f"a British round's log starts with round_start, not {evs[0].kind}")
            rnd = replay_british(rules, evs)
        else:
            rnd = replay_casino(rules, evs)
    except ReplayMismatch:
        raise
    except PontoonError as err:
        raise ReplayMismatch(f"the logged round cannot be replayed: {err}") from None
    compare(evs, list(rnd.events()))
    return rnd


def compare(logged: Sequence[Event], remade: Sequence[Event]) -> None:
    """Raise ReplayMismatch at the first event that differs (sequence numbers are relative)."""
    base_l = logged[0].seq if logged else 0
    base_r = remade[0].seq if remade else 0
    for i, (a, b) in enumerate(zip(logged, remade, strict=False)):
        if (a.seq - base_l, a.kind, a.data, a.clause) != (b.seq - base_r, b.kind, _plain(b.data), b.clause):
            raise ReplayMismatch(f"event {i} differs: logged {a} / replayed {b}")
    if len(logged) != len(remade):
        longer, which = (logged, "logged") if len(logged) > len(remade) else (remade, "replayed")
        raise ReplayMismatch(
            f"the {which} round has more events: {len(logged)} logged, {len(remade)} replayed; "
            f"first extra: {longer[min(len(logged), len(remade))]}"
        )


def _plain(data: dict[str, Any]) -> dict[str, Any]:
    return data
