"""Numba kernels of the dealer's outcome distributions: arrays in, arrays out, no objects.

Outcome index of a dealer distribution: 0..4 = final 17..21, 5 = natural (Pontoon: the dealer's
first two cards are an Ace and a ten-value card), 6 = bust. Value index of a card: 0 = Ace,
1..8 = 2..9, 9 = ten-value. The analysis uses ``dealer_all_upcards`` (every up card at once,
through a trie of the dealer's final multisets); the walk over card orders (``dealer_dist``,
``dealer_batch``) and the per-up-card multiset tables (``dealer_table``, ``dealer_batch_table``)
are the references it is tested against, and serve the hints.
"""

from __future__ import annotations

import numpy as np

from pontoon.analysis.aot import kernel

NAT = 5
BUST = 6


@kernel()
def dealer_dist(c: np.ndarray, up: int, h17: bool, out: np.ndarray) -> None:
    """Final outcome of the dealer holding ``up``, drawing from counts ``c`` (modified, restored).

    The dealer draws to hard 16 and soft 17 when ``h17`` (rulings 7; 000 3.19), else stands on all
    17s. A natural is recorded separately whatever the game does with it.
    """
    for k in range(7):
        out[k] = 0.0
    n = 0
    for r in range(10):
        n += c[r]
    if n <= 0:
        return
    stack_r = np.zeros(24, np.int64)
    stack_w = np.zeros(24)
    stack_h = np.zeros(24, np.int64)
    stack_a = np.zeros(24, np.bool_)
    # level 0: the second card (natural check)
    depth = 0
    stack_r[0] = 0
    stack_w[0] = 1.0
    stack_h[0] = up + 1
    stack_a[0] = up == 0
    while depth >= 0:
        r = stack_r[depth]
        if r == 10:
            depth -= 1
            if depth >= 0:
                c[stack_r[depth] - 1] += 1
                n += 1
            continue
        stack_r[depth] = r + 1
        cr = c[r]
        if cr == 0:
            continue
        p = stack_w[depth] * cr / n
        if depth == 0 and ((up == 0 and r == 9) or (up == 9 and r == 0)):
            out[NAT] += p
            continue
        h2 = stack_h[depth] + r + 1
        a2 = stack_a[depth] or r == 0
        if h2 > 21:
            out[BUST] += p
            continue
        best = h2
        soft = False
        if a2 and h2 + 10 <= 21:
            best = h2 + 10
            soft = True
        if best > 17 or (best == 17 and not (soft and h17)):
            out[best - 17] += p
            continue
        c[r] -= 1
        n -= 1
        depth += 1
        stack_r[depth] = 0
        stack_w[depth] = p
        stack_h[depth] = h2
        stack_a[depth] = a2


@kernel()
def dealer_batch(base: np.ndarray, removed: np.ndarray, up: int, h17: bool) -> np.ndarray:
    """Dealer distributions for ``base - removed[k]`` for every row k (rows not fitting: zeros)."""
    k_n = removed.shape[0]
    out = np.zeros((k_n, 7))
    c = np.zeros(10, np.int64)
    tmp = np.zeros(7)
    for k in range(k_n):
        ok = True
        for r in range(10):
            c[r] = base[r] - removed[k, r]
            if c[r] < 0:
                ok = False
        if not ok:
            continue
        dealer_dist(c, up, h17, tmp)
        for j in range(7):
            out[k, j] = tmp[j]
    return out


# ---------------------------------------------------------------------------------------
# Fast dealer distributions. The probability of one ordered run of dealer cards depends only on
# the multiset of its cards: prod_r c_r (c_r - 1) ... / N (N - 1) ...; so each upcard's dealer
# runs are grouped once by multiset (with their number of valid orders), and a composition's
# distribution is a sum over a few hundred multisets instead of a walk over thousands of runs.


def dealer_table(up: int, h17: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ranks, mults, starts, outcome, orders) of every multiset of dealer cards after ``up``."""
    groups: dict[tuple[int, ...], list[float]] = {}

    def walk(cnt: list[int], hard: int, ace: bool, depth: int) -> None:
        for r in range(10):
            if depth == 0 and ((up == 0 and r == 9) or (up == 9 and r == 0)):
                key = tuple(1 if k == r else 0 for k in range(10))
                g = groups.setdefault(key, [NAT, 0.0])
                g[1] += 1.0
                continue
            h2 = hard + r + 1
            a2 = ace or r == 0
            cnt[r] += 1
            if h2 > 21:
                outc = BUST
            else:
                best = h2 + 10 if (a2 and h2 + 10 <= 21) else h2
                soft = a2 and h2 + 10 <= 21
                outc = best - 17 if (best > 17 or (best == 17 and not (soft and h17))) else -1
            if outc >= 0:
                g = groups.setdefault(tuple(cnt), [outc, 0.0])
                g[1] += 1.0
            else:
                walk(cnt, h2, a2, depth + 1)
            cnt[r] -= 1

    walk([0] * 10, up + 1, up == 0, 0)
    ranks: list[int] = []
    mults: list[int] = []
    starts = [0]
    outcome = []
    orders = []
    for key, (outc, n) in groups.items():
        for r in range(10):
            if key[r]:
                ranks.append(r)
                mults.append(key[r])
        starts.append(len(ranks))
        outcome.append(int(outc))
        orders.append(n)
    return (
        np.array(ranks, np.int64),
        np.array(mults, np.int64),
        np.array(starts, np.int64),
        np.array(outcome, np.int64),
        np.array(orders, np.float64),
    )


@kernel("f8[:, ::1](i8[::1], i8[:, ::1], i8[::1], i8[::1], i8[::1], i8[::1], f8[::1])")
def dealer_batch_table(
    base: np.ndarray,
    removed: np.ndarray,
    ranks: np.ndarray,
    mults: np.ndarray,
    starts: np.ndarray,
    outcome: np.ndarray,
    orders: np.ndarray,
) -> np.ndarray:
    k_n = removed.shape[0]
    m_n = outcome.shape[0]
    out = np.zeros((k_n, 7))
    fall = np.zeros((10, 24))
    den = np.zeros(24)
    c = np.zeros(10, np.int64)
    for k in range(k_n):
        ok = True
        n = 0
        for r in range(10):
            c[r] = base[r] - removed[k, r]
            if c[r] < 0:
                ok = False
            n += c[r]
        if not ok or n <= 0:
            continue
        for r in range(10):
            f = 1.0
            fall[r, 0] = 1.0
            for m in range(1, 24):
                f *= max(c[r] - m + 1, 0)
                fall[r, m] = f
        den[0] = 1.0
        for m in range(1, 24):
            x = n - m + 1
            den[m] = den[m - 1] * x if x > 0 else 0.0
        for j in range(m_n):
            p = orders[j]
            tot = 0
            for t in range(starts[j], starts[j + 1]):
                p *= fall[ranks[t], mults[t]]
                tot += mults[t]
                if p == 0.0:
                    break
            if p != 0.0:
                out[k, outcome[j]] += p / den[tot]
    return out


# ---------------------------------------------------------------------------------------
# Dealer distributions for every up card at once (the way E. Farmer's analyser does it): the
# dealer's whole hand, up card included, is a multiset M; P(M dealt in one given order) =
# prod_r c_r (c_r - 1) ... / N (N - 1) ... does not depend on the order, so a trie of the
# multisets (ranks added in increasing order) gives every product with one multiplication per
# node, shared by all up cards; the distribution given up card u divides by P(first card u).


def dealer_trie(h17: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(parent, rank, used, depth, contrib, orders): trie nodes (node 0 = empty multiset; node i
    adds ``rank[i]``, ``used[i]`` of that rank already in, ``depth[i]`` cards before it) and the
    non-bust final hands: ``contrib[k] = (node, up, outcome)`` with ``orders[k]`` dealing orders
    that start with ``up`` (outcome NAT for the two-card natural)."""
    parent = [0]
    rank = [0]
    used = [0]
    depth = [0]
    children: dict[tuple[int, int], int] = {}
    contrib: list[tuple[int, int, int]] = []
    orders: list[float] = []
    for up in range(10):
        ranks, mults, starts, outcome, ords = dealer_table(up, h17)
        for g in range(len(outcome)):
            if outcome[g] == BUST:
                continue
            cnt = [0] * 10
            cnt[up] += 1
            for t in range(starts[g], starts[g + 1]):
                cnt[ranks[t]] += mults[t]
            node = 0
            k = 0
            for r in range(10):
                for m in range(cnt[r]):
                    key = (node, r)
                    if key not in children:
                        children[key] = len(parent)
                        parent.append(node)
                        rank.append(r)
                        used.append(m)
                        depth.append(k)
                    node = children[key]
                    k += 1
            contrib.append((node, up, int(outcome[g])))
            orders.append(float(ords[g]))
    return (
        np.array(parent, np.int64),
        np.array(rank, np.int64),
        np.array(used, np.int64),
        np.array(depth, np.int64),
        np.array(contrib, np.int64).reshape(-1, 3),
        np.array(orders, np.float64),
    )


# rows of removed cards handled together by ``dealer_all_upcards`` (at most): the trie walk's inner
# loops run over the rows of a block (a loop of run-time length, which LLVM's loop vectorizer turns
# into vector instructions; numba leaves its SLP vectorizer off, so a fixed eight-lane block written
# out by hand stayed scalar). Every lane does the same operations in the same order whatever the
# block's length, so a row's distribution does not depend on the rows beside it.
DEALER_BLOCK = 64


@kernel(inline=True)
def _trie_tables(
    parent: np.ndarray,
    rank: np.ndarray,
    used: np.ndarray,
    depth: np.ndarray,
    contrib: np.ndarray,
    orders: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """(pair, p_slot, p_dep, node, ords, cstart, n_p) of ``dealer_all_upcards``: node i multiplies
    its parent's product by ``fac[slot] * inv[depth]``, one factor per distinct (slot, depth)
    pair (``pair[i]``; ``p_slot``, ``p_dep`` of each: a few hundred for two thousand nodes); the
    contributions by cell (up card, outcome), cell x summing ``ords[q] * prod[node[q]]`` for q in
    ``cstart[x]..cstart[x + 1]``, by increasing node."""
    n_nodes = parent.shape[0]
    n_c = contrib.shape[0]
    pid = np.full(240 * 32, -1, np.int64)
    pair = np.zeros(n_nodes, np.int64)
    p_slot = np.zeros(n_nodes, np.int64)
    p_dep = np.zeros(n_nodes, np.int64)
    n_p = 0
    for i in range(1, n_nodes):
        sl = rank[i] * 24 + min(used[i], 23)
        kp = sl * 32 + depth[i]
        if pid[kp] < 0:
            pid[kp] = n_p
            p_slot[n_p] = sl
            p_dep[n_p] = depth[i]
            n_p += 1
        pair[i] = pid[kp]
    key = np.zeros(n_c, np.int64)
    for t in range(n_c):
        key[t] = (contrib[t, 1] * 7 + contrib[t, 2]) * n_nodes + contrib[t, 0]
    by_cell = np.argsort(key)
    node = np.zeros(n_c, np.int64)
    ords = np.zeros(n_c)
    cstart = np.zeros(71, np.int64)
    for q in range(n_c):
        t = by_cell[q]
        node[q] = contrib[t, 0]
        ords[q] = orders[t]
        cstart[contrib[t, 1] * 7 + contrib[t, 2] + 1] = q + 1
    for x in range(1, 71):
        cstart[x] = max(cstart[x], cstart[x - 1])
    return pair, p_slot, p_dep, node, ords, cstart, n_p


@kernel(inline=True)
def _cell_sums(
    prod: np.ndarray, node: np.ndarray, ords: np.ndarray, cstart: np.ndarray, acc: np.ndarray
) -> None:
    """``acc[x, b] = sum of ords[q] * prod[node[q], b]`` over cell x's contributions, added one
    after the other in their order (four at a time: the same sums, fewer trips through ``acc``)."""
    nb = prod.shape[1]
    for x in range(70):
        a = acc[x]
        for b in range(nb):
            a[b] = 0.0
        q = cstart[x]
        q1 = cstart[x + 1]
        while q + 4 <= q1:
            o0 = ords[q]
            o1 = ords[q + 1]
            o2 = ords[q + 2]
            o3 = ords[q + 3]
            s0 = prod[node[q]]
            s1 = prod[node[q + 1]]
            s2 = prod[node[q + 2]]
            s3 = prod[node[q + 3]]
            for b in range(nb):
                a[b] = (((a[b] + o0 * s0[b]) + o1 * s1[b]) + o2 * s2[b]) + o3 * s3[b]
            q += 4
        while q < q1:
            o = ords[q]
            src = prod[node[q]]
            for b in range(nb):
                a[b] += o * src[b]
            q += 1


@kernel("f8[:, :, ::1](i8[::1], i8[:, ::1], i8[::1], i8[::1], i8[::1], i8[::1], i8[:, ::1], f8[::1])")
def dealer_all_upcards(
    full: np.ndarray,
    removed: np.ndarray,
    parent: np.ndarray,
    rank: np.ndarray,
    used: np.ndarray,
    depth: np.ndarray,
    contrib: np.ndarray,
    orders: np.ndarray,
) -> np.ndarray:
    """``out[up, k]``: the dealer's outcome distribution (17..21, natural, bust) given up card
    ``up`` dealt from ``full - removed[k]`` (zeros where that shoe lacks the card or a row does
    not fit); by up card first, so that one up card's rows are contiguous. Rows are taken up to
    ``DEALER_BLOCK`` at a time through the trie."""
    k_n = removed.shape[0]
    n_nodes = parent.shape[0]
    out = np.zeros((10, k_n, 7))
    pair, p_slot, p_dep, node, ords, cstart, n_p = _trie_tables(parent, rank, used, depth, contrib, orders)
    nb = min(DEALER_BLOCK, max(8, (k_n + 7) // 8 * 8))  # lanes: fewer for a few rows
    prod = np.empty((n_nodes, nb))
    tab = np.zeros((n_p, nb))
    inv = np.zeros((32, nb))
    fac = np.zeros((10 * 24, nb))
    acc = np.zeros((70, nb))
    cb = np.zeros((nb, 10), np.int64)
    nc = np.zeros(nb, np.int64)
    rows = np.zeros(nb, np.int64)
    k = 0
    while k < k_n:
        m = 0  # rows of this block that fit
        while m < nb and k < k_n:
            ok = True
            n = 0
            for r in range(10):
                x = full[r] - removed[k, r]
                cb[m, r] = x
                if x < 0:
                    ok = False
                n += x
            if ok and n > 0:
                nc[m] = n
                rows[m] = k
                m += 1
            k += 1
        if m == 0:
            break
        for b in range(m, nb):  # padding lanes: a copy of the first row (discarded)
            nc[b] = nc[0]
            for r in range(10):
                cb[b, r] = cb[0, r]
        for d in range(32):
            for b in range(nb):
                x = nc[b] - d
                inv[d, b] = 1.0 / x if x > 0 else 0.0
        for r in range(10):
            for j in range(24):
                for b in range(nb):
                    fac[r * 24 + j, b] = max(cb[b, r] - j, 0)
        for t in range(n_p):
            f = fac[p_slot[t]]
            iv = inv[p_dep[t]]
            dt = tab[t]
            for b in range(nb):
                dt[b] = f[b] * iv[b]
        for b in range(nb):
            prod[0, b] = 1.0
        for i in range(1, n_nodes):
            src = prod[parent[i]]
            f = tab[pair[i]]
            dst = prod[i]
            for b in range(nb):
                dst[b] = src[b] * f[b]
        _cell_sums(prod, node, ords, cstart, acc)
        for b in range(m):
            kk = rows[b]
            n = nc[b]
            for u in range(10):
                cu = cb[b, u]
                if cu <= 0:
                    continue
                scale = n / cu
                tot = 0.0
                for o6 in range(6):
                    v = acc[u * 7 + o6, b] * scale
                    out[u, kk, o6] = v
                    tot += v
                out[u, kk, BUST] = max(1.0 - tot, 0.0)
    return out
