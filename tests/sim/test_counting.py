"""The counter's simulation (sim/counting.py, sim/_count_kernel.py, sim/count_stats.py)."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pytest

from pontoon.analysis.counts import SYSTEMS
from pontoon.analysis.indices import index_table
from pontoon.analysis.states import shoe_counts
from pontoon.analysis.strategy import basic_strategy, solve
from pontoon.rules.load import resolve_rules
from pontoon.sim import _kernels as K
from pontoon.sim.api import build_spec
from pontoon.sim.count_stats import NSUMS, figures
from pontoon.sim.counting import (
    NBUCKETS,
    TC_LO,
    CountSimError,
    index_tables,
    parse_ramp,
    ramp_arrays,
    run_stacked_count,
    simulate_count,
    unplayable,
)


@pytest.mark.parametrize("preset", ["mbs", "blackjack"])
def test_running_count_equals_a_recount_of_the_dealt_cards_on_stacked_shoes(preset: str) -> None:
    rules = resolve_rules(preset)
    system = SYSTEMS["walker-hi-lo"] if preset == "mbs" else SYSTEMS["zen"]
    spec = build_spec(rules)
    rng = np.random.default_rng(7)
    cards = rng.permutation(spec.shoe)
    trace, dealt, _acc = run_stacked_count(rules, system, cards, 500)
    assert len(trace) > 40  # the whole shoe, round after round
    assert np.array_equal(dealt, cards)  # dealt in stored order
    tags = np.array([system.tags[min(c >> 2, 9)] for c in cards])
    irc = system.irc(rules.pack, rules.decks)
    prev = 0
    for rc, pos in trace:
        assert pos - prev >= 3 or pos == len(cards)  # a round deals at least two cards and an up card
        assert rc == pytest.approx(irc + tags[: int(pos)].sum(), abs=1e-9)
        prev = int(pos)


def test_flat_bet_without_indices_equals_the_exact_edge() -> None:
    rules = resolve_rules("mbs")
    out = simulate_count(rules, 2_000_000, SYSTEMS["walker-hi-lo"], [(TC_LO, 1, 1)], seed=11)
    exact = solve(rules).ev_basic
    assert out["rounds_played"] == out["rounds"] == 2_000_000
    assert out["average_bet"] == 1.0
    assert abs(out["advantage_per_initial_bet"] - exact) < 3 * out["advantage_se"]
    assert 1.0 < out["sd_per_round"] < 1.3
    assert out["risk_of_ruin"] == 1.0  # a losing game ruins every bankroll


def test_ramp_and_index_tables() -> None:
    assert parse_ramp("3:8x2, 0:1,1:2") == [(0, 1, 1), (1, 2, 1), (3, 8, 2)]
    for bad in ("x", "1:", "99:1", "1:2x9", ""):
        with pytest.raises(CountSimError):
            parse_ramp(bad)
    bets, boxes = ramp_arrays([(0, 1, 1), (3, 8, 2)])
    assert bets[-1 - TC_LO] == 0 and bets[0 - TC_LO] == 1 and bets[2 - TC_LO] == 1
    assert bets[3 - TC_LO] == 8 and boxes[3 - TC_LO] == 2
    rules = resolve_rules("mbs")
    chart = basic_strategy(rules)
    ix = [{"row": "hard 16", "up": "T", "play": "H", "alt": "R", "index": -0.3, "direction": "+"},
          {"row": "pair 8", "up": "T", "play": "P", "alt": "H", "index": 2.7, "direction": "-"}]  # fmt: skip
    strats = index_tables(rules, chart, ix)
    for k in range(strats.shape[0]):
        t = TC_LO + k
        assert strats[k, K.K_HARD, 16, 2, 10] == (K.C_R if t >= 0 else K.C_H)
        assert strats[k, K.K_HARD, 16, 3, 10] == strats[0, K.K_HARD, 16, 3, 10]  # two-card hands only
        assert strats[k, K.K_PAIR, 8, 2, 10] == (K.C_NONE if t <= 1 else K.C_P)


def test_figures_from_sums() -> None:
    w = np.array([1.0, -1.0, 2.0, -1.0, 0.0, 1.5])
    b = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 1.0])
    sums = np.zeros(NSUMS)
    sums[:11] = [
        8,
        6,
        b.sum(),
        w.sum(),
        (w**2).sum(),
        (w**3).sum(),
        (w**4).sum(),
        0,
        6,
        (b * b).sum(),
        (w * b).sum(),
    ]
    f = figures(sums, 100.0)
    mu, sd = w.mean(), w.std()
    assert f["ev_per_round"] == pytest.approx(mu) and f["sd_per_round"] == pytest.approx(sd)
    assert f["advantage_per_initial_bet"] == pytest.approx(w.sum() / b.sum())
    assert f["di"] == pytest.approx(1000 * mu / sd) and f["score"] == pytest.approx(f["di"] ** 2)
    assert f["n0"] == pytest.approx(sd**2 / mu**2)
    assert f["risk_of_ruin"] == pytest.approx(math.exp(-2 * mu * 100 / sd**2))
    assert f["share_played"] == pytest.approx(6 / 8) and f["win_per_100_seen"] == pytest.approx(
        100 * w.sum() / 8
    )


@functools.cache
def _mbs_indices() -> list[dict[str, Any]]:
    return index_table(
        resolve_rules("mbs"), SYSTEMS["walker-hi-lo"], counts=range(-8, 5), samples=4, seed=5
    ).indices()


def test_every_split_index_is_in_the_counters_tables() -> None:
    """Each pair row of a real index chart whose plays include a split changes the counter's pair
    table exactly at the counts it reaches; no row of the chart is left unplayed."""
    rules = resolve_rules("mbs")
    ix = _mbs_indices()
    strats = index_tables(rules, basic_strategy(rules), ix)
    base = index_tables(rules, basic_strategy(rules), None)
    split_rows = [x for x in ix if x["row"].startswith("pair") and "P" in (x["play"], x["alt"])]
    assert len(split_rows) >= 10
    for x in split_rows:
        p = {"A": 1, "T": 10}.get(x["row"].split()[1]) or int(x["row"].split()[1])
        u = {"A": 1, "T": 10}.get(x["up"]) or int(x["up"])
        for k in range(NBUCKETS):
            t = TC_LO + k
            on = t >= math.ceil(x["index"]) if x["direction"] == "+" else t + 1 <= math.floor(x["index"])
            want = (x["alt"] if on else x["play"]) == "P"
            assert (strats[k, K.K_PAIR, p, 2, u] == K.C_P) == want, (x, t)
        assert (base[0, K.K_PAIR, p, 2, u] == K.C_P) == (x["play"] == "P")
    assert unplayable(ix) == []


def test_every_unsplit_pair_index_is_in_the_counters_tables() -> None:
    """Each pair row of mbs's index chart between two plays neither of which is a split (pair 5
    double/hit, pair 8 surrender/hit) fills the pair's own cell with its play at every count, the
    other play exactly at the counts the index reaches; the plain tables leave the cell empty."""
    rules = resolve_rules("mbs")
    ix = _mbs_indices()
    strats = index_tables(rules, basic_strategy(rules), ix)
    base = index_tables(rules, basic_strategy(rules), None)
    assert (base[:, K.K_PAIRPLAY, :, :, 1:] == K.C_NONE).all()  # up cards 1 (Ace) .. 10
    rows = [x for x in ix if x["row"].startswith("pair") and "P" not in (x["play"], x["alt"])]
    assert len(rows) >= 5
    names = {K.C_H: "H", K.C_S: "S", K.C_D: "D", K.C_DS: "D", K.C_R: "R", K.C_RS: "R"}
    for x in rows:
        p = {"A": 1, "T": 10}.get(x["row"].split()[1]) or int(x["row"].split()[1])
        u = {"A": 1, "T": 10}.get(x["up"]) or int(x["up"])
        for k in range(NBUCKETS):
            t = TC_LO + k
            on = t >= math.ceil(x["index"]) if x["direction"] == "+" else t + 1 <= math.floor(x["index"])
            assert names[int(strats[k, K.K_PAIRPLAY, p, 2, u])] == (x["alt"] if on else x["play"]), (x, t)
    filled = {
        (int(p), int(u))
        for p, u in zip(*np.nonzero(strats[0, K.K_PAIRPLAY, :, 2, 1:] != K.C_NONE), strict=True)
    }
    assert len(filled) == len(rows)  # no other cell


def _stacked_pair_round(
    rules: Any, indices: list[dict[str, Any]] | None, row: dict[str, Any], on: bool
) -> tuple[float, float, int]:
    """Find a round boundary of a shuffled stacked shoe where the true count does (``on``) or
    does not reach ``row``'s index, deal ``row``'s pair against its up card in the next round
    (the cards swapped in from the shoe's rest), and play to that round's end. Returns (running
    count before the round, its true count, the round's doubles)."""
    system = SYSTEMS["walker-hi-lo"]
    spec = build_spec(rules)
    deck = float(shoe_counts(rules.pack, 1).sum())
    tags = np.array([system.tags[min(r, 9)] for r in range(13)])
    irc = system.irc(rules.pack, rules.decks)
    points = {"A": 1, "T": 10, **{str(v): v for v in range(2, 10)}}
    pp, up = points[row["row"].split()[1]], points[row["up"]]
    want = [pp, up, pp]  # box card, dealer's up card, box card (the deal's order), by points
    for seed in range(50):
        cards = np.random.default_rng(seed).permutation(spec.shoe)
        trace, _dealt, _acc = run_stacked_count(rules, system, cards, 500, indices)
        n = len(cards)
        for r, (rc, pos) in enumerate(trace[:-5]):
            pos = int(pos)
            tc = rc * deck / (n - pos)
            t = math.floor(tc)
            reached = (
                t >= math.ceil(row["index"]) if row["direction"] == "+" else t + 1 <= math.floor(row["index"])
            )
            if reached != on or not -8 <= t <= 8:
                continue
            shoe = cards.copy()
            for j, w in enumerate(want):  # swap the wanted ranks in from the rest of the shoe
                q = pos + j + int(np.nonzero(np.minimum((shoe[pos + j :] >> 2) + 1, 10) == w)[0][0])
                shoe[pos + j], shoe[q] = shoe[q], shoe[pos + j]
            before = run_stacked_count(rules, system, shoe, r + 1, indices)
            after = run_stacked_count(rules, system, shoe, r + 2, indices)
            assert before[0][r, 0] == rc and before[0][r, 1] == pos  # the same rounds up to here
            assert rc == pytest.approx(irc + tags[shoe[:pos] >> 2].sum(), abs=1e-9)  # the running count
            return rc, tc, int(after[2][K.L_DOUBLE, 0] - before[2][K.L_DOUBLE, 0])
    raise AssertionError("no round boundary at the wanted count")


def test_a_pair_index_row_changes_the_unsplit_pairs_play_on_a_stacked_shoe() -> None:
    """mbs's pair 5 against a ten: the chart hits (its total's cell, hard 10, hits too); the
    index row doubles from its index up. On stacked shoes the pair doubles exactly where the true
    count reaches the index, and never without the index row or below it."""
    rules = resolve_rules("mbs")
    chart = basic_strategy(rules)
    (row,) = [x for x in _mbs_indices() if x["row"] == "pair 5" and x["up"] == "T"]
    assert (row["play"], row["alt"], row["direction"]) == ("H", "D", "+")
    assert chart["hard"]["10"]["T"].split(";")[0] == "H"  # the total's cell: no double
    rc, tc, doubles = _stacked_pair_round(rules, [row], row, on=True)
    assert tc >= math.ceil(row["index"]) and doubles == 1, (rc, tc)
    rc, tc, doubles = _stacked_pair_round(rules, [row], row, on=False)
    assert tc < math.ceil(row["index"]) and doubles == 0, (rc, tc)
    rc, tc, doubles = _stacked_pair_round(rules, None, row, on=True)
    assert tc >= math.ceil(row["index"]) and doubles == 0, (rc, tc)


def test_indices_do_not_lose_to_the_same_ramp_without_them() -> None:
    """Small version of the slow test below: 4 M rounds each, flat bet from Walker's +0 (four
    above the neutral count): the index plays' gain (about 0.7% of the bet) is two standard errors
    here, so this asserts only that it is positive."""
    rules = resolve_rules("mbs")
    system = SYSTEMS["walker-hi-lo"]
    ix = _mbs_indices()
    a = simulate_count(rules, 4_000_000, system, [(0, 1, 1)], seed=21)
    b = simulate_count(rules, 4_000_000, system, [(0, 1, 1)], indices=ix, seed=22)
    assert b["advantage_per_initial_bet"] > a["advantage_per_initial_bet"], (a, b)
    assert b["index_plays"] > 50 and b["index_plays_unused"] == 0


@pytest.mark.slow
def test_indices_beat_the_same_ramp_without_them() -> None:
    rules = resolve_rules("mbs")
    system = SYSTEMS["walker-hi-lo"]
    ix = _mbs_indices()
    ramp = [(1, 1, 1), (2, 2, 1), (3, 4, 1), (4, 8, 1)]
    a = simulate_count(rules, 40_000_000, system, ramp, seed=21)
    b = simulate_count(rules, 40_000_000, system, ramp, indices=ix, seed=22)
    diff = b["advantage_per_initial_bet"] - a["advantage_per_initial_bet"]
    assert diff > 3 * math.hypot(a["advantage_se"], b["advantage_se"])


def test_on_dask_the_figures_are_the_one_process_figures() -> None:
    rules = resolve_rules("mbs")
    ramp = [(-5, 1, 1), (-2, 4, 2)]
    one = simulate_count(rules, 300_000, SYSTEMS["walker-hi-lo"], ramp, seed=3, chunk_rounds=50_000)
    two = simulate_count(
        rules, 300_000, SYSTEMS["walker-hi-lo"], ramp, seed=3, chunk_rounds=50_000, workers=2
    )
    for k in ("rounds", "rounds_played", "advantage_per_initial_bet", "sd_per_round", "di", "average_boxes"):
        assert one[k] == two[k], k
    assert one["average_boxes"] > 1  # the ramp's two boxes were played
