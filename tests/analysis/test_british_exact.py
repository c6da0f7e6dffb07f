"""Issue 27 item 1: the British analysis's exact values equal every deal of a reduced pack played through the
engine (to 1e-12), for the values of strategies, every player decision and both best responses."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.enumerate import engine_value
from pontoon.british.pack import one_pack
from pontoon.british.table import BritishGame
from pontoon.errors import RulesError
from pontoon.rules.british import BRITISH, SHOOT

SMALL = BRITISH.with_(pack_ranks="A5T", pack_suits=4)  # 12 cards: never runs out heads-up (10 at most)
MEDIUM = BRITISH.with_(pack_ranks="A257T", pack_suits=2)


@cache
def setup(rules=SMALL):  # type: ignore[no-untyped-def]
    g = game.build(rules)
    return g, V.tables(g)


def policies(g, sigma, tw):  # type: ignore[no-untyped-def]
    oi = {o: i for i, o in enumerate(g.obs)}

    def player(st):  # type: ignore[no-untyped-def]
        i = g.node_index[st]
        return dict(zip(g.nodes[i].actions, sigma[i], strict=True))

    def banker(hand, obs):  # type: ignore[no-untyped-def]
        if obs is None:  # a declared Pontoon: paid whatever he does
            return 0.0
        return float(tw[oi[obs], g.banker_index[hand]])

    return player, banker


def pure(g, rng):  # type: ignore[no-untyped-def]
    return [np.eye(len(s.actions))[rng.integers(len(s.actions))] for s in g.nodes]


def test_reduced_pack_is_a_validated_rules_field_the_table_deals() -> None:
    assert not BRITISH.reduced_pack and len(one_pack(BRITISH)) == 52
    assert [str(c) for c in one_pack(SMALL)][:5] == ["AS", "AH", "AD", "AC", "5S"]
    with pytest.raises(RulesError, match="pack_ranks"):
        BRITISH.with_(pack_ranks="AAK")
    with pytest.raises(RulesError, match="pack_suits"):
        BRITISH.with_(pack_suits=5)
    table = BritishGame(SMALL, ["a", "b"], rng=3, banker="a")
    assert sorted({c.rank for c in table.pack.cards()}) == ["5", "A", "T"] and len(table.pack) == 12
    from pontoon.errors import IllegalAction
    from pontoon.fair import FairShuffler

    with pytest.raises(IllegalAction, match="52-card packs"):  # the fair shuffle commits to 52 cards
        BritishGame(SMALL, ["a", "b"], banker="a", fair=FairShuffler(test_seed=1))


def test_unmodelled_variations_are_refused_by_name() -> None:
    with pytest.raises(RulesError, match="banker_may_double"):
        game.build(BRITISH.with_(banker_may_double=True))
    with pytest.raises(RulesError, match="burn=hard13 with shoot"):
        game.build(SHOOT.with_(burn="hard13"))
    with pytest.raises(RulesError, match="burn=hard14"):
        game.check_seats(BRITISH.with_(burn="hard14"))
    # the bots, hints and drills read cards by point value: A-10 as an ordinary 21 is the analysis's only
    with pytest.raises(RulesError, match="ace_ten_not_pontoon"):
        game.check_seats(BRITISH.with_(ace_ten_not_pontoon=True))
    game.check_seats(BRITISH.with_(natural_beats_plain=True, ace_picture_beats_ace_ten=True))


@pytest.mark.parametrize(
    "changes",
    [{"ace_ten_not_pontoon": True}, {"ace_picture_beats_ace_ten": True}, {"natural_beats_plain": True}],
    ids=lambda c: next(iter(c)),
)
def test_pontoon_rank_variations_are_modelled_and_change_the_value(changes: dict[str, object]) -> None:
    """Each variation, once refused, is built and changes the value of a fixed pair of strategies (the
    player's best response to the house banker) on a reduced pack with tens and pictures."""
    base = BRITISH.with_(pack_ranks="A6TJQK", pack_suits=2)
    got = []
    for rules in (base, base.with_(**changes)):
        g = game.build(rules)
        _, _, best = V.player_q(g, V.tables(g), V.house_banker(g))
        got.append(float(best))
    assert abs(got[0] - got[1]) > 1e-4, got
    if "ace_ten_not_pontoon" in changes:  # A-10 is a player state (an ordinary 21), and a banker hand
        g = game.build(base.with_(**changes))
        assert ((game.ACE, game.TEN), (), ()) in g.node_index and (game.ACE, game.TEN) in g.banker_index
        assert (game.ACE, game.PIC) not in g.banker_index


@pytest.mark.parametrize("seed", [1, 2])
def test_value_of_strategies_equals_the_engine_over_every_deal(seed: int) -> None:
    g, tb = setup()
    rng = np.random.default_rng(seed)
    sigma = pure(g, rng)
    sigma[g.roots[0][0]] = np.full(
        len(g.nodes[g.roots[0][0]].actions), 1 / len(g.nodes[g.roots[0][0]].actions)
    )
    tw = ((rng.random((len(g.obs), len(g.banker))) < 0.5) * tb.twistable).astype(float)
    tw[0, :] *= 0.25  # a mixed banker too
    exact = engine_value(SMALL, *policies(g, sigma, tw))
    assert abs(V.strategy_value(g, tb, sigma, tw) - float(exact)) < 1e-12


def test_every_player_decision_value_equals_the_engine() -> None:
    """Q(s, a) - Q(s, sigma) times the chance of reaching s is what deviating to a at s changes, deal by deal."""
    g, tb = setup()
    rng = np.random.default_rng(7)
    sigma = pure(g, rng)
    tw = V.house_banker(g)
    q, _, best_total = V.player_q(g, tb, tw)
    base = engine_value(SMALL, *policies(g, sigma, tw))
    reach = V.player_reach(g, sigma)[0]  # chance times the player's own probabilities
    picked = [i for i in rng.permutation(len(g.nodes)) if len(g.nodes[i].actions) > 1 and reach[i] > 0][:3]
    for i in picked:
        for k in range(len(g.nodes[i].actions)):
            dev = [s.copy() for s in sigma]
            dev[i] = np.eye(len(g.nodes[i].actions))[k]
            got = engine_value(SMALL, *policies(g, dev, tw)) - base
            assert abs(float(got) - reach[i] * (q[i][k] - float(q[i] @ sigma[i]))) < 1e-12
    # the player's best response, played through the engine
    br = [np.eye(len(s.actions))[int(np.argmax(q[i]))] for i, s in enumerate(g.nodes)]
    assert abs(float(engine_value(SMALL, *policies(g, br, tw))) - float(best_total)) < 1e-12


def test_banker_best_response_equals_the_engine_and_beats_other_bankers() -> None:
    g, tb = setup()
    rng = np.random.default_rng(11)
    sigma = pure(g, rng)
    br, _, value = V.banker_response(g, tb, V.player_flow(g, sigma))
    assert abs(float(engine_value(SMALL, *policies(g, sigma, br))) - value) < 1e-12
    for tw in [
        V.house_banker(g),
        *(((rng.random(br.shape) < 0.5) * tb.twistable).astype(float) for _ in range(5)),
    ]:
        assert V.strategy_value(g, tb, sigma, tw) >= value - 1e-15


@pytest.mark.slow
def test_value_equals_the_engine_on_a_five_rank_pack() -> None:
    g, tb = setup(MEDIUM)
    rng = np.random.default_rng(3)
    sigma = pure(g, rng)
    br, _, value = V.banker_response(g, tb, V.player_flow(g, sigma))
    assert abs(float(engine_value(MEDIUM, *policies(g, sigma, br))) - value) < 1e-12


def test_cfr_solution_is_within_its_exact_exploitability_and_the_engine_agrees() -> None:
    from pontoon.analysis.british.solve import solve

    sol = solve(SMALL, target=1e-4, max_iterations=600, check_every=25)
    assert sol.exploitability <= 1e-4
    assert sol.banker_br - 1e-12 <= sol.value <= sol.player_br + 1e-12
    g, tb = sol.game, sol.tables
    # the banker's best response to the solved player, played through the engine on every deal
    br, _, value = V.banker_response(g, tb, V.player_flow(g, sol.sigma))
    assert abs(value - sol.banker_br) < 1e-12
    assert abs(float(engine_value(SMALL, *policies(g, sol.sigma, br))) - value) < 1e-12


VARIANTS = [
    {"pack_ranks": "A7T", "royal_pontoon": True},  # 003 variation: three sevens, a Royal Pontoon
    {"pack_ranks": "A2T", "stick_minimum": 16, "no_buy_fifth_at_11_or_less": True},
    {"pack_ranks": "A5T", "pack_suits": 2, "packs": 2},  # two packs (rul 28: a rules field)
    {"pack_ranks": "A5T", "five_card_trick_pays": 3, "pontoon_pays": 1, "banker_pontoon_collects": 1},
    # the Pontoon rank variations (003; rul 29): A-10 an ordinary 21 (tens and pictures two classes), and the
    # grades among Pontoons, which change what a player's Pontoon wins against the banker's
    {"pack_ranks": "A5TK", "pack_suits": 3, "ace_ten_not_pontoon": True},
    {"pack_ranks": "A5TJQ", "pack_suits": 2, "ace_picture_beats_ace_ten": True, "natural_beats_plain": True},
    {"pack_ranks": "A5TJQK", "pack_suits": 2, "ace_ten_not_pontoon": True, "natural_beats_plain": True},
    # burning a hard 14 (13): two new cards, the burned ones shown; one burn a round in the model (12 cards:
    # 2 burned, 5 and 5 dealt at most, so the pack never runs out)
    {"pack_ranks": "A4T", "burn": "hard14"},
    {"pack_ranks": "A3T", "burn": "hard13", "royal_pontoon": True},
]


@pytest.mark.parametrize("changes", VARIANTS, ids=lambda c: ",".join(k for k in c if k != "pack_ranks"))
def test_house_variations_equal_the_engine(changes: dict[str, object]) -> None:
    rules = BRITISH.with_(**changes)
    g = game.build(rules)
    tb = V.tables(g)
    rng = np.random.default_rng(13)
    sigma = pure(g, rng)
    br, _, value = V.banker_response(g, tb, V.player_flow(g, sigma))
    assert abs(float(engine_value(rules, *policies(g, sigma, br))) - value) < 1e-12
    q, _, best = V.player_q(g, tb, V.house_banker(g))
    top = [np.eye(len(s.actions))[int(np.argmax(q[i]))] for i, s in enumerate(g.nodes)]
    assert abs(float(engine_value(rules, *policies(g, top, V.house_banker(g)))) - float(best)) < 1e-12


def test_information_sets_come_from_the_seat_views() -> None:
    """Two deals that differ only in the player's face-down cards give the banker the same information set
    (and the same observation in the analysis); the player's own state reads his cards and what is face up."""
    from pontoon.analysis.british.infosets import banker_observation, information_state_string, player_state
    from pontoon.british.pack import BritishPack
    from pontoon.british.round import BritishRound
    from pontoon.protocol import SPECTATOR

    seen = []
    for order in ("5S 5H 7D KC 4S 3H", "6S 5H 6D KC 4S 3H"):  # p: 5-7 or 6-6, then bought 4, twisted 3
        rnd = BritishRound(BRITISH, ["p"], "b", BritishPack.stacked_from(order, packs=1))
        rnd.act("p", "stake", "1")
        assert player_state(rnd.view("p"), rnd.view(SPECTATOR), "1")[0] in ((4, 6), (5, 5))
        rnd.act("p", "buy", "2")
        rnd.act("p", "twist")
        assert player_state(rnd.view("p"), rnd.view(SPECTATOR), "1")[1:] == ((2,), (2,))
        rnd.act("p", "stick")
        assert rnd.to_act() == "b"
        view = rnd.view("b")
        seen.append((information_state_string("b", view), banker_observation(view, "1")))
    assert seen[0] == seen[1]
    assert seen[0][1] == ((4, 9), ((2,), (2,)))  # his 5-K; the player's 3 face up after a buy of 2 stakes
    assert "?? ?? ?? 3H" in seen[0][0]


@pytest.mark.slow
def test_full_pack_solution_within_target_and_the_engine_agrees_by_sampling() -> None:
    """The one-pack game: CFR+ reaches an exact exploitability of 0.001 of a stake, and the engine playing the
    solved strategies on shuffled packs agrees with the exact value within three standard errors."""
    from pontoon.analysis.british.enumerate import engine_sample
    from pontoon.analysis.british.solve import solve

    sol = solve(BRITISH, target=1e-3, check_every=25)
    assert sol.exploitability <= 1e-3
    assert 0.035 < -sol.value < 0.042  # the banker's edge (docs/analysis.md: +3.845%)
    mean, se = engine_sample(
        BRITISH, *policies(sol.game, sol.sigma, sol.tw), 20000, np.random.default_rng(27)
    )
    assert abs(mean - sol.value) < 3 * se, (mean, se, sol.value)


def test_shoot_bet_values_equal_the_engine() -> None:
    """Shoot Pontoon: a one-stake shoot bet before the second card, every deal through the engine, against the
    report's values by first card weighted by the chance of each first card."""
    from pontoon.analysis.british.game import NAMES, pack_counts
    from pontoon.analysis.british.report import shoot_values
    from pontoon.analysis.british.solve import solve

    rules = SMALL.with_(shoot=True)
    sol = solve(rules, target=1e-2, check_every=25)
    by_card = shoot_values(sol.game, sol.tables, sol)["first_card"]
    counts = pack_counts(rules)
    expected = sum(counts[NAMES.index(c)] * v for c, v in by_card.items()) / counts.sum()
    exact = engine_value(rules, *policies(sol.game, sol.sigma, sol.tw), kind="shoot")
    assert abs(float(exact) - expected) < 1e-12


def test_burn_is_a_decision_of_the_model() -> None:
    """The player's best response against the house banker burns a 4-T (hard 14) on this pack, and the burned
    cards are in what the banker sees (003: "shown and discarded")."""
    rules = BRITISH.with_(pack_ranks="A4T", burn="hard14")
    g = game.build(rules)
    tb = V.tables(g)
    q, _, _ = V.player_q(g, tb, V.house_banker(g))
    i = g.node_index[((3, 9), (), ())]
    assert g.nodes[i].actions[0] == "burn" and int(np.argmax(q[i])) == 0
    assert any(len(o) == 3 and o[2] == (3, 9) for o in g.obs)
    assert all("burn" not in s.actions for s in g.nodes if s.burned)  # one burn a round
