"""Card counting (issue 24): effects of removal for one preset, an index chart, and the counter's
simulation against the plain simulator.

    .venv/bin/python bench/bench_count.py [PRESET] [ROUNDS] [SAMPLES]

Prints, for PRESET (default mbs): the effects of removal (basic, optimal, every side wager; the
analysis of the full shoe warmed first, so the eleven shoes' work is timed), the index chart of
Walker's count (auto range, SAMPLES shoes per true count, default 8, as `pontoon count`) with its wall and CPU time,
and rounds per second of the counter's kernel (count, index tables, ramp with wonging) and of the
plain simulator's ``run_chunk`` on the same rules, one process each, alternately three times
(best of each), ROUNDS rounds per run (default 4,000,000). Kernels are compiled (or loaded from
numba's cache) before the clock.
"""

from __future__ import annotations

import sys
import time

from pontoon.analysis.counts import SYSTEMS, decision_effects
from pontoon.analysis.eor import effects_of_removal
from pontoon.analysis.indices import index_table
from pontoon.analysis.strategy import solve
from pontoon.rules import find_rules
from pontoon.sim.api import build_spec, run_chunk
from pontoon.sim.counting import simulate_count


def main() -> None:
    preset = sys.argv[1] if len(sys.argv) > 1 else "mbs"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 4_000_000
    samples = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    rules = find_rules(preset)
    solve(rules)
    w0, c0 = time.perf_counter(), time.process_time()
    effects_of_removal(rules)
    print(f"effects of removal: {time.perf_counter() - w0:.2f} s wall, {time.process_time() - c0:.2f} s CPU")
    w0, c0 = time.perf_counter(), time.process_time()
    decision_effects(rules)
    print(
        f"decision effects (playing efficiency): {time.perf_counter() - w0:.2f} s wall, {time.process_time() - c0:.2f} s CPU"
    )
    system = SYSTEMS["walker-hi-lo"] if rules.pack == "pontoon48" else SYSTEMS["hi-lo"]
    neutral = round(system.irc(rules.pack, rules.decks) / rules.decks)
    w0, c0 = time.perf_counter(), time.process_time()
    it = index_table(rules, system, counts=range(neutral - 4, neutral + 8), samples=samples)
    ix = it.indices()
    why = [x["why"] for x in it.excluded()]
    print(
        f"index chart: {sum(it.samples)} shoes, {len(ix)} rows, {time.perf_counter() - w0:.1f} s wall, "
        f"{time.process_time() - c0:.1f} s CPU; not printed: "
        + ", ".join(f"{why.count(w)} {w}" for w in ("other", "twice", "unresolved"))
    )
    ramp = [(neutral + d, u, 1) for d, u in ((1, 1), (2, 2), (3, 4), (4, 8), (5, 12))]
    spec = build_spec(rules, strategy=None, penetration=0.75)
    run_chunk(spec, 1, 0, 1000)
    simulate_count(rules, 1000, system, ramp, indices=ix, seed=1)
    best_c = best_p = cpu_c = cpu_p = 0.0
    for rep in range(3):
        c0 = time.process_time()
        out = simulate_count(rules, rounds, system, ramp, indices=ix, seed=rep)
        rc = rounds / (time.process_time() - c0)  # includes the run's set-up (index tables)
        best_c, cpu_c = max(best_c, out["rounds_per_second"]), max(cpu_c, rc)
        t0, c0 = time.perf_counter(), time.process_time()
        run_chunk(spec, 7, rep, rounds)
        rp = rounds / (time.perf_counter() - t0)
        best_p, cpu_p = max(best_p, rp), max(cpu_p, rounds / (time.process_time() - c0))
        print(
            f"run {rep}: counter {out['rounds_per_second'] / 1e6:.2f} M rounds/s ({rc / 1e6:.2f} per CPU second), "
            f"plain {rp / 1e6:.2f}"
        )
    print(
        f"best: counter {best_c / 1e6:.2f} M rounds/s, plain {best_p / 1e6:.2f} M rounds/s, ratio {best_c / best_p:.2f}; "
        f"per CPU second: counter {cpu_c / 1e6:.2f} M, plain {cpu_p / 1e6:.2f} M, ratio {cpu_c / cpu_p:.2f}"
    )


if __name__ == "__main__":
    main()
