"""The reading banker's programme: numpy (``Reader(fast=False)``) against the numba kernels
(``reading_fast``), interleaved on the same random states (``python bench/bench_reading_kernel.py [N]``).

Per state: his first two cards, one to three live hands the solved player shows (one pack), the whole
programme (combining the hands, then his tree over the combined states). Both readers are warmed first (the
kernels compiled or loaded from numba's cache). Prints the time per programme of each and their ratio.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.reading import Reader, Seen
from pontoon.rules.british import BRITISH


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    sol = S.solved(BRITISH)
    readers = {"numpy": Reader(sol, fast=False), "kernel": Reader(sol)}
    rng = np.random.default_rng(1)
    obs = list(readers["kernel"].support)
    firsts = [h for h in sol.game.banker if len(h) == 2]
    states = []
    while len(states) < count:
        live = tuple(sorted(obs[int(i)] for i in rng.choice(len(obs), int(rng.integers(1, 4)))))
        seen = Seen(firsts[int(rng.integers(len(firsts)))], live, ())
        try:
            readers["kernel"]._tree(seen)
        except ValueError:
            continue
        states.append(seen)
    for rd in readers.values():
        rd._tree(states[0])
    spent = dict.fromkeys(readers, 0.0)
    sizes = []
    for seen in states:
        for name, rd in readers.items():
            t = time.perf_counter()
            tree = rd._tree(seen)
            spent[name] += time.perf_counter() - t
        sizes.append(tree.states)
    per = {k: 1000 * v / count for k, v in spent.items()}
    print(
        f"{count} programmes (combined states: median {int(np.median(sizes))}, largest {max(sizes)}): "
        f"numpy {per['numpy']:.2f} ms, kernel {per['kernel']:.2f} ms each: {per['numpy'] / per['kernel']:.1f}x"
    )


if __name__ == "__main__":
    main()
