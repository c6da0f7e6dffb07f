"""A counter's simulation: the count, a bet ramp on the true count, wonging, boxes, index plays.

``simulate_count(rules, rounds, ...)`` plays the basic chart (``analysis.strategy``) with the
index plays of ``analysis.indices`` (optional) through ``_count_kernel.run_count`` and reports the
counter's figures (``count_stats.figures``). The ramp is a list of (true count, units, boxes):
from that count up (floor of the true count) the counter bets ``units`` on each of ``boxes``
boxes; below the lowest entry, and wherever units is 0, the counter sits out (wonging: the cards
dealt meanwhile are still counted).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pontoon.analysis.counts import CountSystem
from pontoon.analysis.states import shoe_counts
from pontoon.analysis.strategy import basic_strategy
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules
from pontoon.sim import _count_kernel as CK
from pontoon.sim import _kernels as K
from pontoon.sim.aot import kernel
from pontoon.sim.api import build_spec, normalise_seed
from pontoon.sim.chunk import RANDOM_BLOCK, SimSpec, _fill32, chunk_seed
from pontoon.sim.count_stats import NSUMS, figures
from pontoon.sim.tables import strategy_table

TC_LO = -10
TC_HI = 10  # buckets: floor(TC) in [TC_LO, TC_HI]
NBUCKETS = TC_HI - TC_LO + 1
CODE = {"H": K.C_H, "S": K.C_S, "D": K.C_D, "Ds": K.C_DS, "P": K.C_P, "R": K.C_R, "Rs": K.C_RS}


class CountSimError(PontoonError):
    """Bad counter-simulation input (ramp, penetration, rounds)."""


def parse_ramp(text: str) -> list[tuple[int, int, int]]:
    """'0:1,1:2,2:4,3:8x2' -> [(0, 1, 1), (1, 2, 1), (2, 4, 1), (3, 8, 2)] (TC:UNITS[xBOXES])."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        tc, sep, rest = part.partition(":")
        units, _x, bx = rest.partition("x")
        try:
            row = (int(tc), int(units), int(bx) if bx else 1)
        except ValueError:
            raise CountSimError(
                f"bad ramp entry {part!r}: give TC:UNITS or TC:UNITSxBOXES, e.g. 0:1,2:4,4:8x2"
            ) from None
        if not sep or not TC_LO <= row[0] <= TC_HI or not 0 <= row[1] <= 1000 or not 1 <= row[2] <= 8:
            raise CountSimError(
                f"bad ramp entry {part!r}: true count {TC_LO} to {TC_HI}, units 0 to 1000, boxes 1 to 8"
            )
        out.append(row)
    if not out:
        raise CountSimError("empty ramp: give TC:UNITS entries, e.g. 0:1,2:4,4:8")
    return sorted(out)


def ramp_arrays(ramp: Sequence[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    bets = np.zeros(NBUCKETS, dtype=np.int64)
    boxes = np.ones(NBUCKETS, dtype=np.int64)
    for k in range(NBUCKETS):
        t = TC_LO + k
        for tc, units, bx in ramp:
            if t >= tc:
                bets[k], boxes[k] = units, bx
    return bets, boxes


def _cell(table: np.ndarray, row: str, up: str, code: int, kind_pair: int = K.K_PAIR) -> None:
    kind, total = row.split()
    u = 1 if up == "A" else 10 if up == "T" else int(up)
    if kind == "pair":
        p = 1 if total == "A" else 10 if total == "T" else int(total)
        table[kind_pair, p, 2, u] = code
    else:
        table[K.K_SOFT if kind == "soft" else K.K_HARD, int(total), 2, u] = code


def _on(ix: dict[str, Any], t: int) -> bool:
    """Whether the index play ``ix`` is played in the true-count bucket t (module docstring)."""
    return bool(t >= math.ceil(ix["index"]) if ix["direction"] == "+" else t + 1 <= math.floor(ix["index"]))


def index_tables(
    rules: CasinoRules, chart: dict[str, Any], indices: list[dict[str, Any]] | None
) -> np.ndarray:
    """``strats[bucket]``: the chart's table with the index plays whose count the bucket reaches
    (two-card hands and rescues; '+' plays the other play from ceil(index) up, '-' below
    floor(index))."""
    base = strategy_table(chart)
    strats = np.repeat(base[None], NBUCKETS, axis=0)
    for ix in indices or []:
        if ix["row"] == "side" or ix["index"] is None:
            continue
        play, alt = ix["play"], ix["alt"]
        if ix["row"].startswith("doubled"):  # rescue vs stand of a doubled total (004 3.25.3)
            t_d = int(ix["row"].split()[1])
            u = 1 if ix["up"] == "A" else 10 if ix["up"] == "T" else int(ix["up"])
            for k in range(NBUCKETS):
                if _on(ix, TC_LO + k):
                    strats[k, K.K_RESCUE, t_d, :, u] = 1 if alt == "F" else 0
            continue
        if ix["row"].startswith("pair") and "P" not in (play, alt):
            # an unsplit pair's own row (pair 5 double/hit, pair 8 surrender/hit): the pair plays
            # it at every count, not its total's cell, which the total's other hands share
            for k in range(NBUCKETS):
                code = _code(alt, play) if _on(ix, TC_LO + k) else _code(play, alt)
                _cell(strats[k], ix["row"], ix["up"], code, K.K_PAIRPLAY)
            continue
        for k in range(NBUCKETS):
            if not _on(ix, TC_LO + k):
                continue
            if ix["row"].startswith("pair"):
                _cell(strats[k], ix["row"], ix["up"], K.C_P if alt == "P" else K.C_NONE)
                continue
            _cell(strats[k], ix["row"], ix["up"], _code(alt, play))
    return strats


def _code(play: str, other: str) -> int:
    """The kernel's code for ``play`` where ``other`` is the row's other play: a double or a
    surrender that the hand may not make falls back to standing where the other play stands,
    else to a hit."""
    if play in ("D", "R"):
        return CODE[play + ("s" if other == "S" else "")]
    return CODE[play]


def unplayable(indices: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The index rows the kernel's tables cannot play: rows of a kind ``index_tables`` does not
    know (every hard, soft, pair, doubled and side row is played: a pair's row between two plays
    neither of which is a split has the table's kind ``K_PAIRPLAY``)."""
    known = ("hard ", "soft ", "pair ", "doubled ")
    return [x for x in indices or [] if x["row"] != "side" and not x["row"].startswith(known)]


def insurance_row(indices: list[dict[str, Any]] | None) -> np.ndarray:
    ins = np.zeros(NBUCKETS, dtype=np.int64)
    for ix in indices or []:
        if (
            ix["row"] == "side"
            and ix["alt"] == "insurance"
            and ix["index"] is not None
            and ix["direction"] == "+"
        ):
            for k in range(NBUCKETS):
                ins[k] = int(TC_LO + k >= math.ceil(ix["index"]))
    return ins


@dataclass(frozen=True)
class CountJob:
    """Everything a chunk of the counter's simulation needs, as plain picklable data."""

    spec: SimSpec
    strats: np.ndarray
    tags13: np.ndarray
    irc: float
    deck_cards: float
    bets: np.ndarray
    boxes: np.ndarray
    ins: np.ndarray
    entropy: int


def count_chunk(job: CountJob, index: int, rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """(sums, line totals) of ``rounds`` rounds from a fresh shoe, random numbers from chunk
    ``index``'s seed: a pure function of its arguments (Dask may run it anywhere)."""
    bits = np.random.SFC64(chunk_seed(job.entropy, index))
    spec = job.spec
    shoe = spec.shoe.copy()
    n = shoe.shape[0]
    st = np.zeros(4, dtype=np.int64)
    st[0] = n
    fl = np.array([job.irc])
    ur = np.empty(max(RANDOM_BLOCK, 8 * (n + 8)), dtype=np.uint32)
    _fill32(bits, ur)
    trace = np.zeros((0, 2))
    sums = np.zeros(NSUMS)
    acc = np.zeros((K.NL, 2), dtype=np.int64)
    P = spec.P.copy()
    run_count = kernel("run_count")  # compiled at install where current (sim/aot.py), else numba's JIT
    done = 0
    while done < rounds:
        done += run_count(
            shoe, st, ur, P, spec.pan_pay, spec.pan_cum, job.strats, spec.comp, spec.trans, job.tags13, job.irc,
            job.deck_cards, TC_LO, job.bets, job.boxes, job.ins, rounds - done, acc, sums, fl, trace,
        )  # fmt: skip
        used = int(st[1])
        keep = ur.shape[0] - used
        ur[:keep] = ur[used:]
        _fill32(bits, ur[keep:])
        st[1] = 0
    return sums, acc


def _chunks(rounds: int, chunk_rounds: int) -> Iterator[tuple[int, int]]:
    i = done = 0
    while done < rounds:
        m = min(chunk_rounds, rounds - done)
        yield i, m
        done += m
        i += 1


def _run_dask(
    job: CountJob, rounds: int, chunk_rounds: int, workers: int | None, scheduler: str | None
) -> Any:
    """The chunks on Dask (a local cluster of ``workers`` or the scheduler at ``scheduler``),
    results added in chunk order (so the float sums equal the one-process run's bit for bit)."""
    from collections import deque

    from dask.distributed import Client

    from pontoon.sim.cluster import ClusterError, _local_cluster, check_address

    cluster = None
    try:
        if scheduler is not None:
            try:
                client = Client(check_address(scheduler), timeout=30)
            except (OSError, TimeoutError, ValueError) as err:
                raise ClusterError(f"cannot reach the Dask scheduler at {scheduler!r}: {err}") from None
        else:
            cluster = _local_cluster(workers or 1, False)
            client = Client(cluster)
        try:
            client.run(count_chunk, job, 10**9, 1)  # every worker compiles (or loads its cache)
            job_f = client.scatter(job, broadcast=True)
            limit = 2 * max(1, len(client.scheduler_info().get("workers", {})))
            t0 = time.perf_counter()
            queue: deque[Any] = deque()
            sums = np.zeros(NSUMS)
            plan = _chunks(rounds, chunk_rounds)
            for i, m in plan:
                queue.append(client.submit(count_chunk, job_f, i, m, pure=True, retries=2))
                if len(queue) >= limit:
                    sums += queue.popleft().result()[0]
            while queue:
                sums += queue.popleft().result()[0]
            return sums, time.perf_counter() - t0
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def count_job(
    rules: CasinoRules,
    system: CountSystem,
    ramp: Sequence[tuple[int, int, int]],
    indices: list[dict[str, Any]] | None,
    penetration: float,
    seed: int | None,
) -> CountJob:
    """The chunks' plain data for ``simulate_count`` (two jobs of the same seed deal each chunk
    from the same random numbers: ``tests/sim/test_counting.py`` pairs them chunk by chunk)."""
    chart = basic_strategy(rules)
    spec = build_spec(rules, boxes=1, strategy=chart, penetration=penetration)
    bets, boxes = ramp_arrays(ramp)
    if int(boxes.max()) > rules.max_boxes:
        raise CountSimError(
            f"the ramp plays {int(boxes.max())} boxes: {rules.preset} has 1 to {rules.max_boxes}"
        )
    return CountJob(
        spec=spec,
        strats=index_tables(rules, chart, indices),
        tags13=np.array([system.tags[min(r, 9)] for r in range(13)], dtype=np.float64),
        irc=float(system.irc(rules.pack, rules.decks)),
        deck_cards=float(shoe_counts(rules.pack, 1).sum()),
        bets=bets,
        boxes=boxes,
        ins=insurance_row(indices) if rules.insurance else np.zeros(NBUCKETS, dtype=np.int64),
        entropy=normalise_seed(seed),
    )


def simulate_count(
    rules: CasinoRules,
    rounds: int,
    system: CountSystem,
    ramp: Sequence[tuple[int, int, int]],
    *,
    indices: list[dict[str, Any]] | None = None,
    penetration: float = 0.75,
    seed: int | None = None,
    bankroll: float = 1000.0,
    chunk_rounds: int = 1_000_000,
    workers: int | None = None,
    scheduler: str | None = None,
) -> dict[str, Any]:
    """Simulate ``rounds`` rounds of a counter (module docstring); figures per ``count_stats``.
    ``workers`` (a local Dask cluster) or ``scheduler`` (a Dask scheduler's address): the chunks
    on Dask; the figures are the same as in one process for the same seed and chunk size."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= 10**12:
        raise CountSimError(f"rounds={rounds!r}: give 1 to 10**12 rounds")
    if not 0.1 <= penetration <= 0.95:
        raise CountSimError(f"penetration {penetration}: give 0.1 to 0.95 (the share of the shoe dealt)")
    if workers is not None and (isinstance(workers, bool) or not 1 <= workers <= 256):
        raise CountSimError(f"workers={workers!r}: give 1 to 256 local worker processes")
    job = count_job(rules, system, ramp, indices, penetration, seed)
    t_compile = time.perf_counter()
    if workers is None and scheduler is None:
        count_chunk(job, 10**9, 1)  # compiled (or loaded from numba's cache) before the clock
        compile_seconds = time.perf_counter() - t_compile
        t0 = time.perf_counter()
        sums = np.zeros(NSUMS)
        for i, m in _chunks(rounds, chunk_rounds):
            sums += count_chunk(job, i, m)[0]  # chunk by chunk, in order: as on Dask
        seconds = time.perf_counter() - t0
    else:
        sums, seconds = _run_dask(job, rounds, chunk_rounds, workers, scheduler)
        compile_seconds = time.perf_counter() - t_compile - seconds
    out = figures(sums, bankroll)
    out.update(
        {
            "rules": rules.preset,
            "count": system.name,
            "ramp": [list(r) for r in ramp],
            "penetration": penetration,
            "index_plays": sum(1 for x in indices or [] if x["row"] != "side" and x["index"] is not None),
            "index_plays_unused": len(unplayable(indices)),
            "seed": job.entropy,
            "seconds": seconds,
            "compile_seconds": compile_seconds,
            "rounds_per_second": rounds / seconds if seconds > 0 else float("inf"),
            "workers": workers if scheduler is None else "scheduler",
        }
    )
    return out


def run_stacked_count(
    rules: CasinoRules,
    system: CountSystem,
    cards: np.ndarray,
    rounds: int,
    indices: list[dict[str, Any]] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deal the card codes ``cards`` in order (no shuffle) for up to ``rounds`` rounds, flat bet,
    basic chart with the index plays ``indices``; returns (trace[round] = (running count,
    position), shoe as dealt, line totals ``acc[line] = (count, amount)``)."""
    chart = basic_strategy(rules)
    spec = build_spec(rules, boxes=1, strategy=chart, penetration=0.95)
    P = spec.P.copy()
    P[K.P_CUT] = len(cards) + 1  # no cut card: the stacked shoe is dealt to its end
    strats = index_tables(rules, chart, indices)
    bets, boxes = ramp_arrays([(TC_LO, 1, 1)])
    tags13 = np.array([system.tags[min(r, 9)] for r in range(13)], dtype=np.float64)
    irc = float(system.irc(rules.pack, rules.decks))
    shoe = np.array(cards, dtype=np.int64)
    st = np.array([0, 0, 0, 1], dtype=np.int64)
    trace = np.zeros((rounds, 2))
    sums = np.zeros(NSUMS)
    acc = np.zeros((K.NL, 2), dtype=np.int64)
    fl = np.array([irc])
    deck = float(shoe_counts(rules.pack, 1).sum())
    ur = np.zeros(1, dtype=np.uint32)
    n = CK.run_count(
        shoe, st, ur, P, spec.pan_pay, spec.pan_cum, strats, spec.comp, spec.trans, tags13, irc, deck,
        TC_LO, bets, boxes, np.zeros(NBUCKETS, dtype=np.int64), rounds, acc, sums, fl, trace,
    )  # fmt: skip
    return trace[:n], shoe, acc
