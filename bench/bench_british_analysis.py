"""Time the British analysis (``python bench/bench_british_analysis.py [--full]``), issue 27.

Per case: building the game and its probability tables, one CFR+ iteration's exact values each way (the
player's decision values against a banker table; the banker's best response to a player's flow), and the
whole solve to an exploitability of 0.001 of the initial stake. Wall and CPU time: on a shared machine the
wall time counts waiting for a core. ``--full`` adds the one-pack game (about a minute of CPU).
"""

from __future__ import annotations

import sys
import time
from functools import partial

from pontoon.analysis.british import game, values
from pontoon.analysis.british.solve import solve
from pontoon.rules.british import BRITISH


def _timed(label: str, fn):  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    print(f"  {label:<38} wall {time.perf_counter() - w:7.3f} s   CPU {time.process_time() - c:7.3f} s")
    return out


def main() -> None:
    cases = [("reduced pack A5T x 4 suits", BRITISH.with_(pack_ranks="A5T"))]
    cases.append(("reduced pack A257T x 2 suits", BRITISH.with_(pack_ranks="A257T", pack_suits=2)))
    if "--full" in sys.argv:
        cases.append(("british, one pack, heads-up", BRITISH))
    for name, rules in cases:
        print(name)
        g = _timed("build the game", partial(game.build, rules))
        tb = _timed("probability tables", partial(values.tables, g))
        tw = values.house_banker(g)
        q, _, _ = _timed("player's values vs a banker (+ JIT once)", partial(values.player_q, g, tb, tw))
        _timed("player's values vs a banker", partial(values.player_q, g, tb, tw))
        sigma = [(x == x.max()) / (x == x.max()).sum() for x in q]
        y = values.player_flow(g, sigma)
        _timed("banker's best response", partial(values.banker_response, g, tb, y))
        sol = _timed("CFR+ to exploitability 0.001", partial(solve, rules, target=1e-3, check_every=25))
        print(
            f"  {values.describe(g)}; {sol.iterations} iterations, exploitability {sol.exploitability:.6f}, "
            f"banker's edge {-sol.value:+.5f}"
        )


if __name__ == "__main__":
    main()
