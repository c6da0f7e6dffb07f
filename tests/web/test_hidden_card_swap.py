"""Ruling 35 in its indistinguishability form, on the shared British table (003): two rounds that differ
only in a card hidden from a seat give that seat (and a spectator, and a person not at the table) the
same frames, byte for byte, until the card is shown to it.

Two hosts play the same seeded game; when a round is dealt, the second host's world is the first with
one card that the watcher cannot see (another seat's or the banker's face-down card) exchanged with a
card still in the pack, everywhere the server holds it (the hands, the pack, the round's log). Random
legal play (hypothesis) then drives both alike: stakes, buys of face-down cards, twists, splits and
burns. After every step, for each view kind that has not yet been shown either card, these must be the
same in both worlds: the state frame as the socket sends it (web/frames.py, the history in words
included), the lobby's row, a refused message's error, and, when the watcher is to act, its hint
inputs and what a bot in its seat would do. The frames' sizes, the cards-left figures and the order of
events are all inside that comparison."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.bots import Bots
from pontoon.cards import Card
from pontoon.errors import PontoonError
from pontoon.rules import find_rules
from pontoon.web.british_host import BritishHost
from pontoon.web.british_host_views import hint_inputs
from pontoon.web.frames import Change, dumps
from pontoon.web.hosting import Settings
from pontoon.web.models import Envelope
from pontoon.web.persistence import MemoryPersistence

SEATS = ("ann", "bob", "cy")
KINDS: tuple[str | None, ...] = (*SEATS, None)  # None: a spectator, a visitor not at the table


def _msg(data: dict[str, Any]) -> Any:
    return Envelope.model_validate({"msg": data}).msg


def _host(seed: int) -> BritishHost:
    h = BritishHost(
        "t1",
        "t",
        find_rules("british"),
        seed,
        3,
        Settings(),
        MemoryPersistence(),
        lambda n, a: None,
        seeded=True,
    )
    for n in SEATS:
        h.join(n, None, None, Decimal(1000))
        h.connected(n)
    return h


def _swap(h: BritishHost, x: Card, y: Card) -> None:
    """Exchange ``x`` and ``y`` everywhere the server holds them (the other world)."""

    def sw(c: Card) -> Card:
        return y if c == x else x if c == y else c

    def sw_data(v: Any) -> Any:
        if isinstance(v, str) and v in (str(x), str(y)):
            return str(y) if v == str(x) else str(x)
        if isinstance(v, list):
            return [sw_data(i) for i in v]
        return v

    g = h.game_obj
    assert g is not None and g.round is not None
    rnd = g.round
    for hand in rnd.hands:
        hand.cards[:] = [sw(c) for c in hand.cards]
        hand.burned[:] = [sw(c) for c in hand.burned]
    rnd.banker_cards[:] = [sw(c) for c in rnd.banker_cards]
    rnd.pack._cards[:] = [sw(c) for c in rnd.pack._cards]
    for e in rnd.log.events:
        for k, v in list(e.data.items()):
            e.data[k] = sw_data(v)


def _hidden_from(h: BritishHost, kind: str | None) -> list[Card]:
    """The dealt cards ``kind`` cannot see now (the engine's own state, not a view)."""
    rnd = h.game_obj.round  # type: ignore[union-attr]
    out = [
        c
        for hand in rnd.hands
        if hand.owner != kind
        for c, up in zip(hand.cards, hand.up, strict=True)
        if not up
    ]
    if not (kind == rnd.banker and rnd.banker_looked) and not rnd.banker_up:
        out += rnd.banker_cards
    return out


def _public(h: BritishHost) -> list[tuple[Any, ...]]:
    """The game's public steps: each event's kind and whose (a declared Pontoon, a bust and a stick are
    the holder's to show; where the two worlds part there, the rules themselves tell)."""
    g = h.game_obj
    assert g is not None
    evs = list(g.log.events) + ([] if g.round is None else list(g.round.log.events))
    return [(e.kind, e.data.get("seat"), e.data.get("hand")) for e in evs if e.kind != "draw"]


def _frame(h: BritishHost, kind: str | None) -> str:
    v = dict(Change(h).view(kind))
    v.pop("timer_s")
    return dumps(v)


def _shown(h: BritishHost, kind: str | None, cards: tuple[str, str]) -> bool:
    return any(c in json.dumps(h.state_for(kind)["round"]) for c in cards)


def _refusal(h: BritishHost, name: str) -> str:
    try:  # a seat that is not to act tries a verb: refused (the error it reads)
        h.handle(name, _msg({"type": "act", "action": {"verb": "burn"}}))
    except PontoonError as err:
        return str(err)
    raise AssertionError(f"{name}'s burn was taken")


def _options(h: BritishHost, name: str) -> list[dict[str, Any]]:
    out = []
    for a in h.state_for(name, False)["legal"]:
        if a["verb"] in ("sell_bank", "buy_bank", "top_up"):
            continue
        if a["verb"] == "kitty":
            out.append({"type": "kitty", "amount": a["low"]})
            continue
        act = {k: v for k, v in a.items() if k not in ("low", "high")}
        if "low" in a:
            act["amount"] = a["low"]
        out.append({"type": "act", "action": act})
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    watcher=st.sampled_from(KINDS),
    which=st.integers(0, 50),
    depth=st.integers(0, 30),
    picks=st.lists(st.integers(0, 1_000), min_size=30, max_size=60),
)
def test_a_card_hidden_from_a_seat_changes_nothing_it_receives(
    seed: int, watcher: str | None, which: int, depth: int, picks: list[int]
) -> None:
    a, b = _host(seed), _host(seed)
    ga, gb = a.game_obj, b.game_obj
    assert ga is not None and gb is not None and ga.round is not None
    hidden = _hidden_from(a, watcher)
    assert hidden, "the deal leaves every seat something face down"
    x = hidden[which % len(hidden)]
    pack = [c for c in ga.round.pack.cards() if c != x]
    y = pack[-1 - depth % len(pack)]  # from the bottom: still in the pack for a while
    _swap(b, x, y)
    cards = (str(x), str(y))
    watching = [k for k in KINDS if k == watcher or k is None]  # the watcher and a spectator
    for pick in picks:
        watching = [k for k in watching if not (_shown(a, k, cards) or _shown(b, k, cards))]
        if not watching or _public(a) != _public(b):
            break
        for k in watching:
            assert _frame(a, k) == _frame(b, k), (k, cards)
            assert a.row() == b.row()
            rnd = ga.round
            if k is not None and rnd is not None and not rnd.over and rnd.to_act() == k:
                assert repr(hint_inputs(a, k)) == repr(hint_inputs(b, k))
                assert Bots().decide(ga.round) == Bots().decide(gb.round)
            elif k is not None and rnd is not None:
                assert _refusal(a, k) == _refusal(b, k)
        actor = ga.round.to_act() if ga.round is not None else ga.banker
        if actor is None:
            break
        opts = _options(a, actor)
        if not opts:
            break
        m = opts[pick % len(opts)]
        try:
            a.handle(actor, _msg(m))
        except PontoonError:
            continue  # refused in the first world (a balance): tried the same way nowhere
        try:
            b.handle(actor, _msg(m))
        except PontoonError:
            break  # the other world's holder may not do it: from here the worlds part in public
