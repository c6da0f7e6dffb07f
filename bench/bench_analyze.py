"""Time the full composition-dependent analysis (``python bench/bench_analyze.py``).

Cases: mbs with 6 and 8 decks, blackjack 6 decks H17 DAS (split to 4, no resplit of Aces).
Each case runs cold (wall and CPU time: on a shared machine the wall time counts waiting for a core;
fresh caches: dealer tables and distributions, solution; the numba kernels
and the dealer trie file are loaded first) and then again from the solution cache. The dealer
kernels are compared too on the same compositions (same numbers): the walk over dealer card
orders, the per-up-card multiset tables, and the all-up-card trie in use (which gives ten up cards
per composition). A whole process against E. Farmer's analyser: bench/bench_vs_reference.py.
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from pontoon.analysis import dealer as D  # noqa: E402
from pontoon.analysis import dealer_rows, strategy  # noqa: E402
from pontoon.analysis.states import shoe_counts, state_space  # noqa: E402
from pontoon.rules.load import resolve_rules  # noqa: E402

CASES = [
    ("mbs 6 decks", "mbs", {"decks": 6}),
    ("mbs 8 decks", "mbs", {"decks": 8}),
    (
        "blackjack 6 decks H17 DAS",
        "blackjack",
        {
            "decks": 6,
            "hits_soft_17": True,
            "double_after_split": True,
            "max_split_hands": 4,
            "resplit_aces": False,
        },
    ),
]


def main() -> None:
    # compile / load the numba kernels once, outside the timings
    strategy.solve(resolve_rules("mbs", {"decks": 4}))
    for label, preset, sets in CASES:
        rules = resolve_rules(preset, sets)
        strategy._CACHE.clear()
        dealer_rows._table.cache_clear()
        dealer_rows._DEALER_CACHES.clear()
        t0 = time.perf_counter()
        c0 = time.process_time()
        sol = strategy.solve(rules)
        cold = time.perf_counter() - t0
        cold_cpu = time.process_time() - c0
        t0 = time.perf_counter()
        strategy.solve(rules)
        warm = time.perf_counter() - t0
        print(
            f"{label:28s} cold {cold:6.3f} s (cpu {cold_cpu:6.3f} s)   cached {warm * 1e3:7.3f} ms   "
            f"house edge basic {-sol.ev_basic * 100:.4f}%  optimal {-sol.ev_optimal * 100:.4f}%"
        )
    # dealer distributions: multiset tables (in use) against the walk over card orders
    sp = state_space()
    base = shoe_counts("pontoon48", 6)
    base[1] -= 1
    table = D.dealer_table(1, True)
    D.dealer_batch_table(base, sp.counts[:2], *table)
    D.dealer_batch(base, sp.counts[:2], 1, True)
    t0 = time.perf_counter()
    a = D.dealer_batch_table(base, sp.counts, *table)
    t_tab = time.perf_counter() - t0
    t0 = time.perf_counter()
    b = D.dealer_batch(base, sp.counts, 1, True)
    t_walk = time.perf_counter() - t0
    assert np.abs(a - b).max() < 1e-12
    full = base.copy()
    full[1] += 1
    trie = dealer_rows._trie(True)
    D.dealer_all_upcards(full, sp.counts[:2], *trie)
    t0 = time.perf_counter()
    c = D.dealer_all_upcards(full, sp.counts, *trie)
    t_trie = time.perf_counter() - t0
    fits = np.all(sp.counts <= base[None, :], axis=1)
    assert np.abs(c[1, fits] - a[fits]).max() < 1e-12
    print(
        f"dealer v 2, {sp.size} compositions: tables {t_tab * 1e3:.1f} ms, order walk {t_walk * 1e3:.1f} ms "
        f"(x{t_walk / t_tab:.1f}); all ten up cards by the trie {t_trie * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
