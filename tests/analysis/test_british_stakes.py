"""Issue 27 item 2: the stake game (the initial stake chosen after the first card, seen by the banker), its
exact values and best responses equal every deal of a reduced pack played through the engine (to 1e-12), and
its CFR+ solution."""

from __future__ import annotations

from decimal import Decimal
from functools import cache

import numpy as np
import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.enumerate import engine_value
from pontoon.analysis.british.stakes import (
    _first_values,
    _root_values,
    _weighted,
    evaluate,
    first_card_share,
    solve_stakes,
)
from pontoon.rules.british import BRITISH

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4)  # 12 cards: never runs out heads-up
GRID = (1.0, 3.0)


@cache
def setup():  # type: ignore[no-untyped-def]
    g = game.build(SMALL)
    return g, V.tables(g)


def pure(g, rng):  # type: ignore[no-untyped-def]
    return [np.eye(len(s.actions))[rng.integers(len(s.actions))] for s in g.nodes]


def policies(g, grid, pi, sigmas, tws):  # type: ignore[no-untyped-def]
    """The engine's policies: the stake by the first card, then each stake's strategies."""
    oi = {o: i for i, o in enumerate(g.obs)}
    j_of = {Decimal(f"{s:g}"): j for j, s in enumerate(grid)}

    def player(st):  # type: ignore[no-untyped-def]
        s, *rest = st
        i = g.node_index[tuple(rest)]
        return dict(zip(g.nodes[i].actions, sigmas[j_of[s]][i], strict=True))

    def banker(hand, seen):  # type: ignore[no-untyped-def]
        if seen is None:  # a declared Pontoon: paid whatever he does
            return 0.0
        s, obs = seen
        return float(tws[j_of[s]][oi[obs], g.banker_index[hand]])

    def stake(c):  # type: ignore[no-untyped-def]
        return {f"{s:g}": float(pi[c, j]) for j, s in enumerate(grid)}

    return {"player": player, "banker": banker, "stake": stake}


def test_stake_game_values_and_both_best_responses_equal_the_engine() -> None:
    g, tb = setup()
    rng = np.random.default_rng(5)
    sig = [pure(g, rng) for _ in GRID]
    tws = [((rng.random((len(g.obs), len(g.banker))) < 0.5) * tb.twistable).astype(float) for _ in GRID]
    pi = np.zeros((game.NCLASS, len(GRID)))
    pi[:, 0] = 1.0
    pi[game.ACE] = [0.25, 0.75]  # a mixed stake on an ace, the top stake on a ten, the minimum otherwise
    pi[game.TEN] = [0.0, 1.0]
    sol = evaluate(g, tb, GRID, pi, sig, tws)
    assert abs(float(engine_value(SMALL, **policies(g, GRID, pi, sig, tws))) - sol.value) < 1e-12
    # the banker's best response per stake, from the posterior of each stake's pool
    share = first_card_share(g)
    brs = []
    for j in range(len(GRID)):
        sub = _weighted(g, share @ pi[:, j])
        brs.append(V.banker_response(sub, tb, V.player_reach(sub, sig[j])[1])[0])
    assert abs(float(engine_value(SMALL, **policies(g, GRID, pi, sig, brs))) - sol.banker_br) < 1e-12
    # the player's best response: the best stake at each first card, each stake's game played best
    best = np.zeros((game.NCLASS, len(GRID)))
    top = []
    for j, s in enumerate(GRID):
        q, vb, _ = V.player_q(g, tb, tws[j])
        top.append([np.eye(len(n.actions))[int(np.argmax(q[i]))] for i, n in enumerate(g.nodes)])
        best[:, j] = s * _first_values(share, _root_values(g, vb, V.terminal_values(g, tb, tws[j])))
    stakes = np.eye(len(GRID))[best.argmax(axis=1)]
    assert abs(float(engine_value(SMALL, **policies(g, GRID, stakes, top, tws))) - sol.player_br) < 1e-12
    assert sol.banker_br <= sol.value <= sol.player_br


def test_stake_game_solution_and_what_the_grid_is_worth() -> None:
    """CFR+ reaches a small exact exploitability; the player stakes high on an ace (this pack's best first
    card); a one-stake grid is the fixed-stake game; choosing the stake is worth something to the player."""
    from pontoon.analysis.british.solve import solve

    sol = solve_stakes(SMALL, GRID, target=1e-4, max_iterations=600, check_every=25)
    assert sol.exploitability <= 1e-4 * sol.mean_stake
    assert sol.banker_br - 1e-12 <= sol.value <= sol.player_br + 1e-12
    assert sol.stake[game.ACE, 1] > 0.99 and sol.stake[4, 0] > 0.99  # ace: 3 stakes; five: the minimum
    fixed = solve(SMALL, target=1e-4, max_iterations=600, check_every=25)
    one = solve_stakes(SMALL, (1.0,), target=1e-4, max_iterations=600, check_every=25)
    assert one.banker_br - 1e-9 <= fixed.player_br and fixed.banker_br - 1e-9 <= one.player_br
    # he may always stake the minimum: the stake game is worth at least the fixed-stake game to him
    assert sol.player_br >= fixed.banker_br
    assert sol.value / sol.mean_stake > fixed.value + 0.01


@pytest.mark.slow
def test_solved_stake_game_equals_the_engine() -> None:
    sol = solve_stakes(SMALL, GRID, target=1e-3, max_iterations=200, check_every=25)
    exact = engine_value(SMALL, **policies(sol.game, GRID, sol.stake, sol.sigma, sol.tw))
    assert abs(float(exact) - sol.value) < 1e-12
