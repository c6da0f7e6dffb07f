"""Issue 27: the banker facing a split who reads the split hands (split_reading.py): his exact best response to
the player's split play, given what view(banker) shows of both hands (ruling 35), equals every deal of a reduced
pack played through the engine (to 1e-12); the forward walk of the split's runs values a play of his own cards at
the compiled passes' value; reading the hands is never worse for him than reading his own cards only."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.infosets import HIDDEN, buys_of, card_class
from pontoon.analysis.british.split_banker import blind_response, simple_play
from pontoon.analysis.british.split_fast import TWIST, SplitModel, SplitRun, banker_ends
from pontoon.analysis.british.split_reading import gather, reading_response
from pontoon.rules.british import BRITISH

VERB = {TWIST: "twist", 1: "buy1", 2: "buy2"}


def _node(model: SplitModel, x: int, hand: dict[str, Any], shown: dict[str, Any]) -> int:
    """The split hand's node in the hand graph from the owner's view of it (cards, stake, buys, twisted)."""
    hg = model.graph(x)[0]
    cards = tuple(sorted(card_class(c) for c in hand["cards"]))
    stake = float(Decimal(hand["stake"]))
    bought = sum(1 for c in shown["cards"] if c == HIDDEN) - 1
    buys = buys_of(int(stake), bought)
    key = (cards, stake, float(buys[-1]) if buys else 2.0, bool(hand["twisted"]))
    return hg.keys.index(key)


def split_player(model: SplitModel, run: SplitRun):  # type: ignore[no-untyped-def]
    """The player's split play of ``run`` (both hands' decisions) read from his own and the public view."""
    hg, _, _, _ = model.graph(run.x)

    def decide(own, public):  # type: ignore[no-untyped-def]
        hands = own["hands"]
        cur = next(i for i, h in enumerate(hands) if h["hand"] == own["current_hand"]["hand"])
        j = _node(model, run.x, hands[cur], public["hands"][cur])
        if cur == 0:
            c2 = card_class(hands[1]["cards"][1])  # the second hand's face-down card: the player knows it
            a = int(run.dec1[c2, j])
        else:
            first = game.counts_of(tuple(sorted(card_class(c) for c in hands[0]["cards"])))
            stake1 = float(Decimal(hands[0]["stake"]))
            e1 = next(
                e
                for e in range(len(hg.e_mset))
                if tuple(hg.mcnt[hg.e_mset[e]]) == first and hg.e_stake[e] == stake1
            )
            d = int(run.dec2[e1, j])
            acts = [a for a in range(3) if (hg.kid[j, a] >= 0).any()]
            a = -1 if d < 0 else acts[d]
        return {"stick" if a < 0 else VERB[a]: 1.0}

    return decide


def seen_of(hand: dict[str, Any]) -> tuple[Any, ...]:
    """What view(banker) shows of a split hand at his turn (split_reading's observation)."""
    stake = float(Decimal(hand["stake"]))
    if hand["status"] == "bust":  # 003 "throw in your hand face up": every card, in the order dealt
        return ("bust", stake, bool(hand["twisted"]), tuple(card_class(c) for c in hand["cards"]))
    hidden = sum(1 for c in hand["cards"] if c == HIDDEN)
    ups = tuple(card_class(c) for c in hand["cards"][1:] if c != HIDDEN)
    return (hand["status"], stake, hidden, ups)


@pytest.mark.slow
def test_reading_banker_best_response_equals_the_engine() -> None:
    """Every deal of a 16-card pack through the engine (about 2 minutes of CPU), the player splitting 9-9 as his
    best split against the simple banker, the banker facing it playing his best response from view(banker)."""
    rules = BRITISH.with_(pack_ranks="A29T", pack_suits=4)
    g = game.build(rules)
    tb = V.tables(g)
    tw = V.house_banker(g)
    q, v, _ = V.player_q(g, tb, tw)
    model = SplitModel(rules, g)
    simple = simple_play(g)
    x = 8  # split the nines
    run = model.run(x, banker_ends(g, lambda h: simple[g.banker_index[h]]))
    read = reading_response(g, model, run, decisions=True)
    top = [np.eye(len(s.actions))[int(np.argmax(q[i]))] for i, s in enumerate(g.nodes)]
    oi = {o: i for i, o in enumerate(g.obs)}

    def player(st):  # type: ignore[no-untyped-def]
        if st == ((x, x), (), ()):
            return {"split": 1.0}
        i = g.node_index[st]
        return dict(zip(g.nodes[i].actions, top[i], strict=True))

    def banker(hand, obs):  # type: ignore[no-untyped-def]
        return 0.0 if obs is None else float(tw[oi[obs], g.banker_index[hand]])

    def reading_banker(view, legal):  # type: ignore[no-untyped-def]
        """His best response: what view(banker) shows of both split hands, and his own cards."""
        seen = tuple(seen_of(h) for h in view["hands"])
        hand = tuple(sorted(card_class(c) for c in view["banker_cards"]))
        return float(read.dec[read.obs_index[seen], g.banker_index[hand]])  # type: ignore[index]

    engine = float(engine_value(rules, player, banker, split=(split_player(model, run), reading_banker)))
    p_split = sum(p for n, p in g.roots if n >= 0 and g.nodes[n].cards == (x, x))
    rest = sum(
        p * (float(tb.fixed[-1 - n]) if n < 0 else float(v[n]))
        for n, p in g.roots
        if n < 0 or g.nodes[n].cards != (x, x)
    )
    assert abs(engine - (rest + p_split * read.value)) < 1e-12
    # reading the hands is worth something to him here, and never less than reading his own cards only
    _, blind = blind_response(g, model, run)
    assert read.value < blind - 1e-6 and blind <= run.value + 1e-12


def test_the_forward_walk_values_a_play_of_his_own_cards_as_the_passes() -> None:
    """Every run of both hands is walked: with a fixed play of the banker reading his own cards (the simple banker,
    and his best response among such plays) the gathered runs give the compiled passes' value (1e-12)."""
    rules = BRITISH.with_(pack_ranks="A29T", pack_suits=4)
    g = game.build(rules)
    model = SplitModel(rules, g)
    simple = simple_play(g)
    for x in (game.ACE, 8):
        run = model.run(x, banker_ends(g, lambda h: simple[g.banker_index[h]]))
        gd = gather(model, run)
        assert abs(reading_response(g, model, run, twist=simple, gathered=gd).value - run.value) < 1e-12
        response, blind = blind_response(g, model, run)
        assert abs(reading_response(g, model, run, twist=response, gathered=gd).value - blind) < 1e-12
        assert reading_response(g, model, run, gathered=gd).value <= blind + 1e-12
