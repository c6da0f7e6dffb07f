"""Issue 27: the banker facing a split reading, besides his own cards, the class of what he sees of the two ended
split hands (each a bust or its number of cards: split_fast.end_feature, seen_class; ruling 35). The player's
best split against such a banker (the compiled passes with a play per class), the banker's best response in
that class (the forward pass per class) and the value of a play per class over the walked runs of split_reading
agree to 1e-12, and equal every deal of a reduced pack played through the engine, the banker reading the class
from view(banker)."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.infosets import card_class
from pontoon.analysis.british.split_banker import (
    blind_response,
    class_ends,
    play_value,
    simple_play,
    split_banker,
)
from pontoon.analysis.british.split_fast import SPLIT_CLASSES, SplitModel, banker_ends, seen_class
from pontoon.analysis.british.split_reading import gather, reading_response
from pontoon.rules.british import BRITISH

from .test_british_split_reading import split_player

K = SPLIT_CLASSES


def test_a_play_per_class_agrees_everywhere() -> None:
    """On a 16-card pack, for A-A and 9-9: the simple banker copied to every class is the simple banker; the
    banker's best response per class to the player's best split against the simple banker is valued alike by the
    backward pass, by the forward pass (play_value) and by the walked runs (split_reading), is never worse for him
    than his best response reading his own cards only, and never better than the one reading everything he sees;
    the player's best split against that banker is valued alike by the passes and by the walked runs."""
    rules = BRITISH.with_(pack_ranks="A29T", pack_suits=4)
    g = game.build(rules)
    model = SplitModel(rules, g)
    simple = simple_play(g)
    for x in (game.ACE, 8):
        run = model.run(x, banker_ends(g, lambda h: simple[g.banker_index[h]]))
        assert abs(model.run(x, class_ends(g, np.tile(simple, (K * K, 1))), K).value - run.value) < 1e-12
        own, v_own = blind_response(g, model, run)
        per, v_per = blind_response(g, model, run, K)
        assert per.shape == (K * K, len(g.banker))
        assert abs(play_value(g, model, run, per) - v_per) < 1e-12
        gd = gather(model, run)
        assert abs(reading_response(g, model, run, twist=per, gathered=gd).value - v_per) < 1e-12
        assert v_per <= v_own + 1e-12
        assert reading_response(g, model, run, gathered=gd).value <= v_per + 1e-12
        best = model.run(x, class_ends(g, per), K)
        assert abs(reading_response(g, model, best, twist=per).value - best.value) < 1e-12
        assert abs(play_value(g, model, best, per) - best.value) < 1e-12
        assert best.value >= v_per - 1e-12  # his best split does at least as well as the old one
    assert v_per < v_own - 1e-6  # 9-9: the class is worth something to the banker here


def _engine_check(rules, x: int) -> None:  # type: ignore[no-untyped-def]
    """Every deal through the engine: the player splits x-x as his best split against the banker's best
    response per class (fictitious play's first round), who reads the class from view(banker)."""
    g = game.build(rules)
    tb = V.tables(g)
    tw = V.house_banker(g)
    q, v, _ = V.player_q(g, tb, tw)
    model = SplitModel(rules, g)
    found = split_banker(g, x, -10.0, model, rounds=2, nphi=K)
    per = found["twist"]
    run = model.run(x, class_ends(g, per), K)
    top = [np.eye(len(s.actions))[int(np.argmax(q[i]))] for i, s in enumerate(g.nodes)]
    oi = {o: i for i, o in enumerate(g.obs)}

    def player(st):  # type: ignore[no-untyped-def]
        if st == ((x, x), (), ()):
            return {"split": 1.0}
        i = g.node_index[st]
        return dict(zip(g.nodes[i].actions, top[i], strict=True))

    def banker(hand, obs):  # type: ignore[no-untyped-def]
        return 0.0 if obs is None else float(tw[oi[obs], g.banker_index[hand]])

    def class_banker(view, legal):  # type: ignore[no-untyped-def]
        hand = tuple(sorted(card_class(c) for c in view["banker_cards"]))
        return float(per[seen_class(view["hands"]), g.banker_index[hand]])

    engine = float(engine_value(rules, player, banker, split=(split_player(model, run), class_banker)))
    p_split = sum(p for n, p in g.roots if n >= 0 and g.nodes[n].cards == (x, x))
    rest = sum(
        p * (float(tb.fixed[-1 - n]) if n < 0 else float(v[n]))
        for n, p in g.roots
        if n < 0 or g.nodes[n].cards != (x, x)
    )
    assert abs(engine - (rest + p_split * run.value)) < 1e-12


def test_the_class_banker_equals_the_engine_small() -> None:
    """The quick version: two 12-card packs, 5-5 split."""
    _engine_check(BRITISH.with_(pack_ranks="A5T", pack_suits=4, packs=2), 4)


@pytest.mark.slow
def test_the_class_banker_equals_the_engine() -> None:
    """A 16-card pack, 9-9 split (about 2 minutes of CPU)."""
    _engine_check(BRITISH.with_(pack_ranks="A29T", pack_suits=4), 8)
