"""Numba kernels of a split (``splits.SplitMixin.split_chains``): every chain of a pair's split
hands in one call (``split_runs``), the decisions of a chain (``decide``) and the split hands'
values (``hand_values``). Arrays in, arrays out, no objects; compiled with the other kernels
(``aot.KERNEL_SOURCES``)."""

from __future__ import annotations

import numpy as np

from pontoon.analysis.aot import kernel
from pontoon.analysis.kernels import DOUBLE_HIT, HIT, OPTIMAL, STAND, chain


@kernel("void(f8[::1], f8[::1], f8[::1], b1[::1], i8[::1], i8[::1], i8, b1, b1, i8[::1])")
def decide(
    st: np.ndarray,
    hit: np.ndarray,
    dbl: np.ndarray,
    active: np.ndarray,
    best: np.ndarray,
    ncards: np.ndarray,
    forced: int,
    dbl_any: bool,
    dbl2: bool,
    out: np.ndarray,
) -> None:
    """The policy code of the best option of every active state (``out``; HIT elsewhere) from
    a chain's ``st`` / ``hit`` / ``dbl``: stand where legal (rulings 14) and better than hit, then
    double where legal and better still (as ``chain``'s OPTIMAL)."""
    for s in range(best.shape[0]):
        out[s] = HIT
        if active[s]:
            better_s = best[s] >= forced and st[s] > hit[s]
            ref = st[s] if better_s else hit[s]
            if (dbl_any or (ncards[s] == 2 and dbl2)) and dbl[s] > ref:
                out[s] = DOUBLE_HIT
            elif better_s:
                out[s] = STAND


# where ``split_runs`` takes each chain's policy (``splits.SplitMixin.split_chains``)
SPLIT_FIXED = 0  # the given ``pols`` (a fixed strategy)
SPLIT_CDZ = 1  # the unsplit hand's best options (``ref_*``) and its rescues
SPLIT_CDP1 = 2  # a = 0 optimal; a > 0 the decisions and rescues of a = 0
SPLIT_CDP = 3  # optimal everywhere


@kernel(
    "void(i8[:, ::1], i8[::1], i8[::1], i8[::1], i8[:, ::1], i8[::1], b1[::1], i8[:, ::1], f8[:, ::1], "
    "i8[::1], i8, i8[::1], f8[::1], i8, b1, b1, f8, f8, i8, b1, b1, b1, b1, i8, i8[:, :, ::1], "
    "f8[:, ::1], f8[:, ::1], f8[:, ::1], i1[:, :, ::1], i8[::1], b1[:, ::1], "
    "f8[:, :, ::1], f8[:, :, ::1], f8[:, :, ::1], f8[:, :, ::1], i1[:, :, ::1], i1[:, :, :, ::1])"
)
def split_runs(
    counts: np.ndarray,
    hard: np.ndarray,
    ncards: np.ndarray,
    nace: np.ndarray,
    trans: np.ndarray,
    best: np.ndarray,
    holds: np.ndarray,
    pos: np.ndarray,
    drows: np.ndarray,
    base: np.ndarray,
    p: int,
    a2s: np.ndarray,
    pay21: np.ndarray,
    up: int,
    peek: bool,
    p21wins: bool,
    nat_loss: float,
    nat_loss_dbl: float,
    forced: int,
    dbl2: bool,
    dbl_any: bool,
    ace_one: bool,
    rescue: bool,
    mode: int,
    pols: np.ndarray,
    ref_st: np.ndarray,
    ref_hit: np.ndarray,
    ref_dbl: np.ndarray,
    ref_rfl: np.ndarray,
    resc_pol: np.ndarray,
    active: np.ndarray,
    st: np.ndarray,
    hit: np.ndarray,
    dbl: np.ndarray,
    val: np.ndarray,
    act: np.ndarray,
    rfl: np.ndarray,
) -> None:
    """Every chain of the hands of a split of value ``p`` in one call: for a = 0 .. A - 1 pair
    cards out besides the original two (A = ``pos.shape[0]``) and each ``a2s[k]``, ``chain`` on
    the shoe ``base`` (less the up card) less 1 + a pair cards, into ``st[a, k]`` ... ``rfl[a, k]``
    (zeros, ``act`` ACT_HIT, where not valued), pruned (``chain``'s ``prune``) for a > 0 and
    for every a where the policy is fixed (FIXED, CDZ): all that is read of the chains of a > 0,
    and of a fixed policy's, is the two-card states and what the policy reaches from them.

    ``active[a]`` (out): the states that hold a pair card (``holds``: fit the shoe, two or more
    cards) and fit the shoe less 1 + a pair cards; each sees the dealer row ``drows[pos[a, s]]``
    (the shoe less s and 1 + a pair cards), the others the zero row (-1).
    ``mode`` (``SPLIT_*``) says each chain's policy and fixed rescues: FIXED ``pols[a, k]`` and,
    for a > 0, the rescues of a = 0; CDZ the decisions of ``ref_*[k]`` (the unsplit hand's
    chain, into ``pols[a, k]``) and its rescues ``ref_rfl[k]``; CDP1 optimal play for a = 0 and
    for a > 0 the decisions and rescues of a = 0 (into ``pols[1, k]`` only); CDP optimal play."""
    n_a = pos.shape[0]
    s_n = hard.shape[0]
    dpos = np.empty(s_n, np.int64)
    base_s = base.copy()
    no_fix = np.full((s_n, 10), -1, np.int8)
    optimal = np.full(s_n, OPTIMAL, np.int64)
    weights = np.zeros(s_n)
    dec = np.full((2, 22, 12), -9, np.int64)
    racc = np.zeros(22)
    n_h = 0
    hold = np.empty(s_n, np.int64)  # the states that hold a pair card (the others: never active)
    for s in range(s_n):
        dpos[s] = -1
        if holds[s]:
            hold[n_h] = s
            n_h += 1
    for a in range(n_a):
        lim = base[p] - 1 - a  # the state's pair cards (its own among them) fit the shoe less 1 + a
        for s in range(s_n):
            active[a, s] = False
        for h in range(n_h):
            s = hold[h]
            ok = counts[s, p] <= lim
            active[a, s] = ok
            dpos[s] = pos[a, s] if ok else -1
        base_s[p] = base[p] - 1 - a
        prune = a > 0 or mode == SPLIT_FIXED or mode == SPLIT_CDZ  # a fixed policy: pruned
        for k in range(a2s.shape[0]):
            pol = optimal
            fix = no_fix
            if mode == SPLIT_FIXED:
                pol = pols[a, k]
                if a > 0:
                    fix = rfl[0, k]
            elif mode == SPLIT_CDZ:
                decide(
                    ref_st[k],
                    ref_hit[k],
                    ref_dbl[k],
                    active[a],
                    best,
                    ncards,
                    forced,
                    dbl_any,
                    dbl2,
                    pols[a, k],
                )
                pol = pols[a, k]
                fix = ref_rfl[k]
            elif mode == SPLIT_CDP1 and a > 0:
                if a == 1:  # the same decisions for every a > 0: worked out once, into pols[1, k]
                    decide(
                        st[0, k],
                        hit[0, k],
                        dbl[0, k],
                        active[0],
                        best,
                        ncards,
                        forced,
                        dbl_any,
                        dbl2,
                        pols[1, k],
                    )
                pol = pols[1, k]
                fix = rfl[0, k]
            chain(
                counts,
                hard,
                ncards,
                nace,
                trans,
                active[a],
                base_s,
                drows,
                dpos,
                pay21,
                up,
                peek,
                p21wins,
                nat_loss,
                nat_loss_dbl,
                forced,
                dbl2,
                dbl_any,
                a2s[k],
                ace_one,
                rescue,
                pol,
                resc_pol,
                fix,
                False,
                prune,
                True,
                weights,
                st[a, k],
                hit[a, k],
                dbl[a, k],
                val[a, k],
                dec,
                racc,
                act[a, k],
                rfl[a, k],
            )


@kernel(
    "void(i8[:, ::1], i8[::1], i8[::1], i8[::1], i8, i8[::1], b1, f8[:, :, ::1], f8[:, :, ::1], f8[:, ::1])"
)
def hand_values(
    two: np.ndarray,
    nace: np.ndarray,
    best: np.ndarray,
    base: np.ndarray,
    p: int,
    a2s: np.ndarray,
    one_card: bool,
    val: np.ndarray,
    st: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[a]`` = (EV[X; a, 0], EV[N; a, 0], EV[P; a, 0]) of a split hand of pair value ``p``
    (``splits.SplitMixin._hand_values``) from the values ``val`` / ``st`` [a, k, state] of the
    chains of ``split_runs`` (k: the index of the hand's Aces among its first two cards in
    ``a2s``, else 0); ``base``: the shoe less the up card; ``two[i, j]`` the state of the cards
    i and j; ``one_card``: split Aces take one card each (000 3.9.1)."""
    n = 0
    for r in range(10):
        n += base[r]
    for a in range(out.shape[0]):
        left = n - 2 - a  # the shoe less the up card, 2 + a pair cards
        ev_x = 0.0
        e_np = 0.0
        w_np = 0.0
        e_p = 0.0
        for r in range(10):
            cr = base[r] - (2 + a if r == p else 0)
            if cr <= 0 or left <= 0:
                continue
            pr_r = cr / left
            s2 = two[p, r]  # the state of the pair card and r
            k = 0
            for kk in range(a2s.shape[0]):
                if a2s[kk] == nace[s2]:
                    k = kk
                    break
            if one_card and best[s2] != 21:
                w = st[a, k, s2]
            else:
                w = val[a, k, s2]
            ev_x += pr_r * w
            if r == p:
                e_p = w
            else:
                e_np += pr_r * w
                w_np += pr_r
        out[a, 0] = ev_x
        out[a, 1] = e_np / w_np if w_np > 0 else 0.0
        out[a, 2] = e_p
