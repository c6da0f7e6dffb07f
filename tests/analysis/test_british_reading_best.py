"""Issue 27 item 3: the players' best response to the banker reading every hand, fitted on sampled deals and
valued on fresh ones (analysis/british/reading_best.py), against the exact one on a reduced pack
(reading_response.exact_response, itself equal to every deal through the engine)."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.reading import Reader
from pontoon.analysis.british.reading_best import (
    bracket,
    chance_ratio,
    fit_response,
    sampled_values,
    terms_of,
)
from pontoon.analysis.british.reading_response import exact_response
from pontoon.analysis.british.reading_response_sample import deviation
from pontoon.analysis.british.values import player_flow
from pontoon.rules.british import BRITISH

RULES = BRITISH.with_(
    pack_ranks="5T", pack_suits=4, packs=2
)  # 16 cards: buys, busts, the best response gains


@pytest.mark.parametrize("budget", [None, 2])
def test_sampled_terminal_values_are_unbiased(cache, budget) -> None:  # type: ignore[no-untyped-def]
    """Per deal, ``z_D`` valued with the exact best response's flow and a fixed deviation's, less the
    solution's: the mean over deals within 3 standard errors of the exact gain (every programme per deal, or
    two drawn by importance sampling)."""
    sol = S.solved(RULES)
    g = sol.game
    ex = exact_response(Reader(sol), 2)
    y0 = player_flow(g, sol.sigma)
    strategies = {"best": ex["strategy"], "heads_up": deviation(sol, "heads_up")}
    dy = {k: player_flow(g, v) - y0 for k, v in strategies.items()}
    rows = [[float(d @ z) for d in dy.values()] for z in sampled_values(RULES, 2, 400, 7, budget=budget)]
    x = np.array(rows)
    assert len(x) == 400
    for k, name in enumerate(dy):
        exact = float(player_flow(g, strategies[name]) @ ex["terminal_values"]) - ex["solved"]
        mean, se = x[:, k].mean(), x[:, k].std(ddof=1) / np.sqrt(len(x))
        assert se > 0 and abs(mean - exact) < 3 * se, (name, mean, se, exact)
    assert ex["best"] - ex["solved"] > 0.1  # the best response gains: the check has something to find


def test_fitted_response_is_bracketed(cache) -> None:  # type: ignore[no-untyped-def]
    """The fitted response is at least the solution on its own deals, no better than the exact best
    response, and valued on fresh deals within 4 standard errors of its exact value (unbiased)."""
    sol = S.solved(RULES)
    g = sol.game
    ex = exact_response(Reader(sol), 2)
    fit = fit_response(RULES, 2, 60, 3)
    assert fit["rounds"] == 60 and fit["in_sample_gain"] >= 0.0
    fitted = float(player_flow(g, fit["strategy"]) @ ex["terminal_values"])
    assert fitted <= ex["best"] + 1e-12 and ex["best"] >= ex["solved"]
    out = bracket(RULES, 2, 60, 150, 3)
    assert out["fit"]["in_sample_gain"] >= 0.0 and out["eval"]["rounds"] == 150
    d = out["eval"]["deviations"]["fitted"]
    # bracket's fit uses its own seed: its strategy is valued exactly by re-fitting the same deals
    again = fit_response(RULES, 2, 60, _seed(3, 0))
    exact = float(player_flow(g, again["strategy"]) @ ex["terminal_values"]) - ex["solved"]
    assert abs(again["in_sample_gain"] - out["fit"]["in_sample_gain"]) < 1e-12
    assert d["gain_se"] > 0 and abs(d["gain"] - exact) < 4 * d["gain_se"], (d, exact)


@pytest.mark.parametrize("packs", [1, 2])
def test_chance_ratio_turns_the_full_pack_flow_into_the_pack_left_flow(packs: int) -> None:
    """Any strategy's flow from the full pack times ``chance_ratio`` is its flow from the pack left after a
    deal (others' cards, the banker's first two), so it sums to one: per random deal, to 1e-12."""
    sol = S.solved(BRITISH.with_(packs=packs))
    g = sol.game
    tm = terms_of(g, sol.sigma)
    flows = [player_flow(g, sol.sigma), player_flow(g, deviation(sol, "blind"))]
    n0 = g.counts.astype(np.int64)
    rng = np.random.default_rng(packs)
    for _ in range(20):
        dealt = rng.choice(np.repeat(np.arange(len(n0)), n0), size=int(rng.integers(2, 25)), replace=False)
        n = n0 - np.bincount(dealt, minlength=len(n0))
        r = chance_ratio(tm, n, n0)
        for y in flows:
            assert abs(float(y @ r) - 1.0) < 1e-12
        assert r.max() > 1.0 > r.min()  # some hands likelier after the deal, some less likely


def _seed(seed: int, k: int) -> int:
    from pontoon.analysis.british.reading_best import _child

    return _child(seed, k)
