"""Rescue indices (004 3.25.3, 000 3.11.4): a doubled total against an up card, rescue vs stand,
where the two plays' exact values cross (analysis/indices.py), and the simulation's use of them."""

from __future__ import annotations

import numpy as np

import pontoon.sim._consts as K
from pontoon.analysis.counts import SYSTEMS
from pontoon.analysis.indices import index_table, rescue_racc, rescue_weights
from pontoon.analysis.states import shoe_counts
from pontoon.analysis.strategy import basic_strategy, solve
from pontoon.rules.load import resolve_rules
from pontoon.sim.counting import NBUCKETS, TC_LO, index_tables


def test_rescue_indices_are_where_the_exact_values_cross() -> None:
    """mbs under Hi-Lo at low counts (few small cards left: a doubled stiff against a small card
    loses more often): rescue rows appear, keep -> rescue below the index, and at every one of them
    the mean margin given the double (other play - chart's play, exact per shoe) has one sign more
    than a step below the index and the other more than a step above; the rows not printed are
    listed with why."""
    rules = resolve_rules("mbs")
    it = index_table(rules, SYSTEMS["hi-lo"], counts=range(-16, -6), samples=4, seed=1, cheap=40)
    tc = np.array(it.mean_tc)
    rows = [x for x in it.indices() if x["row"].startswith("doubled")]
    assert len(rows) >= 20, rows
    good = 0
    for x in rows:
        assert (x["play"], x["alt"], x["direction"]) == ("S", "F", "-") and x["weight"] > 0, x
        assert x["up"] in "234567" and -17 < x["index"] < -6, x
        ys, _ = it.rescue_margins(int(x["row"].split()[1]), x["up"])
        sign = 1 if x["direction"] == "+" else -1
        good += bool(
            np.all(sign * ys[tc < x["index"] - 1] < 0) and np.all(sign * ys[tc > x["index"] + 1] > 0)
        )
    assert good == len(rows), (good, len(rows))
    assert all(x["why"] in ("other", "twice", "unresolved") for x in it.excluded())
    # doubled 16 v 7: kept at the full shoe's counts, rescued some steps below
    (r16,) = [x for x in rows if (x["row"], x["up"]) == ("doubled 16", "7")]
    ys, _ = it.rescue_margins(16, "7")
    assert np.all(ys[tc < r16["index"] - 1] > 0) and np.all(ys[tc > r16["index"] + 1] < 0)


def test_rescue_margins_have_the_charts_sign_on_the_full_shoe() -> None:
    """On the full shoe the racc the indices read says keep where the chart keeps and rescue where
    it rescues, and the weights of the doubled totals are the chances of a double's outcome."""
    rules = resolve_rules("mbs")
    racc = rescue_racc(solve(rules))
    chart = basic_strategy(rules)["rescue"]
    ups = "A23456789T"
    for t, row in chart.items():
        for up, cell in row.items():
            v = racc[ups.index(up), int(t)]
            assert (v < 0) == (cell == "F"), (t, up, v, cell)
    w = rescue_weights(shoe_counts(rules.pack, rules.decks), rules.double_ace_counts_one)
    assert np.all(w[:, 21] == 0) and np.all(w >= 0)
    # given the up card, a margin per unit of the original wager lies between rescue's -1 and 3
    per = racc[:, 4:21] / w[:, 4:21]
    assert np.all(per > -1.01) and np.all(per < 3.01) and np.all(w[:, 4:21] > 0)


def test_blackjack_has_no_rescue_rows() -> None:
    rules = resolve_rules("blackjack")
    assert not rules.rescue
    it = index_table(rules, SYSTEMS["hi-lo"], counts=range(-1, 3), samples=1, seed=2, cheap=10)
    assert it.rescue is None and not it.rescue_play
    assert not [x for x in it.indices() if x["row"].startswith("doubled")]


def test_the_counters_table_rescues_by_the_index() -> None:
    rules = resolve_rules("mbs")
    chart = basic_strategy(rules)
    ix = [{"row": "doubled 17", "up": "A", "play": "F", "alt": "S", "index": 2.4, "direction": "+",
           "weight": 0.01, "hands": []}]  # fmt: skip
    strats = index_tables(rules, chart, ix)
    for k in range(NBUCKETS):
        want = 0 if TC_LO + k >= 3 else 1
        assert strats[k, K.K_RESCUE, 17, 3, 1] == want, TC_LO + k
    assert np.array_equal(strats[0, K.K_HARD], strats[-1, K.K_HARD])
