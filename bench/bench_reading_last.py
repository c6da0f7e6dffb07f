"""The reading banker's decisions for a deviator's observations at sampled deals: the programme per
observation (``Reader.tree_last``) against one table of sums per deal (``reading_last.LastPlanner``),
interleaved deal by deal on the same observations (``python bench/bench_reading_last.py [N PACKS DEALS
OBS]``, default 4 players, one pack, 2 deals, 200 observations a deal).

Each deal is an engine round of N solved players (``reading_response_sample``'s table); the other players'
hands and the banker's first two cards are kept, and OBS observations the solved player can show are drawn.
Both are warmed first. Prints the CPU seconds of each, their ratio, the largest difference of any stay or
twist value and the number of decisions that differ.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from pontoon.analysis.british.reading import Seen
from pontoon.analysis.british.reading_fast import banker_nodes
from pontoon.analysis.british.reading_last import LastPlanner
from pontoon.analysis.british.reading_response_sample import _rest, sampling_table
from pontoon.rules.british import BRITISH


def main() -> None:
    args = [int(x) for x in sys.argv[1:]]
    players, packs, deals, count = (args + [4, 1, 2, 200][len(args) :])[:4]
    rules, packs_, sol, rd, bots, seats, _ = sampling_table(BRITISH.with_(packs=packs), players)
    from pontoon.british.pack import BritishPack, one_pack
    from pontoon.british.round import BritishRound

    obs = [o for o in ((tuple(u), tuple(int(b) for b in bs)) for u, bs in sol.game.obs) if o in rd.support]
    t_old = t_new = worst = 0.0
    differ = done = 0
    j = 0
    while done < deals:
        pack = BritishPack.shuffled(packs_, np.random.default_rng([5, j, 0]), one_pack(rules))
        bots.rng = np.random.default_rng([5, j, 1])
        rnd = BritishRound(rules, seats, "bank", pack)
        while not rnd.is_over() and rnd.phase != "banker":
            seat, verb, amt = bots.decide(rnd)
            rnd.act(seat, verb, amt)
        rest = _rest(rnd)
        j += 1
        if rest is None:
            continue
        others = Seen(rest[0], tuple(sorted(rest[1])), tuple(sorted(rest[2])))
        if not rd.observed(others):
            continue
        pick = [obs[int(k)] for k in np.random.default_rng(j).choice(len(obs), min(count, len(obs)), False)]
        if done == 0:  # warm both (numba's cache or compile)
            LastPlanner(rd, others).values(pick[0])
            rd.tree_last(others, pick[0])
            rd._cache.clear()
            rd._prefixes.clear()
        t0 = time.process_time()
        old = []
        for o in pick:
            try:
                old.append(rd.tree_last(others, o))
            except ValueError:
                old.append(None)
        t_old += time.process_time() - t0
        t0 = time.process_time()
        planner = LastPlanner(rd, others)
        new = [planner.values(o) for o in pick]
        t_new += time.process_time() - t0
        hands, _, _ = banker_nodes(others.first)
        for a, b in zip(old, new, strict=True):
            if a is None or b is None:
                differ += int((a is None) != (b is None))
                continue
            for k, h in enumerate(hands):
                if h in a.stay:
                    worst = max(worst, abs(a.stay[h] - b[0][k]))
                if h in a.twist:
                    worst = max(worst, abs(a.twist[h] - b[1][k]))
            differ += int((a.flags != _flags(b)).sum())
        done += 1
    print(
        f"{players} players, {packs} pack(s), {deals} deals x {count} observations: programme per observation"
        f" {t_old:.2f} s, table of sums {t_new:.2f} s (CPU), ratio {t_old / max(t_new, 1e-9):.2f}x;"
        f" largest difference {worst:.1e}, decisions that differ {differ}"
    )


def _flags(b: tuple[np.ndarray, np.ndarray, float, float]) -> np.ndarray:
    from pontoon.analysis.british.reading_fast import twists_better

    with np.errstate(invalid="ignore"):
        return np.asarray(twists_better(b[1], b[0]))


if __name__ == "__main__":
    main()
