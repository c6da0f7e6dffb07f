"""One chunk of simulated rounds: the plain-data spec, the kernel call, the exact totals.

``run_chunk(spec, entropy, index, rounds, session_length)`` is a pure function of its arguments
(Dask may recompute it anywhere): its random numbers come from ``SeedSequence(entropy,
spawn_key=(index,))``, so totals for a seed do not depend on how many workers ran the chunks.
Both the single-process path (``api.simulate``) and the Dask path (``cluster``) call it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import numpy as np

from pontoon.sim import _kernels as K
from pontoon.sim.aot import kernel
from pontoon.sim.sessions import SessionHistogram
from pontoon.sim.tables import empty_comp, empty_trans

RANDOM_BLOCK = 1 << 16  # 32-bit random words per refill (256 KiB: stays in the L2 cache)


@dataclass(frozen=True)
class SimSpec:
    """Everything a chunk needs, as plain picklable data."""

    P: np.ndarray
    pan_pay: np.ndarray
    pan_cum: np.ndarray
    strat: np.ndarray
    shoe: np.ndarray
    quantum: Fraction
    boxes: int
    side_bets: tuple[str, ...]
    insurance: bool
    preset: str
    bet: Decimal
    side_bet: Decimal
    strategy_source: str = ""
    notes: tuple[str, ...] = field(default=())
    comp: np.ndarray = field(default_factory=empty_comp)  # composition table (optimal) or empty
    trans: np.ndarray = field(default_factory=empty_trans)  # its hand-state transitions (or empty)
    root: int = 0  # the empty hand's state in ``trans``


@dataclass
class Totals:
    """Exact integer totals of some chunks (added with ``+=``)."""

    acc: np.ndarray = field(default_factory=lambda: np.zeros((K.NL, 2), dtype=np.int64))
    mom: list[int] = field(default_factory=lambda: [0] * 6)
    sessions: SessionHistogram = field(default_factory=SessionHistogram)  # fixed size (issue 10 item 7)

    def add(self, acc: np.ndarray, mom: np.ndarray, sess: np.ndarray | SessionHistogram | None) -> None:
        self.acc += acc
        self.mom = [a + int(b) for a, b in zip(self.mom, mom, strict=True)]
        if isinstance(sess, SessionHistogram):
            self.sessions.merge(sess)
        elif sess is not None and sess.size:
            self.sessions.add(sess)


# ---- chunks ------------------------------------------------------------------------------------
def chunk_seed(entropy: int, index: int) -> np.random.SeedSequence:
    """The seed of chunk ``index``: independent of the worker count (spawn_key by index)."""
    return np.random.SeedSequence(entropy=entropy, spawn_key=(index,))


def run_chunk(
    spec: SimSpec, entropy: int, index: int, rounds: int, session_length: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``rounds`` rounds: a pure function of its arguments (Dask may recompute it anywhere).

    Returns (acc[NL, 2], mom[6], sessions) as integer arrays.
    """
    bits = np.random.SFC64(chunk_seed(entropy, index))
    shoe = spec.shoe.copy()
    n = shoe.shape[0]
    st = np.zeros(4, dtype=np.int64)
    st[0] = n  # shuffle before the first round
    acc = np.zeros((K.NL, 2), dtype=np.int64)
    mom = np.zeros(6, dtype=np.int64)
    nsess = rounds // session_length if session_length > 0 else 0
    sess = np.zeros(nsess, dtype=np.int64)
    # the random numbers: 32-bit words drawn here (numpy SFC64), a block at a time, read by the
    # kernel; a round starts only while the block holds enough for any round (K.run_random), and
    # the unused tail moves to the front before the refill, so no number is skipped or reused
    ur = np.empty(max(RANDOM_BLOCK, 8 * (n + int(spec.P[K.P_BOXES]))), dtype=np.uint32)
    _fill32(bits, ur)
    run_random = kernel("run_random")  # compiled at install where current (aot.py), else numba's JIT
    done = 0
    while done < rounds:
        done += run_random(
            shoe, st, ur, spec.P, spec.pan_pay, spec.pan_cum, spec.strat, spec.comp, spec.trans, rounds - done,
            acc,
            mom, sess, max(session_length, 1), done,
        )  # fmt: skip
        if done >= rounds:
            break
        used = int(st[1])
        keep = ur.shape[0] - used
        ur[:keep] = ur[used:]
        _fill32(bits, ur[keep:])
        st[1] = 0
    return acc, mom, sess


FILL_PIECE = 8192  # 32-bit words per draw from the bit generator (32 KiB: see _fill32)


def _fill32(bits: np.random.BitGenerator, out: np.ndarray) -> None:
    """Fill ``out`` with the next random 32-bit words of the bit generator (two per 64-bit output;
    an odd count drops the high half of the last output).

    Drawn in pieces of ``FILL_PIECE`` words: ``random_raw`` allocates its result, and a 256 KiB
    allocation is served by ``mmap`` wherever ``MALLOC_TRIM_THRESHOLD_`` is set (Dask workers set
    it to 64 KiB), so every refill took fresh zeroed pages: 10,625 page faults per 2M rounds. The
    words are the same as from one ``random_raw`` call (consecutive outputs of one generator)."""
    k = out.shape[0]
    o = 0
    while o < k:
        m = min(FILL_PIECE, k - o)
        out[o : o + m] = bits.random_raw((m + 1) // 2).view(np.uint32)[:m]
        o += m


def run_chunk_summary(
    spec: SimSpec, entropy: int, index: int, rounds: int, session_length: int = 0
) -> tuple[np.ndarray, np.ndarray, SessionHistogram]:
    """``run_chunk`` with its sessions folded into a fixed-size histogram (what a worker sends back)."""
    acc, mom, sess = run_chunk(spec, entropy, index, rounds, session_length)
    hist = SessionHistogram()
    hist.add(sess)
    return acc, mom, hist


def run_chunks_summary(
    spec: SimSpec, entropy: int, first: int, sizes: list[int], session_length: int = 0
) -> tuple[np.ndarray, np.ndarray, SessionHistogram]:
    """Chunks ``first``, ``first + 1``, ... of ``sizes[k]`` rounds each, added up: one Dask task.

    The chunks are the same as when run one by one (same indices, same random numbers), so the
    totals do not depend on how chunks are grouped into tasks; a task of several chunks costs the
    scheduler, the worker's event loop and the result transfer once instead of once per chunk."""
    acc = np.zeros((K.NL, 2), dtype=np.int64)
    mom = np.zeros(6, dtype=np.int64)
    hist = SessionHistogram()
    for k, n in enumerate(sizes):
        a, m, sess = run_chunk(spec, entropy, first + k, n, session_length)
        acc += a
        mom += m
        hist.add(sess)
    return acc, mom, hist


def warm_up(spec: SimSpec) -> float:
    """Compile the kernels for this spec (or load them from numba's cache); returns the seconds spent.

    A throwaway 1-round chunk: its numbers come from an entropy of its own and are discarded, so
    the simulation's totals are unchanged (issue 10 item 8: compile time reported apart)."""
    t0 = time.perf_counter()
    run_chunk(spec, 0, 0, 1, 0)
    return time.perf_counter() - t0
