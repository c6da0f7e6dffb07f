"""``dist_exact``'s recursion compiled (numba): exact split rounds on 6-8 deck shoes too.

The same recursion as ``dist_exact._Split.run`` (read its module's text): the hands of a split are
played one after another as the engine plays them (004 3.24.2; a pair card drawn as a second card
starts a new hand while fewer than the rules' hands exist, 000 3.9), the state the multiset of cards
the box has used with the hands made and the hands still to play (equal states merged: the chance
of an ordered run of cards depends on its multiset only), carrying per dealer final class (17..21,
Pontoon, bust; FED: "some hand alive" apart) the measure of the net of the hands finished, and the
dealer weighed at the end from the shoe less the box's cards. Here one level (one hand played from
every box state) is one compiled call: box states live in arrays, found again through an
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
from pontoon.analysis import kernels as K
from pontoon.analysis.dealer import NAT
from pontoon.analysis.dealer_rows import _table
from pontoon.analysis.dist_tables import LINES

NCLS = 8  # 0..4 = 17..21, 5 = Pontoon, 6 = bust, 7 = FED: the Pontoon class once some hand is alive
ALIVE = 7
_dealer_rows: Any = None  # dealer.dealer_batch_table's Python source compiled into the kernel (_compiled)
FIRST_ROWS = 1024  # room for a level's rows at first (grown by half where full)
MEM_LIMIT = 2**62  # bytes one split's levels may hold (precompute_splits --jobs); past it, None
on_level: Any = None  # bench's hook, after each level: (rows in, rows out, lattice points, ways)


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


def _fin_new(
    ukey: int,
    dd: np.ndarray,
    keep: np.ndarray,
    f_keys: np.ndarray,
    f_hkey: np.ndarray,
    f_hrow: np.ndarray,
    n_fin: int,
    kw: np.ndarray,
    shoe0: np.ndarray,
    p: int,
    dbase: np.ndarray,
    d_ranks: np.ndarray,
    d_mults: np.ndarray,
    d_starts: np.ndarray,
    d_outcome: np.ndarray,
    d_orders: np.ndarray,
    peek: bool,
) -> tuple[Any, ...]:
    """A final end's used counts ``ukey`` seen first: its row of the final ends' table,
    the dealer's classes from the shoe less the box's cards (both pair cards among them) and the
    chance of no dealer natural after a peek (``keep``; 1 without one), the arrays grown where full."""
    f_keys, f_hkey, f_hrow, n_fin = _collect(ukey, f_keys, f_hkey, f_hrow, n_fin)
    fr = n_fin - 1
    if fr >= dd.shape[0]:
        d2 = np.zeros((2 * dd.shape[0], 7))
        d2[:fr] = dd[:fr]
        dd = d2
        k2 = np.zeros(2 * keep.shape[0])
        k2[:fr] = keep[:fr]
        keep = k2
    gone = np.empty((1, 10), dtype=np.int64)
    for r in range(10):
        gone[0, r] = (ukey // kw[r]) % (shoe0[r] + 1)
    gone[0, p] += 2
    row = _dealer_rows(dbase, gone, d_ranks, d_mults, d_starts, d_outcome, d_orders)
    k = 0.0
    for c in range(7):
        v = 0.0 if (peek and c == NAT) else row[0, c]  # the peek: a natural ended the round before the split
        dd[fr, c] = v
        k += v
    keep[fr] = k
    return fr, dd, keep, f_keys, f_hkey, f_hrow, n_fin


def _flush(loc: np.ndarray, tot: np.ndarray, comp: np.ndarray) -> None:
    """``loc`` added into ``tot`` (compensation kept in ``comp``), then zeroed."""
    for x in range(loc.shape[0]):
        v = loc[x]
        if v == 0.0:
            continue
        t = tot[x] + v
        if abs(tot[x]) >= abs(v):
            comp[x] += (tot[x] - t) + v
        else:
            comp[x] += (v - t) + tot[x]
        tot[x] = t
        loc[x] = 0.0


def _collect(
    ukey: int, f_keys: np.ndarray, f_hkey: np.ndarray, f_hrow: np.ndarray, n_fin: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``ukey`` added to the final ends' set, the arrays grown where full."""
    if _slot(ukey, 0, 0, 1, f_hkey, f_hrow, -1) >= 0:
        return f_keys, f_hkey, f_hrow, n_fin
    if n_fin >= f_keys.shape[0]:
        k2 = np.empty(2 * f_keys.shape[0], dtype=np.int64)
        k2[:n_fin] = f_keys[:n_fin]
        f_keys = k2
        f_hkey = np.full(2 * f_hkey.shape[0], -1, dtype=np.int64)
        f_hrow = np.empty(f_hkey.shape[0], dtype=np.int64)
        for z in range(n_fin):
            _claim(f_keys[z], f_hkey, f_hrow, z)
    f_keys[n_fin] = ukey
    _claim(ukey, f_hkey, f_hrow, n_fin)
    return f_keys, f_hkey, f_hrow, n_fin + 1


def _k_dead(kmat: np.ndarray, dds: np.ndarray, fr: int, q: float, j: int) -> None:
    """A final end that does not wait for the dealer, its outcome at shift ``j`` - R: every class
    weighed by the dealer's chance of it (FED's "alive" class: the Pontoon's)."""
    for c in range(NCLS):
        kmat[c, j] += q * dds[fr, NAT if c == ALIVE else c]


def _k_alive(
    kmat: np.ndarray,
    dds: np.ndarray,
    fr: int,
    q: float,
    total: int,
    ku: int,
    nat: int,
    one_wager: bool,
    u1: int,
    R: int,
) -> None:
    """A final hand standing on ``total`` (as ``_alive``), weighed by the dealer's classes."""
    for c in range(NCLS):
        if c < 5:
            dt = 17 + c
            k = ku if total > dt else (0 if total == dt else -ku)
        elif c == 6:  # the dealer busts
            k = ku
        elif c == ALIVE:
            k = 0  # FED: some hand was alive already: one wager in all was counted (001 Splits)
        elif one_wager:
            k = -u1  # FED: this hand is the first alive one: one wager lost to the Pontoon
        else:
            k = -nat
        kmat[c, k + R] += q * dds[fr, NAT if c == ALIVE else c]


def _k_book(kbook: np.ndarray, kq: float, stake: float, lines21: np.ndarray, line: int) -> None:
    """Pay lines and stake of a final end, ``kq`` its chance times the dealer's of no natural after
    a peek (1 without one): a 21 paid at once (``line`` -1) its lines ``lines21``, else the one
    line ``line`` where >= 0. ``kbook``: the lines, then the chances, then the chances times stakes."""
    nl = lines21.shape[0]
    kbook[nl] += kq
    kbook[nl + 1] += kq * stake
    if line == -1:
        for z in range(nl):
            kbook[z] += kq * lines21[z]
    elif line >= 0:
        kbook[line] += kq


def _k_apply(
    loc: np.ndarray,
    loc_lw: np.ndarray,
    kmat: np.ndarray,
    kbook: np.ndarray,
    in_poly: np.ndarray,
    in_lo: np.ndarray,
    in_hi: np.ndarray,
    in_lines: np.ndarray,
    in_wager: np.ndarray,
    in_mass: np.ndarray,
    s: int,
    R: int,
) -> None:
    """Row ``s``'s final ends gathered in ``kmat`` / ``kbook``: each class's measure moved by each
    shift, times its weight, onto ``loc``; the pay lines and amount wagered onto ``loc_lw``; both
    gatherings zeroed."""
    L = loc.shape[0]
    for c in range(NCLS):
        for j in range(kmat.shape[1]):
            wc = kmat[c, j]
            if wc == 0.0:
                continue
            kmat[c, j] = 0.0
            k = j - R
            lo = max(in_lo[s], -k)
            hi = min(in_hi[s], L - 1 - k)
            for x in range(lo, hi + 1):
                loc[x + k] += wc * in_poly[s, c, x]
    nl = in_lines.shape[1]
    kq, ks = kbook[nl], kbook[nl + 1]
    for z in range(nl):
        loc_lw[z] += kq * in_lines[s, z] + in_mass[s] * kbook[z]
        kbook[z] = 0.0
    loc_lw[nl] += kq * in_wager[s] + in_mass[s] * ks
    kbook[nl] = 0.0
    kbook[nl + 1] = 0.0


def _slot(ukey: int, h: int, rem: int, hm: int, h_key: np.ndarray, h_row: np.ndarray, n_out: int) -> int:
    """The row of box state (ukey, h, rem); ``n_out`` (claimed) where it is new."""
    key = (ukey * hm + h) * hm + rem
    mask = h_key.shape[0] - 1
    x = (key * 0x5851F42D4C957F2D) & 0x7FFFFFFFFFFFFFFF
    pos = (x >> 17) & mask
    while True:
        kk = h_key[pos]
        if kk == key:
            return h_row[pos]
        if kk == -1:
            return n_out
        pos = (pos + 1) & mask


def _claim(key: int, h_key: np.ndarray, h_row: np.ndarray, row: int) -> None:
    mask = h_key.shape[0] - 1
    x = (key * 0x5851F42D4C957F2D) & 0x7FFFFFFFFFFFFFFF
    pos = (x >> 17) & mask
    while h_key[pos] != -1:
        pos = (pos + 1) & mask
    h_key[pos] = key
    h_row[pos] = row


def _row(
    ukey: int,
    h: int,
    rem: int,
    hm: int,
    n_out: int,
    o_keys: np.ndarray,
    o_poly: np.ndarray,
    o_lines: np.ndarray,
    o_wager: np.ndarray,
    o_mass: np.ndarray,
    o_lo: np.ndarray,
    o_hi: np.ndarray,
    h_key: np.ndarray,
    h_row: np.ndarray,
) -> tuple[Any, ...]:
    """The row of box state (ukey, h, rem), made (empty, the arrays grown where full) where it is
    new: (row, rows made, the arrays)."""
    d = _slot(ukey, h, rem, hm, h_key, h_row, n_out)
    if d == n_out:
        o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, h_key, h_row = _grow(
            o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, h_key, h_row, n_out, hm
        )
        d = _slot(ukey, h, rem, hm, h_key, h_row, n_out)
        o_keys[d] = (ukey * hm + h) * hm + rem
        o_lo[d] = o_poly.shape[2]
        o_hi[d] = -1
        _claim(o_keys[d], h_key, h_row, d)
        n_out += 1
    return d, n_out, o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, h_key, h_row


def _grow(
    o_keys: np.ndarray,
    o_poly: np.ndarray,
    o_lines: np.ndarray,
    o_wager: np.ndarray,
    o_mass: np.ndarray,
    o_lo: np.ndarray,
    o_hi: np.ndarray,
    h_key: np.ndarray,
    h_row: np.ndarray,
    n_out: int,
    hm: int,
) -> tuple[Any, ...]:
    """Room for row ``n_out`` (its slot claimed in the table): arrays doubled where full."""
    cap = o_keys.shape[0]
    if n_out >= cap:
        cap2 = cap + cap // 2 + 1  # by half: the old and new arrays side by side, 2.5 times the rows
        k2 = np.empty(cap2, dtype=np.int64)
        k2[:n_out] = o_keys[:n_out]
        p2 = np.zeros((cap2, o_poly.shape[1], o_poly.shape[2]))
        p2[:n_out] = o_poly[:n_out]
        l2 = np.zeros((cap2, o_lines.shape[1]))
        l2[:n_out] = o_lines[:n_out]
        w2 = np.zeros(cap2)
        w2[:n_out] = o_wager[:n_out]
        m2 = np.zeros(cap2)
        m2[:n_out] = o_mass[:n_out]
        lo2 = np.empty(cap2, dtype=np.int64)
        lo2[:n_out] = o_lo[:n_out]
        hi2 = np.empty(cap2, dtype=np.int64)
        hi2[:n_out] = o_hi[:n_out]
        o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi = k2, p2, l2, w2, m2, lo2, hi2
    if 2 * (n_out + 1) > h_key.shape[0]:
        hcap = 2 * h_key.shape[0]
        h_key = np.full(hcap, -1, dtype=np.int64)
        h_row = np.empty(hcap, dtype=np.int64)
        for r in range(n_out):
            _claim(o_keys[r], h_key, h_row, r)
    return o_keys, o_poly, o_lines, o_wager, o_mass, o_lo, o_hi, h_key, h_row


def _dead(
    o_poly: np.ndarray,
    o_lo: np.ndarray,
    o_hi: np.ndarray,
    d: int,
    in_poly: np.ndarray,
    in_lo: np.ndarray,
    in_hi: np.ndarray,
    s: int,
    q: float,
    k: int,
) -> None:
    """Every class's measure of row ``s``, times ``q``, moved ``k`` lattice points, onto row ``d``."""
    L = o_poly.shape[2]
    lo = max(in_lo[s], -k)
    hi = min(in_hi[s], L - 1 - k)
    if hi < lo:
        return
    for c in range(NCLS):
        for x in range(lo, hi + 1):
            o_poly[d, c, x + k] += q * in_poly[s, c, x]
    o_lo[d] = min(o_lo[d], lo + k)
    o_hi[d] = max(o_hi[d], hi + k)


def _alive(
    o_poly: np.ndarray,
    o_lo: np.ndarray,
    o_hi: np.ndarray,
    d: int,
    in_poly: np.ndarray,
    in_lo: np.ndarray,
    in_hi: np.ndarray,
    s: int,
    q: float,
    total: int,
    ku: int,
    nat: int,
    one_wager: bool,
    u1: int,
) -> None:
    """A hand standing on ``total`` with ``ku`` lattice points at stake: each dealer class's measure
    moved by its outcome against that class (a Pontoon takes ``nat``; FED: one wager in all once
    some hand is alive, 001 Splits)."""
    L = o_poly.shape[2]
    lo0, hi0 = in_lo[s], in_hi[s]
    if hi0 < lo0:
        return
    for c in range(7):
        if c < 5:
            dt = 17 + c
            k = ku if total > dt else (0 if total == dt else -ku)
        elif c == 6:  # the dealer busts
            k = ku
        elif one_wager:
            continue
        else:
            k = -nat
        lo = max(lo0, -k)
        hi = min(hi0, L - 1 - k)
        for x in range(lo, hi + 1):
            o_poly[d, c, x + k] += q * in_poly[s, c, x]
    if one_wager:  # the Pontoon class: one wager lost if none was alive yet, then "alive"
        k = -u1
        lo = max(lo0, -k)
        hi = min(hi0, L - 1 - k)
        for x in range(lo0, hi0 + 1):
            o_poly[d, ALIVE, x] += q * in_poly[s, ALIVE, x]
        for x in range(lo, hi + 1):
            o_poly[d, ALIVE, x + k] += q * in_poly[s, NAT, x]
    o_lo[d] = max(0, min(o_lo[d], lo0 - max(ku, max(nat, u1))))
    o_hi[d] = min(L - 1, max(o_hi[d], hi0 + ku))


def _book(
    o_lines: np.ndarray,
    o_wager: np.ndarray,
    o_mass: np.ndarray,
    d: int,
    in_lines: np.ndarray,
    in_wager: np.ndarray,
    in_mass: np.ndarray,
    s: int,
    q: float,
    stake: float,
) -> None:
    """Chance, pay lines and amount wagered of row ``s`` times ``q``, onto row ``d`` (this hand's stake added)."""
    o_mass[d] += q * in_mass[s]
    o_wager[d] += q * in_wager[s] + q * in_mass[s] * stake
    for z in range(o_lines.shape[1]):
        o_lines[d, z] += q * in_lines[s, z]


@functools.cache
def _compiled() -> Any:
    """The level kernel compiled by numba (on first use; cached on disk)."""
    from numba import njit

    g = globals()
    for name in (
        "_slot",
        "_claim",
        "_row",
        "_grow",
        "_dead",
        "_alive",
        "_book",
        "_collect",
        "_flush",
        "_k_dead",
        "_k_alive",
        "_k_book",
        "_k_apply",
        "_fin_new",
    ):
        fn = g[name]
        g[name] = njit(cache=True, inline="always")(getattr(fn, "py_func", fn))
    raw = getattr(dealer.dealer_batch_table, "py_func", None)
    if raw is None:  # compiled ahead of time: the kernel's Python source, kept by aot.kernel
        from pontoon.analysis import aot

        raw = aot._KERNELS[dealer.__name__]["dealer_batch_table"][0]
    g["_dealer_rows"] = njit(raw)
    return njit(cache=True)(_level)


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
