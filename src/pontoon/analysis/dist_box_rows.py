"""``dist_box``'s kernel helpers (numba, inlined into ``dist_box_level._level`` by
``dist_box._compiled``): the box states' rows and their open-addressing table (``_slot``,
``_claim``, ``_row``, ``_grow``), a hand's end moved onto a row (``_dead``, ``_alive``, ``_book``),
and the final ends weighed by the dealer at once (``_fin_new``, ``_k_*``, ``_flush``,
``_collect``). Plain Python until compiled; read ``dist_box``'s text for the recursion."""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon.analysis.dealer import NAT

NCLS = 8  # 0..4 = 17..21, 5 = Pontoon, 6 = bust, 7 = FED: the Pontoon class once some hand is alive
ALIVE = 7
_dealer_rows: Any = None  # dealer.dealer_batch_table's Python source compiled into the kernel (_compiled)
HELPERS = (
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
)


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
