"""6-7-8 and 7-7-7 inside split hands, by suit (analysis/split_suits.py), against the round engine.

A stacked shoe starts with a pair (the box's first and second cards) and the dealer's up card, of
known suits; every distinct ordering of the rest is played through ``CasinoRound`` with a strategy
that splits the pair (and resplits while the rules allow) and hits exactly the split hands' two
cards that can become a 6-7-8 or 7-7-7. The analyser's split value of that strategy, given the
suits of the pair and the up card (``split_combine`` plus ``SplitSuits.adjustment``), must equal
the engine's average. Without the adjustment (the chains pay the suit average of the full shoe,
the analyser before this module) it is off by 1e-2 and more here.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from pontoon.analysis import kernels as K
from pontoon.analysis.player import Params, UpcardSolver
from pontoon.analysis.split_suits import (
    SuitShoe,
    hand_pay,
    order_terminals,
    pair_suit_classes,
    split_suits,
    split_with_suits,
)
from pontoon.analysis.splits import split_terminals
from pontoon.analysis.states import card_index, state_space
from pontoon.cards import Card
from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.rules.load import resolve_rules
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe

from .enumerate_engine import distinct_orders, shoe_values

Hits = set[tuple[int, ...]]


def _counts(cards: list[Card]) -> tuple[int, ...]:
    c = [0] * 10
    for x in cards:
        c[card_index(x)] += 1
    return tuple(c)


def _play(rules: CasinoRules, order: list[str], hits: Hits) -> Decimal:
    """One round: split whenever the engine allows it, hit the states in ``hits``, else stand."""
    rnd = CasinoRound(rules, Shoe.stacked_from(order, pack=rules.pack))
    rnd.place_bet(1, "p", "main", Decimal(10))
    rnd.close_bets()
    while not rnd.is_over():
        h = rnd.current_hand()
        assert h is not None
        legal = {a.verb for a in rnd.legal_actions() if a.box == 1}
        if "split" in legal:
            verb = "split"
        elif _counts(h.cards) in hits or "stand" not in legal:
            verb = "hit"
        else:
            verb = "stand"
        rnd.act(Action(verb, 1))
    res = rnd.result()
    assert res.status == "settled", f"round void ({res.void_reason}) for {' '.join(order)}"
    return res.net["p"]["total"]


def engine_split(rules: CasinoRules, prefix: list[str], rest: list[str], hits: Hits) -> float:
    """The engine's average result (per original wager) over every ordering of ``rest`` after the
    box's two cards and the up card of ``prefix`` (dealt box, dealer, box: 000 3.6)."""
    total = Fraction(0)
    n = 0
    for order in distinct_orders(rest):
        total += Fraction(_play(rules, prefix + order, hits)) / 10
        n += 1
    return float(total / n)


def analysed_split(
    rules: CasinoRules, prefix: list[str], rest: list[str], hits: Hits, *, suits: bool = True
) -> float:
    full = prefix + rest
    pair, upc, second = (Card.parse(c) for c in prefix)
    p, up = card_index(pair), card_index(upc)
    sp = state_space()
    base = np.array(shoe_values(full), dtype=np.int64)
    base[up] -= 1
    solver = UpcardSolver(rules, Params.of(rules), base, up)
    pol = np.full(sp.size, K.STAND, dtype=np.int64)
    for s in range(sp.size):
        if tuple(int(x) for x in sp.counts[s]) in hits:
            pol[s] = K.HIT
    sc = solver.split_chains(p, policy=pol, resc_pol=np.zeros(22, dtype=np.int64))
    assert sc is not None
    value = solver.split_combine(p, sc)
    if not suits:
        return value
    ss = split_suits(solver, p, sc, SuitShoe.of_cards(full))
    assert ss is not None
    return value + ss.adjustment(pair.suit, second.suit, upc.suit)


def _hand(*values: int) -> tuple[int, ...]:
    c = [0] * 10
    for v in values:
        c[v] += 1
    return tuple(c)


SIX, SEVEN, EIGHT = 5, 6, 7
# the split hands hit 7-6 and 7-8 (and 7-7 where it may not be resplit): a 6-7-8 or 7-7-7 pays by
# its suits; every other hand stands, so a box holds at most three cards a hand
HIT_7 = {_hand(SEVEN, SIX), _hand(SEVEN, EIGHT), _hand(SEVEN, SEVEN)}
HIT_8 = {_hand(EIGHT, SEVEN)}

CASES = {
    # 7s split to three hands against a King: 7-7-7 in spades (3:1), suited (2:1) or mixed, and
    # 6-7-8 from the original hands (7S, 7H) and from a resplit 7 of unknown suit
    "sevens-3-hands": (
        "mbs",
        {"max_split_hands": 3},
        ["7S", "KH", "7H"],
        ["7D", "7S", "6S", "8S", "6H", "KS", "KS", "KS"],
        HIT_7,
    ),
    # four hands: the second original hand may be completed before the limit is reached
    "sevens-4-hands": (
        "mbs",
        {},
        ["7S", "AH", "7H"],
        ["7D", "7S", "6S", "8S", "KS", "KS", "KS", "KS", "KS"],
        HIT_7,
    ),
    # no resplit: both hands may make 7-7-7 (hitting 7-7), the third 7 drawn from the shoe
    "sevens-2-hands": (
        "federal",
        {"max_split_hands": 2},
        ["7S", "KD", "7S"],
        ["7S", "7H", "6S", "8S", "8H", "KS", "KS"],
        HIT_7,
    ),
    # 8s split against a 7 of spades: the up card's suit is one of the 7s a 6-7-8 needs
    "eights-up-7": (
        "rws-plus",
        {"max_split_hands": 3},
        ["8S", "7S", "8H"],
        ["8S", "7H", "7S", "6S", "6H", "KS", "KS", "KS"],
        HIT_8,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_split_bonus_suits_match_engine(case: str) -> None:
    preset, sets, prefix, rest, hits = CASES[case]
    rules = resolve_rules(preset, sets)
    exact = engine_split(rules, prefix, rest, hits)
    analysed = analysed_split(rules, prefix, rest, hits)
    averaged = analysed_split(rules, prefix, rest, hits, suits=False)
    print(f"{case}: engine {exact:.12f} analyser {analysed:.12f} suit-averaged {averaged:.12f}")
    assert analysed == pytest.approx(exact, abs=1e-12)
    assert abs(averaged - exact) > 1e-3  # the suits matter on this shoe


@pytest.mark.parametrize(
    ("n_pair", "n_other", "m"), [(22, 288, 4), (22, 288, 3), (2, 6, 4), (3, 2, 4), (1, 5, 3)]
)
def test_order_terminals_refine_split_terminals(n_pair: int, n_other: int, m: int) -> None:
    early, full = order_terminals(n_pair, n_other, m)
    e2, f2 = split_terminals(n_pair, n_other, m)
    assert early.keys() == e2.keys()
    for h, q in e2.items():
        assert early[h] == pytest.approx(q, abs=1e-15)
    merged: dict[int, float] = {}
    for (k, done), q in full.items():
        assert not (done and k < 2)  # the second original hand is dealt after the first
        merged[k] = merged.get(k, 0.0) + q
    assert merged.keys() == f2.keys()
    for k, q in f2.items():
        assert merged[k] == pytest.approx(q, abs=1e-15)


@pytest.mark.parametrize("preset", ["mbs", "federal"])
@pytest.mark.parametrize("up", [SIX, SEVEN, EIGHT, 9])
@pytest.mark.parametrize("p", [SIX, SEVEN, EIGHT])
def test_adjustments_average_to_zero(preset: str, up: int, p: int) -> None:
    """Over the suits of the pair and the up card the chains' average pay is the exact one."""
    rules = resolve_rules(preset)
    pr = Params.of(rules)
    base = np.full(10, 4 * rules.decks, dtype=np.int64)
    base[9] = 16 * rules.decks
    base[up] -= 1
    solver = UpcardSolver(rules, pr, base, up)
    sc = solver.split_chains(p)
    assert sc is not None
    ss = split_suits(solver, p, sc)
    assert ss is not None
    classes = pair_suit_classes(solver, ss, p)
    assert sum(w for w, _h, _a in classes) == pytest.approx(1.0, abs=1e-14)
    assert sum(w * a for w, _h, a in classes) == pytest.approx(0.0, abs=1e-13)
    bonus = sum(sum(cs) for cs in ss.coef.values())  # expected bonus 21s of the split
    assert (max(abs(a) for _w, _h, a in classes) > 1e-5) == (bonus > 0)


def test_hand_pay_by_hand() -> None:
    """A 6-7-8 from a 6 of spades, one deck, nothing else known: the 7 and 8 are spades with
    chance 1/16 (3:1), else mixed (3:2). A 7-7-7 from 7S with 7S 7H out of one deck: the other
    two 7s are D and C: mixed."""
    rules = resolve_rules("mbs")
    one = SuitShoe.even(1)
    assert hand_pay(rules, "678", SIX, "S", [(SIX, "S"), (SIX, "H")], one) == pytest.approx(1.5 + 1.5 / 16)
    assert hand_pay(rules, "678", SIX, "H", [(SIX, "S"), (SIX, "H")], one) == pytest.approx(1.5 + 0.5 / 16)
    assert hand_pay(rules, "777", SEVEN, "S", [(SEVEN, "S"), (SEVEN, "H")], one) == pytest.approx(1.5)
    # two decks less 7S 7S: a resplit 7 is H, D or C (2 of each of 6), then two of the 5 left:
    # both of its suit with chance (1/5)(0/4) = 0: always mixed
    two = SuitShoe.even(2)
    assert hand_pay(rules, "777", SEVEN, None, [(SEVEN, "S"), (SEVEN, "S")], two) == pytest.approx(1.5)
    # two decks less 7S 7H, first 7D: the 7s left S1 H1 D1 C2: two more D impossible: mixed;
    # first 7S (a hand that kept a 7S) less 7S 7S: S0 left: mixed
    assert hand_pay(rules, "777", SEVEN, "S", [(SEVEN, "S"), (SEVEN, "S")], two) == pytest.approx(1.5)
    # three decks less 7S 7S, first 7S: S1 H3 D3 C3 left; two more spades impossible; less 7S 7H:
    # S2 H2 D3 C3 (10): spades (2/10)(1/9) = 1/45 at 3:1
    three = SuitShoe.even(3)
    assert hand_pay(rules, "777", SEVEN, "S", [(SEVEN, "S"), (SEVEN, "H")], three) == pytest.approx(
        1.5 + 1.5 / 45
    )


def _walk_hands(n_pair: int, n_other: int, m: int) -> dict[tuple[str, int, bool], float]:
    """The engine's dealing of second cards simulated with an explicit list of hands (004 3.24.2:
    a resplit hand is inserted after the hand it came from; the current hand takes cards until
    one is not a pair card): ("early", h, True) or ("full", k, whether hand "B" was completed)."""
    out: dict[tuple[str, int, bool], float] = {}

    def rec(hands: list[str], cur: int, done: set[str], a: int, b: int, pr: float, fresh: int) -> None:
        left = n_pair + n_other - a - b
        q = (n_pair - a) / left if left > 0 else 0.0
        if q > 0:
            if len(hands) + 1 >= m:
                key = ("full", len(done), "B" in done)
                out[key] = out.get(key, 0.0) + pr * q
            else:
                name = f"R{fresh}"
                rec(hands[: cur + 1] + [name] + hands[cur + 1 :], cur, done, a + 1, b, pr * q, fresh + 1)
        if q < 1:
            nd = done | {hands[cur]}
            if cur + 1 == len(hands):
                key = ("early", len(hands), True)
                out[key] = out.get(key, 0.0) + pr * (1 - q)
            else:
                rec(hands, cur + 1, nd, a, b + 1, pr * (1 - q), fresh)

    if m <= 2:
        return {("full", 0, False): 1.0}
    rec(["A", "B"], 0, set(), 0, 0, 1.0, 0)
    return out


@pytest.mark.parametrize(("n_pair", "n_other", "m"), [(6, 20, 4), (2, 7, 4), (4, 3, 4), (5, 9, 3), (3, 3, 2)])
def test_order_terminals_follow_the_engines_order(n_pair: int, n_other: int, m: int) -> None:
    early, full = order_terminals(n_pair, n_other, m)
    walk = _walk_hands(n_pair, n_other, m)
    mine = {("early", h, True): q for h, q in early.items()} | {
        ("full", k, d): q for (k, d), q in full.items()
    }
    assert mine.keys() == walk.keys()
    for key, q in walk.items():
        assert mine[key] == pytest.approx(q, abs=1e-15)


def test_pair_classes_fold_to_the_starting_hands_classes() -> None:
    """The hit adjustments of ``pair_suit_classes`` (7-7 completing a 7-7-7, the Super Bonus) are
    those of ``hand_options`` split further by the pair's suits: the same weighted sum."""
    rules = resolve_rules("mbs")
    pr = Params.of(rules)
    full = np.full(10, 24, dtype=np.int64)
    full[9] = 72  # mbs: 6 packs of 48 cards (no 10s: J, Q, K)
    for up in (SEVEN, 9, 0):
        base = full.copy()
        base[up] -= 1
        solver = UpcardSolver(rules, pr, base, up)
        outs = {0: solver.run()}
        _opts, classes = solver.hand_options(SEVEN, SEVEN, outs, None)
        sc = solver.split_chains(SEVEN)
        assert sc is not None
        joint = pair_suit_classes(solver, split_suits(solver, SEVEN, sc), SEVEN)
        assert sum(w * h for w, h, _a in joint) == pytest.approx(sum(w * a for w, a in classes), abs=1e-12)


def test_sevens_against_a_seven_split_by_suit() -> None:
    """mbs, 6 decks, 7-7 against a 7: the pairs of one suit (5/23 of them) are hit for the Super
    Bonus, the others split; the optimal edge takes each class's best, the split adjusted by its
    suits, so it differs from the suit-blind split value by the classes that split."""
    rules = resolve_rules("mbs")
    pr = Params.of(rules)
    full = np.full(10, 24, dtype=np.int64)
    full[9] = 72  # mbs: 6 packs of 48 cards (no 10s: J, Q, K)
    base = full.copy()
    base[SEVEN] -= 1
    solver = UpcardSolver(rules, pr, base, SEVEN)
    outs = {0: solver.run()}
    solver.main_outs.update(outs)
    opts, _classes = solver.hand_options(SEVEN, SEVEN, outs, None)
    value, joint = split_with_suits(solver, SEVEN)
    assert joint is not None
    hit_w = split_w = 0.0
    for w, h, a in joint:
        other = max({**opts, "H": opts["H"] + h}.values())
        if value + a > other:
            split_w += w
            assert h < 0.5  # no Super Bonus in reach
        else:
            hit_w += w
            assert h > 0.5
    assert hit_w == pytest.approx(5 / 23, abs=1e-12)
    assert split_w == pytest.approx(18 / 23, abs=1e-12)
    # the split classes' mean adjustment is not zero (the suited classes that hit carry the rest)
    mean_split = sum(w * a for w, h, a in joint if h < 0.5) / split_w
    assert abs(mean_split) > 1e-8  # 2.2e-7: spades pairs gain 4.7e-4 to 4.8e-4, the others lose as much


@pytest.mark.parametrize(("s1", "s2", "su"), [("S", "S", "S"), ("H", "H", "D"), ("S", "H", "C")])
def test_hints_value_the_split_by_its_suits(s1: str, s2: str, su: str) -> None:
    """``hints.action_values`` (the trainer's and ``play --hints``' costs) given the shoe's cards
    values 7-7 against a 7 by the suits in play: the analyser's suit-averaged split plus the
    adjustment of that suit class (mbs, 6 decks, the shoe otherwise full)."""
    from pontoon.analysis.hints import action_values

    rules = resolve_rules("mbs")
    hand = [Card.parse("7" + s1), Card.parse("7" + s2)]
    up = Card.parse("7" + su)
    shoe = Shoe.shuffled(rules.decks, np.random.default_rng(0), pack=rules.pack)
    rest = list(shoe.remaining_cards())
    for c in (*hand, up):
        rest.remove(c)
    remaining = Counter(c.rank for c in rest)
    legal = ["hit", "stand", "split"]
    by_suit = action_values(rules, remaining, hand, up, legal=legal, remaining_cards=rest)["split"]
    averaged = action_values(rules, remaining, hand, up, legal=legal)["split"]
    base = np.array(shoe_values([str(c) for c in shoe.remaining_cards()]), dtype=np.int64)
    base[SEVEN] -= 1  # the shoe of 48-card packs less the up card
    solver = UpcardSolver(rules, Params.of(rules), base, SEVEN)
    sc = solver.split_chains(SEVEN)
    assert sc is not None
    ss = split_suits(solver, SEVEN, sc)
    assert ss is not None
    adj = ss.adjustment(s1, s2, su)
    assert averaged == pytest.approx(solver.split_combine(SEVEN, sc), abs=1e-12)
    assert by_suit == pytest.approx(averaged + adj, abs=1e-12)
    assert abs(adj) > 1e-5  # the suits matter here
