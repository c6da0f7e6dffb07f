"""The reading banker's decisions for every observation of one hand added to a fixed table, by one table of
sums over the other hands' programme (issue 27 item 3; docs/analysis.md "Several players").

The players' best response to the reading banker (``reading_best``, ``reading_response_sample``) needs, per
sampled deal (the other players' hands as he sees them, his first two cards), his decisions for each of the
deviator's observations ``o`` (some hundreds): ``Reader.tree_last`` adds the deviator's hand to the other
hands' programme (states ``p``: their combined face-down counts, weight ``w_p``, weighted payments
``a_p``) and runs the banker's tree over every combined state ``s = p + h`` (``h`` the deviator's face-down
counts at ``o``): about (states) x (his support) x (the banker's hands) per observation, 70% of it in the
combining (``_k_step_fast``), about 3 s of CPU per four-player deal (692 observations, one pack).

The weight of a combined state at a banker hand with the extra cards ``e`` (drawn since his first two) is
``prod_c n_c^(s_c + e_c) / T^(|s| + |e|)`` (``reading``: falling factorials, ``n`` the pack less what he
sees, ``T`` its size). With ``m`` the pack less what he sees of the *other* hands and ``u`` the deviator's
face-up counts, ``n = m - u`` and ``n_c^(x) = m_c^(u_c + x) / m_c^(u_c)``, so that weight is

    seq(m; K + p) * M^(|u|) / prod_c m_c^(u_c),    K = u + h + e,
    seq(m; x) = prod_c m_c^(x_c) / M^(|x|)          (the chance of a given sequence with counts x)

and the banker's mass and weighted payment at the hand are sums over the deviator's support ``j`` of

    F(K_j) = sum_p w_p seq(m; K_j + p),    A_o(K_j) = sum_p a_p[o] seq(m; K_j + p),

``o`` the hand's outcome, ``K_j = u + h_j + e``: the deviator's whole hand (face up and down) plus the
banker's extra cards. ``F`` and ``A`` depend on the observation only through ``K``, which repeats across
observations, hands and supports (the same cards split differently between face up, face down and the
banker's draws), so they are computed once per deal on demand (``_k_plans``' table) and each observation
then costs (his support) x (the banker's hands) look-ups. Once ``m^(p)`` is in the weights
(``m_c^(p_c + k_c) = m_c^(p_c) (m_c - p_c)^(k_c)``) only ``p``'s counts on ``K``'s classes matter, so each
sum runs over the states summed by those counts (``_marginal``: one table per set of classes per deal,
far fewer rows than states where ``K`` touches few classes). The same sums as ``tree_last``'s in another order:
the tests hold every stay and twist value equal to 1e-12 and the decisions equal
(``tests/analysis/test_british_reading_last.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import types
from numba.typed import Dict

from pontoon.analysis.british.game import Hand, counts_of
from pontoon.analysis.british.reading import OUTCOMES, Obs, Reader, Seen, _known
from pontoon.analysis.british.reading_fast import _njit, banker_nodes, twists_better

_MARG = types.Tuple((types.int64[:, ::1], types.float64[::1], types.float64[:, ::1]))
MIN_STATES = 600  # the table of sums from this many states of the other hands (bench_reading_last: 0.4x
# at three players two packs, about 10x at four one pack)
MIN_COUNT = 1  # ... and from this many observations at the deal: on a large table its set-up costs less
# than a few programmes (five players two packs: 20 fitted deals, every observation, in 76 s; 17 valued
# ones, 20 programmes each, in 149 s)
SHIFT = 5  # bits per class in a sum's key: a count below 32 (his cards and the banker's draws: at most 8)


@_njit
def _k_plans(
    pd,
    gw,
    ga,
    m,
    u,
    hd,
    hw,
    hpay,
    outcome,
    can,
    extra,
    n_extra,
    kid,
    blind_flag,
    keys,
    fval,
    aval,
    count,
    marg,
    stay,
    twist,
):  # type: ignore[no-untyped-def]
    """The banker's stay and twist values at every hand from his first two (NaN: not reached / no twist)
    for the deviator's observation with face-up counts ``u`` and support ``hd`` (weights ``hw``, payments
    ``hpay``), from the other hands' programme (counts ``pd``, weight and payments times ``m^(p)``: ``gw``,
    ``ga``) and the pack ``m`` less what he sees of them; ``keys`` (an open-addressing table: -1 empty)
    keeps a slot per ``K`` across calls, with ``F`` in ``fval[slot]`` and ``A_o`` in ``aval[slot, o]`` (NaN:
    not yet summed; ``count``: slots used; the caller keeps the table at most half full after the call), ``marg`` the programme summed by its counts on each set of classes
    (``_marginal``). Returns the
    banker's mass at his first two cards (0: no deal gives what he sees), his value there playing best and
    the blind banker's (twisting at ``blind_flag``), as ``reading_fast._k_tree``."""
    ncls = m.shape[0]
    nh = outcome.shape[0]
    nsup = hd.shape[0]
    sp = 0
    for c in range(ncls):
        sp += pd[0, c]
    big = 0
    for c in range(ncls):
        big += m[c]
    n = np.empty(ncls, np.int64)
    for c in range(ncls):
        n[c] = m[c] - u[c]
    mm = np.ones(big + 2)
    for k in range(1, big + 2):
        mm[k] = mm[k - 1] * (big - (k - 1))
    scale = 1.0  # M^(|u|) / prod_c m_c^(u_c)
    nu = 0
    for c in range(ncls):
        for k in range(u[c]):
            scale /= m[c] - k
        nu += u[c]
    for k in range(nu):
        scale *= big - k
    mass = np.zeros(nh)
    sums = np.zeros(nh)
    kk = np.empty(ncls, np.int64)
    # a sum's key is linear in the counts: the deviator's part per support, the banker's draws per hand
    bkey = np.zeros(nsup, np.int64)
    bsize = np.zeros(nsup, np.int64)
    for j in range(nsup):
        for c in range(ncls):
            bkey[j] = (bkey[j] << SHIFT) | (u[c] + hd[j, c])
            bsize[j] += u[c] + hd[j, c]
    for i in range(nh):
        o = outcome[i]
        ne = n_extra[i]
        ekey = 0
        for t in range(ne):
            ekey += 1 << (SHIFT * (ncls - 1 - extra[i, t]))
        ms = 0.0
        ss = 0.0
        for j in range(nsup):
            key = bkey[j] + ekey
            slot = _find(keys, key)
            if keys[slot] != key or np.isnan(aval[slot, o]):
                for c in range(ncls):
                    kk[c] = u[c] + hd[j, c]
                for t in range(ne):
                    kk[extra[i, t]] += 1
                mask = 0
                for c in range(ncls):
                    if kk[c] > 0:
                        mask |= 1 << c
                md, mg, mb = _marginal(marg, mask, pd, gw, ga, m)
                fv, av = _sum(md, mg, mb, o, kk, mm[bsize[j] + ne + sp], ncls, m)
                if keys[slot] != key:
                    keys[slot] = key
                    count[0] += 1
                    fval[slot] = fv
                aval[slot, o] = av
            fv = fval[slot]
            av = aval[slot, o]
            ms += hw[j] * fv
            ss += hw[j] * (av + hpay[j, o] * fv)
        mass[i] = ms * scale
        sums[i] = ss * scale
    # as reading_fast._k_tree: which hands he reaches, then his values children before parents
    reached = np.zeros(nh, np.bool_)
    reached[0] = True
    for i in range(nh):
        if not reached[i] or not can[i] or mass[i] <= 0:
            continue
        ne = n_extra[i]
        for c in range(ncls):
            more = 0
            for j in range(ne):
                if extra[i, j] == c:
                    more += 1
            if n[c] - more > 0:
                reached[kid[i, c]] = True
    best = np.zeros(nh)
    blind = np.zeros(nh)
    for i in range(nh - 1, -1, -1):
        stay[i] = np.nan
        twist[i] = np.nan
        if not reached[i]:
            continue
        b = sums[i]
        bl = sums[i]
        if can[i] and mass[i] > 0:
            tw = 0.0
            tb = 0.0
            ne = n_extra[i]
            for c in range(ncls):
                more = 0
                for j in range(ne):
                    if extra[i, j] == c:
                        more += 1
                if n[c] - more <= 0:
                    continue
                tw += best[kid[i, c]]
                tb += blind[kid[i, c]]
            twist[i] = tw / mass[i]
            b = min(b, tw)
            if blind_flag[i]:
                bl = tb
        if mass[i] > 0:
            stay[i] = sums[i] / mass[i]
        best[i] = b
        blind[i] = bl
    if mass[0] > 0:
        return mass[0], best[0] / mass[0], blind[0] / mass[0]
    return mass[0], np.nan, np.nan


@_njit
def _find(keys, key):  # type: ignore[no-untyped-def]
    """The slot of ``key`` in the open-addressing table ``keys`` (size a power of two, -1 empty), or the
    empty slot where it goes (linear probing from a multiplicative hash)."""
    capm = keys.shape[0] - 1
    h = ((key * -7046029254386353131) >> 17) & capm
    while keys[h] != -1 and keys[h] != key:
        h = (h + 1) & capm
    return h


@_njit
def _regrow(keys, fval, aval, nkeys, nfval, naval):  # type: ignore[no-untyped-def]
    """The table's slots moved into the larger arrays ``nkeys`` (all -1), ``nfval``, ``naval`` (all NaN)."""
    for s in range(keys.shape[0]):
        if keys[s] != -1:
            t = _find(nkeys, keys[s])
            nkeys[t] = keys[s]
            nfval[t] = fval[s]
            naval[t] = aval[s]


@_njit
def _marginal(marg, mask, pd, gw, ga, m):  # type: ignore[no-untyped-def]
    """The programme's states summed by their counts on the classes in ``mask`` (the others zero): counts,
    weights, payments; built once per deal and set of classes (``marg``: the mask's, kept). Each table is
    summed from the one of the mask with one more class (the lowest the programme has that the mask lacks,
    itself kept), down from the programme's own states: a mask costs its parent's rows, not every state."""
    if mask in marg:
        got = marg[mask]
        return got[0], got[1], got[2]
    ncls = pd.shape[1]
    ns = pd.shape[0]
    full = 0  # the classes the programme's states hold
    for p in range(ns):
        for c in range(ncls):
            if pd[p, c] > 0:
                full |= 1 << c
    eff = mask & full  # a class no state holds sums to itself
    chain = np.empty(ncls + 1, np.int64)  # the masks to build, the mask's own first
    nchain = 0
    cur = eff
    while cur != full and cur not in marg:
        chain[nchain] = cur
        nchain += 1
        low = full & ~cur
        cur |= low & -low
    if cur in marg:
        got = marg[cur]
        sd, sw, sa = got[0], got[1], got[2]
    else:
        sd, sw, sa = pd, gw, ga
        marg[cur] = (pd, gw, ga)
    for k in range(nchain - 1, -1, -1):
        sd, sw, sa = _collapse(chain[k], sd, sw, sa, m)
        marg[chain[k]] = (sd, sw, sa)
    if mask != eff:
        marg[mask] = (sd, sw, sa)
    return sd, sw, sa


DENSE = 1 << 20  # index the sums by a dense array of codes up to this size (else a hash table)


@_njit
def _collapse(mask, sd, sw, sa, m):  # type: ignore[no-untyped-def]
    """States ``sd`` (weights ``sw``, payments ``sa``) summed by their counts on the classes in ``mask``."""
    ncls = sd.shape[1]
    ns = sd.shape[0]
    size = 1
    for c in range(ncls):
        if mask & (1 << c):
            size *= m[c] + 1
            if size > DENSE:
                break
    slot = np.empty(ns, np.int64)
    cnt = 0
    if size <= DENSE:
        dense = np.full(size, -1, np.int64)
        for p in range(ns):
            code = 0
            for c in range(ncls):
                if mask & (1 << c):
                    code = code * (m[c] + 1) + sd[p, c]
            if dense[code] < 0:
                dense[code] = cnt
                cnt += 1
            slot[p] = dense[code]
    else:
        index = Dict.empty(key_type=types.int64, value_type=types.int64)
        for p in range(ns):
            code = 0
            for c in range(ncls):
                if mask & (1 << c):
                    code = code * (m[c] + 1) + sd[p, c]  # below 33^11 < 2^63
            if code in index:
                slot[p] = index[code]
            else:
                index[code] = cnt
                slot[p] = cnt
                cnt += 1
    md = np.zeros((cnt, ncls), np.int64)
    mg = np.zeros(cnt)
    mb = np.zeros((cnt, sa.shape[1]))
    for p in range(ns):
        q = slot[p]
        for c in range(ncls):
            if mask & (1 << c):
                md[q, c] = sd[p, c]
        mg[q] += sw[p]
        for o in range(sa.shape[1]):
            mb[q, o] += sa[p, o]
    return md, mg, mb


@_njit
def _sum(md, mg, mb, o, kk, den, ncls, m):  # type: ignore[no-untyped-def]
    """``F(kk)`` and ``A_o(kk)``: ``sum_p (w_p, a_p[o]) seq(m; kk + p)``, over the states summed by their
    counts on ``kk``'s classes (``m_c^(p_c + k_c) = m_c^(p_c) (m_c - p_c)^(k_c)``, the first factor in the
    weights); ``den``: ``M^(|kk| + |p|)``."""
    for c in range(ncls):
        if kk[c] > m[c]:
            return 0.0, 0.0
    f = 0.0
    a = 0.0
    for q in range(md.shape[0]):
        x = 1.0
        for c in range(ncls):
            for t in range(kk[c]):
                r = m[c] - md[q, c] - t
                if r <= 0:
                    x = 0.0
                    break
                x *= r
            if x == 0.0:
                break
        if x == 0.0:
            continue
        f += x * mg[q]
        a += x * mb[q, o]
    return f / den, a / den


@_njit
def _weights(pd, pw, pa, m):  # type: ignore[no-untyped-def]
    """The programme's weights and payments times ``m^(p)`` (``prod_c m_c^(p_c)``) per state."""
    ns, ncls = pd.shape
    gw = np.empty(ns)
    ga = np.empty(pa.shape)
    for p in range(ns):
        x = 1.0
        for c in range(ncls):
            for t in range(pd[p, c]):
                x *= m[c] - t
        gw[p] = pw[p] * x
        for o in range(pa.shape[1]):
            ga[p, o] = pa[p, o] * x
    return gw, ga


class LastPlanner:
    """The reading banker's decisions for each observation ``mine`` of the deviator added to the table
    ``others`` (what he sees of the other hands, his first two cards): ``plan(mine)`` is
    ``reading_response.twist_plan_last(rd, others, mine)`` (the kernel's flags per hand of
    ``reading_fast.banker_nodes(first)``, or an empty set where he stays throughout), from one table of sums
    per deal (see the module's text); ``values(mine)`` his stay and twist values per hand (NaN: none)."""

    def __init__(self, rd: Reader, others: Seen) -> None:
        self.rd = rd
        self.others = Seen(tuple(others.banker[:2]), tuple(sorted(others.live)), tuple(sorted(others.shown)))
        self.first: Hand = self.others.first
        g = rd.sol.game
        self.ok = rd.observed(self.others)
        m = g.counts.astype(np.int64) - np.array(counts_of(_known(self.others)), np.int64)
        self.m = m
        if (m < 0).any():
            self.ok = False
        if self.ok:
            _, digits, w, a = rd._prefix(self.others)
            self.pd = np.ascontiguousarray(digits, np.int64)
            self.gw, self.ga = _weights(
                self.pd, np.ascontiguousarray(w, np.float64), np.ascontiguousarray(a, np.float64), m
            )
            if not len(self.gw):
                self.ok = False
        self.keys = np.full(1 << 12, -1, np.int64)  # the sums F and A_o by K (``_k_plans``)
        self.fval = np.empty(1 << 12)
        self.aval = np.full((1 << 12, OUTCOMES), np.nan)
        self.count = np.zeros(1, np.int64)
        self.marg = Dict.empty(key_type=types.int64, value_type=_MARG)
        self.nodes = banker_nodes(self.first)

    def values(self, mine: Obs) -> tuple[np.ndarray, np.ndarray, float, float] | None:
        """Per hand of ``banker_nodes(first)`` the stay and twist values (NaN where not reached / no twist),
        his value at his first two cards playing best and the blind banker's (``Tree.value``, ``Tree.blind``);
        None where he stays throughout (off the model, no deal)."""
        if not self.ok or mine not in self.rd.support:
            return None
        u = np.array(counts_of(tuple(mine[0])), np.int64)
        if (u > self.m).any():
            return None
        h = self.rd.support[mine]
        _, _, (outcome, can, extra, n_extra, kid, _, _, _) = self.nodes
        stay = np.empty(len(outcome))
        twist = np.empty(len(outcome))
        need = 2 * (int(self.count[0]) + len(outcome) * len(h.w))  # a new slot per hand and support at most
        if need > len(self.keys):
            cap = 1 << (need - 1).bit_length()
            keys, fval, aval = np.full(cap, -1, np.int64), np.empty(cap), np.full((cap, OUTCOMES), np.nan)
            _regrow(self.keys, self.fval, self.aval, keys, fval, aval)
            self.keys, self.fval, self.aval = keys, fval, aval
        mass, value, blind = _k_plans(
            self.pd,
            self.gw,
            self.ga,
            self.m,
            u,
            np.ascontiguousarray(h.counts, np.int64),
            np.ascontiguousarray(h.w, np.float64),
            np.ascontiguousarray(h.pay, np.float64),
            outcome,
            can,
            extra,
            n_extra,
            kid,
            self.rd.blind_flags(self.first),
            self.keys,
            self.fval,
            self.aval,
            self.count,
            self.marg,
            stay,
            twist,
        )
        if not mass > 0:
            return None
        return stay, twist, float(value), float(blind)

    def plan(self, mine: Obs) -> Any:
        got = self.values(mine)
        if got is None:
            return frozenset()
        stay, twist, _, _ = got
        with np.errstate(invalid="ignore"):
            return twists_better(twist, stay)  # NaN (not reached, no twist) compares False: he stays


def planner(rd: Reader, others: Seen, count: int = 1000) -> Any:
    """``LastPlanner(rd, others)`` where the reader uses it (``rd.fast`` and ``rd.last``), the other hands'
    programme has at least ``MIN_STATES`` states and at least ``MIN_COUNT`` observations are to be planned
    (``count``: its set-up is per deal), else an object whose ``plan`` is ``twist_plan_last`` (the
    programme per observation: faster on small tables and for a few observations; the same decisions)."""
    if rd.fast and rd.last and rd.observed(others) and count >= MIN_COUNT:
        try:
            _, _, w, _ = rd._prefix(Seen(tuple(others.banker[:2]), tuple(sorted(others.live)), others.shown))
        except ValueError:
            w = np.zeros(0)
        if len(w) >= MIN_STATES:
            return LastPlanner(rd, others)
    from pontoon.analysis.british.reading_response import twist_plan_last

    class _Each:
        def plan(self, mine: Obs) -> Any:
            return twist_plan_last(rd, others, mine)

    return _Each()
