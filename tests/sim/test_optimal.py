"""``--strategy optimal``: the analyser's composition-dependent decisions as the kernel's table.

With a reshuffle before every round the simulated edge agrees with the analyser's
``house_edge.optimal`` within three standard errors; the table's decisions are the argmax of the
hint values (``hints.action_values``) for the same hands."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from decimal import Decimal

import numpy as np
import pytest

from pontoon.cards import Card, pack_cards
from pontoon.rules import resolve_rules
from pontoon.sim import _kernels as K
from pontoon.sim.api import build_spec, run_stacked, simulate
from pontoon.sim.reference import play_engine_round
from pontoon.sim.tables import StrategyError, comp_table

try:
    from pontoon.analysis import optimal_table as ot
    from pontoon.analysis.hints import action_values
    from pontoon.analysis.optimal_table import optimal_tables
    from pontoon.analysis.states import state_space
    from pontoon.analysis.strategy import solve
    from pontoon.analysis.suits import BONUS_COMPLETION
except ImportError as err:  # pragma: no cover
    pytest.skip(f"pontoon.analysis is not importable: {err}", allow_module_level=True)


def test_table_is_the_analysers_and_codes_agree() -> None:
    rules = resolve_rules("mbs")
    spec = build_spec(rules, strategy="optimal")
    assert spec.P[K.P_COMP] == 1
    assert build_spec(rules).P[K.P_COMP] == 0
    assert spec.comp.shape == (11, K.COMP_KIND_SPLIT + 10, state_space().size)
    from pontoon.analysis.optimal_table import optimal_rescue, with_rescue

    # the decisions, with the rescue bits of doubled hands (tests/sim/test_optimal_rescue.py)
    np.testing.assert_array_equal(spec.comp, with_rescue(optimal_tables(rules), optimal_rescue(rules)))
    # the analyser's codes are the kernel's
    assert (ot.OPT_H, ot.OPT_S, ot.OPT_D, ot.OPT_R, ot.OPT_SPLIT) == (
        K.C_H,
        K.C_S,
        K.C_D,
        K.C_R,
        K.COMP_SPLIT,
    )
    assert (ot.KIND_DIFF, ot.KIND_SAME, ot.KIND_MULTI, ot.KIND_SPLIT) == (0, 1, 2, K.COMP_KIND_SPLIT)
    assert spec.root == state_space().find([0] * 10)
    six_ten = state_space().find([0, 0, 0, 0, 0, 1, 0, 0, 0, 1])
    assert spec.comp[6, 0, six_ten] == K.C_S  # 6 + T stands against a 6


def test_comp_table_refuses_bad_tables() -> None:
    n = state_space().size
    with pytest.raises(StrategyError, match="shape"):
        comp_table(np.zeros((3, 11, 10), dtype=np.int8), n)
    bad = np.full((11, 13, n), -1, dtype=np.int8)
    bad[5, 2, 7] = 3  # "double else stand" is a chart code, not a table decision
    with pytest.raises(StrategyError, match="not a decision code"):
        comp_table(bad, n)


def _hand_state(cards: list[Card]) -> int:
    counts = [0] * 10
    for c in cards:
        counts[c.points - 1] += 1
    return state_space().find(counts)


def _play(rules, spec, shoe: str) -> int:  # type: ignore[no-untyped-def]
    rec = run_stacked(spec, [[Card.parse(c) for c in shoe.split()]])
    return int(rec[0, 0, K.K_MAIN])


def test_kernel_plays_five_card_and_split_hand_decisions_from_the_table() -> None:
    """Hands the old 2-4 card table left to the chart now follow the analyser's table: the
    kernel's result changes when the table entry for that hand changes."""
    rules = resolve_rules("mbs")
    spec = build_spec(rules, strategy="optimal")
    # a 5-card hard 16 (2 2 3 4 5) against a ten: the table says hit; the next card is a 5 (21)
    shoe = "2S KC 3D 2H 4C 5S 5H 4D 9C"
    hand = [Card.parse(c) for c in "2S 2H 3D 4C 5S".split()]
    s = _hand_state(hand)
    assert spec.comp[10, 2, s] == K.C_H
    hit = _play(rules, spec, shoe)
    forced = replace(spec, comp=spec.comp.copy())
    forced.comp[10, 2, s] = K.C_S
    stood = _play(rules, forced, shoe)
    assert hit > 0 > stood  # a 6-card 21 paid at once, against 16 standing against T 5 4
    # a split-8 hand 8-3 against a 6 doubles (the table's split kind for 8s)
    s83 = _hand_state([Card.parse("8S"), Card.parse("3H")])
    assert spec.comp[6, K.COMP_KIND_SPLIT + 7, s83] == K.C_D
    shoe = "8S 6C 8H 3H JD 9C 9D QS 5C"  # 8-8 v 6: split; 8-3 doubles on T (21), 8-9 stands; dealer 6 9 T
    rec = run_stacked(spec, [[Card.parse(c) for c in shoe.split()]])
    assert int(rec[0, 0, K.K_MAIN]) == _play(rules, spec, shoe)
    ref = play_engine_round(
        rules, [Card.parse(c) for c in shoe.split()], spec.strat, bet=spec.bet, comp=spec.comp
    )
    assert (
        ref[1][1]["main"]
        == Decimal(int(rec[0, 0, K.K_MAIN])) * Decimal(spec.quantum.numerator) / spec.quantum.denominator
    )
    assert int(rec[0, 0, K.K_MAIN]) > 0


def test_seven_seven_against_seven_by_suits() -> None:
    """mbs: 7-7 of one suit hits for the Super Bonus against a 7; of two suits it splits."""
    rules = resolve_rules("mbs")
    spec = build_spec(rules, strategy="optimal")
    s77 = _hand_state([Card.parse("7S"), Card.parse("7H")])
    assert spec.comp[7, 1, s77] & 7 == K.C_H and not spec.comp[7, 1, s77] & K.COMP_SPLIT
    assert spec.comp[7, 0, s77] & K.COMP_SPLIT
    same = run_stacked(spec, [[Card.parse(c) for c in "7S 7C 7S 7S JD 9C".split()]])
    diff = run_stacked(spec, [[Card.parse(c) for c in "7S 7C 7H 7S JD 9C QH".split()]])
    assert same[0, 0, K.K_SUPER] > 0  # hit, 7-7-7 of spades against a 7: the Super Bonus
    assert diff[0, 0, K.K_SUPER] == 0


@pytest.mark.parametrize(
    "hand,up",
    [("TS 6H", "7C"), ("9S 7H", "TC"), ("5S 6H", "AC"), ("8S 8H", "TC"), ("AS 7H", "9C"), ("2S 3H", "6C")],
)
def test_two_card_decisions_are_the_hint_argmax(hand: str, up: str) -> None:
    """The kernel's table (two cards of different suits) against ``pontoon analyze --hints``."""
    rules = resolve_rules("mbs")
    comp = build_spec(rules, strategy="optimal").comp
    cards = [Card.parse(c) for c in hand.split()]
    upc = Card.parse(up)
    rem = Counter(c.rank for c in pack_cards(rules.pack) for _ in range(rules.decks))
    for c in (*cards, upc):
        rem[c.rank] -= 1
    rem_t: Counter[str] = Counter()
    for r, n in rem.items():
        rem_t["T" if r in "TJQK" else r] += n
    legal = ["hit", "stand", "double"] + (["split"] if cards[0].points == cards[1].points else [])
    vals = action_values(rules, rem_t, cards, upc, legal=legal)
    best = max(vals, key=lambda k: vals[k])
    code = int(comp[upc.points, 0, _hand_state(cards)])
    got = "split" if code & K.COMP_SPLIT else {K.C_H: "hit", K.C_S: "stand", K.C_D: "double"}[code & 7]
    assert got == best, vals


def _value_up(rules, up: int, multi: dict[int, np.ndarray] | None) -> float:  # type: ignore[no-untyped-def]
    """Expectation against up card ``up`` (value index) of playing the first decisions of the
    table and ``multi[a2]`` (the kind-2 row for hands with a2 Aces among their first two cards)
    on unsplit hands of three or more cards, through the analyser's own chains; splits at the
    analyser's own value (``split_value``). ``multi=None``: the analyser's optimal play, each
    starting hand taking its best option per suit relation (one suit or two, what the table's
    kinds 0 and 1 know; ``house_edge.optimal`` tells the suits apart further)."""
    from pontoon.analysis import kernels as AK
    from pontoon.analysis.player import Params, UpcardSolver
    from pontoon.analysis.states import shoe_counts

    sp = state_space()
    base = shoe_counts(rules.pack, rules.decks)
    base[up] -= 1
    solver = UpcardSolver(rules, Params.of(rules), base, up)
    outs = {t: solver.run(a2=t) for t in range(3)}
    for t, row in (multi or {}).items():
        pol = np.full(sp.size, AK.OPTIMAL, dtype=np.int64)
        for code, k in ((ot.OPT_H, AK.HIT), (ot.OPT_S, AK.STAND), (ot.OPT_D, AK.DOUBLE_HIT)):
            pol[(row >= 0) & ((row & 7) == code)] = k
        outs[t] = solver.run(a2=t, policy=pol)
    first = optimal_tables(rules)[up + 1]
    ev = 0.0
    for i, j, w in solver.start_weights():
        opts, _ = solver.hand_options(i, j, outs, solver.split_value(i) if i == j else None)
        if "N" in opts:
            ev += w * opts["N"]
            continue
        s = solver.state_of(i, j)
        rels = [(1.0, 0.0, int(first[ot.KIND_DIFF, s]))]
        if (i, j) in BONUS_COMPLETION:  # 6-7-8 / 7-7-7 by suits: kinds 0 and 1
            rels = [(*ot.suit_relation(rules, solver, i, j, k == 1), int(first[k, s])) for k in (0, 1)]
        for wt, adj, code in rels:
            if multi is None:
                ev += w * wt * max({**opts, "H": opts["H"] + adj}.values())
            elif code & ot.OPT_SPLIT:
                ev += w * wt * opts["P"]
            else:
                ev += (
                    w * wt * (opts[{0: "H", 1: "S", 2: "D", 5: "R"}[code & 7]] + (adj if code == 0 else 0.0))
                )
    return ev


def test_federal_decides_by_the_aces_among_the_first_two_cards() -> None:
    """001 Doubling: an Ace among the first two cards counts one on a double (of any number of
    cards), so 2-5 then an Ace (soft 18, the Ace may count 11) doubles against a 6 while A-2 then
    a 5 (the Ace counts one: a hard 8 doubled) stands. The state-only table played one decision
    for both (stand), 5e-5 of federal's optimal edge (the simulator's federal offset); the kernel
    now reads the decision of the hand's a2."""
    rules = resolve_rules("federal")
    spec = build_spec(rules, strategy="optimal")
    for shoe, net in (
        ("2S 6C 5D AH 2C JD 3S", 20),  # 2-5 hit A: double, 2 -> soft 20 against 6 J 3 = 19
        ("5S 6C 2D AH 2C JD 3S", 20),
        ("AS 6C 2D 5H 2C JD 3S", 0),  # A-2 hit 5: stand on 18; the dealer 6 2 J = 18
    ):
        cards = [Card.parse(c) for c in shoe.split()]
        rec = run_stacked(spec, [cards])
        got = Decimal(int(rec[0, 0, K.K_MAIN])) * spec.quantum.numerator / spec.quantum.denominator
        status, ref = play_engine_round(rules, cards, spec.strat, bet=spec.bet, comp=spec.comp)
        assert status == "settled" and got == ref[1]["main"] == net, shoe


def test_federal_table_layout_by_a2() -> None:
    """The kernel's federal table: three blocks of kinds, a2 = 0, 1, 2 (``_round._comp_code``)."""
    rules = resolve_rules("federal")
    spec = build_spec(rules, strategy="optimal")
    n = state_space().size
    by_a2 = ot.optimal_tables_by_a2(rules)
    assert by_a2.shape == (3, 11, K.COMP_KINDS, n) and not by_a2.flags.writeable
    assert spec.comp.shape == (11, 3 * K.COMP_KINDS, n)
    rescue = ot.optimal_rescue(rules)  # the same rescue bits laid on every block
    for t in range(3):
        np.testing.assert_array_equal(
            spec.comp[:, t * K.COMP_KINDS : (t + 1) * K.COMP_KINDS], ot.with_rescue(by_a2[t], rescue)
        )
        np.testing.assert_array_equal(by_a2[t, :, :2], optimal_tables(rules)[:, :2])  # two cards
    a25 = state_space().find([1, 1, 0, 0, 1, 0, 0, 0, 0, 0])
    assert spec.comp[6, 2, a25] & 7 == K.C_D  # a2 = 0: 2-5-A
    assert spec.comp[6, K.COMP_KINDS + 2, a25] & 7 == K.C_S  # a2 = 1: A-2-5, A-5-2
    assert optimal_tables(rules)[6, 2, a25] == K.C_S  # the state-only table: one decision
    # rules whose decisions do not depend on a2: the one table
    assert ot.optimal_tables_by_a2(resolve_rules("mbs")).shape == (1, 11, K.COMP_KINDS, n)


def test_federal_table_by_a2_is_worth_ev_optimal_against_a_six() -> None:
    """Against a 6 (where the a2-averaged decisions cost most) the table by a2, played through
    the analyser's chains, is worth the analyser's optimal expectation (by suit relation, as the
    table's first decisions); the state-only table was 3.4e-4 below it."""
    rules = resolve_rules("federal")
    up = 5  # value index of a 6
    u6 = next(u for u in solve(rules).upcards if u.label == "6").ev_optimal
    exact = _value_up(rules, up, None)
    by_a2 = ot.optimal_tables_by_a2(rules)
    ev = _value_up(rules, up, {t: by_a2[t, up + 1, ot.KIND_MULTI] for t in range(3)})
    old = _value_up(rules, up, {t: optimal_tables(rules)[up + 1, ot.KIND_MULTI] for t in range(3)})
    print(
        f"against a 6: optimal {exact:.9f} (house_edge.optimal's {u6:.9f}), table by a2 {ev:.9f}, "
        f"state-only table {old:.9f}"
    )
    assert exact == pytest.approx(u6, abs=2e-6)  # suits: which suit, not only one or two
    assert ev == pytest.approx(exact, abs=1e-12)
    assert old < exact - 1e-4


def _check(preset: str, rounds: int, seed: int) -> None:
    rules = resolve_rules(preset)
    sol = solve(rules)
    exact = -float(sol.ev_optimal)
    out = simulate(rules, rounds, csm=True, seed=seed, strategy="optimal")
    assert out["strategy"].startswith("analyser optimal_tables")
    se = out["ci95"] / 1.96
    assert abs(out["house_edge"] - exact) < 3 * se, (preset, out["house_edge"], exact, se)
    assert exact <= -float(sol.ev_basic) + 1e-12


def test_optimal_edge_matches_analyser() -> None:
    _check("federal", 300_000, seed=5)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "blackjack"])
def test_optimal_edge_matches_analyser_large(preset: str) -> None:
    """1e9 rounds (``PONTOON_SLOW_ROUNDS``), as ``test_edge.py``: rws-plus and rws-pandemonium
    play mbs's main game."""
    _check(preset, int(os.environ.get("PONTOON_SLOW_ROUNDS", "1000000000")), seed=23)


def test_optimal_beats_basic_with_common_numbers() -> None:
    """Not a proof, a smoke check: same seed, optimal does not lose much more than basic."""
    rules = resolve_rules("federal")
    b = simulate(rules, 200_000, csm=True, seed=3)
    o = simulate(rules, 200_000, csm=True, seed=3, strategy="optimal")
    assert o["house_edge"] < b["house_edge"] + 2 * b["ci95"]
    assert np.isfinite(o["house_edge"])


def test_federal_table_by_a2_is_the_chains_own_play_decision_by_decision() -> None:
    """Every decision of the kernel's federal table (unsplit hands of three or more cards by a2,
    split hands by pair and a2), against the action the analyser's own chain takes in that state
    (``chain``'s ``act``, its optimal play; for a split optimal play takes as the chart plays it,
    ``split_chart``, the chart's chain) for every up card: equal wherever the chain plays."""
    from pontoon.analysis import kernels as AK
    from pontoon.analysis.player import Params, UpcardSolver
    from pontoon.analysis.split_chart import chart_splits
    from pontoon.analysis.states import shoe_counts

    rules = resolve_rules("federal")
    sp = state_space()
    by_a2 = ot.optimal_tables_by_a2(rules)
    to_act = {ot.OPT_H: AK.ACT_HIT, ot.OPT_S: AK.ACT_STAND, ot.OPT_D: AK.ACT_DOUBLE}
    checked = 0
    for up in range(10):
        base = shoe_counts(rules.pack, rules.decks)
        base[up] -= 1
        solver = UpcardSolver(rules, Params.of(rules), base, up)
        cases = [(ot.KIND_MULTI, t, solver.run(a2=t), solver.fits & (sp.ncards >= 3)) for t in range(3)]
        charted = chart_splits(rules).get(up, {})  # splits optimal play plays by the chart
        for p in range(1, 10):  # split hands (split Aces take one card: nothing to decide)
            c = charted.get(p)
            sc = solver.split_chains(p) if c is None else solver.split_chains(p, policy=c[0], resc_pol=c[1])
            if sc is not None:
                cases += [(ot.KIND_SPLIT + p, t, o, sc.active) for t, o in sc.outs.items()]
        for kind, t, out, where in cases:
            row = by_a2[t, up + 1, kind]
            live = where & (row >= 0) & (out.act != AK.ACT_21)
            if kind >= ot.KIND_SPLIT:
                live &= (sp.nace - (kind - ot.KIND_SPLIT == 0)) <= t  # states this a2 can reach
            want = np.vectorize(to_act.get)(row[live] & 7)
            bad = np.nonzero(want != out.act[live])[0]
            assert not len(bad), (up, kind, t, sp.counts[np.nonzero(live)[0][bad[0]]].tolist())
            checked += int(live.sum())
    assert checked > 50_000
