"""Writes the shipped solved strategies of the heads-up British game (src/pontoon/analysis/british/data/).

Run after a change to the analysed game (and bump ``strategy.MODEL_VERSION``)::

    .venv/bin/python scripts/british_strategies.py

Solves the one-pack and the two-pack game with CFR+ to an exact exploitability of at most 0.0005 of a stake (about a minute each on
one core) and writes ``<preset>.npz``; tests/analysis/test_british_bots.py checks that the shipped files are
still equilibria of the current model (exploitability <= 0.001 by exact best responses).
"""

from __future__ import annotations

import time

from pontoon.analysis.british.solve import solve
from pontoon.analysis.british.strategy import DATA, save
from pontoon.rules.british import BRITISH


def main() -> None:
    # the shoot preset's analysed game is the british one (strategy.NOT_IN_MODEL): one file serves both
    for name, rules in (("british", BRITISH), ("british-2packs", BRITISH.with_(packs=2))):
        t0 = time.perf_counter()
        sol = solve(rules, target=5e-4, check_every=25, max_iterations=6000)
        path = DATA / f"{name}.npz"
        save(path, rules, sol.game, sol.sigma, sol.tw)
        print(
            f"{name}: value {sol.value:+.6f}, exploitability {sol.exploitability:.6f}, "
            f"{sol.iterations} iterations, {time.perf_counter() - t0:.0f} s -> {path} "
            f"({path.stat().st_size // 1024} KiB)"
        )


if __name__ == "__main__":
    main()
