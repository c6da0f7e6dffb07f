"""Rounds per second through the table protocol, every preset, beside Gymnasium's Blackjack-v1.

Each round: a table (`CasinoTable` / `BritishGame`) opens a round, places one wager (British: every
seat stakes), deals, and then the person to act takes a legal action drawn at random from
``legal_actions(seat)`` until the round is over; the shoe carries across rounds with its cut card.
The baseline in the same process is Gymnasium's toy-text ``Blackjack-v1`` stepped with random
actions (one episode = one round). Usage: ``python bench/bench_engine.py [ROUNDS]``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from pontoon.british.table import BritishGame
from pontoon.casino.table import CasinoTable
from pontoon.compiled import engine_build
from pontoon.rules import find_rules
from pontoon.rules.model import CasinoRules


def casino_rounds(preset: str, rounds: int, seed: int = 1) -> float:
    rules = find_rules(preset)
    assert isinstance(rules, CasinoRules)
    pick = np.random.default_rng(seed)
    table = CasinoTable(rules, rng=seed)
    table.join("ann", 10**9)
    t0 = time.perf_counter()
    for _ in range(rounds):
        rnd = table.new_round()
        table.place_bet(1, "ann", "main", rules.table_min)
        table.deal()
        while not rnd.is_over():
            who = rnd.to_act()
            assert isinstance(who, str)
            legal = rnd.legal_actions(who)
            a = legal[int(pick.integers(len(legal)))]
            if a.low is not None:
                a = a.with_amount(a.low)
            table.act(who, a)
        table.end_round()
    return rounds / (time.perf_counter() - t0)


def british_rounds(preset: str, rounds: int, seed: int = 1, seats: int = 4) -> float:
    """``seats`` people at the table, the banker last (4: three players and the banker; 2: heads-up)."""
    rules = find_rules(preset)
    pick = np.random.default_rng(seed)
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus"][:seats]
    game = BritishGame(rules, names, banker=names[-1], rng=seed)
    t0 = time.perf_counter()
    for _ in range(rounds):
        if game.needs_kitty:
            game.put_kitty(rules.kitty_min)
        rnd = game.new_round()
        while not rnd.is_over():
            who = rnd.to_act()
            assert isinstance(who, str)
            legal = rnd.legal_actions(who)
            a = legal[int(pick.integers(len(legal)))]
            if a.low is not None:
                a = a.with_amount(a.low)
            game.act(who, a)
        game.end_round()
    return rounds / (time.perf_counter() - t0)


def gymnasium_rounds(rounds: int, seed: int = 1) -> float | None:
    try:
        import gymnasium as gym
    except ImportError:
        return None
    env = gym.make("Blackjack-v1")
    env.reset(seed=seed)
    env.action_space.seed(seed)
    t0 = time.perf_counter()
    for _ in range(rounds):
        env.reset()
        done = False
        while not done:
            _, _, term, trunc, _ = env.step(env.action_space.sample())
            done = term or trunc
    return rounds / (time.perf_counter() - t0)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    base = gymnasium_rounds(rounds * 4)
    print(f"{rounds} rounds per preset through the table protocol, random legal actions")
    print(f"engine: {engine_build()}")
    if base is None:
        print("gymnasium is not installed: no baseline")
    else:
        print(f"{'gymnasium Blackjack-v1':24} {base:10,.0f} rounds/s   (baseline, same process)")
    for preset in ("mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"):
        rate = casino_rounds(preset, rounds)
        ratio = "" if base is None else f"   {rate / base:5.2f}x Blackjack-v1"
        print(f"{preset:24} {rate:10,.0f} rounds/s{ratio}")
    for preset in ("british", "shoot"):
        rate = british_rounds(preset, max(1, rounds // 4))
        ratio = "" if base is None else f"   {rate / base:5.2f}x Blackjack-v1"
        print(f"{preset + ' (4 seats)':24} {rate:10,.0f} rounds/s{ratio}")


if __name__ == "__main__":
    main()
