"""Rounds per second of the fast British simulator (issue 27 item 7) against the British engine, and its
agreement with the exact analysis.

    .venv/bin/python bench/bench_british_sim.py [ROUNDS] [ENGINE_SECONDS]
    .venv/bin/python bench/bench_british_sim.py --exact ROUNDS          # bots vs house banker / best response
    .venv/bin/python bench/bench_british_sim.py --solved ROUNDS         # the heads-up solution (solves first)

Default: the british preset, the bots' policies, heads-up and 4 players: the kernel's rounds per second
(wall and per CPU second of this process: other jobs on a shared machine do not change the latter) and
the engine's (``simulate_british``, bots) for about ``ENGINE_SECONDS`` each, in the same run, and the
ratio. ``--exact`` / ``--solved``: heads-up with a fresh pack each round, the kernel's player net per
initial stake against ``analysis.british.values.strategy_value`` (difference in standard errors).
"""

from __future__ import annotations

import math
import sys
import time
from decimal import Decimal

import numpy as np

from pontoon.rules import find_rules
from pontoon.sim import british_fast as bf
from pontoon.sim.british import simulate_british

RULES = find_rules("british")


def speed(rounds: int, engine_seconds: float) -> None:
    print(f"british preset, bots; kernel {rounds:,} rounds per table size")
    for players in (1, 4):
        spec = bf.build_spec(RULES, players)
        bf.warm_up(spec)
        c0, t0 = time.process_time(), time.perf_counter()
        bf.run_chunk(spec, 1, 0, rounds)
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        n = 200
        e_c0, e_t0 = time.process_time(), time.perf_counter()
        while True:
            simulate_british(RULES, n, 1, players=players)
            if time.perf_counter() - e_t0 >= engine_seconds:
                break
            n *= 2
        e_cpu, e_wall = time.process_time() - e_c0, time.perf_counter() - e_t0
        e_rounds = 2 * n - 200  # 200 + 400 + ... + n
        k_rate, e_rate = rounds / cpu, e_rounds / e_cpu
        print(
            f"  {players} player(s): kernel {k_rate:,.0f} rounds/CPU-s ({rounds / wall:,.0f} wall); "
            f"engine {e_rate:,.0f} rounds/CPU-s ({e_rounds / e_wall:,.0f} wall); kernel/engine {k_rate / e_rate:,.0f}x"
        )


def _agree(label: str, g, tb, sigma, tw, rounds: int, name: str) -> None:  # type: ignore[no-untyped-def]
    from pontoon.analysis.british.values import strategy_value

    exact = strategy_value(g, tb, sigma, tw)
    spec = bf.build_spec(RULES, 1, player=(sigma, label), banker=(tw, name), fresh_pack=True, game=g)
    t0 = time.perf_counter()
    out = bf.simulate_british_fast(RULES, rounds, 2027, 1, spec=spec)
    se = out["sd"] / math.sqrt(out["rounds"] - out["void_rounds"])
    sim = -out["house_edge"]
    print(
        f"  {label} vs {name}: exact {exact:+.6f}, kernel {sim:+.6f} +/- {se:.6f} (1 SE), "
        f"difference {(sim - exact) / se:+.2f} SE; {rounds:,} rounds in {time.perf_counter() - t0:.1f} s"
    )


def exact(rounds: int) -> None:
    from pontoon.analysis.british.game import build
    from pontoon.analysis.british.values import banker_response, house_banker, player_flow, tables
    from pontoon.british.bots import PlayerPolicy
    from pontoon.sim.british_tables import ACTIONS, bot_player, player_graph

    g = build(RULES)
    tb = tables(g)
    pol = PlayerPolicy(split_ranks="", stake_ace_ten=Decimal(1))
    pg = player_graph(RULES, np.array(g.counts), g.obs)
    pt = bot_player(RULES, pg, pol, Decimal(1))
    sigma = []
    for s in g.nodes:
        row = pt.probs[pg.index[(s.hidden, s.up, tuple(int(b) for b in s.buys))]]
        sigma.append(np.array([row[ACTIONS.index(a)] for a in s.actions]))
    print("heads-up, a fresh pack each round (player's net per initial stake)")
    _agree("bots (no splits, flat stakes)", g, tb, sigma, house_banker(g), rounds, "house banker")
    br, _, _ = banker_response(g, tb, player_flow(g, sigma))
    _agree("bots (no splits, flat stakes)", g, tb, sigma, br, rounds, "banker's best response")


def solved(rounds: int) -> None:
    from pontoon.analysis.british.solve import solve

    t0 = time.perf_counter()
    sol = solve(RULES)
    print(
        f"solved in {time.perf_counter() - t0:.0f} s: value {sol.value:+.6f}, exploitability {sol.exploitability:.6f}"
    )
    _agree("solution", sol.game, sol.tables, sol.sigma, sol.tw, rounds, "solution banker")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--exact"]:
        exact(int(float(args[1])) if len(args) > 1 else 10_000_000)
    elif args[:1] == ["--solved"]:
        solved(int(float(args[1])) if len(args) > 1 else 10_000_000)
    else:
        speed(int(float(args[0])) if args else 2_000_000, float(args[1]) if len(args) > 1 else 3.0)
