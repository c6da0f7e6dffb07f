"""``--strategy optimal``: the analyser's composition-dependent decisions as the kernel's table.

With a reshuffle before every round the simulated edge agrees with the analyser's
``house_edge.optimal`` within three standard errors; the table's decisions are the argmax of the
hint values (``hints.action_values``) for the same hands."""

from __future__ import annotations

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
    _check(preset, 10_000_000, seed=23)


def test_optimal_beats_basic_with_common_numbers() -> None:
    """Not a proof, a smoke check: same seed, optimal does not lose much more than basic."""
    rules = resolve_rules("federal")
    b = simulate(rules, 200_000, csm=True, seed=3)
    o = simulate(rules, 200_000, csm=True, seed=3, strategy="optimal")
    assert o["house_edge"] < b["house_edge"] + 2 * b["ci95"]
    assert np.isfinite(o["house_edge"])
