"""Issue 27: the rigorous upper bound on what resplits (003 Split: "If either of the new cards dealt is equal to
the first two you may choose to split again") add to the player's best split (split_resplit_bound.py), checked
against the exact resplit values (split_resplit_fast.FastWorld, equal to the Python OwnWorld and to settling every
hand at the end: test_british_resplits.py) on reduced packs: the bound is never below the exact value, offer by
offer and for the whole split."""

from __future__ import annotations

import numpy as np

from pontoon.analysis.british import game
from pontoon.analysis.british.split_banker import class_ends, simple_play
from pontoon.analysis.british.split_fast import SPLIT_CLASSES as K
from pontoon.analysis.british.split_fast import SplitModel
from pontoon.analysis.british.split_resplit import house_play, split_with_resplits
from pontoon.analysis.british.split_resplit_bound import _robust, pair_bound, resplit_bounds
from pontoon.analysis.british.split_resplit_fast import FastWorld
from pontoon.analysis.british.split_resplit_tight import DEEP_STAGES
from pontoon.rules.british import BRITISH

PACKS = (
    # 18 cards (A 9 T, three suits, two packs), three hands; 24 cards (A 2 9 T, three suits, two packs), four hands
    (BRITISH.with_(pack_ranks="A9T", pack_suits=3, packs=2, max_split_hands=3), (game.ACE, 8)),
    (BRITISH.with_(pack_ranks="A29T", pack_suits=3, packs=2, max_split_hands=4), (game.ACE, 1, 8)),
)


def test_the_optimistic_draw_is_the_best_pack_within_the_slack() -> None:
    """T_J (``_robust``) equals the largest expectation over every way of taking at most J cards out, by brute
    force over them, and is the plain expectation at J = 0."""
    from itertools import product

    rng = np.random.default_rng(27)
    for _ in range(40):
        m = rng.integers(0, 4, 5).astype(np.int64)
        if m.sum() < 2:
            continue
        w = rng.normal(size=5)
        for J in range(4):
            want = -1e300
            for r in product(*(range(int(k) + 1) for k in m)):
                s = sum(r)
                if s <= J and m.sum() - s > 0:
                    want = max(want, float(((m - np.array(r)) * w).sum() / (m.sum() - s)))
            assert abs(_robust(w, m, J) - want) < 1e-12
        assert abs(_robust(w, m, 0) - float((m * w).sum() / m.sum())) < 1e-12


def test_the_bound_is_never_below_the_exact_resplit() -> None:
    """Every offer: ``ra_U >= ra`` (the first hand split again, per second card of the second hand) and ``rb_U >=
    rb`` (the second hand, per end of the first), where the exact values are finite (and only there), on two
    reduced packs that cannot run out, every resplittable pair; the whole split with resplits (the passes taking
    the bound at each offer) at least the exact split with resplits, at least the split without them."""
    taken = 0
    for rules, pairs in PACKS:
        g = game.build(rules)
        model = SplitModel(rules, g)
        house = house_play(g)
        be = class_ends(g, np.tile(simple_play(g), (K * K, 1)))
        for x in pairs:
            ra, rb = FastWorld(model, x, house).resplit_values()
            ua, ub = resplit_bounds(model, x)
            for want, got in ((ra, ua), (rb, ub)):
                ok = np.isfinite(want)
                assert ok.any() and np.array_equal(ok, np.isfinite(got))
                assert (got[ok] >= want[ok] - 1e-12).all()
            plain, withr = split_with_resplits(model, x, be, K, house)
            split, upper = pair_bound(model, x, be, K)
            assert abs(split - plain.value) < 1e-12
            assert upper >= withr.value - 1e-12 >= plain.value - 2e-12
            taken += withr.value > plain.value + 1e-9
    assert taken  # somewhere the exact resplit is worth taking (the check is not between equal values only)


def test_with_nothing_unseen_a_hands_bound_is_its_exact_value() -> None:
    """J = 0 (no card out unseen): the optimistic draw is the plain expectation and each end is settled against
    the banker's exact chances, so ``hand_tables`` gives each hand's exact value against the house banker (the
    compiled world's value of that one hand, no resplit) to 1e-12; with cards unseen it is larger."""
    from pontoon.analysis.british.split_resplit_bound import hand_tables
    from pontoon.analysis.british.split_resplit_fast import _rest

    rules, pairs = PACKS[1]
    g = game.build(rules)
    model = SplitModel(rules, g)
    for x in pairs:
        ex = (np.arange(game.NCLASS) == x).astype(np.int64)
        V = hand_tables(g, model, x, model.counts - 3 * ex, 2)
        w = FastWorld(model, x, house_play(g))
        seen = 0
        for c in range(game.NCLASS):
            if V[0, c] < -1e299:
                continue
            q = (3 * ex + (np.arange(game.NCLASS) == c)).astype(np.int64)
            hands = np.array([c], np.int64)
            exact = _rest(q, hands, rules.max_split_hands, w.K, w.memo, w.dmemo, w.dstore)
            assert abs(V[0, c] - exact) < 1e-12
            assert V[2, c] > V[1, c] > exact
            seen += 1
        assert seen >= 3


def test_a_ten_value_pair_is_offered_with_the_chance_of_its_rank() -> None:
    """``rank_shares`` for the ten-value class of a pack with tens and jacks (003: "you cannot split two ten point
    cards unless they are actually equal"; a resplit likewise needs a card "equal to the first two"): over every
    ordered deal of a pair of one rank and the split hands' second cards, the chance that the first hand's
    second card is of the pair's rank given it is ten-valued, and for the second hand's the largest over the first
    hand's card not of the rank (a ten of the other rank), counted card by card."""
    from itertools import permutations

    from pontoon.analysis.british.split_resplit_bound import rank_shares

    rules = BRITISH.with_(pack_ranks="A5TJ", pack_suits=4)
    model = SplitModel(rules, game.build(rules))
    cards = [(r, s) for r in "A5TJ" for s in range(4)]
    ten = {"T", "J"}
    first = [0, 0]
    second = {
        True: [0, 0],
        False: [0, 0],
    }  # the first hand's second card ten-valued (of the other rank) or not
    for p, q, c1, c2 in permutations(range(len(cards)), 4):
        (rp, _), (rq, _), (r1, _), (r2, _) = cards[p], cards[q], cards[c1], cards[c2]
        if rp != rq or rp not in ten:
            continue
        if r1 in ten:
            first[0] += r1 == rp
            first[1] += 1
        if r2 in ten and r1 != rp:
            second[r1 in ten][0] += r2 == rp
            second[r1 in ten][1] += 1
    got = rank_shares(model, game.TEN)
    assert abs(got[0] - first[0] / first[1]) < 1e-12
    shares = {k: a / b for k, (a, b) in second.items()}
    assert (
        abs(got[1] - shares[True]) < 1e-12 and got[1] > shares[False]
    )  # the largest over the first hand's card
    assert rank_shares(model, game.ACE) == (1.0, 1.0)


def test_sampled_offers_are_the_exact_resplit_values() -> None:
    """split_resplit_sample: each sampled offer's value is the compiled world's ``ra[c2]`` or ``rb[e]`` (1e-12), the
    second hand's gain is ``max(0, rb[e] - playing on)``, and the first hand's gain times its chance is what
    offering only that resplit adds to the split (the passes), and those add up over the second hand's cards."""
    from pontoon.analysis.british.split_resplit_sample import sample_offers

    rules, pairs = PACKS[0]
    g = game.build(rules)
    model = SplitModel(rules, g)
    house = house_play(g)
    be = class_ends(g, np.tile(simple_play(g), (K * K, 1)))
    x = pairs[0]
    ra, rb = FastWorld(model, x, house).resplit_values()
    plain = model.run(x, be, K)
    got = sample_offers(model, x, be, K, house, np.random.default_rng(5), 6)
    assert got["first"]["n"] == got["second"]["n"] == 3
    for row in got["first"]["rows"]:
        c2 = row["c2"]
        assert abs(row["resplit"] - ra[c2]) < 1e-12 and row["gain"] >= 0.0
    # the first hand's offers add up (only the starts x-x of the first hand read ra): the sum over c2 of what
    # offering ra[c2] alone adds is what offering them all adds (pair_bound's ten-value weighting relies on it)
    none_b = np.full(len(rb), -np.inf)
    alone = 0.0
    for c2 in np.flatnonzero(np.isfinite(ra)):
        one = np.full(len(ra), -np.inf)
        one[c2] = ra[c2]
        alone += model.run(x, be, K, resplit=(one, none_b)).value - plain.value
    every = model.run(x, be, K, resplit=(ra, none_b)).value - plain.value
    assert abs(alone - every) < 1e-12 and every > 0.0
    for row in got["second"]["rows"]:
        e = row["end"]
        assert abs(row["resplit"] - rb[e]) < 1e-12
        assert abs(row["gain"] - max(0.0, rb[e] - plain.res[e, x])) < 1e-12
    assert abs(got["pair_split"] - plain.value) < 1e-12


def test_the_averaged_bound_is_below_the_optimistic_draw() -> None:
    """``split_resplit_tight``: each hand's term the smaller of the two bounds, so ``ra_U`` and ``rb_U`` are never
    above the ``T_J`` bound's (and, ``test_the_bound_is_never_below_the_exact_resplit``, never below the exact
    values); with three hands (no fourth hand to fall back on the ``T_J`` terms) far below it at every offer."""
    rules, pairs = PACKS[0]
    g = game.build(rules)
    model = SplitModel(rules, g)
    for x in pairs:
        oa, ob = resplit_bounds(model, x, tight=False)
        ta, tb = resplit_bounds(model, x)
        for old, new in ((oa, ta), (ob, tb)):
            ok = np.isfinite(old)
            assert np.array_equal(ok, np.isfinite(new))
            assert (new[ok] <= old[ok]).all() and (new[ok] < old[ok] - 1.0).mean() > 0.9


def test_a_hands_value_averaged_over_more_cards_seen_grows() -> None:
    """``_w`` (``W(q, c, k)``): at ``k = 0`` the hand's exact value alone (``hand_tables`` at ``J = 0``), and
    non-decreasing in ``k`` (the submartingale: a player can ignore a card he has seen), strictly somewhere, and at
    most the ``T_J`` bound with ``J = k`` (which lets the ``k`` cards be the worst for the pack at every draw)."""
    from pontoon.analysis.british.split_resplit_bound import hand_tables
    from pontoon.analysis.british.split_resplit_tight import TightWorld

    rules, pairs = PACKS[1]
    g = game.build(rules)
    model = SplitModel(rules, g)
    grew = 0
    for x in pairs:
        ex = (np.arange(game.NCLASS) == x).astype(np.int64)
        V = hand_tables(g, model, x, model.counts - 3 * ex, 3)
        tw = TightWorld(FastWorld(model, x, house_play(g)))
        for c in range(game.NCLASS):
            if V[0, c] < -1e299:
                continue
            q = 3 * ex + (np.arange(game.NCLASS) == c)
            w = [tw.w(q, c, k) for k in range(4)]
            assert abs(w[0] - V[0, c]) < 1e-12
            assert all(w[k + 1] >= w[k] - 1e-12 and w[k] <= V[k, c] + 1e-12 for k in range(3))
            grew += w[3] > w[0] + 1e-9
    assert grew


def test_a_hand_that_may_be_split_again_is_bounded_by_its_better_choice() -> None:
    """``G`` (``_w`` with ``NSPLIT``): a hand x-x while four hands are allowed, the better of playing it on alone
    (``V0``) and splitting it (the new hands' ``V0`` and ``W(., 3)``), is at least its exact value with that split
    (the compiled world's ``_rest`` of the one hand, three hands held, so it may be split to four) and at least
    ``V0``, and non-decreasing in the cards averaged (a maximum of submartingales), strictly somewhere."""
    from pontoon.analysis.british.split_resplit_fast import _rest
    from pontoon.analysis.british.split_resplit_tight import NSPLIT, TightWorld

    rules, pairs = PACKS[1]
    g = game.build(rules)
    model = SplitModel(rules, g)
    split_better = grew = 0
    for x in pairs:
        ex = (np.arange(game.NCLASS) == x).astype(np.int64)
        w = FastWorld(model, x, house_play(g))
        tw = TightWorld(w)
        for c in range(game.NCLASS):  # the other second card out besides the three x's and this hand's x
            q = (4 * ex + (np.arange(game.NCLASS) == c)).astype(np.int64)
            if (q > model.counts).any():
                continue
            exact = _rest(q, np.array([x], np.int64), 3, w.K, w.memo, w.dmemo, w.dstore)
            alone = tw.w(q, x, 0)
            got = [tw.w(q, NSPLIT, k) for k in range(4)]
            assert got[0] >= exact - 1e-12 and got[0] >= alone - 1e-12
            assert all(got[k + 1] >= got[k] - 1e-12 for k in range(3))
            split_better += exact > alone + 1e-9
            grew += got[3] > got[0] + 1e-9
    assert split_better and grew  # the split is worth taking somewhere, and the average grows somewhere


def test_the_fourth_hand_terms_are_averaged_too() -> None:
    """With four hands (the 24-card pack), the terms a fourth hand can reach (a hand x-x, a hand after one that may
    be split again) are averaged like the others (``G`` and ``W`` over five more cards): the bound is within a stake
    of the exact value at nine offers in ten and within two stakes on average (with those terms the ``T_J`` bound's
    it was 6 to 15 stakes above on average), and never below it."""
    rules, pairs = PACKS[1]
    g = game.build(rules)
    model = SplitModel(rules, g)
    for x in pairs:
        ra, rb = FastWorld(model, x, house_play(g)).resplit_values()
        ua, ub = resplit_bounds(model, x, deeps=DEEP_STAGES)
        for want, got in ((ra, ua), (rb, ub)):
            ok = np.isfinite(want)
            gap = got[ok] - want[ok]
            assert gap.min() >= -1e-12 and gap.mean() < 2.0
        gap = ub[np.isfinite(rb)] - rb[np.isfinite(rb)]
        assert (gap < 1.0).mean() > 0.9
