"""Resplits on the full pack (issue 27; 003 Split: "If either of the new cards dealt is equal to the first two you
may choose to split again, creating three or even (theoretically) four separate hands"): ``split_resplit.OwnWorld``
compiled.

The same values as ``OwnWorld`` (its docstring: against a banker whose play reads his own cards only, each hand is
settled against the pack left when it ends, so the player's state after a hand ends is the cards out and the
hands still to play), computed by one numba recursion memoized on (the cards out, the second cards of the hands
still to play, the hands held): ``rest`` plays the next hand by a backward pass over the split hand's graph
(``split_fast.hand_graph``: the states reachable from its start), each end of it worth the hand settled against
the banker's outcome chances for the cards out then (computed once per composition, ``_dist``) plus ``rest`` of
the hands after it from there; at the start of a hand x-x the resplit (``_split_again``: each new hand gets a card
at once) where the rules allow. ``resplit_values_fast`` gives ``split_resplit.resplit_values``'s ``ra`` and ``rb``
for the passes (``SplitModel.run(..., resplit=...)``) in one call; equal to ``OwnWorld`` to 1e-12 on reduced packs
(``tests/analysis/test_british_resplits.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS
from pontoon.analysis.british.split_fast import SplitModel, _k_banker
from pontoon.analysis.british.values import _jit


def _jit_rec(fn: Any) -> Any:
    """numba's JIT without its on-disk cache: a recursive kernel loaded from the cache crashes the process."""
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba is a dependency
        return fn
    return njit(nogil=True)(fn)


MISSING = -1e300  # not in the memo (no value is that low)
NDIST = 25  # per composition: the banker-settled value per stake of each total 0..22 (22: five cards), pn, pp
TOTAL, P0, P1, X, MAXH, RSP = range(6)  # ``ints`` of the kernels' tuple (``_context``)


CHUNK = 1 << 15  # rows of the banker summaries' store per chunk (``_dist``)


@_jit
def _dist(q, K, dmemo, dstore):  # type: ignore[no-untyped-def]
    """The banker's outcome summary for the cards ``q`` out of the pack (``NDIST`` values; memoized: ``dmemo`` maps
    the composition's code to a row of ``dstore``, a list of ``CHUNK``-row arrays)."""
    counts, base, cls, mul, size, w, out, binom, pay, ints = (
        K[0],
        K[1],
        K[2],
        K[3],
        K[4],
        K[5],
        K[6],
        K[7],
        K[8],
        K[9],
    )
    code = 0
    for c in range(q.shape[0]):
        code += q[c] * base[c]
    row = dmemo.get(code, -1)
    if row >= 0:
        return dstore[row // CHUNK][row % CHUNK]
    row = len(dmemo)
    if row // CHUNK == len(dstore):
        dstore.append(np.zeros((CHUNK, NDIST)))
    r = dstore[row // CHUNK][row % CHUNK]
    total, p0, p1 = ints[0], ints[1], ints[2]
    no = pay.shape[1]
    outp = np.zeros(no)
    qq = np.zeros(cls.shape[0])
    _k_banker(q, counts, total, cls, mul, size, w, out, binom, outp, qq)
    s = 0.0
    for o in range(no):
        s += outp[o]
    for t in range(23):
        a = 0.0
        for o in range(no):
            a += outp[o] * pay[t, o]
        r[t] = a
    r[23] = s
    left = total - q.sum()
    # 003: the banker's Pontoon, shown before the split, collects on the initial stake
    r[24] = (counts[p0] - q[p0]) * (counts[p1] - q[p1]) / binom[left, 2] if left >= 2 else 0.0
    dmemo[code] = row
    return r


@_jit
def _ended(d, e, ends):  # type: ignore[no-untyped-def]
    """An ended hand (end ``e``) settled against the banker's summary ``d`` (``OwnWorld.ended``)."""
    val = ends[1, e] * d[23]  # busts, a Royal Pontoon: per stake, paid unless the banker has a Pontoon
    t = int(ends[2, e])
    if t >= 0:
        val += ends[0, e] * d[t]
    return val


@_jit_rec
def _rest(q, cs, nh, K, memo, dmemo, dstore):  # type: ignore[no-untyped-def]
    """The best value of the hands (x, cs[0]), (x, cs[1]), ... still to play (their cards in ``q``, the cards out),
    the player holding ``nh`` hands; each hand settled when it ends (``OwnWorld.rest``)."""
    n = cs.shape[0]
    if n == 0:
        return 0.0
    counts, base, ints = K[0], K[1], K[9]
    cnt, end, forced, a_start, k_start, k_cls, k_node = K[10], K[11], K[12], K[13], K[14], K[15], K[16]
    r_off, r_nodes, ends = K[17], K[18], K[19]
    total, x, maxh, rsp = ints[0], ints[3], ints[4], ints[5]
    nc = counts.shape[0]
    code = 0
    for c in range(nc):
        code += q[c] * base[c]
    key = code * 5 + nh
    for i in range(n):
        key = key * 13 + cs[i] + 1
    key = key * 5 + n
    got = memo.get(key, MISSING)
    if got != MISSING:
        return got
    c1 = cs[0]
    after = cs[1:].copy()
    b = q.copy()  # the cards out but the hand's own
    b[x] -= 1
    b[c1] -= 1
    v = np.empty(cnt.shape[0])  # every reachable node is set before it is read (children first)
    qj = np.zeros(nc, np.int64)
    start = r_nodes[r_off[c1 + 1] - 1]  # listed children first: the start last
    for i in range(r_off[c1], r_off[c1 + 1]):
        j = r_nodes[i]
        good = True
        sz = 0
        for c in range(nc):
            qj[c] = b[c] + cnt[j, c]
            sz += qj[c]
            if qj[c] > counts[c]:
                good = False
        if not good:
            v[j] = 0.0
            continue
        bestv = -1e300
        e = end[j]
        if e >= 0:
            bestv = _ended(_dist(qj, K, dmemo, dstore), e, ends) + _rest(
                qj, after, nh, K, memo, dmemo, dstore
            )
        if j == start and c1 == x and rsp != 0 and nh < maxh:  # 003 Split: "split again"
            sv = _split_again(qj, after, nh, K, memo, dmemo, dstore)
            if sv > bestv:
                bestv = sv
        if not forced[j]:
            left = total - sz
            for a in range(a_start[j], a_start[j + 1]):
                acc = 0.0
                for k in range(k_start[a], k_start[a + 1]):
                    c = k_cls[k]
                    lc = counts[c] - qj[c]
                    if lc > 0:
                        acc += lc / left * v[k_node[k]]
                if acc > bestv:
                    bestv = acc
        v[j] = bestv
    res = v[start]
    memo[key] = res
    return res


@_jit_rec
def _split_again(q, after, nh, K, memo, dmemo, dstore):  # type: ignore[no-untyped-def]
    """The hand x-x (in ``q``) split again, the hands ``after`` to follow: each new hand gets a card at once (003
    "The banker immediately deals another card face down to each of your hands"; ``OwnWorld.split_again``)."""
    counts, total = K[0], K[9][0]
    nc = counts.shape[0]
    left = total - q.sum()
    acc = 0.0
    q2 = q.copy()
    hands = np.zeros(after.shape[0] + 2, np.int64)
    hands[2:] = after
    for a in range(nc):
        ka = counts[a] - q[a]
        if ka <= 0:
            continue
        q2[a] += 1
        for b in range(nc):
            kb = counts[b] - q2[b]
            if kb <= 0:
                continue
            q2[b] += 1
            hands[0], hands[1] = a, b
            acc += ka / left * kb / (left - 1) * _rest(q2, hands, nh + 1, K, memo, dmemo, dstore)
            q2[b] -= 1
        q2[a] -= 1
    return acc


@_jit_rec
def _k_resplits(K, collects, e_mset, mcnt, ra, rb, memo, dmemo, dstore):  # type: ignore[no-untyped-def]
    """``ra[c2]``, ``rb[e]`` of ``split_resplit.resplit_values``, the banker's Pontoon included (left -inf where
    the cards cannot be)."""
    counts, x, ends = K[0], K[9][3], K[19]
    nc = counts.shape[0]
    q = np.zeros(nc, np.int64)
    one = np.zeros(1, np.int64)
    none = np.zeros(0, np.int64)
    for c2 in range(nc):
        q[:] = 0
        q[x] = 3
        q[c2] += 1
        if q[x] > counts[x] or q[c2] > counts[c2]:
            continue
        one[0] = c2
        ra[c2] = -collects * _dist(q, K, dmemo, dstore)[24] + _split_again(q, one, 2, K, memo, dmemo, dstore)
    for e in range(e_mset.shape[0]):
        good = True
        for c in range(nc):
            q[c] = mcnt[e_mset[e], c] + 2 * (c == x)
            if q[c] > counts[c]:
                good = False
        if not good:
            continue
        d = _dist(q, K, dmemo, dstore)
        rb[e] = -collects * d[24] + _ended(d, e, ends) + _split_again(q, none, 2, K, memo, dmemo, dstore)


def _reachable(hg: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per start (x, c): the hand graph's nodes reachable from it, children before parents (the start last), as
    offsets ``r_off[c]:r_off[c + 1]`` into ``r_nodes``."""
    rank = np.empty(len(hg.order), np.int64)
    rank[hg.order] = np.arange(len(hg.order))
    off, nodes = [0], []
    for c in range(NCLASS):
        s = int(hg.start[c])
        seen: set[int] = set()
        if s >= 0:
            stack = [s]
            seen.add(s)
            while stack:
                j = stack.pop()
                for k in hg.kid[j].reshape(-1):
                    if k >= 0 and int(k) not in seen:
                        seen.add(int(k))
                        stack.append(int(k))
        got = sorted(seen, key=lambda j: rank[j])
        if got:
            assert got[-1] == s  # the start has the fewest cards: last among children-first
        nodes += got
        off.append(len(nodes))
    return np.array(off, np.int64), np.array(nodes, np.int64)


class FastWorld:
    """``split_resplit.OwnWorld`` compiled: the player's best play of split hands against a banker who reads his own
    cards only (``twist``: his chance of twisting per banker hand), each hand settled when it ends; the memo
    tables (``memo``: (cards out, hands to play, hands held) -> value; ``dmemo``: cards out -> the banker's
    summary) are kept between calls."""

    def __init__(self, model: SplitModel, x: int, twist: np.ndarray) -> None:
        from numba import types
        from numba.typed import Dict, List

        from pontoon.analysis.british.split_fast import banker_ends, can_resplit

        g, r = model.g, model.rules
        hg, csr, _, _ = model.graph(x)
        be = banker_ends(g, lambda h: twist[g.banker_index[h]])
        counts = np.asarray(model.counts, np.int64)
        base = np.cumprod(np.concatenate([[1], counts[:-1] + 1])).astype(np.int64)
        ints = np.array(
            [model.total, model.p0, model.p1, x, int(r.max_split_hands), int(can_resplit(model, x))], np.int64
        )
        r_off, r_nodes = _reachable(hg)
        ends = np.array([hg.e_stake, hg.e_fixed, hg.e_total.astype(np.float64)], np.float64)
        self.hg, self.x, self.model = hg, x, model
        self.collects = float(r.banker_pontoon_collects)
        self.K = (
            counts, base, be.cls, be.mul, be.size, be.w, be.out, model.binom, model.payoffs(be.outs), ints,
            hg.cnt, hg.end, hg.forced, *csr, r_off, r_nodes, np.ascontiguousarray(ends),
        )  # fmt: skip
        self.memo = Dict.empty(types.int64, types.float64)
        self.dmemo = Dict.empty(types.int64, types.int64)
        self.dstore = List.empty_list(types.float64[:, ::1])

    def resplit_values(self) -> tuple[np.ndarray, np.ndarray]:
        """``split_resplit.resplit_values`` (``ra`` per second card of the second hand, ``rb`` per end of the first
        hand)."""
        hg = self.hg
        ra = np.full(NCLASS, -np.inf)
        rb = np.full(len(hg.e_mset), -np.inf)
        _k_resplits(self.K, self.collects, hg.e_mset, hg.mcnt, ra, rb, self.memo, self.dmemo, self.dstore)
        return ra, rb
