"""``dist_exact``'s recursion compiled (numba): exact split rounds on 6-8 deck shoes too.

The same recursion as ``dist_exact._Split.run`` (read its module's text): the hands of a split are
played one after another as the engine plays them (004 3.24.2; a pair card drawn as a second card
starts a new hand while fewer than the rules' hands exist, 000 3.9), the state the multiset of cards
the box has used with the hands made and the hands still to play (equal states merged: the chance
of an ordered run of cards depends on its multiset only), carrying per dealer final class (17..21,
Pontoon, bust; FED: "some hand alive" apart) the measure of the net of the hands finished, and the
dealer weighed at the end from the shoe less the box's cards. Here one level (one hand played from
every box state) is one compiled call (``dist_box_level._level``, its helpers in ``dist_box_rows``): box states live in arrays, found again through an
open-addressing table on an integer key (the used counts in mixed radix, then the hands made and
the hands still to play), and each row keeps the range of lattice points its measure occupies, so
that a state early in the split moves a few numbers, not the whole lattice.

Same inputs, same order of sums as the Python recursion up to floating-point association: the two
agree to 1e-13 on the small shoes where both run (tests/analysis/test_dist_box.py), and on a 6-8
deck shoe the compiled one is the only one that finishes (federal 8-8 against a ten: 8.9 million
ways, seconds instead of 1055 s)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from pontoon.analysis import dealer
from pontoon.analysis import dist_box_level as level
from pontoon.analysis import dist_box_rows as rows
from pontoon.analysis import kernels as K
from pontoon.analysis.dealer_rows import _table
from pontoon.analysis.dist_box_rows import ALIVE, NCLS
from pontoon.analysis.dist_tables import LINES

FIRST_ROWS = 1024  # room for a level's rows at first (grown by half where full)
MEM_LIMIT = 2**62  # bytes one split's levels may hold (precompute_splits --jobs); past it, None
on_level: Any = None  # bench's hook, after each level: (rows in, rows out, lattice points, ways)


@functools.cache
def _compiled() -> Any:
    """The level kernel compiled by numba (on first use; cached on disk): each helper compiled
    (inlined) and bound where the kernel and the other helpers find it (``dist_box_rows``,
    ``dist_box_level``), the dealer's rows from ``dealer.dealer_batch_table``'s Python source."""
    from numba import njit

    for name in rows.HELPERS:
        fn = getattr(rows, name)
        jit = njit(cache=True, inline="always")(getattr(fn, "py_func", fn))
        for mod in (rows, level):
            if hasattr(mod, name):
                setattr(mod, name, jit)
    raw = getattr(dealer.dealer_batch_table, "py_func", None)
    if raw is None:  # compiled ahead of time: the kernel's Python source, kept by aot.kernel
        from pontoon.analysis import aot

        raw = aot._KERNELS[dealer.__name__]["dealer_batch_table"][0]
    rows._dealer_rows = njit(raw)
    return njit(cache=True)(level._level)


def _tables(sx: Any) -> dict[str, Any]:
    """The arrays the kernel reads for split ``sx`` (a ``dist_exact._Split``)."""
    sp, pr, p = sx.sp, sx.pr, sx.p
    S = sp.size
    first = next(iter(sx.outs.values()))
    act3 = np.zeros((3, S), dtype=np.int64)
    rfl3 = np.zeros((3, S, 10), dtype=np.int64)
    for t in range(3):
        out = sx.outs.get(t, first)
        a = np.asarray(out.act, dtype=np.int64).copy()
        if not pr.das:  # as dist_exact._Split._act
            two = (sp.ncards == 2) & (a == K.ACT_DOUBLE)
            a[two] = np.where(sp.best[two] >= pr.forced, K.ACT_STAND, K.ACT_HIT)
        act3[t] = a
        rfl3[t] = np.asarray(out.rfl, dtype=np.int64)
    s2_of = np.full(10, -1, dtype=np.int64)
    for r2 in range(10):
        cnt = [0] * 10
        cnt[p] += 1
        cnt[r2] += 1
        s2_of[r2] = sp.index[tuple(cnt)]
    shoe0 = np.asarray(sx.shoe0, dtype=np.int64)
    kw = np.ones(10, dtype=np.int64)
    for r in range(1, 10):
        kw[r] = kw[r - 1] * (int(shoe0[r - 1]) + 1)
    drawn = sp.counts.copy()
    drawn[:, p] -= 1
    fits = np.all((drawn >= 0) & (drawn <= shoe0[None, :]), axis=1)
    skey = np.where(fits, np.clip(drawn, 0, None) @ kw, 0).astype(np.int64)
    off = [0]
    shifts: list[int] = []
    probs: list[float] = []
    lines21 = np.zeros((S, len(sx.no_line)))
    step = sx.lattice()[0]
    want = fits & (sp.best == 21) & (sp.counts[:, p] >= 1) if pr.p21wins else np.zeros(S, dtype=bool)
    for i in range(S):
        if want[i]:
            pays, ln = sx._paid21(i)
            for v, q in pays:
                shifts.append(int(round(v / step)))
                probs.append(q)
            lines21[i] = ln
        off.append(len(shifts))
    return {
        "act3": act3,
        "rfl3": rfl3,
        "s2_of": s2_of,
        "shoe0": shoe0,
        "kw": kw,
        "skey": skey,
        "pay_off": np.asarray(off, dtype=np.int64),
        "pay_shift": np.asarray(shifts, dtype=np.int64),
        "pay_prob": np.asarray(probs, dtype=np.float64),
        "lines21": lines21,
    }


def run(sx: Any, work: int) -> tuple[np.ndarray, float, float, np.ndarray, float, int] | None:
    """``dist_exact._Split.run`` compiled: the fields of the split's ``SplitExact`` (measure, v0,
    step, pay lines, amount wagered, ways), or None past ``work`` ways (or where the pays have no
    short lattice, or the box's counts do not fit one integer key)."""
    lat = sx.lattice()
    if lat is None:
        return None
    step, v0, length = lat
    pr, p, sp = sx.pr, sx.p, sx.sp
    tb = _tables(sx)
    hm = sx.max_hands + 1
    if float(np.prod(tb["shoe0"].astype(np.float64) + 1.0)) * hm * hm >= 2.0**62:
        return None
    level_fn = _compiled()
    zero = int(round(-v0 / step))
    u1 = int(round(1.0 / step))
    flags = np.array([pr.p21wins, pr.rescue, pr.ace_one, pr.split_one_wager], dtype=np.bool_)
    nat_dbl = int(round(pr.nat_loss_dbl / step))
    shifts = np.abs(tb["pay_shift"]) if len(tb["pay_shift"]) else np.zeros(1, dtype=np.int64)
    reach = max(2 * u1, nat_dbl, int(shifts.max()))  # the largest move of one final end (R)
    ints = np.array([u1, nat_dbl, LINES.index("doubled 21"), reach], dtype=np.int64)
    nl = len(sx.no_line)
    keys = np.array([(0 * hm + 2) * hm + 2], dtype=np.int64)
    poly = np.zeros((1, NCLS, length))
    poly[0, :7, zero] = 1.0
    if not pr.split_one_wager:
        poly[0, ALIVE] = 0.0
    lines = np.zeros((1, nl))
    wager = np.zeros(1)
    mass = np.ones(1)
    lo = np.array([zero], dtype=np.int64)
    hi = np.array([zero], dtype=np.int64)
    args = (
        tb["kw"],
        hm,
        tb["shoe0"],
        p,
        sx.max_hands,
        sx.max_hands > 2,
        sx.one_card,
        np.ascontiguousarray(sp.counts, dtype=np.int64),
        np.ascontiguousarray(sp.trans, dtype=np.int64),
        np.ascontiguousarray(sp.best, dtype=np.int64),
        np.ascontiguousarray(sp.hard, dtype=np.int64),
        np.ascontiguousarray(sp.nace, dtype=np.int64),
        np.ascontiguousarray(sp.ncards, dtype=np.int64),
        tb["s2_of"],
        tb["act3"],
        tb["rfl3"],
        tb["skey"],
        flags,
        ints,
        tb["pay_off"],
        tb["pay_shift"],
        tb["pay_prob"],
        tb["lines21"],
    )
    played = 0
    # rows a level may make within MEM_LIMIT: its input rows and its output grown by half (2.5 times)
    row_limit = int(MEM_LIMIT // (3.5 * (8 * (NCLS * length + nl + 4) + 64)))
    acc = np.zeros(length)
    acc_lw = np.zeros(nl + 1)
    # the dealer: the shoe less the up card, that up card's dealer hands (dealer_rows' table)
    dealer_args = (np.asarray(sx.solver.base, dtype=np.int64), *_table(sx.solver.up, pr.h17), bool(pr.peek))
    while len(keys):
        # the next level's box states; the final ends weighed by the dealer at once, each final
        # end's dealer row worked out once, when its used counts first come
        out = level_fn(
            keys,
            poly,
            lines,
            wager,
            mass,
            lo,
            hi,
            *args,
            work - played,
            row_limit,
            FIRST_ROWS,
            acc,
            acc_lw,
            *dealer_args,
        )
        if out[8] < 0:
            return None
        played += int(out[8])
        n = int(out[7])
        if on_level is not None:
            on_level(len(keys), n, length, played)
        keys, poly, lines, wager, mass, lo, hi = (np.ascontiguousarray(a[:n]) for a in out[:7])
    return acc, v0, step, acc_lw[:nl], float(acc_lw[nl]), played
