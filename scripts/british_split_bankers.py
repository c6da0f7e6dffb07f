"""Writes the banker's shipped play facing a split (src/pontoon/analysis/british/data/<name>-split.npz).

Run after ``scripts/british_strategies.py`` (the play is found against the shipped solutions)::

    .venv/bin/python scripts/british_split_bankers.py

Per pair whose split the simple banker leaves profitable: the banker's play facing it reading his own cards and,
of each split hand, a bust or its number of cards (``split_banker.with_split_banker`` with
``split_fast.SPLIT_CLASSES``: fictitious play, under a minute per pack on one core); the other pairs meet
the simple banker. Read by ``split_bots`` (the level bots facing a split, the banker's split hints).
"""

from __future__ import annotations

import os
import time

import numpy as np

from pontoon.analysis.british.split_banker import with_split_banker
from pontoon.analysis.british.split_bots import SUFFIX, to_arrays
from pontoon.analysis.british.split_fast import SPLIT_CLASSES
from pontoon.analysis.british.splits import split_deviation
from pontoon.analysis.british.strategy import DATA, solved
from pontoon.rules.british import BRITISH


def main() -> None:
    for name, rules in (("british", BRITISH), ("british-2packs", BRITISH.with_(packs=2))):
        t0 = time.perf_counter()
        sol = solved(rules, use_cache=False)
        twists: dict[int, np.ndarray] = {}
        dev = split_deviation(sol.game, sol.tables, sol.tw)
        with_split_banker(sol.game, dev, rounds=4, twists=twists, nphi=SPLIT_CLASSES)
        path = DATA / f"{name}{SUFFIX}"
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **to_arrays(sol.game, rules, twists))  # type: ignore[arg-type]
        os.replace(tmp, path)
        pairs = " ".join(str(x) for x in sorted(twists))
        print(f"{name}: pairs {pairs}, {time.perf_counter() - t0:.0f} s -> {path} ({path.stat().st_size} B)")


if __name__ == "__main__":
    main()
