"""Issue 27: a split as the player's deviation from the heads-up solution: its exact value (two hands played
best against the simple banker the bots play when a hand is split) equals every deal of a reduced pack played
through the engine (to 1e-12), and it enters the player's best response."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.infosets import HIDDEN, buys_of, card_class
from pontoon.analysis.british.split_banker import blind_response, play_value, simple_play, split_banker
from pontoon.analysis.british.split_fast import SplitModel, banker_ends, same_rank_share
from pontoon.analysis.british.splits import (
    split_deviation,
    split_model,
    split_values,
    split_values_enumerated,
)
from pontoon.british.bots import BankerPolicy, banker_decision
from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.rules.british import BRITISH

RULES = BRITISH.with_(pack_ranks="A5T", pack_suits=4, packs=2)  # 24 cards: two split hands never exhaust it


def _result(cards: tuple[int, ...], status: str, stake: float) -> tuple[str, int, float]:
    if status == "bust":
        return (game.BUST, 0, stake)
    if status == "five":
        return ("five", 22, stake)
    return ("stuck", game.best(cards), stake)


@pytest.mark.slow
def test_split_value_equals_the_engine_and_enters_the_best_response() -> None:
    g = game.build(RULES)
    tb = V.tables(g)
    tw = V.house_banker(g)
    q, v, _ = V.player_q(g, tb, tw)
    values, options = split_model(RULES, g)
    assert set(values) == {game.ACE, 4, game.TEN}  # A-A, 5-5, T-T (one rank of ten-value cards here)
    x = 4  # split the fives
    top = [np.eye(len(s.actions))[int(np.argmax(q[i]))] for i, s in enumerate(g.nodes)]
    oi = {o: i for i, o in enumerate(g.obs)}

    def player(st):  # type: ignore[no-untyped-def]
        if st == ((x, x), (), ()):
            return {"split": 1.0}
        i = g.node_index[st]
        return dict(zip(g.nodes[i].actions, top[i], strict=True))

    def banker(hand, obs):  # type: ignore[no-untyped-def]
        return 0.0 if obs is None else float(tw[oi[obs], g.banker_index[hand]])

    def split_player(own, public):  # type: ignore[no-untyped-def]
        """The model's best decision at the current split hand, from the player's own and the public view."""
        hands = own["hands"]
        cur = next(i for i, h in enumerate(hands) if h["hand"] == own["current_hand"]["hand"])
        classes = [tuple(sorted(card_class(c) for c in h["cards"])) for h in hands]
        removed = game.counts_of(tuple(c for h in classes for c in h))
        stake = float(Decimal(hands[cur]["stake"]))
        bought = sum(1 for c in public["hands"][cur]["cards"] if c == HIDDEN) - 1
        buys = buys_of(int(stake), bought)
        done = tuple(
            _result(classes[i], hands[i]["status"], float(Decimal(hands[i]["stake"]))) for i in range(cur)
        )
        opts = options(
            removed,
            classes[cur],
            stake,
            float(buys[-1]) if buys else 2.0,
            hands[cur]["twisted"],
            done,
            tuple(classes[cur + 1 :]),
        )
        return {max(opts, key=lambda a: opts[a]): 1.0}

    def split_banker(view, legal):  # type: ignore[no-untyped-def]
        """The simple banker of the bots (pontoon.british.bots), as the level bots play a split table."""
        return 1.0 if banker_decision(view, legal, RULES, BankerPolicy())[0] == "twist" else 0.0

    engine = float(engine_value(RULES, player, banker, split=(split_player, split_banker)))
    model = 0.0
    for n, p in g.roots:
        if n >= 0 and g.nodes[n].cards == (x, x):
            model += p * values[x]
        else:
            model += p * (float(tb.fixed[-1 - n]) if n < 0 else float(v[n]))
    assert abs(engine - model) < 1e-12
    # the best response with splits: at least the one without, more where a split is worth more
    dev = split_deviation(g, tb, tw)
    assert dev["player_best_response_with_splits"] >= dev["without_splits"]
    gain = sum(
        p * max(0.0, values[g.nodes[n].cards[0]] - float(v[n]))
        for n, p in g.roots
        if n >= 0 and g.nodes[n].cards[0] == g.nodes[n].cards[1] and g.nodes[n].cards[0] in values
    )
    assert abs(dev["player_best_response_with_splits"] - dev["without_splits"] - gain) < 1e-12
    assert gain > 0  # splitting aces pays here


def test_split_deviation_on_a_small_pack() -> None:
    """The quick version: on one 12-card pack the split values exist for the pairs the pack has, and the best
    response with splits adds exactly the positive gains of splitting over not splitting."""
    rules = BRITISH.with_(pack_ranks="A5T", pack_suits=4)
    g = game.build(rules)
    tb = V.tables(g)
    dev = split_deviation(g, tb, V.house_banker(g))
    assert set(dev["pairs"]) == {"AA", "55", "TT"}  # the only ten-value rank is T: every T-T may be split
    assert all(d["splittable_share"] == 1.0 for d in dev["pairs"].values())
    gain = sum(max(0.0, d["split"] - d["no_split"]) for d in dev["pairs"].values())
    assert dev["player_best_response_with_splits"] >= dev["without_splits"]
    assert gain > 0 and dev["player_best_response_with_splits"] > dev["without_splits"]


@pytest.mark.parametrize(
    "fields",
    [
        {"pack_ranks": "A29T", "pack_suits": 4},
        {"pack_ranks": "A5T", "pack_suits": 4, "packs": 2, "royal_pontoon": True, "stick_minimum": 16},
        {
            "pack_ranks": "A67T",
            "pack_suits": 2,
            "packs": 2,
            "royal_pontoon": True,
            "no_buy_fifth_at_11_or_less": True,
        },
    ],
)
def test_the_compiled_passes_equal_the_enumeration(fields: dict[str, object]) -> None:
    """split_fast's two backward passes (the full-pack path) give every pair's split value of the enumeration
    (split_model, whose values equal the engine: above) to 1e-12, on packs with buys, a Royal Pontoon (7-7 split
    into three sevens), stick at 16 and no fifth card bought at 11 or less."""
    rules = BRITISH.with_(**fields)
    g = game.build(rules)
    enumerated = split_values_enumerated(rules, g)
    fast = split_values(rules, g)
    assert set(fast) == set(enumerated) and len(fast) >= 2
    for x, value in enumerated.items():
        assert abs(fast[x] - value) < 1e-12


def test_the_banker_facing_a_split_best_responds_exactly() -> None:
    """split_banker.py: on a reduced pack, for two pairs, (1) the forward pass values the player's best split
    against the simple banker at exactly its backward value; (2) the banker's best response among plays that read
    his own cards is valued the same by the backward pass (the player's values) and the forward one, it is never
    worse for the banker than the simple banker, and the player's best split against it, by the compiled passes,
    equals the enumeration of split_model against that banker (to 1e-12); (3) fictitious play's upper bound is
    at most the simple banker's value."""
    rules = BRITISH.with_(pack_ranks="A29T", pack_suits=4)
    g = game.build(rules)
    model = SplitModel(rules, g)
    simple = simple_play(g)
    for x in (game.ACE, 8):
        run = model.run(x, banker_ends(g, lambda h: simple[g.banker_index[h]]))
        assert abs(play_value(g, model, run, simple) - run.value) < 1e-12
        response, value = blind_response(g, model, run)
        assert abs(play_value(g, model, run, response) - value) < 1e-12
        assert value <= run.value + 1e-12 and not np.array_equal(response, simple)
        fast = model.run(x, banker_ends(g, lambda h, r=response: r[g.banker_index[h]])).value
        assert fast >= value - 1e-12  # his best split against it does at least as well as the old split play
        if x == 8:  # the enumeration values every pair at once (4 s): one check
            enumerated = split_values_enumerated(rules, g, lambda h, r=response: bool(r[g.banker_index[h]]))[
                x
            ]
            assert abs(fast - enumerated) < 1e-12
        found = split_banker(g, x, -10.0, model, rounds=2)
        assert found["upper"] <= run.value + 1e-12 and found["rounds"][0] == run.value


def test_ten_value_pairs_split_only_when_of_one_rank() -> None:
    """003: "you cannot split two ten point cards unless they are actually equal - two queens can be split but
    a queen and a jack" (not). The engine offers the split for Q-Q, not for Q-J; the share of the ten-value pairs
    that may be split equals the count of same-rank pairs among the engine's own pack; the deviation weights the
    T-T split by it (the split's value is the class's: fast passes equal the enumeration above)."""
    rules = BRITISH.with_(pack_ranks="A6TQ", pack_suits=2, packs=2)
    for a, b, offered in (("QS", "QH", True), ("QS", "TH", False), ("TS", "TS", True)):
        # dealt one at a time, the player first: his two cards are the first and the third
        rnd = BritishRound(rules, ["p"], "b", BritishPack.stacked_from(f"{a} 6S {b} 6H 6S 6H AS AH", packs=2))
        rnd.act("p", "stake", "1")
        assert rnd.view("p")["hands"][0]["cards"] == [a, b]
        assert rnd.can_split("p") is offered
    tens = [c for c in one_pack(rules) * rules.packs_for(2) if c.rank in "TJQK"]
    same = sum(1 for i, a in enumerate(tens) for b in tens[i + 1 :] if a.rank == b.rank)
    share = same / (len(tens) * (len(tens) - 1) / 2)
    assert abs(same_rank_share(rules, game.TEN) - share) < 1e-15 and share == 3 / 7
    assert same_rank_share(BRITISH, game.TEN) == 3 / 15  # one pack: 16 ten-value cards, 4 of each rank
    g = game.build(rules)
    tb = V.tables(g)
    tw = V.house_banker(g)
    _, v, base = V.player_q(g, tb, tw)
    dev = split_deviation(g, tb, tw)
    tt = dev["pairs"]["TT"]
    assert tt["splittable_share"] == share
    gains = {
        name: d["splittable_share"] * max(0.0, d["split"] - d["no_split"]) for name, d in dev["pairs"].items()
    }
    p_pair = {
        game.NAMES[g.nodes[n].cards[0]] * 2: p
        for n, p in g.roots
        if n >= 0 and g.nodes[n].cards[0] == g.nodes[n].cards[1]
    }
    expected = float(base) + sum(p_pair[name] * gain for name, gain in gains.items())
    assert abs(dev["player_best_response_with_splits"] - expected) < 1e-12
