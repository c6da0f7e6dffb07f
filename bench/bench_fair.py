"""Time the provably fair shuffle of a 6 x 48-card shoe beside numpy's seeded shuffle of the same shoe.

``python bench/bench_fair.py [REPEATS]``. The fair shuffle is done once per shoe (a few hundred cards
dealt), so it has to be well under a millisecond or two; the baseline is measured in the same run:
``Shoe.shuffled`` (the default, seeded numpy shuffle of the table) and the bare ``Generator.permutation``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from pontoon.fair import FairShuffler, commitment, new_server_seed, shuffled_shoe, verify_record
from pontoon.shoe import Shoe

DECKS, PACK = 6, "pontoon48"


def per_call(fn: Callable[[], object], repeats: int) -> float:
    """Best of five runs of ``repeats`` calls, in seconds per call."""
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeats)
    return best


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    rng = np.random.default_rng(1)
    seed = new_server_seed()
    nonce = iter(range(10**9))
    shuffler = FairShuffler()

    def fair_new_shoe() -> None:
        shuffler.new_shoe(PACK, DECKS)
        shuffler.retire()

    cards = shuffled_shoe(PACK, DECKS, seed, "bench", 1)
    record = {
        "scheme": "hmac-sha256-fisher-yates-v1",
        "server_seed": seed,
        "client_seed": "bench",
        "nonce": 1,
        "commitment": commitment(seed),
        "pack": PACK,
        "decks": DECKS,
        "dealt": [str(c) for c in cards[:216]],
    }
    rows = [
        ("numpy permutation(288) (bare)", per_call(lambda: rng.permutation(288), repeats)),
        (
            "Shoe.shuffled: seeded numpy (table default)",
            per_call(lambda: Shoe.shuffled(DECKS, rng, pack=PACK), repeats),
        ),
        (
            "fair shuffled_shoe (HMAC-SHA256 + Fisher-Yates)",
            per_call(lambda: shuffled_shoe(PACK, DECKS, seed, "bench", next(nonce)), repeats),
        ),
        ("FairShuffler.new_shoe + retire (seeds, commitment)", per_call(fair_new_shoe, repeats)),
        ("verify_record of 216 cards dealt", per_call(lambda: verify_record(record), max(1, repeats // 4))),
    ]
    base = rows[1][1]
    print(f"shuffle of a {DECKS} x 48-card shoe ({DECKS * 48} cards), best of 5 x {repeats} calls")
    for label, sec in rows:
        print(f"  {label:52} {sec * 1e6:9.1f} us   ratio to Shoe.shuffled {sec / base:6.2f}")
    print(f"ratio fair/numpy: {rows[2][1] / base:.2f} (fair shoe in {rows[2][1] * 1e3:.3f} ms)")


if __name__ == "__main__":
    main()
