"""The fast British simulator (issue 27 item 7): card for card against the engine on stacked packs, and
within three standard errors of the exact analysis's values."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from pontoon.british.bots import BankerPolicy, Bots, PlayerPolicy
from pontoon.british.pack import BritishPack
from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.cards import RANKS, Card
from pontoon.rules.load import find_rules
from pontoon.sim import british_fast as bf

BRITISH = find_rules("british")
VARIANTS = [
    {},
    {"banker_may_double": True},
    {"royal_pontoon": True, "pontoon_pays": Decimal("1.5"), "five_card_trick_pays": Decimal(3)},
    {"stick_minimum": 16, "no_buy_fifth_at_11_or_less": True, "max_split_hands": 2},
    {"split_only_aces": True, "banker_pontoon_collects": Decimal(1)},
]
POLICIES = [
    PlayerPolicy(),
    PlayerPolicy(split_ranks="A8TJQK2", stick_on=15, buy_up_to=14, stake_ace_ten=Decimal(3)),
    PlayerPolicy(split_ranks="", stick_on=18, buy_up_to=8, stake=Decimal("2.5")),
]


def _rank(c: Card) -> int:
    return RANKS.index(c.rank)


def _engine_round(rules, cards: list[Card], players: int, bots: Bots) -> tuple[bool, dict[str, Decimal], int]:
    pack = BritishPack(cards, stacked=True)
    names = [f"p{i + 1}" for i in range(players)]
    rnd = BritishRound(rules, names, "bank", pack)
    while not rnd.over:
        seat, verb, amt = bots.decide(rnd)
        rnd.act(seat, verb, amt)
    if rnd.phase == "void":
        return True, {}, pack.drawn
    return False, {s: d["stake"] for s, d in rnd.net().items()}, pack.drawn


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_kernel_plays_stacked_packs_card_for_card_as_the_engine(variant: int) -> None:
    """Random stacked packs (some cut short, so that rounds run out of cards), 1 to 8 players (two packs),
    the bots' policies (three player policies and banker's stands across the variations): the same nets for every
    seat, the same number of cards dealt, the same void rounds."""
    rules = BRITISH.model_copy(update=VARIANTS[variant])
    rng = np.random.default_rng(100 + variant)
    full = [Card(r, s) for r in RANKS for s in "SHDC"]
    checked = voids = 0
    pol = POLICIES[variant % len(POLICIES)]
    bots = Bots(player_default=pol, banker_default=BankerPolicy(stand_on=15 + variant))
    sizes = (1, 2, 4, 6, 8) if variant == 0 else (1, 2, 4, 6)  # 8 players and the banker: two packs (rul 28)
    for players in sizes:
        spec = bf.build_spec(rules, players, player=pol, banker=bots.banker_default)
        deck = full * rules.packs_for(players + 1)
        for _ in range(30):
            cards = [deck[i] for i in rng.permutation(len(deck))]
            if rng.random() < 0.25:
                cards = cards[: int(rng.integers(2 * players + 2, 3 * players + 8))]
            void, nets, drawn = _engine_round(rules, cards, players, bots)
            rec, _ = bf.play_stacked(spec, [_rank(c) for c in cards])
            k = rec[0]
            assert bool(k[0]) == void
            assert k[2] == drawn
            if not void:
                unit = spec.quantum / spec.den
                for i in range(players):
                    assert Decimal(int(k[3 + i])) * unit == nets[f"p{i + 1}"], (cards, i)
                assert Decimal(int(k[1])) * unit == nets["bank"]
            voids += void
            checked += 1
    assert checked == len(sizes) * 30 and voids > 0


def test_kernel_keeps_the_pack_as_the_engine_between_rounds() -> None:
    """Used cards go to the bottom (a bust hand's at once) and the next round deals on without a
    shuffle until a Pontoon: round after round, the kernel's nets and the pack left (in order) match the
    engine's table, up to the first shuffle."""
    from pontoon.british.bots import play_round

    rules = BRITISH
    full = [Card(r, s) for r in RANKS for s in "SHDC"]
    rng = np.random.default_rng(7)
    packs_compared = 0
    for players in (1, 3, 5):
        spec = bf.build_spec(rules, players)
        unit = spec.quantum / spec.den
        for _ in range(5):
            cards = [full[i] for i in rng.permutation(52)]
            game = BritishGame(rules, ["bank", *[f"p{i + 1}" for i in range(players)]], banker="bank",
                               pack=BritishPack(list(cards)), rng=1)  # fmt: skip
            for j in range(1, 30):
                summary = play_round(game, Bots())
                rec, left = bf.play_stacked(spec, [_rank(c) for c in cards], rounds=j, keep=True)
                assert len(rec) == j
                k = rec[-1]
                assert (summary["status"] == "void") == bool(k[0])
                for i in range(players):
                    assert Decimal(int(k[3 + i])) * unit == summary["net"][f"p{i + 1}"]["stake"]
                if summary["shuffled"]:
                    break
                assert [_rank(c) for c in game.pack.cards()] == list(left)
                packs_compared += 1
    assert packs_compared > 20


def _exact_case(players_policy: PlayerPolicy):
    from pontoon.analysis.british.game import build
    from pontoon.analysis.british.values import house_banker, strategy_value, tables

    g = build(BRITISH)
    tb = tables(g)
    # the bot's table on the analysis's nodes (same states, same keys)
    from pontoon.sim.british_tables import ACTIONS, bot_player, player_graph

    pg = player_graph(BRITISH, np.array(g.counts), g.obs)
    pt = bot_player(BRITISH, pg, players_policy, Decimal(1))
    sigma = []
    for s in g.nodes:
        row = pt.probs[pg.index[(s.hidden, s.up, tuple(int(b) for b in s.buys))]]
        sigma.append(np.array([row[ACTIONS.index(a)] for a in s.actions]))
    return g, tb, sigma, house_banker(g), strategy_value


def _agree(rounds: int, seed: int) -> None:
    pol = PlayerPolicy(split_ranks="", stake_ace_ten=Decimal(1))  # the analysis has no splits; flat stakes
    g, tb, sigma, tw, value = _exact_case(pol)
    cases = [("house banker", tw)]
    from pontoon.analysis.british.values import banker_response, player_flow

    br, _, _ = banker_response(g, tb, player_flow(g, sigma))
    cases.append(("banker's best response", br))
    for name, t in cases:
        exact = value(g, tb, sigma, t)
        spec_t = bf.build_spec(BRITISH, 1, player=pol, banker=(t, name), fresh_pack=True, game=g)
        out = bf.simulate_british_fast(BRITISH, rounds, seed, 1, spec=spec_t, chunk_rounds=rounds // 4)
        se = out["sd"] / math.sqrt(out["rounds"])
        player = -out["house_edge"]
        assert abs(player - exact) <= 3 * se, (name, player, exact, se)


def test_kernel_agrees_with_the_exact_values() -> None:
    """Heads-up, a fresh pack each round: the bots' player table against the house banker and against
    the banker's exact best response to it, within three standard errors of the exact value."""
    _agree(400_000, 11)


@pytest.mark.slow
def test_kernel_agrees_with_the_exact_values_large() -> None:
    _agree(40_000_000, 12)


def test_simulate_command_plays_the_kernel_and_the_engine() -> None:
    """``pontoon simulate --rules british`` plays the kernel; ``--engine`` the engine with bots; the
    options that do not apply are refused in one line."""
    import json

    from tests.sim.test_cli_simulate import pontoon

    k = pontoon("--rules", "british", "--rounds", "20000", "--seed", "3", "--players", "2", "--json")
    assert k.returncode == 0, k.stderr
    ko = json.loads(k.stdout)
    assert ko["simulator"] == "kernel" and ko["players"] == 2 and ko["rounds"] == 20000
    assert 0.0 < ko["house_edge"] < 0.2 and ko["player_hands"] >= 2 * 20000
    assert ko["pack"].startswith("003") and ko["shuffles"] > 0
    f = pontoon("--rules", "british", "--rounds", "20000", "--seed", "3", "--players", "1", "--csm", "--json")
    assert f.returncode == 0 and json.loads(f.stdout)["pack"] == "fresh every round", f.stderr
    e = pontoon("--rules", "shoot", "--rounds", "30", "--seed", "3", "--engine", "--json")
    assert e.returncode == 0, e.stderr
    assert json.loads(e.stdout)["simulator"] == "engine"
    for args, needle in (
        (["--rules", "british", "--players", "13"], "players must be 1 to 12"),
        (["--rules", "british", "--engine", "--workers", "2"], "does not apply to --engine"),
        (["--rules", "mbs", "--players", "2"], "applies to the British games"),
        (["--rules", "british", "--strategy", "optimal"], "accepted are bots and solved"),
        (["--rules", "british", "--engine", "--strategy", "solved"], "does not apply to --engine"),
        (["--rules", "british", "--engine", "--csm"], "does not apply to --engine"),
    ):
        p = pontoon("--rounds", "100", *args)
        assert p.returncode == 2 and p.stderr.startswith("error:") and needle in p.stderr, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1


def test_on_dask_the_totals_are_the_one_process_totals() -> None:
    """Each chunk is a pure function of its index: two Dask workers give the same integers."""
    pytest.importorskip("dask.distributed")
    from pontoon.sim.api import simulate

    kw = dict(seed=9, chunk_rounds=20_000, players=3)
    single = simulate(BRITISH, 100_000, **kw)
    dask = simulate(BRITISH, 100_000, workers=2, **kw)
    assert dask["workers"] == 2 and single["workers"] == 1
    keys = ("banker_net", "initial_stakes", "player_hands", "shuffles", "bank_changes", "lines")
    assert {k: single[k] for k in keys} == {k: dask[k] for k in keys}


def test_the_solution_played_by_the_kernel_agrees_with_its_value() -> None:
    """A reduced pack (solved in seconds): the heads-up solution's player and banker tables in the
    kernel, a fresh pack each round: within three standard errors of the solver's exact value."""
    from pontoon.analysis.british.solve import solve

    rules = BRITISH.model_copy(update={"pack_ranks": "A2356789T", "pack_suits": 2})
    sol = solve(rules)
    spec = bf.british_strategy_spec(rules, 1, "solved", fresh_pack=True, solution=sol)
    assert spec.strategy == "solution / solution" and spec.det.min() == -1  # mixed somewhere
    out = bf.simulate_british_fast(rules, 400_000, 5, 1, spec=spec, chunk_rounds=100_000)
    se = out["sd"] / math.sqrt(out["rounds"] - out["void_rounds"])
    assert abs(-out["house_edge"] - sol.value) <= 3 * se, (out["house_edge"], sol.value, se)
    with pytest.raises(Exception, match="accepted are bots and solved"):
        bf.british_strategy_spec(rules, 1, "clever")
