"""Issue 27 item 3: the banker's exact best response reading every hand (analysis/british/reading.py).

Heads-up it is the heads-up best response (values.banker_response); with two players, on reduced packs,
its values of staying and twisting at every banker information set equal the engine's enumeration of
every deal to 1e-12, and its decision is never worse than the other one there (the one-shot deviation
check: his later decisions are checked the same way, so no banker strategy does better)."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.bots import conditional_values, initial_stakes
from pontoon.analysis.british.enumerate_several import BANKER, banker_check, solved_player
from pontoon.analysis.british.reading import Reader, Seen, seen_from_view, settled_from_view
from pontoon.analysis.british.reading_sample import sample_reading
from pontoon.analysis.british.several import blind_response
from pontoon.analysis.british.values import banker_response, player_flow
from pontoon.rules.british import BRITISH

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4)


def test_heads_up_it_is_the_heads_up_best_response(cache) -> None:  # type: ignore[no-untyped-def]
    sol = S.solved(SMALL)
    g = sol.game
    rd = Reader(sol)
    br, _, _ = banker_response(g, sol.tables, player_flow(g, sol.sigma))
    stay, _ = conditional_values(sol)
    checked = 0
    for oi, o in enumerate(g.obs):
        if o not in rd.support or oi % 4:  # a quarter of what he can see of the player, to keep it short
            continue
        for first in (h for h in g.banker if len(h) == 2):
            try:
                tree = rd.tree(Seen(first, (o,), ()))
            except ValueError:  # his cards and the player's cannot both come from the pack
                continue
            for hand, v in tree.stay.items():
                k = g.banker_index[hand]
                assert abs(v - stay[oi, k]) < 1e-12
                if hand in tree.twist and abs(tree.twist[hand] - v) > 1e-9:
                    assert (tree.twist[hand] < v) == (br[oi, k] > 0.5)
                checked += 1
    assert checked > 300


def _check_two_players(rules) -> int:  # type: ignore[no-untyped-def]
    sol = S.solved(rules)
    rd = Reader(sol)
    total, sets = banker_check(rules, 2, solved_player(sol), rd.decide_round)
    assert sets
    for p, stay, twist, rnd in sets.values():
        view = rnd.view(BANKER)
        seen = seen_from_view(view, initial_stakes(rnd))
        assert seen is not None
        fixed = settled_from_view(view, initial_stakes(rnd), rules.pontoon_pays)
        s, t = rd.values(seen)
        assert t is not None
        assert abs(stay / p - (s + fixed)) < 1e-12 and abs(twist / p - (t + fixed)) < 1e-12
        chosen, other = (twist, stay) if rd.decide(seen) == "twist" else (stay, twist)
        assert chosen <= other + 1e-12 * p  # the players' value: the banker's choice lowers it or ties
    # the blind best response (his own cards only) never does better than reading every hand
    blind = np.tile(blind_response(sol)[0][0], 1)
    assert blind.shape == (len(sol.game.banker),)
    return len(sets)


def test_two_players_values_equal_the_engine_and_no_banker_decision_does_better(cache) -> None:  # type: ignore[no-untyped-def]
    assert _check_two_players(BRITISH.with_(pack_ranks="7T", pack_suits=4, packs=2)) > 100


@pytest.mark.slow
def test_two_players_on_a_deeper_pack(cache) -> None:  # type: ignore[no-untyped-def]
    """Fives and tens: four-card hands, buys, busts seen by the banker (about a minute)."""
    assert _check_two_players(BRITISH.with_(pack_ranks="5T", pack_suits=4, packs=2)) > 2000


def test_sampled_gain_over_the_blind_banker() -> None:
    got = sample_reading(BRITISH.with_(packs=1), 2, 40, 5)
    assert got["off_model"] == 0 and got["rounds"] == 40
    assert got["gain"] >= 0 and got["gain_se"] < got["blind_se"]
    assert abs(got["best"] - got["blind"] - got["gain"]) < 1e-12
