"""Rounds per second of the fast simulator (issue 5), per core, against the round engine.

mbs, one box, the analyser's basic strategy (or the built-in fallback chart), cut-card shoe; then
the same with `--strategy optimal`, and with 3 boxes and the pair bet.
Prints: the kernel alone (reading one block of pre-drawn random words over and over, so no random
number generation is timed), the whole single-process path (``run_chunk``: numpy SFC64 draws
the random words, the kernel plays, totals), the reference engine driven by the same strategy table
in the same run (reference.py policy driver, stacked 60-card shoes), and the ratio.

    .venv/bin/python bench/bench_sim.py [ROUNDS]
    .venv/bin/python bench/bench_sim.py --workers [ROUNDS] [REPEATS]   # Dask against one process
    .venv/bin/python bench/bench_sim.py --zscores [bench_zscores.py options]

``--workers``: ``simulate`` on mbs without workers, with ``--workers 1`` (this process: no cluster),
on a Dask cluster of one worker (for comparison) and with ``--workers 2``,
alternately ``REPEATS`` times (default 20M rounds, 3 repeats); the rates time the simulation only
(the workers started and the kernels loaded before the clock: ``compile_seconds`` apart); prints
each run, the best of each, and the ratios (efficiency per worker = rate / (workers x one process));
and the rounds per CPU second (the workers' CPU and this process's: client and scheduler) against
one process's, which the other jobs on a shared machine do not change.
``--zscores``: the z-score table of ``bench_zscores.py``.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from pontoon.cards import pack_cards
from pontoon.rules import find_rules
from pontoon.sim import _kernels as K
from pontoon.sim.api import RANDOM_BLOCK, build_spec, run_chunk
from pontoon.sim.reference import play_engine_round


def kernel_only(spec, rounds: int) -> float:
    """The kernel calls alone: one block of random words drawn once and read again on every call."""
    ur = np.random.default_rng(1).integers(0, 2**32, RANDOM_BLOCK, dtype=np.uint32)
    shoe = spec.shoe.copy()
    st = np.zeros(4, dtype=np.int64)
    st[0] = shoe.shape[0]
    acc = np.zeros((K.NL, 2), dtype=np.int64)
    mom = np.zeros(6, dtype=np.int64)
    sess = np.zeros(0, dtype=np.int64)
    args = (spec.P, spec.pan_pay, spec.pan_cum, spec.strat, spec.comp, spec.trans)
    K.run_random(shoe, st, ur, *args, 1000, acc, mom, sess, 1, 0)
    done = 0
    t0 = time.perf_counter()
    while done < rounds:
        st[1] = 0
        done += K.run_random(shoe, st, ur, *args, rounds - done, acc, mom, sess, 1, 0)
    return done / (time.perf_counter() - t0)


def full_path(spec, rounds: int) -> float:
    run_chunk(spec, 1, 0, 1000)
    t0 = time.perf_counter()
    run_chunk(spec, 1, 0, rounds)
    return rounds / (time.perf_counter() - t0)


def engine(spec, rules, rounds: int) -> float:
    rng = np.random.default_rng(2)
    full = list(pack_cards(rules.pack)) * rules.decks
    shoes = [[full[j] for j in rng.permutation(len(full))[:60]] for _ in range(rounds)]
    t0 = time.perf_counter()
    for cards in shoes:
        play_engine_round(rules, cards, spec.strat, bet=spec.bet)
    return rounds / (time.perf_counter() - t0)


def _dask_one(rules, rounds: int) -> dict:
    """The same run on a local Dask cluster of one worker (what ``--workers 1`` started before
    one local worker became this process), timed the same way."""
    from pontoon.sim.api import DEFAULT_CHUNK, build_spec, chunk_count, normalise_seed, plan_chunks
    from pontoon.sim.chunk import Totals
    from pontoon.sim.cluster import run_on_dask
    from pontoon.sim.stats import report

    spec = build_spec(rules)
    totals = Totals()
    cpu: dict = {}
    _used, comp, secs = run_on_dask(
        spec, normalise_seed(7), plan_chunks(rounds, DEFAULT_CHUNK), 0, totals, 1, None,
        chunks=chunk_count(rounds, DEFAULT_CHUNK), chunk_rounds=DEFAULT_CHUNK, cpu=cpu,
    )  # fmt: skip
    out = report(spec, totals, rounds, secs, seed=normalise_seed(7), workers=1, session_length=0)
    out["compile_seconds"] = comp
    out["cpu_seconds"] = cpu
    return out


_POOL_SPEC = None


def _pool_init(spec) -> None:  # type: ignore[no-untyped-def]
    """A plain worker process: the spec kept, the kernels loaded before any timed task."""
    from pontoon.sim.chunk import warm_up

    global _POOL_SPEC
    _POOL_SPEC = spec
    warm_up(spec)


def _pool_task(entropy: int, first: int, sizes: list[int]):  # type: ignore[no-untyped-def]
    from pontoon.sim.chunk import run_chunks_summary

    c0 = time.process_time()
    acc, mom, hist = run_chunks_summary(_POOL_SPEC, entropy, first, sizes, 0)
    return acc, mom, time.process_time() - c0


def _pool_ready(_: int) -> int:
    import os

    return os.getpid()


def plain_processes(rules, rounds: int, workers: int) -> dict:  # type: ignore[no-untyped-def]
    """The Dask run's work with no Dask: ``workers`` plain processes (``multiprocessing``, started
    and their kernels loaded before the clock), the same tasks of consecutive chunks
    (``cluster.chunks_per_task``), the same in-flight limit. What two processes on this machine
    can do at best: the yardstick for the Dask path's structure."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from pontoon.sim.api import DEFAULT_CHUNK, build_spec, chunk_count, normalise_seed, plan_chunks
    from pontoon.sim.chunk import Totals
    from pontoon.sim.cluster import IN_FLIGHT_PER_WORKER, _tasks, chunks_per_task

    spec = build_spec(rules)
    entropy = normalise_seed(7)
    totals = Totals()
    with ProcessPoolExecutor(workers, initializer=_pool_init, initargs=(spec,)) as ex:
        while len(set(ex.map(_pool_ready, range(4 * workers)))) < workers:
            pass  # every process started and warmed (its initializer ran)
        per = chunks_per_task(chunk_count(rounds, DEFAULT_CHUNK), DEFAULT_CHUNK, workers)
        it = _tasks(plan_chunks(rounds, DEFAULT_CHUNK), per)
        pending: set = set()
        cpu_w = 0.0
        c0 = time.process_time()
        t0 = time.perf_counter()
        exhausted = False
        while pending or not exhausted:
            while not exhausted and len(pending) < IN_FLIGHT_PER_WORKER * workers:
                nxt = next(it, None)
                if nxt is None:
                    exhausted = True
                    break
                pending.add(ex.submit(_pool_task, entropy, nxt[0], nxt[1]))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                acc, mom, c = f.result()
                totals.add(acc, mom, None)
                cpu_w += c
        secs = time.perf_counter() - t0
        cpu_p = time.process_time() - c0
    from pontoon.sim.stats import report

    out = report(spec, totals, rounds, secs, seed=entropy, workers=workers, session_length=0)
    out["compile_seconds"] = 0.0  # started and warmed before the clock
    out["cpu_seconds"] = {"workers": cpu_w, "this_process": cpu_p}
    return out


def workers_bench(rounds: int, repeats: int) -> None:
    """One process against local Dask clusters of 1 and 2 workers, alternately."""
    import os

    from pontoon.sim.api import simulate

    rules = find_rules("mbs")
    simulate(rules, 1000, seed=1)  # compile or load the kernels here
    best: dict[str, float] = {}
    best_cpu: dict[str, float] = {}
    for rep in range(repeats):
        cases = (("one process", None), ("--workers 1", 1), ("Dask, 1 worker", 0), ("--workers 2", 2),
                 ("2 plain processes", -2))  # fmt: skip
        for label, w in cases:
            if w == -2:
                out = plain_processes(rules, rounds, 2)
            else:
                out = simulate(rules, rounds, seed=7, workers=w) if w != 0 else _dask_one(rules, rounds)
            rate = out["rounds_per_second"]
            best[label] = max(best.get(label, 0.0), rate)
            cpu = out["cpu_seconds"]
            per_cpu = rounds / max(cpu["workers"] + cpu["this_process"], 1e-9)
            best_cpu[label] = max(best_cpu.get(label, 0.0), per_cpu)
            load = os.getloadavg()[0]
            print(
                f"{rep}: {label:12}: {rate:14,.0f} rounds/s (start-up and kernels {out['compile_seconds']:.2f} s "
                f"apart; load {load:.2f}) CPU: workers {cpu['workers']:.1f} s, this process "
                f"{cpu['this_process']:.1f} s, {per_cpu:,.0f} rounds per CPU second; "
                f"net {out['totals']['main_game_net']}",
                flush=True,
            )
    one = best["one process"]
    print("best: " + ", ".join(f"{k} {v:,.0f}" for k, v in best.items()))
    print(f"--workers 1 / one process: {best['--workers 1'] / one:.2f} (one local worker is this process)")
    print(f"a Dask cluster of 1 worker / one process: {best['Dask, 1 worker'] / one:.2f}")
    print(
        f"--workers 2 efficiency per worker: {best['--workers 2'] / (2 * one):.2f} ({os.cpu_count()} cores)"
    )
    print(
        f"2 plain processes (no Dask) efficiency per process: {best['2 plain processes'] / (2 * one):.2f}; "
        f"Dask / plain: {best['--workers 2'] / best['2 plain processes']:.2f}"
    )
    one_c = best_cpu["one process"]
    print(
        "per CPU second (the work the cores did, whatever else ran): "
        + ", ".join(f"{k} {v / one_c:.2f}" for k, v in best_cpu.items())
        + " of one process's"
    )


def main() -> None:
    if sys.argv[1:2] == ["--workers"]:
        args = [int(a) for a in sys.argv[2:4]]
        workers_bench(*(args + [20_000_000, 3][len(args) :]))
        return
    if sys.argv[1:2] == ["--zscores"]:
        import runpy
        from pathlib import Path

        sys.argv = [sys.argv[0], *sys.argv[2:]]
        runpy.run_path(str(Path(__file__).with_name("bench_zscores.py")), run_name="__main__")
        return
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000_000
    rules = find_rules("mbs")
    spec = build_spec(rules, boxes=1)
    k = max(kernel_only(spec, rounds) for _ in range(3))
    f = max(full_path(spec, rounds) for _ in range(2))
    spec_opt = build_spec(rules, boxes=1, strategy="optimal")
    o = max(full_path(spec_opt, rounds) for _ in range(2))
    spec_3 = build_spec(rules, boxes=3, side_bets=["pair"])
    b3 = max(full_path(spec_3, rounds // 3) for _ in range(2))
    e = engine(spec, rules, 3000)
    print(f"strategy: {spec.strategy_source}")
    print(f"kernel only          : {k:14,.0f} rounds/s per core (mbs, 1 box, basic)")
    print(f"simulator (numpy rng+kernel): {f:14,.0f} rounds/s per core")
    print(f"  --strategy optimal  : {o:14,.0f} rounds/s per core")
    print(f"  3 boxes + pair bet  : {b3:14,.0f} rounds/s per core ({3 * b3:,.0f} box-rounds/s)")
    print(f"round engine (driver): {e:14,.0f} rounds/s")
    print(f"ratio simulator/engine: {f / e:,.0f}x")


if __name__ == "__main__":
    main()
