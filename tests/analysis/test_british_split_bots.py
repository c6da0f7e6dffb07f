"""Issue 27 items 5 and 6: the banker facing a split at the table (split_bots.py). The bots play the profile's
play there from his own cards only; the banker's hint facing a split gives the exact values of staying and
twisting given what he sees of both split hands (split_reading.observation_values, whose values add up to the
reading best response that equals the engine), the same for deals he cannot tell apart (ruling 35)."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.bots import make_bots
from pontoon.analysis.british.hints import round_hint
from pontoon.analysis.british.infosets import card_class
from pontoon.analysis.british.split_banker import simple_play
from pontoon.analysis.british.split_bots import split_banker_values, split_pair, split_twist_chance
from pontoon.analysis.british.split_fast import SplitModel, banker_ends, seen_class
from pontoon.analysis.british.split_reading import (
    gather,
    observation_values,
    pontoon_part,
    reading_response,
    seen_of_view,
)
from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.rules.british import BRITISH

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4)


@pytest.fixture(scope="module")
def small(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The reduced pack's solution, solved once for the module (cached in a temporary directory)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PONTOON_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    S._MEMO.clear()
    yield S.solved(SMALL)
    S._MEMO.clear()
    mp.undo()


def _split_round(rules, order: str) -> BritishRound:  # type: ignore[no-untyped-def]
    """A heads-up round on a stacked pack (dealt player, banker, player, banker, then in order) where the
    player splits his pair."""
    rnd = BritishRound(rules, ["p"], "b", BritishPack.stacked_from(order, packs=rules.packs_for(2)))
    rnd.act("p", "stake", "1")
    rnd.act("p", "split")
    return rnd


def test_observation_values_add_up_to_the_reading_best_response() -> None:
    """Per observation and banker pair of cards, the better of staying and twisting (normalised values times
    their chance) summed over everything equals the reading banker's best response (equal to the engine)."""
    rules = BRITISH.with_(pack_ranks="A29T", pack_suits=4)
    g = game.build(rules)
    model = SplitModel(rules, g)
    simple = simple_play(g)
    run = model.run(8, banker_ends(g, lambda h: simple[g.banker_index[h]]))
    gd = gather(model, run)
    total = pontoon_part(model, gd)
    pairs = [k for k, h in enumerate(g.banker) if len(h) == 2]
    for o in range(len(gd.obs)):
        stay, twist, mass = observation_values(g, model, gd, o)
        for k in pairs:
            if mass[k] > 0:
                best = stay[k] if np.isnan(twist[k]) else min(stay[k], twist[k])
                total += mass[k] * best
    assert abs(total - reading_response(g, model, run, gathered=gd).value) < 1e-12


def test_the_split_hint_reads_only_what_the_banker_sees(small) -> None:  # type: ignore[no-untyped-def]
    """5-5 split on the 12-card pack, the banker on T-T (20), each hand 5-5 buying a card for two stakes and
    sticking (as the player's best split plays): two deals that differ only in the split hands' face-down cards
    (bought A then T, against T then A) give the banker the same hint; it is the exact pair of values of
    split_banker_values at what he sees, twisting taken where it is worth more to him."""
    hints = []
    for order in ("5S TS 5H TH 5D 5C AS TC", "5S TS 5H TH 5D 5C TC AS"):
        rnd = _split_round(SMALL, order)
        for _ in range(2):
            rnd.act("p", "buy", "2")
            rnd.act("p", "stick")
        assert rnd.to_act() == "b"
        view = rnd.view("b")
        x = split_pair(view)
        assert x == card_class("5S")
        hint = round_hint(rnd, "b")
        seen = tuple(seen_of_view(h) for h in view["hands"])
        assert seen == (("stuck", 3.0, 2, ()), ("stuck", 3.0, 2, ()))
        want = split_banker_values(small, x, seen, (card_class("TH"), card_class("TS")))
        assert hint["values"] == pytest.approx(want, abs=1e-12) and set(want) == {"stick", "twist"}
        assert hint["best"] == max(want, key=lambda a: want[a])
        hints.append(hint["values"])
    assert hints[0] == hints[1]


def test_bots_facing_a_split_play_the_split_play_from_what_he_sees() -> None:
    """The shipped one-pack game, 8-8 split: the solved banker bot twists as often as the profile's play facing
    the split says for his hand and the class of what he sees of the split hands (each a bust or its number of
    cards: split_fast.seen_class; the simple banker for a pair whose split it already makes unprofitable); deals
    he sees alike get the same decisions whatever the split hands' face-down cards (ruling 35)."""
    sol = S.solved(BRITISH)
    g = sol.game
    for order, banker in (("8S 9C 8H 7D", (6, 8)), ("8S TC 8H 6D", (5, 9)), ("2S TC 2H 6D", (5, 9))):
        x = card_class(order[:2])
        k = g.banker_index[banker]
        decisions: dict[int, list[list[str]]] = {}
        for rest in ("9S 9H", "TD TH", "2D 3D", "9D TS"):
            rnd = _split_round(BRITISH, f"{order} {rest} 4C 4D 4H 4S 3C 3H 3S")
            while rnd.to_act() == "p":
                rnd.act("p", "stick" if rnd.can("p", "stick") else "twist")
            if rnd.to_act() != "b":
                continue  # both hands bust: the banker does not play
            view = rnd.view("b")
            cl = seen_class(view["hands"])
            p = split_twist_chance(sol, x, k, cl)
            got = [make_bots("solved", BRITISH, np.random.default_rng(s)).decide(rnd)[1] for s in range(40)]
            decisions.setdefault(cl, []).append(got)
            share = got.count("twist") / len(got)
            if p in (0.0, 1.0):
                assert share == p
            else:
                assert 0.0 < share < 1.0
        assert decisions and all(d == ds[0] for ds in decisions.values() for d in ds)
        assert any(len(ds) > 1 for ds in decisions.values())  # two deals he sees alike
    twists = S.solved(BRITISH).memo["split_twists"]
    assert set(twists) == {5, 6, 7}  # 6-6, 7-7, 8-8: the pairs the simple banker leaves profitable (one pack)
    t = twists[7]
    assert t.shape == (16, len(g.banker))  # per class of what he sees (4 x 4) and banker hand
    assert any(not np.array_equal(t[a], t[b]) for a in range(16) for b in range(a))  # the class counts
