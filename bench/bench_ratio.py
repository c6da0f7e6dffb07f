"""The speed ratios against Gymnasium's Blackjack-v1, measured interleaved so that load on shared cores
cancels out (``python bench/bench_ratio.py [PAIRS]``).

``bench_engine.py`` and ``bench_rl.py`` time the baseline once and then each preset; on a machine shared
with other work the load changes between the two and a single ratio can be off by half. Here each pair
times Blackjack-v1 and then pontoon right after it, with the same loops as those two scripts
(``bench_engine.casino_rounds`` / ``gymnasium_rounds``, ``bench_rl.pontoon_steps`` / ``blackjack_steps``,
``bench_engine.british_rounds`` for the British game with 4 seats and heads-up), and the median of the
pairs' ratios is printed (with the lowest and highest). ``--british``: only the British rows
(``python bench/bench_ratio.py 12 --british``).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import british_rounds, casino_rounds, gymnasium_rounds  # noqa: E402
from bench_rl import blackjack_steps, pontoon_steps  # noqa: E402

from pontoon.compiled import engine_build  # noqa: E402


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--british"]
    only_british = len(args) < len(sys.argv) - 1
    pairs = int(args[0]) if args else 12
    engine: list[float] = []
    env: list[float] = []
    british: list[float] = []
    heads_up: list[float] = []
    for i in range(pairs):
        if not only_british:
            engine.append(casino_rounds("mbs", 1500, seed=i) / gymnasium_rounds(3000, seed=i))
            env.append(pontoon_steps(8000, seed=i) / blackjack_steps(8000, seed=i))
        british.append(british_rounds("british", 750, seed=i) / gymnasium_rounds(3000, seed=i))
        heads_up.append(british_rounds("british", 1500, seed=i, seats=2) / gymnasium_rounds(3000, seed=i))
    print(f"engine: {engine_build()}")
    rows = [
        ("mbs rounds/s through the table protocol", engine),
        ("Pontoon-v0 mbs env steps/s", env),
        ("british rounds/s, 4 seats", british),
        ("british rounds/s, heads-up", heads_up),
    ]
    for name, rs in rows:
        if not rs:
            continue
        print(
            f"{name:42s} median {statistics.median(rs):5.2f}x Blackjack-v1"
            f"   (lowest {min(rs):.2f}x, highest {max(rs):.2f}x, {len(rs)} interleaved pairs)"
        )


if __name__ == "__main__":
    main()
