"""Issue 27: the banker's double (003 variation, rul 30) in the exact heads-up model: values, both best
responses and the CFR+ solution equal every deal of a reduced pack played through the engine (to 1e-12)."""

from __future__ import annotations

from decimal import Decimal
from functools import cache

import numpy as np
import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.double import (
    MULTS,
    banker_best,
    double_tables,
    evaluate,
    solve_double,
    terminal_values_m,
)
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.solve import _k_player_q, flatten
from pontoon.errors import RulesError
from pontoon.rules.british import BRITISH

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4, banker_may_double=True)


@cache
def setup(rules=SMALL):  # type: ignore[no-untyped-def]
    g = game.build(rules, double=True)
    tb = V.tables(g)
    return g, tb, double_tables(g, tb)


def policies(g, sigmas, tws, dbl):  # type: ignore[no-untyped-def]
    oi = {o: i for i, o in enumerate(g.obs)}
    j_of = {Decimal(f"{m:g}"): j for j, m in enumerate(MULTS)}

    def player(st):  # type: ignore[no-untyped-def]
        m, *rest = st
        i = g.node_index[tuple(rest)]
        return dict(zip(g.nodes[i].actions, sigmas[j_of[m]][i], strict=True))

    def banker(hand, seen):  # type: ignore[no-untyped-def]
        if seen is None:
            return 0.0
        m, obs = seen
        return float(tws[j_of[m]][oi[obs], g.banker_index[hand]])

    return {"player": player, "banker": banker, "double": lambda c: float(dbl[c])}


@pytest.mark.parametrize(
    "rules", [SMALL, SMALL.with_(pack_ranks="A5TK", pack_suits=3, ace_ten_not_pontoon=True)]
)
def test_double_values_and_both_best_responses_equal_the_engine(rules) -> None:  # type: ignore[no-untyped-def]
    g, tb, dt = setup(rules)
    rng = np.random.default_rng(3)
    sig = [[np.eye(len(s.actions))[rng.integers(len(s.actions))] for s in g.nodes] for _ in MULTS]
    tws = [((rng.random((len(g.obs), len(g.banker))) < 0.5) * tb.twistable).astype(float) for _ in MULTS]
    dbl = np.zeros(game.NCLASS)
    dbl[game.ACE], dbl[4] = 0.3, 1.0  # mixed on an ace, always on a five, never on a ten
    sol = evaluate(g, tb, dt, dbl, sig, tws)
    assert abs(float(engine_value(rules, **policies(g, sig, tws, dbl))) - sol.value) < 1e-12
    d_br, brs, value = banker_best(g, tb, dt, [V.player_flow(g, s) for s in sig])
    assert abs(float(engine_value(rules, **policies(g, sig, brs, d_br))) - value) < 1e-12
    assert abs(value - sol.banker_br) < 1e-12
    fl = flatten(g, tb)
    na = len(fl.kid_start) - 1
    top = []
    for j in range(len(MULTS)):
        tv = terminal_values_m(g, tb, dt, dbl, tws[j], j)
        q, v = np.zeros(na), np.zeros(len(g.nodes))
        _k_player_q(fl.order, fl.act_start, fl.kid_start, fl.kid, fl.kid_p, np.zeros(na), tv, q, v, True)
        top.append(
            [
                np.eye(len(s.actions))[int(np.argmax(q[fl.act_start[i] : fl.act_start[i + 1]]))]
                for i, s in enumerate(g.nodes)
            ]
        )
    assert abs(float(engine_value(rules, **policies(g, top, tws, dbl))) - sol.player_br) < 1e-12


def test_double_solution_equals_the_engine_and_helps_the_banker() -> None:
    from pontoon.analysis.british.solve import solve

    sol = solve_double(SMALL, target=1e-3, max_iterations=400, check_every=25)
    assert sol.exploitability <= 1e-3
    assert sol.banker_br - 1e-12 <= sol.value <= sol.player_br + 1e-12
    g, _, _ = setup()
    assert abs(float(engine_value(SMALL, **policies(g, sol.sigma, sol.tw, sol.dbl))) - sol.value) < 1e-12
    # he may always pass: the double is worth at least nothing to the banker
    plain = solve(SMALL.with_(banker_may_double=False), target=1e-3, max_iterations=400, check_every=25)
    assert sol.player_br <= plain.player_br + plain.exploitability + 1e-9


def test_double_is_refused_where_not_modelled() -> None:
    with pytest.raises(RulesError, match="banker_may_double"):
        game.build(SMALL)  # the plain model has no double
    with pytest.raises(RulesError, match="Pontoon grades"):
        solve_double(SMALL.with_(natural_beats_plain=True))
