"""Train a tabular Q-learning (or Monte Carlo control) agent on MBS Pontoon and grade its chart exactly.

    .venv/bin/python examples/train_tabular_mbs.py --episodes 1000000 --out learned-mbs.json

Prints the cells where the learned chart differs from the analyser's basic strategy and the
exact EV of both charts (pontoon.rl.charts.chart_ev), so the EV cost of what it got wrong.
"""

from __future__ import annotations

import argparse
import json

from pontoon.analysis.strategy import solve
from pontoon.rl.casino_env import PontoonEnv
from pontoon.rl.charts import chart_ev
from pontoon.rl.tabular import MCControlAgent, compare_charts, side_by_side


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="mbs")
    ap.add_argument("--episodes", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--method", default="q", choices=["q", "mc"], help="Q-learning or Monte Carlo control")
    ap.add_argument("--out", default=None, help="write the learned chart here (JSON)")
    args = ap.parse_args()

    env = PontoonEnv(args.rules)
    agent = MCControlAgent(seed=args.seed)
    secs = agent.train(env, args.episodes, seed=args.seed, method=args.method)
    learned = agent.chart(env)
    sol = solve(env.rules)
    cmp = compare_charts(learned, sol.strategy)
    ev = chart_ev(env.rules, learned)
    print(f"trained {args.episodes} rounds in {secs:.0f} s ({args.episodes / secs:.0f} rounds/s)")
    print(f"cells differing from basic strategy: {cmp['differ']} of {cmp['cells']}")
    print(f"exact EV: learned {ev:+.5f}, basic {sol.ev_basic:+.5f}, cost {sol.ev_basic - ev:.5f} per unit wager")
    print(side_by_side(learned, sol.strategy, "hard"))
    print(side_by_side(learned, sol.strategy, "soft"))
    print(side_by_side(learned, sol.strategy, "pair"))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(learned, f, indent=1)
        print(f"chart written to {args.out}: grade it with `pontoon rl evaluate {args.out}`")


if __name__ == "__main__":
    main()
