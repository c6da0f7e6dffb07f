"""Issue 27 item 3: the players' best response to the banker reading every hand
(analysis/british/reading_response.py).

One player is the heads-up best response to the banker's heads-up best response; with two players, on
reduced packs, the deviator's exact value of the solution, of his best response and of another deviation
equals every deal played through the engine (the other player solved, the banker reading every hand) to
1e-12, and the best response is never worse than the solution nor than the deviation."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.bots import initial_stakes
from pontoon.analysis.british.enumerate_several import BANKER, PlayerPolicy, banker_check, solved_player
from pontoon.analysis.british.reading import Reader, seen_from_view
from pontoon.analysis.british.reading_response import (
    decide,
    exact_response,
    outcome_chances,
    outcome_chances_many,
)
from pontoon.analysis.british.reading_response_sample import DEVIATIONS, deviation, sample_response
from pontoon.analysis.british.several import print_several, several
from pontoon.analysis.british.values import banker_response, player_flow, player_q, terminal_values
from pontoon.rules.british import BRITISH


def test_one_player_is_the_heads_up_best_response(cache) -> None:  # type: ignore[no-untyped-def]
    sol = S.solved(BRITISH.with_(pack_ranks="A5T", pack_suits=4))
    g, tb = sol.game, sol.tables
    br, _, bbr = banker_response(g, tb, player_flow(g, sol.sigma))
    _, _, pbr = player_q(g, tb, br)
    got = exact_response(Reader(sol), 1)
    assert np.abs(got["terminal_values"] - terminal_values(g, tb, br)).max() < 1e-12
    assert abs(got["solved"] - bbr) < 1e-12 and abs(got["best"] - float(pbr)) < 1e-12
    assert got["best"] > got["solved"]  # the heads-up best response gains against the seeing banker


def test_outcome_chances_sum_to_one_and_stay_where_he_does_not_twist() -> None:
    left = np.zeros(11, np.int64)
    left[4], left[9] = 3, 5  # three fives, five tens left
    stay = outcome_chances((4, 9), left, frozenset())
    assert stay[15] == 1.0  # 5 + 10, he stays
    got = outcome_chances((4, 9), left, frozenset({(4, 9)}))
    assert abs(got.sum() - 1) < 1e-15 and abs(got[20] - 3 / 8) < 1e-15 and abs(got[0] - 5 / 8) < 1e-15
    rng = np.random.default_rng(3)
    rooms = rng.integers(0, 5, size=(6, 11))
    tw = frozenset({(1, 4), (1, 1, 4), (1, 4, 4), (1, 2, 4)})
    many = outcome_chances_many((1, 4), rooms, tw)
    for k in range(6):
        assert np.abs(many[k] - outcome_chances((1, 4), rooms[k], tw)).max() < 1e-15


def _policy(sol, sigma) -> PlayerPolicy:  # type: ignore[no-untyped-def]
    """p0 plays ``sigma``, the others the solution."""
    dev, rest = solved_player(SimpleNamespace(game=sol.game, sigma=sigma)), solved_player(sol)
    return lambda rnd, seat: (dev if seat == "p0" else rest)(rnd, seat)


def _check_two_players(rules) -> int:  # type: ignore[no-untyped-def]
    sol = S.solved(rules)
    rd = Reader(sol)
    got = exact_response(rd, 2)

    def banker(rnd) -> str:  # type: ignore[no-untyped-def]
        seen = seen_from_view(rnd.view(BANKER), initial_stakes(rnd))
        assert seen is not None
        return decide(rd, seen)

    # another deviation: the heads-up best response to the banker reading one hand
    g, tb = sol.game, sol.tables
    br, _, _ = banker_response(g, tb, player_flow(g, sol.sigma))
    q, _, _ = player_q(g, tb, br)
    heads_up = [np.eye(len(x))[int(np.argmax(x))] for x in q]
    engine = {}
    for name, sigma in (("solved", sol.sigma), ("best", got["strategy"]), ("heads_up", heads_up)):
        engine[name], _ = banker_check(rules, 2, _policy(sol, sigma), banker, counted=["p0"])
        exact = float(player_flow(g, sigma) @ got["terminal_values"])
        assert abs(engine[name] - exact) < 1e-12, name
    assert abs(engine["solved"] - got["solved"]) < 1e-12 and abs(engine["best"] - got["best"]) < 1e-12
    assert got["best"] > got["solved"] + 1e-4 and got["best"] >= engine["heads_up"] - 1e-12
    # the best response is a best response: no single decision of his does better anywhere
    v = got["q"]
    for i, s in enumerate(g.nodes):
        assert float(np.dot(got["strategy"][i], v[i])) >= v[i].max() - 1e-12, s
    return sum(len(x) > 1 for x in v)


def test_two_players_values_equal_the_engine(cache) -> None:  # type: ignore[no-untyped-def]
    assert _check_two_players(BRITISH.with_(pack_ranks="7T", pack_suits=4, packs=2)) > 0


@pytest.mark.slow
def test_two_players_on_a_deeper_pack(cache) -> None:  # type: ignore[no-untyped-def]
    """Fives and tens: buys, four-card hands, busts seen by the banker; the best response gains 15 points."""
    assert _check_two_players(BRITISH.with_(pack_ranks="5T", pack_suits=4, packs=2)) > 10


def test_sampled_deviation_gain_and_edges_agree_with_the_exact_ones(cache) -> None:  # type: ignore[no-untyped-def]
    """On a reduced pack the exact module gives what the sampler estimates: the deviation's gain over the
    solution, the reading banker's edge against solved players (the deviator playing the solution) and
    against the deviator; each sampled figure within four standard errors of the exact one."""
    rules = BRITISH.with_(pack_ranks="5T", pack_suits=4, packs=2)
    sol = S.solved(rules)
    ex = exact_response(Reader(sol), 2)
    for budget in (None, 2):  # every programme of the banker per deal, or two drawn (importance sampling)
        got = sample_response(rules, 2, 300, 11, budget=budget)
        assert got["rounds"] == 300
        assert abs(got["edge_vs_solved"] + ex["solved"]) < 4 * got["reading_gain_se"]
        for name in DEVIATIONS:
            value = float(player_flow(sol.game, deviation(sol, name)) @ ex["terminal_values"])
            d = got["deviations"][name]
            assert d["gain_se"] > 0 and abs(d["gain"] - (value - ex["solved"])) < 4 * d["gain_se"], (name, d)
            assert abs(d["edge"] + value) < 4 * d["edge_se"], (name, d)
            assert ex["best"] >= value - 1e-12  # a lower bound: no deviation beats the best response


def test_several_reports_the_players_best_response(cache) -> None:  # type: ignore[no-untyped-def]
    """``pontoon analyze --players N --sample R``'s figures (several.py): exact heads-up, sampled with two."""
    rules = BRITISH.with_(pack_ranks="A5T", pack_suits=4)
    lines: list[str] = []
    one = several(rules, 1, rounds=0)
    for row in one["by_packs"].values():
        pb = row["players_best_response"]
        assert pb["exact"] and pb["edge"] <= row["seeing_one"] + 1e-12  # he can only gain by deviating
    two = several(rules, 2, rounds=40, seed=3)
    assert "refused" in two["by_packs"]["1"]["reading"]  # 12 cards can run out at a table of three
    pb = two["by_packs"]["2"]["players_best_response"]
    assert not pb["exact"] and pb["deviation"] in DEVIATIONS and pb["sampled"]["rounds"] == 40
    d = pb["sampled"]["deviations"][pb["deviation"]]
    assert abs(pb["edge"] - (pb["sampled"]["edge_vs_solved"] - d["gain"])) < 1e-12
    print_several(two, lines.append)
    assert any("deviation (a bound on the best response)" in x for x in lines)
