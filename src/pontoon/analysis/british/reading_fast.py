"""The reading banker's programme as numba kernels (issue 27 item 3; docs/analysis.md "Several players").

``reading._banker_tree`` (his backward induction over his own cards, a numpy pass per hand he can reach) and
``reading_response.outcome_chances_many`` (his outcome distribution for many packs left, a Python recursion)
cost about 4 and 5 ms a call with two players, which made the players' best response to him slow to sample
(``reading_response_sample``). Here the same two computations run over a flat table of the banker's hands
from his first two cards (``banker_nodes``: every multiset he can reach, parents before children, each
with its outcome, whether he may twist, the cards drawn since the first two and each next card's hand):

* ``tree_values``: per hand, the players' value if he stays (``sum_s f_s a_s[outcome] / sum_s f_s w_s``,
  ``f_s`` the state's weight times the chance of his cards drawn since the first two, computed per state
  from the falling factorials as in ``reading``), if he twists and then plays best, and the blind banker's
  continuation, by one forward pass (which hands he reaches: a hand is reached where its parent has mass and
  he may twist there, as the recursion) and one backward pass over scalars;
* ``outcome_chances_fast``: his outcome distribution for each pack left, twisting at the flagged hands,
  every path summed (parents before children).

Exactly the Python programme's arithmetic up to the order of the sums (the tests hold them equal to 1e-12
on random states: ``tests/analysis/test_british_reading_fast.py``). The kernels are ``numba.njit(cache=True)``
(compiled on first use, then loaded from numba's cache); without numba they run as Python.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS, Hand, banker_can_twist, banker_outcome

OUTCOMES = 22  # as reading.OUTCOMES: 0 bust, 1 five card trick, else the total he stays on
MAX_EXTRA = 3  # at most five cards: three after the first two (003 Five Card Trick)
TIE = 1e-9  # he twists where twisting is worth less to the players than staying by more than this (relative)


def twists_better(twist: Any, stay: Any) -> Any:
    """Where he twists: twisting worth less to the players than staying beyond rounding (``TIE``, relative
    to the stake's scale). At a tie (both worth the same, e.g. every live hand a Five Card Trick) he
    stays, whichever order the sums were taken in (``reading_last`` sums in another order)."""
    return twist < stay - TIE * np.maximum(1.0, np.abs(stay))


def _njit(fn: Any) -> Any:
    """numba's JIT with its on-disk cache where it loads (the kernels are plain loops)."""
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba is a dependency
        return fn
    return njit(cache=True, nogil=True)(fn)


@cache
def banker_nodes(first: Hand) -> tuple[tuple[Hand, ...], dict[Hand, int], tuple[np.ndarray, ...]]:
    """Every hand the banker can reach from his first two cards ``first`` (sorted), parents before children
    (by the number of cards): the hands, their index, and the flat arrays ``(outcome, can_twist, extra,
    n_extra, kid, last, last_more, dfs)``: ``extra[h]`` the classes drawn since the first two (ascending, -1
    padded), ``kid[h, c]`` the hand after a ``c`` (-1 where he may not twist), ``last[h]`` its largest class
    drawn since the first two and ``last_more[h]`` how many of that class came before it (the hand less it is
    its canonical parent), ``dfs`` the hands depth first over the canonical parents."""
    hands: list[Hand] = [first]
    index = {first: 0}
    k = 0
    while k < len(hands):
        h = hands[k]
        k += 1
        if banker_can_twist(h):
            for c in range(NCLASS):
                d = tuple(sorted((*h, c)))
                if d not in index:
                    index[d] = len(hands)
                    hands.append(d)
    m = len(hands)
    outcome = np.array([banker_outcome(h) for h in hands], np.int64)
    can = np.array([banker_can_twist(h) for h in hands], np.bool_)
    extra = np.full((m, MAX_EXTRA), -1, np.int64)
    n_extra = np.zeros(m, np.int64)
    kid = np.full((m, NCLASS), -1, np.int64)
    rest = list(first)
    for i, h in enumerate(hands):
        more = list(h)
        for c in rest:
            more.remove(c)
        n_extra[i] = len(more)
        extra[i, : len(more)] = sorted(more)
        if can[i]:
            for c in range(NCLASS):
                kid[i, c] = index[tuple(sorted((*h, c)))]
    # the canonical parent of a hand: it less its largest card drawn since the first two (the Python
    # recursion's first path to it); depth-first over that tree, so a parent's weights are on the stack
    last = np.full(m, -1, np.int64)
    last_more = np.zeros(m, np.int64)
    below: list[list[int]] = [[] for _ in range(m)]
    for i in range(1, m):
        c = int(extra[i, n_extra[i] - 1])
        last[i] = c
        last_more[i] = int((extra[i, : n_extra[i] - 1] == c).sum())
        parent = index[tuple(sorted((*rest, *(int(x) for x in extra[i, : n_extra[i] - 1]))))]
        below[parent].append(i)
    dfs: list[int] = []
    todo = [0]
    while todo:
        i = todo.pop()
        dfs.append(i)
        todo.extend(reversed(below[i]))
    order = np.array(dfs, np.int64)
    for a in (outcome, can, extra, n_extra, kid, last, last_more, order):
        a.setflags(write=False)
    return tuple(hands), index, (outcome, can, extra, n_extra, kid, last, last_more, order)


@_njit
def _k_tree(
    outcome, can, extra, n_extra, kid, last, last_more, dfs, blind_flag, n, digits, w, a, stay, twist, reached
):  # type: ignore[no-untyped-def]
    """The banker's values at every hand from his first two (see the module's text). ``stay``/``twist``:
    out, per hand (NaN where not reached / where he may not twist or has no mass); returns (value, blind)."""
    m = outcome.shape[0]
    ns = w.shape[0]
    total = 0
    for c in range(n.shape[0]):
        total += n[c]
    size = 0
    for c in range(digits.shape[1]):
        size += digits[0, c]
    left = total - size
    base = np.ones(ns)
    for s in range(ns):
        x = 1.0
        for c in range(digits.shape[1]):
            for j in range(digits[s, c]):
                x *= n[c] - j
        base[s] = x
    den = 1.0
    for j in range(size):
        den *= total - j
    for s in range(ns):
        base[s] /= den
    mass = np.zeros(m)
    sums = np.zeros(m)
    dig = np.ascontiguousarray(digits.T)  # [class, state]
    a_t = np.ascontiguousarray(a.T)  # [outcome, state]
    fs = np.empty((MAX_EXTRA + 1, ns))  # the weights along the depth-first path
    for idx in range(m):  # every hand: its mass and stay sum (the weights from its canonical parent's)
        i = dfs[idx]
        d = n_extra[i]
        if d == 0:
            for s in range(ns):
                fs[0, s] = base[s]
        else:
            c = last[i]
            mo = last_more[i]
            den = left - (d - 1)
            for s in range(ns):
                fs[d, s] = fs[d - 1, s] * (n[c] - dig[c, s] - mo) / den
        o = outcome[i]
        ms = 0.0
        ss = 0.0
        for s in range(ns):
            ms += fs[d, s] * w[s]
            ss += fs[d, s] * a_t[o, s]
        mass[i] = ms
        sums[i] = ss
    for i in range(m):
        reached[i] = i == 0
    for i in range(m):  # parents before children: which hands he reaches
        if not reached[i] or not can[i] or mass[i] <= 0:
            continue
        ne = n_extra[i]
        for c in range(n.shape[0]):
            more = 0
            for j in range(ne):
                if extra[i, j] == c:
                    more += 1
            if n[c] - more > 0:
                reached[kid[i, c]] = True
    best = np.zeros(m)
    blind = np.zeros(m)
    for i in range(m - 1, -1, -1):  # children before parents
        stay[i] = np.nan
        twist[i] = np.nan
        if not reached[i]:
            continue
        b = sums[i]
        bl = sums[i]
        if can[i] and mass[i] > 0:
            t = 0.0
            tb = 0.0
            ne = n_extra[i]
            for c in range(n.shape[0]):
                more = 0
                for j in range(ne):
                    if extra[i, j] == c:
                        more += 1
                if n[c] - more <= 0:
                    continue
                t += best[kid[i, c]]
                tb += blind[kid[i, c]]
            twist[i] = t / mass[i]
            b = min(b, t)
            if blind_flag[i]:
                bl = tb
        if mass[i] > 0:
            stay[i] = sums[i] / mass[i]
        best[i] = b
        blind[i] = bl
    return best[0] / mass[0], blind[0] / mass[0]


def tree_values(
    first: Hand,
    n: np.ndarray,
    digits: np.ndarray,
    w: np.ndarray,
    a: np.ndarray,
    blind_flag: np.ndarray,
) -> tuple[dict[Hand, float], dict[Hand, float], float, float, np.ndarray]:
    """``reading._banker_tree``'s result (stay and twist values per hand reached, the value and the blind
    banker's), from the kernel, and the ``twist_flags`` of the hands where he twists (twist below stay).
    ``blind_flag``: per hand of ``banker_nodes(first)``, whether the blind banker twists there."""
    hands, _, (outcome, can, extra, n_extra, kid, last, last_more, dfs) = banker_nodes(first)
    stay = np.empty(len(hands))
    twist = np.empty(len(hands))
    reached = np.zeros(len(hands), np.bool_)
    value, blind = _k_tree(
        outcome,
        can,
        extra,
        n_extra,
        kid,
        last,
        last_more,
        dfs,
        blind_flag,
        np.ascontiguousarray(n, np.int64),
        np.ascontiguousarray(digits, np.int64),
        np.ascontiguousarray(w, np.float64),
        np.ascontiguousarray(a, np.float64),
        stay,
        twist,
        reached,
    )
    i_st = np.flatnonzero(~np.isnan(stay))
    i_tw = np.flatnonzero(~np.isnan(twist))
    st = dict(zip([hands[i] for i in i_st], stay[i_st].tolist(), strict=True))
    tw = dict(zip([hands[i] for i in i_tw], twist[i_tw].tolist(), strict=True))
    with np.errstate(invalid="ignore"):
        flags = twists_better(twist, stay)  # NaN (not reached, no twist) compares False: he stays
    return st, tw, float(value), float(blind), flags


@_njit
def _k_outcomes(outcome, can, extra, n_extra, kid, flag, rooms, out):  # type: ignore[no-untyped-def]
    """Per pack left (``rooms``: [m, class]) the chance of each banker outcome, twisting at the ``flag``ged
    hands, every path summed (parents before children)."""
    h = outcome.shape[0]
    p = np.zeros(h)
    for r in range(rooms.shape[0]):
        total = 0
        for c in range(rooms.shape[1]):
            total += rooms[r, c]
        for i in range(h):
            p[i] = 0.0
        p[0] = 1.0
        for i in range(h):
            if p[i] == 0.0:
                continue
            if can[i] and flag[i]:
                ne = n_extra[i]
                for c in range(rooms.shape[1]):
                    more = 0
                    for j in range(ne):
                        if extra[i, j] == c:
                            more += 1
                    avail = rooms[r, c] - more
                    if avail > 0:
                        p[kid[i, c]] += p[i] * avail / (total - ne)
            else:
                out[r, outcome[i]] += p[i]


def twist_flags(first: Hand, tw: frozenset[Hand]) -> np.ndarray:
    """Per hand of ``banker_nodes(first)``: whether he twists there."""
    hands, _, _ = banker_nodes(first)
    return np.array([h in tw for h in hands], np.bool_)


def outcome_chances_fast(first: Hand, rooms: np.ndarray, tw: frozenset[Hand] | np.ndarray) -> np.ndarray:
    """``reading_response.outcome_chances_many`` (``rooms``: [m, class], the packs left; ``tw``: the hands
    where he twists, or their ``twist_flags``), from the kernel."""
    _, _, (outcome, can, extra, n_extra, kid, _, _, _) = banker_nodes(first)
    flag = tw if isinstance(tw, np.ndarray) else twist_flags(first, tw)
    r = np.ascontiguousarray(rooms, np.int64).reshape(-1, NCLASS)
    out = np.zeros((r.shape[0], OUTCOMES))
    _k_outcomes(outcome, can, extra, n_extra, kid, flag, r, out)
    return out


@_njit
def _k_step_fast(codes, digits, w, a, hcodes, hdigits, hw, hpay, cap):  # type: ignore[no-untyped-def]
    """``reading._k_step`` (one hand added to the programme: every (state, face-down multiset) pair that fits
    the pack, the states merged by code) with an open-addressing table of codes instead of a typed dict."""
    n, m, k = codes.shape[0], hcodes.shape[0], a.shape[1]
    ncls = digits.shape[1]
    size = 16
    while size < 2 * n:
        size *= 2
    oc = np.empty(size, np.int64)
    od = np.empty((size, ncls), np.int64)
    ow = np.zeros(size)
    oa = np.zeros((size, k))
    slots = 64
    while slots < 4 * size:
        slots *= 2
    table = np.full(slots, -1, np.int64)
    cnt = 0
    for i in range(n):
        for j in range(m):
            ok = True
            for c in range(ncls):
                if digits[i, c] + hdigits[j, c] > cap[c]:
                    ok = False
                    break
            if not ok:
                continue
            code = codes[i] + hcodes[j]
            mask = slots - 1
            h = ((code * 2654435761) ^ (code >> 15)) & mask
            while table[h] >= 0 and oc[table[h]] != code:
                h = (h + 1) & mask
            at = table[h]
            if at < 0:
                if cnt == size:
                    size *= 2
                    oc2 = np.empty(size, np.int64)
                    od2 = np.empty((size, ncls), np.int64)
                    ow2 = np.zeros(size)
                    oa2 = np.zeros((size, k))
                    oc2[:cnt] = oc[:cnt]
                    od2[:cnt] = od[:cnt]
                    ow2[:cnt] = ow[:cnt]
                    oa2[:cnt] = oa[:cnt]
                    oc, od, ow, oa = oc2, od2, ow2, oa2
                if 2 * (cnt + 1) > slots:  # keep the table at most half full: rehash
                    slots *= 2
                    mask = slots - 1
                    table = np.full(slots, -1, np.int64)
                    for t in range(cnt):
                        hh = ((oc[t] * 2654435761) ^ (oc[t] >> 15)) & mask
                        while table[hh] >= 0:
                            hh = (hh + 1) & mask
                        table[hh] = t
                    h = ((code * 2654435761) ^ (code >> 15)) & mask
                    while table[h] >= 0:
                        h = (h + 1) & mask
                at = cnt
                table[h] = at
                oc[at] = code
                for c in range(ncls):
                    od[at, c] = digits[i, c] + hdigits[j, c]
                cnt += 1
            x = w[i] * hw[j]
            ow[at] += x
            for o in range(k):
                oa[at, o] += a[i, o] * hw[j] + x * hpay[j, o]
    return oc[:cnt], od[:cnt], ow[:cnt], oa[:cnt]
