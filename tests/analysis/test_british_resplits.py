"""Issue 27: resplits (003 Split: "If either of the new cards dealt is equal to the first two you may choose to
split again, creating three or even (theoretically) four separate hands"). The report says how often the
player's best response with splits would be offered one (split_banker.resplit_chances), checked against the
engine's pack card by card, and the engine offers the resplit exactly there; split_resplit values resplits
exactly (each hand settled when it ends), checked against the passes and against settling every hand at the
end."""

from __future__ import annotations

from itertools import permutations

import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.split_banker import resplit_chances
from pontoon.analysis.british.splits import split_deviation
from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.rules.british import BRITISH

RULES = BRITISH.with_(pack_ranks="A5T", pack_suits=4)


def test_resplit_chances_count_the_pack_card_by_card() -> None:
    """A 12-card pack: for each pair the best response splits, the chance per round of a pair of that rank with
    a second card of the rank, over every ordered deal of the player's two cards and the split hands' second
    cards (the banker's two between them: exchangeable, left out), equals resplit_chances."""
    g = game.build(RULES)
    tb = V.tables(g)
    dev = split_deviation(g, tb, V.house_banker(g))
    got = resplit_chances(g, dev)
    split = {k for k, d in dev["pairs"].items() if d["split"] > d["no_split"]}
    assert set(got["pairs"]) == split and split  # 5-5 and T-T split against the house banker here
    pack = one_pack(RULES) * RULES.packs_for(2)
    for name, chance in got["pairs"].items():
        rank = "5" if name == "55" else name[0]
        hits = total = 0
        for a, b, c, d in permutations(range(len(pack)), 4):
            total += 1
            if pack[a].rank == pack[b].rank == rank and rank in (pack[c].rank, pack[d].rank):
                hits += 1
        assert abs(chance - hits / total) < 1e-15
    assert abs(got["per_round"] - sum(got["pairs"].values())) < 1e-15


def test_the_engine_offers_a_resplit_exactly_on_a_second_card_of_the_rank() -> None:
    """Dealt player, banker, player, banker, then the split hands' second cards: 5-5 split, the first hand's
    second card a five (split again offered: three hands, 003) or not (no split offered)."""
    for second, other, offered in (("5D", "TD", True), ("TD", "5D", False)):
        order = f"5S TC 5H TS {second} TH AS AH AD AC 5C {other}"  # the banker on T-T
        rnd = BritishRound(RULES, ["p"], "b", BritishPack.stacked_from(order, packs=1))
        rnd.act("p", "stake", "1")
        rnd.act("p", "split")
        assert rnd.can_split("p") is offered
        if offered:
            rnd.act("p", "split")
            assert len(rnd.view("p")["hands"]) == 3


# --- resplits in the player's best split (split_resplit.py) -------------------------------------------------

# 18 cards (A 9 T, three suits, two packs): three hands of at most five cards and the banker's five never run out
RESPLIT_RULES = BRITISH.with_(pack_ranks="A9T", pack_suits=3, packs=2, max_split_hands=3)


def _settle_all_at_the_end(rules, g, x: int, per, house, nphi: int):  # type: ignore[no-untyped-def]
    """The split of x-x with resplits (up to ``max_split_hands``) valued by brute force: every hand kept until the
    end and all settled together against the banker's outcome given every card of the player: facing two hands
    the play ``per`` of the class of what he sees of them, facing three or four the house banker ``house``."""
    from functools import cache

    import numpy as np

    from pontoon.analysis.british.game import NCLASS, best, hard
    from pontoon.analysis.british.split_banker import class_ends
    from pontoon.analysis.british.split_fast import (
        SplitModel,
        _k_banker_all,
        _k_banker_classes,
        banker_ends,
    )
    from pontoon.analysis.british.values import _u

    model = SplitModel(rules, g)
    counts, total = tuple(int(c) for c in model.counts), model.total
    wk, be = class_ends(g, per), banker_ends(g, lambda h: house[g.banker_index[h]])
    cls, mul, size, outk = model.banker_arrays()
    fp = float(rules.five_card_trick_pays)
    pay = np.array([[_u(t, o, fp) for o in range(23)] for t in range(23)])

    @cache
    def dist(out, two):  # type: ignore[no-untyped-def]
        rcs = np.array([out], np.int64)
        pp = np.zeros(1)
        if two:
            pb, pn = np.zeros((len(wk), 1, 23)), np.zeros((len(wk), 1))
            _k_banker_classes(
                rcs,
                model.counts,
                total,
                cls,
                mul,
                size,
                wk,
                outk,
                model.binom,
                model.p0,
                model.p1,
                pb,
                pn,
                pp,
            )
            return pb[:, 0], pn[:, 0], pp[0]
        pbi, pn = np.zeros((1, len(be.outs))), np.zeros(1)
        _k_banker_all(
            rcs, model.counts, total, be.cls, be.mul, be.size, be.w, be.out, model.binom, model.p0, model.p1,
            pbi, pn, pp,
        )  # fmt: skip
        pb = np.zeros((1, 23))
        pb[:, be.outs] = pbi
        return pb, pn, pp[0]

    def settle(out, done):  # type: ignore[no-untyped-def]
        pb, pn, pp = dist(out, len(done) == 2)
        cl = 0
        if len(done) == 2:
            phi = [0 if hard(c) > 21 else min(len(c), nphi) - 1 for c, _ in done]
            cl = phi[0] * nphi + phi[1]
        v = -float(rules.banker_pontoon_collects) * pp
        for cards, stake in done:
            if hard(cards) > 21:
                v -= stake * pn[cl]
            elif len(cards) == 5:
                v += stake * float(pb[cl] @ pay[22])
            else:
                v += stake * float(pb[cl] @ pay[best(cards)])
        return v

    def add(out, c):  # type: ignore[no-untyped-def]
        return tuple(v + (i == c) for i, v in enumerate(out))

    def deal_two(out, hands, done, nh):  # type: ignore[no-untyped-def]
        left, acc = total - sum(out), 0.0
        for a in range(NCLASS):
            for b in range(NCLASS):
                ka = counts[a] - out[a]
                kb = counts[b] - out[b] - (a == b)
                if ka > 0 and kb > 0:
                    new = (tuple(sorted((x, a))), tuple(sorted((x, b))))
                    o = add(add(out, a), b)
                    acc += (
                        ka
                        / left
                        * kb
                        / (left - 1)
                        * play(o, new[0], 1.0, 2.0, False, done, (new[1], *hands), nh)
                    )
        return acc

    @cache
    def play(out, cards, stake, last, twisted, done, hands, nh):  # type: ignore[no-untyped-def]
        h, n = hard(cards), len(cards)

        def finish():  # type: ignore[no-untyped-def]
            d = (*done, (cards, stake))
            if hands:
                return play(out, hands[0], 1.0, 2.0, False, d, hands[1:], nh)
            return settle(out, d)

        if h > 21 or n == 5:
            return finish()
        opts = []
        if rules.stick_minimum <= best(cards) <= 21:
            opts.append(finish())
        if n == 2 and cards == (x, x) and nh < rules.max_split_hands:
            opts.append(deal_two(out, hands, done, nh + 1))
        if h < 21:
            left = total - sum(out)
            moves = [(0.0, True, last)] + (
                [(a, False, a) for a in (1.0, 2.0) if a <= last] if not twisted else []
            )
            for extra, tw, nl in moves:
                opts.append(
                    sum(
                        (counts[c] - out[c])
                        / left
                        * play(
                            add(out, c), tuple(sorted((*cards, c))), stake + extra, nl, tw, done, hands, nh
                        )
                        for c in range(NCLASS)
                        if counts[c] > out[c]
                    )
                )
        return max(opts)

    out0 = tuple(2 * (i == x) for i in range(NCLASS))
    return deal_two(out0, (), (), 2)


def test_each_hand_settled_when_it_ends_equals_the_passes() -> None:
    """Without resplits, against a banker reading his own cards (the house banker): the split's value with each
    hand settled against the pack left when it ends (split_resplit.OwnWorld) equals the passes, which settle
    both hands together (split_fast), to 1e-12, for every splittable pair of a 16-card pack."""
    from pontoon.analysis.british.split_fast import SplitModel, banker_ends, splittable
    from pontoon.analysis.british.split_resplit import OwnWorld, _out, house_play

    rules = BRITISH.with_(pack_ranks="A29T", pack_suits=4, max_split_hands=2)
    g = game.build(rules)
    model = SplitModel(rules, g)
    house = house_play(g)
    be = banker_ends(g, lambda h: house[g.banker_index[h]])
    for x in splittable(rules, model.counts):
        world = OwnWorld(model, x, house)
        out = _out(x, x)
        assert abs(world.pontoon(out) + world.split_again(out, (), 1) - model.run(x, be).value) < 1e-12


def test_resplits_equal_settling_every_hand_at_the_end() -> None:
    """An 18-card pack, A-A split with resplits up to three hands: the passes with resplits (each hand settled
    when it ends, split_resplit.OwnWorld, for three hands) equal the brute force that keeps every hand to the end
    and settles them together, to 1e-12; the banker facing two hands plays a play per class of what he sees of
    them (his best response per class to the player's best split against the simple banker), facing three the
    house banker; the resplits valued by the compiled world and by the Python OwnWorld alike. The resplit is worth
    something here (+0.105 a stake over the split without it)."""
    import numpy as np

    from pontoon.analysis.british.split_banker import blind_response, class_ends, simple_play
    from pontoon.analysis.british.split_fast import SPLIT_CLASSES as K
    from pontoon.analysis.british.split_fast import SplitModel
    from pontoon.analysis.british.split_resplit import house_play, split_with_resplits

    rules = RESPLIT_RULES
    g = game.build(rules)
    model = SplitModel(rules, g)
    x = game.ACE
    first = model.run(x, class_ends(g, np.tile(simple_play(g), (K * K, 1))), K)
    per, _ = blind_response(g, model, first, K)
    house = house_play(g)
    plain, withr = split_with_resplits(model, x, class_ends(g, per), K, house)  # compiled (FastWorld)
    _, slow = split_with_resplits(model, x, class_ends(g, per), K, house, compiled=False)  # OwnWorld
    brute = _settle_all_at_the_end(rules, g, x, per, house, K)
    assert abs(withr.value - brute) < 1e-12 and abs(slow.value - brute) < 1e-12
    assert withr.value > plain.value + 0.1


def test_the_compiled_world_equals_ownworld() -> None:
    """split_resplit_fast.FastWorld (numba, memoized on the cards out and the hands to play) gives the resplit
    values ``ra`` (the first hand split again, per second card of the second hand) and ``rb`` (the second hand
    split again, per end of the first) of the Python OwnWorld to 1e-12, against the house banker: a 16-card pack
    with up to four hands (every pair but the ten-value one resplit) and the 18-card pack with three; and
    where no card can be (-inf) alike. The values are not all alike (the test can fail on a wrong recursion)."""
    import numpy as np

    from pontoon.analysis.british.split_fast import SplitModel
    from pontoon.analysis.british.split_resplit import OwnWorld, house_play, resplit_values
    from pontoon.analysis.british.split_resplit_fast import FastWorld

    for rules, pairs in (
        (BRITISH.with_(pack_ranks="A29T", pack_suits=4, max_split_hands=4), (game.ACE, 1, 8, game.TEN)),
        (RESPLIT_RULES, (game.ACE, 8)),
    ):
        g = game.build(rules)
        model = SplitModel(rules, g)
        house = house_play(g)
        for x in pairs:
            ra, rb = resplit_values(model, x, OwnWorld(model, x, house))
            fa, fb = FastWorld(model, x, house).resplit_values()
            for want, got in ((ra, fa), (rb, fb)):
                ok = np.isfinite(want)
                assert np.array_equal(ok, np.isfinite(got)) and ok.any()
                assert np.abs(got[ok] - want[ok]).max() < 1e-12
                assert np.ptp(want[ok]) > 0.01


def test_the_resplit_profile_adds_each_pairs_resplits() -> None:
    """split_resplit.resplit_profile on the 18-card pack (three hands), the banker facing a split as
    with_split_banker finds him against the house-banker best response: without resplits it gives
    with_split_banker's player best response again (1e-12, another route), each pair's split with resplits is
    split_with_resplits through the Python OwnWorld (1e-12) and never below the split without, and the best
    response with resplits is the one without plus each pair's chance times its further gain over not
    splitting."""
    import numpy as np

    from pontoon.analysis.british.split_banker import class_ends, simple_play, with_split_banker
    from pontoon.analysis.british.split_fast import SPLIT_CLASSES as K
    from pontoon.analysis.british.split_fast import SplitModel
    from pontoon.analysis.british.split_resplit import house_play, resplit_profile, split_with_resplits

    g = game.build(RESPLIT_RULES)
    tb = V.tables(g)
    twists: dict[int, np.ndarray] = {}
    dev = with_split_banker(g, split_deviation(g, tb, V.house_banker(g)), rounds=4, twists=twists, nphi=K)
    got = resplit_profile(g, dev, twists, banker_br=0.0)
    want = dev["with_split_banker"]["player_best_response_with_splits"]
    assert abs(got["player_best_response_without_resplits"] - want) < 1e-12
    model = SplitModel(RESPLIT_RULES, g)
    extra = 0.0
    n = g.total_cards
    for name, pair in got["pairs"].items():
        x = game.NAMES.index(name[0])
        play = twists.get(x, np.tile(simple_play(g), (K * K, 1)))
        _, slow = split_with_resplits(model, x, class_ends(g, play), K, house_play(g), compiled=False)
        assert abs(pair["split_with_resplits"] - slow.value) < 1e-12
        assert pair["split_with_resplits"] >= pair["split"] - 1e-12
        k = int(g.counts[x])
        p = k / n * (k - 1) / (n - 1) * dev["pairs"][name].get("splittable_share", 1.0)
        extra += p * (max(0.0, slow.value - pair["no_split"]) - max(0.0, pair["split"] - pair["no_split"]))
    assert abs(got["player_best_response_with_resplits"] - want - extra) < 1e-12
    assert got["exploitability_with_resplits"] == got["player_best_response_with_resplits"]
    assert got["three_or_four_bound"] == pytest.approx(extra, abs=1e-12) and extra > 0.0
    assert any(p["split_with_resplits"] > p["split"] + 0.01 for p in got["pairs"].values())
