"""``dist_box``'s level kernel: one hand played from every box state (read ``dist_box``'s text
for the recursion; ``dist_box_rows`` holds the helpers it inlines). Plain Python until
``dist_box._compiled`` compiles it (numba)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.dist_box_rows import (
    NCLS,
    _alive,
    _book,
    _dead,
    _fin_new,
    _flush,
    _k_alive,
    _k_apply,
    _k_book,
    _k_dead,
    _row,
    _slot,
)


def _level(
    in_keys: np.ndarray,
    in_poly: np.ndarray,
    in_lines: np.ndarray,
    in_wager: np.ndarray,
    in_mass: np.ndarray,
    in_lo: np.ndarray,
    in_hi: np.ndarray,
    kw: np.ndarray,
    hm: int,
    shoe0: np.ndarray,
    p: int,
    max_hands: int,
    resplit_ok: bool,
    one_card: bool,
    counts: np.ndarray,
    trans: np.ndarray,
    best: np.ndarray,
    hard: np.ndarray,
    nace: np.ndarray,
    ncards: np.ndarray,
    s2_of: np.ndarray,
    act3: np.ndarray,
    rfl3: np.ndarray,
    skey: np.ndarray,
    flags: np.ndarray,
    ints: np.ndarray,
    pay_off: np.ndarray,
    pay_shift: np.ndarray,
    pay_prob: np.ndarray,
    lines21: np.ndarray,
    work_limit: int,
    row_limit: int,
    first_rows: int,
    acc: np.ndarray,
    acc_lw: np.ndarray,
    dbase: np.ndarray,
    d_ranks: np.ndarray,
    d_mults: np.ndarray,
    d_starts: np.ndarray,
    d_outcome: np.ndarray,
    d_orders: np.ndarray,
    peek: bool,
) -> tuple[Any, ...]:
    """One hand played from every box state of ``in_*`` (rows with hands still to play): the next
    level's rows (keys, measures, lines, wager, mass, lattice ranges), their number and the ways a
    hand ended (-1 past ``work_limit``, or past ``row_limit`` rows: memory). ``flags``: p21wins,
    rescue, ace_one, one_wager;
    ``ints``: lattice points of one unit, of the doubled hand's Pontoon loss, the doubled-21 line.

    The ends after which no hand is left to play are not kept as rows: each is weighed at once by the
    dealer's classes from the shoe less those cards into ``acc`` (the measure on the lattice) and
    ``acc_lw`` (pay lines, then the amount wagered), each final end's dealer row worked out once,
    when its used counts first come (``_fin_new``: the shoe ``dbase`` less them and the pair, the up
    card's dealer hands ``d_*``; one pass, where a first pass used to list them)."""
    p21wins, rescue, ace_one, one_wager = flags[0], flags[1], flags[2], flags[3]
    u1, nat_dbl, dbl21_line, R = ints[0], ints[1], ints[2], ints[3]
    n_in = in_keys.shape[0]
    L = in_poly.shape[2]
    NL = in_lines.shape[1]
    S = counts.shape[0]
    # the next level's rows start few and grow by half where full (_grow): a level whose hands all
    # end there (the last) makes none, where room for 4 rows an input row used to be zeroed up front
    cap = first_rows
    o_keys = np.empty(cap, dtype=np.int64)
    o_poly = np.zeros((cap, NCLS, L))
    o_lines = np.zeros((cap, NL))
    o_wager = np.zeros(cap)
    o_mass = np.zeros(cap)
    o_lo = np.empty(cap, dtype=np.int64)
    o_hi = np.empty(cap, dtype=np.int64)
    hcap = 1
    while hcap < 2 * cap:
        hcap *= 2
    h_key = np.full(hcap, -1, dtype=np.int64)
    h_row = np.empty(hcap, dtype=np.int64)
    n_out = 0
    work = 0
    # the final ends' used counts, their dealer rows (``dd``) and chance of no natural (``keep``)
    fcap = 1024
    f_hkey = np.full(fcap, -1, dtype=np.int64)
    f_hrow = np.empty(fcap, dtype=np.int64)
    f_keys = np.empty(fcap // 2, dtype=np.int64)
    n_fin = 0
    # the final ends of one box state are summed apart, then added with compensation (Neumaier):
    # millions of terms far below the totals' last digit would otherwise be lost (1e-11 of a round)
    loc = np.zeros(acc.shape[0])
    loc_lw = np.zeros(acc_lw.shape[0])
    acc_c = np.zeros(acc.shape[0])
    acc_lw_c = np.zeros(acc_lw.shape[0])
    # the final ends of one box state gathered first by dealer class and lattice shift (``kmat``,
    # shift k at k + R) and their pay lines and stakes (``kbook``), then the state's measure moved
    # once per (class, shift) (``_k_apply``): a few moves a state, not one a final end
    kmat = np.zeros((NCLS, 2 * R + 1))
    kbook = np.zeros(NL + 2)
    dd = np.zeros((1024, 7))
    keep = np.zeros(1024)  # the chance the dealer has no natural after a peek (else 1)
    hmass = np.zeros(S)
    heap = np.empty(S + 1, dtype=np.int64)
    u = np.empty(10, dtype=np.int64)
    left = np.empty(10, dtype=np.int64)
    drawn = np.empty(10, dtype=np.int64)
    for s in range(n_in):
        key = in_keys[s]
        rem = key % hm
        hands = (key // hm) % hm
        ukey = key // hm // hm
        if rem == 0:
            continue
        fins = False
        for r in range(10):
            u[r] = (ukey // kw[r]) % (shoe0[r] + 1)
        w = 1.0
        h = hands
        ucur = ukey
        while True:
            n = 0
            for r in range(10):
                left[r] = shoe0[r] - u[r]
                n += left[r]
            if n <= 0:
                break
            # 004 3.24.2, 000 3.9: a pair card as a second card is split again
            resplit = resplit_ok and h < max_hands and left[p] > 0
            nrem = rem - 1 + h - hands
            for r2 in range(10):
                if left[r2] <= 0 or (r2 == p and resplit):
                    continue
                q2 = w * left[r2] / n
                s2 = s2_of[r2]
                t = nace[s2]  # Aces among the hand's first two cards: its chain
                # the hand's states by hard total, lowest first (highest index first)
                hmass[s2] = 1.0
                heap[0] = s2
                hn = 1
                while hn > 0:
                    i = heap[0]  # pop the largest index
                    hn -= 1
                    if hn > 0:
                        last = heap[hn]
                        k = 0
                        while True:
                            c = 2 * k + 1
                            if c >= hn:
                                break
                            if c + 1 < hn and heap[c + 1] > heap[c]:
                                c += 1
                            if heap[c] <= last:
                                break
                            heap[k] = heap[c]
                            k = c
                        heap[k] = last
                    m = hmass[i]
                    hmass[i] = 0.0
                    nd = 0
                    for r in range(10):
                        drawn[r] = counts[i, r]
                    drawn[p] -= 1
                    for r in range(10):
                        nd += drawn[r]
                    base_key = ucur + skey[i]
                    bi = best[i]
                    # an end: (kind 0 dead / 1 alive, value shift or total, stake, natloss shift)
                    if bi == 21 and p21wins:  # 004 3.24.3: a 21 after a split is paid at once
                        work += 1
                        q = q2 * m
                        if nrem == 0:
                            fr = _slot(base_key, 0, 0, 1, f_hkey, f_hrow, -1)
                            if fr < 0:
                                fr, dd, keep, f_keys, f_hkey, f_hrow, n_fin = _fin_new(
                                    base_key,
                                    dd,
                                    keep,
                                    f_keys,
                                    f_hkey,
                                    f_hrow,
                                    n_fin,
                                    kw,
                                    shoe0,
                                    p,
                                    dbase,
                                    d_ranks,
                                    d_mults,
                                    d_starts,
                                    d_outcome,
                                    d_orders,
                                    peek,
                                )
                            for z in range(pay_off[i], pay_off[i + 1]):
                                _k_dead(kmat, dd, fr, q * pay_prob[z], pay_shift[z] + R)
                            _k_book(kbook, keep[fr] * q, 1.0, lines21[i], -1)
                            fins = True
                            continue
                        d, n_out, o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, h_key, h_row = _row(
                            base_key,
                            h,
                            nrem,
                            hm,
                            n_out,
                            o_keys,
                            o_poly,
                            o_lines,
                            o_wager,
                            o_mass,
                            o_lo,
                            o_hi,
                            h_key,
                            h_row,
                        )
                        q = q2 * m
                        for z in range(pay_off[i], pay_off[i + 1]):
                            _dead(
                                o_poly, o_lo, o_hi, d, in_poly, in_lo, in_hi, s, q * pay_prob[z], pay_shift[z]
                            )
                        _book(o_lines, o_wager, o_mass, d, in_lines, in_wager, in_mass, s, q, 1.0)
                        for z in range(NL):
                            o_lines[d, z] += q * in_mass[s] * lines21[i, z]
                        continue
                    a = act3[t, i]
                    stop = bi == 21 or (one_card and ncards[i] == 2) or a == K.ACT_STAND or n - nd <= 0
                    if stop:  # 000 3.9.1 one card each; a stand; a 21 that waits for the dealer
                        work += 1
                        q = q2 * m
                        if nrem == 0:
                            fr = _slot(base_key, 0, 0, 1, f_hkey, f_hrow, -1)
                            if fr < 0:
                                fr, dd, keep, f_keys, f_hkey, f_hrow, n_fin = _fin_new(
                                    base_key,
                                    dd,
                                    keep,
                                    f_keys,
                                    f_hkey,
                                    f_hrow,
                                    n_fin,
                                    kw,
                                    shoe0,
                                    p,
                                    dbase,
                                    d_ranks,
                                    d_mults,
                                    d_starts,
                                    d_outcome,
                                    d_orders,
                                    peek,
                                )
                            _k_alive(kmat, dd, fr, q, bi, u1, u1, one_wager, u1, R)
                            _k_book(kbook, keep[fr] * q, 1.0, lines21[i], -2)
                            fins = True
                            continue
                        d, n_out, o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, h_key, h_row = _row(
                            base_key,
                            h,
                            nrem,
                            hm,
                            n_out,
                            o_keys,
                            o_poly,
                            o_lines,
                            o_wager,
                            o_mass,
                            o_lo,
                            o_hi,
                            h_key,
                            h_row,
                        )
                        q = q2 * m
                        _alive(o_poly, o_lo, o_hi, d, in_poly, in_lo, in_hi, s, q, bi, u1, u1, one_wager, u1)
                        _book(o_lines, o_wager, o_mass, d, in_lines, in_wager, in_mass, s, q, 1.0)
                        continue
                    n_left = n - nd
                    for r in range(10):
                        cr = left[r] - drawn[r]
                        if cr <= 0:
                            continue
                        qh = m * cr / n_left
                        j = trans[i, r]
                        if a == K.ACT_HIT and j >= 0:
                            if hmass[j] == 0.0:
                                # push j
                                k = hn
                                hn += 1
                                while k > 0:
                                    par = (k - 1) // 2
                                    if heap[par] >= j:
                                        break
                                    heap[k] = heap[par]
                                    k = par
                                heap[k] = j
                            hmass[j] += qh
                            continue
                        kind = 0
                        val = 0
                        stake = 1.0
                        nat = u1
                        line = -1
                        if j < 0:  # 000 3.16: a bust hand loses at once
                            stake = 2.0 if a == K.ACT_DOUBLE else 1.0
                            val = -int(stake) * u1
                        else:
                            # a double: one card (FED: the Aces held before it count one, 001 Doubling)
                            free = nace[j] > 0
                            if ace_one:
                                free = nace[j] > (nace[i] if ncards[i] == 2 else t)
                            hj = hard[j]
                            dt = hj + 10 if (free and hj + 10 <= 21) else hj
                            stake = 2.0
                            if dt == 21 and p21wins:
                                val = 2 * u1
                                line = dbl21_line
                            elif dt < 21 and rescue and rfl3[t, i, r] == 1:  # 000 3.11.4 rescue
                                val = -u1
                            else:
                                kind = 1
                                val = dt
                                nat = nat_dbl
                        work += 1
                        ek = base_key + kw[r]
                        q = q2 * qh
                        if nrem == 0:
                            fr = _slot(ek, 0, 0, 1, f_hkey, f_hrow, -1)
                            if fr < 0:
                                fr, dd, keep, f_keys, f_hkey, f_hrow, n_fin = _fin_new(
                                    ek,
                                    dd,
                                    keep,
                                    f_keys,
                                    f_hkey,
                                    f_hrow,
                                    n_fin,
                                    kw,
                                    shoe0,
                                    p,
                                    dbase,
                                    d_ranks,
                                    d_mults,
                                    d_starts,
                                    d_outcome,
                                    d_orders,
                                    peek,
                                )
                            if kind == 0:
                                _k_dead(kmat, dd, fr, q, val + R)
                            else:
                                _k_alive(kmat, dd, fr, q, val, int(stake) * u1, nat, one_wager, u1, R)
                            _k_book(kbook, keep[fr] * q, stake, lines21[i], line)
                            fins = True
                            continue
                        d, n_out, o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, h_key, h_row = _row(
                            ek,
                            h,
                            nrem,
                            hm,
                            n_out,
                            o_keys,
                            o_poly,
                            o_lines,
                            o_wager,
                            o_mass,
                            o_lo,
                            o_hi,
                            h_key,
                            h_row,
                        )
                        q = q2 * qh
                        if kind == 0:
                            _dead(o_poly, o_lo, o_hi, d, in_poly, in_lo, in_hi, s, q, val)
                        else:
                            ku = int(stake) * u1
                            _alive(
                                o_poly,
                                o_lo,
                                o_hi,
                                d,
                                in_poly,
                                in_lo,
                                in_hi,
                                s,
                                q,
                                val,
                                ku,
                                nat,
                                one_wager,
                                u1,
                            )
                        _book(o_lines, o_wager, o_mass, d, in_lines, in_wager, in_mass, s, q, stake)
                        if line >= 0:
                            o_lines[d, line] += q * in_mass[s]
                if work > work_limit or n_out > row_limit:
                    return o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, n_out, -1, f_keys, n_fin
            if not resplit:
                break
            w *= left[p] / n
            u[p] += 1
            ucur += kw[p]
            h += 1
        if fins:  # this state's final ends, summed apart first, then into the totals
            _k_apply(loc, loc_lw, kmat, kbook, in_poly, in_lo, in_hi, in_lines, in_wager, in_mass, s, R)
            _flush(loc, acc, acc_c)
            _flush(loc_lw, acc_lw, acc_lw_c)
    acc += acc_c
    acc_lw += acc_lw_c
    return o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, n_out, work, f_keys, n_fin
