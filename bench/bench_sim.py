"""Rounds per second of the fast simulator (issue 5), per core, against the round engine.

mbs, one box, the analyser's basic strategy (or the built-in fallback chart), cut-card shoe; then
the same with `--strategy optimal`, and with 3 boxes and the pair bet.
Prints: the kernel alone (reading one block of pre-drawn random words over and over, so no random
number generation is timed), the whole single-process path (``run_chunk``: numpy SFC64 draws
the random words, the kernel plays, totals), the reference engine driven by the same strategy table
in the same run (reference.py policy driver, stacked 60-card shoes), and the ratio.

    .venv/bin/python bench/bench_sim.py [ROUNDS]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from pontoon.cards import pack_cards
from pontoon.rules import find_rules
from pontoon.sim import _kernels as K
from pontoon.sim.api import RANDOM_BLOCK, build_spec, run_chunk
from pontoon.sim.reference import play_engine_round


def kernel_only(spec, rounds: int) -> float:
    """The kernel calls alone: one block of random words drawn once and read again on every call."""
    ur = np.random.default_rng(1).integers(0, 2**32, RANDOM_BLOCK, dtype=np.uint32)
    shoe = spec.shoe.copy()
    st = np.zeros(4, dtype=np.int64)
    st[0] = shoe.shape[0]
    acc = np.zeros((K.NL, 2), dtype=np.int64)
    mom = np.zeros(6, dtype=np.int64)
    sess = np.zeros(0, dtype=np.int64)
    args = (spec.P, spec.pan_pay, spec.pan_cum, spec.strat, spec.comp, spec.trans)
    K.run_random(shoe, st, ur, *args, 1000, acc, mom, sess, 1, 0)
    done = 0
    t0 = time.perf_counter()
    while done < rounds:
        st[1] = 0
        done += K.run_random(shoe, st, ur, *args, rounds - done, acc, mom, sess, 1, 0)
    return done / (time.perf_counter() - t0)


def full_path(spec, rounds: int) -> float:
    run_chunk(spec, 1, 0, 1000)
    t0 = time.perf_counter()
    run_chunk(spec, 1, 0, rounds)
    return rounds / (time.perf_counter() - t0)


def engine(spec, rules, rounds: int) -> float:
    rng = np.random.default_rng(2)
    full = list(pack_cards(rules.pack)) * rules.decks
    shoes = [[full[j] for j in rng.permutation(len(full))[:60]] for _ in range(rounds)]
    t0 = time.perf_counter()
    for cards in shoes:
        play_engine_round(rules, cards, spec.strat, bet=spec.bet)
    return rounds / (time.perf_counter() - t0)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    rules = find_rules("mbs")
    spec = build_spec(rules, boxes=1)
    k = max(kernel_only(spec, rounds) for _ in range(3))
    f = max(full_path(spec, rounds) for _ in range(2))
    spec_opt = build_spec(rules, boxes=1, strategy="optimal")
    o = max(full_path(spec_opt, rounds) for _ in range(2))
    spec_3 = build_spec(rules, boxes=3, side_bets=["pair"])
    b3 = max(full_path(spec_3, rounds // 3) for _ in range(2))
    e = engine(spec, rules, 3000)
    print(f"strategy: {spec.strategy_source}")
    print(f"kernel only          : {k:14,.0f} rounds/s per core (mbs, 1 box, basic)")
    print(f"simulator (numpy rng+kernel): {f:14,.0f} rounds/s per core")
    print(f"  --strategy optimal  : {o:14,.0f} rounds/s per core")
    print(f"  3 boxes + pair bet  : {b3:14,.0f} rounds/s per core ({3 * b3:,.0f} box-rounds/s)")
    print(f"round engine (driver): {e:14,.0f} rounds/s")
    print(f"ratio simulator/engine: {f / e:,.0f}x")


if __name__ == "__main__":
    main()
