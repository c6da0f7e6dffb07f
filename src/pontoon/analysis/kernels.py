"""Numba kernels of the analyser: arrays in, arrays out, no objects.

Outcome index of a dealer distribution: 0..4 = final 17..21, 5 = natural (Pontoon: the dealer's
first two cards are an Ace and a ten-value card), 6 = bust. Value index of a card: 0 = Ace,
1..8 = 2..9, 9 = ten-value.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NAT = 5
BUST = 6

# The helpers of ``chain`` are inlined into it (numba's inline="always": one compiled function,
# no calls between them in the hot loop; about a quarter faster than calls).

# policy codes for a state (``chain``)
OPTIMAL = -1
STAND = 0
HIT = 1
DOUBLE_HIT = 2  # double, else hit
DOUBLE_STAND = 3  # double, else stand

# the action ``chain`` takes in a state (its ``act`` output)
ACT_STAND = 0
ACT_HIT = 1
ACT_DOUBLE = 2
ACT_21 = 3  # a total of 21: paid at once where player 21 wins, else stands


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True, inline="always")
def stand_value(d: np.ndarray, t: int, factor: float, nat_loss: float, peek: bool) -> float:
    """Expectation of standing on ``t`` against distribution ``d``: ``factor`` units won or lost,
    ``nat_loss`` lost to a dealer natural (0 in peek mode, where naturals are settled before play)."""
    win = d[BUST]
    lose = 0.0
    for k in range(5):
        dt = 17 + k
        if dt < t:
            win += d[k]
        elif dt > t:
            lose += d[k]
    v = factor * (win - lose)
    if not peek:
        v -= nat_loss * d[NAT]
    return v


@njit(cache=True, inline="always")
def _nonnat(base: np.ndarray, cnt: np.ndarray, extra: int, up: int, peek: bool) -> float:
    """In peek mode: probability the dealer has no natural given the cards now out (else 1)."""
    if not peek or (up != 0 and up != 9):
        return 1.0
    n = 0
    for r in range(10):
        n += base[r] - cnt[r]
    if extra >= 0:
        n -= 1
    if n <= 0:
        return 1.0
    other = 9 if up == 0 else 0
    k = base[other] - cnt[other]
    if extra == other:
        k -= 1
    return 1.0 - k / n


@njit(cache=True, inline="always")
def _options(
    i: int, counts: np.ndarray, hard: np.ndarray, ncards: np.ndarray, nace: np.ndarray, trans: np.ndarray,
    active: np.ndarray, base: np.ndarray, nbase: int, dist: np.ndarray, up: int, peek: bool, p21wins: bool,
    nat_loss: float, nat_loss_dbl: float, a2: int, ace_one: bool, rescue: bool, resc_pol: np.ndarray,
    resc_fix: np.ndarray, weights: np.ndarray, st: np.ndarray, hit: np.ndarray, dbl: np.ndarray,
    val: np.ndarray, racc: np.ndarray, rfl: np.ndarray,
) -> None:
    """``chain``'s pass 1 for state ``i``: stand, hit (then its best play, ``val`` of the states
    one card on) and double (one card, then keep or rescue).

    The states one card on (higher hard totals) are already valued: where a doubled hand's total
    is that state's own best total, keeping the double is twice its stand value (exactly: the
    same sums times 2), else the stand value is taken afresh. The peek's chance of no dealer
    natural (``_nonnat``) is worked out here from the count of cards left."""
    n_left = nbase - ncards[i]
    hv = hard[i]
    bt = hv
    if nace[i] > 0 and hv + 10 <= 21:
        bt = hv + 10
    st[i] = stand_value(dist[i], bt, 1.0, nat_loss, peek)
    hsum = 0.0
    dsum = 0.0
    a2e = a2
    if ncards[i] == 2:
        a2e = nace[i]
    # peek: P(no dealer natural | the cards out) = 1 - (complement cards left) / (cards left)
    pk = peek and (up == 0 or up == 9)
    other = 9 if up == 0 else 0
    k_other = base[other] - counts[i, other]
    twice = peek or nat_loss_dbl == 2.0 * nat_loss  # keep = 2 st[j] where the totals agree
    if n_left <= 0:
        hit[i] = 0.0
        dbl[i] = 0.0
        return
    for r in range(10):
        cr = base[r] - counts[i, r]
        if cr <= 0:
            continue
        p = cr / n_left
        j = trans[i, r]
        f = 1.0
        if pk and n_left - 1 > 0:
            f = 1.0 - (k_other - (1 if r == other else 0)) / (n_left - 1)
        if j < 0:
            hsum -= p * f
            dsum -= 2.0 * p * f
            continue
        hsum += p * val[j]
        # doubled: Aces among the first two cards count 1 (000 3.17.2, 002 3.14, 004 3.25.2)
        free = nace[j] > 0
        if ace_one:
            free = nace[j] > a2e
        dt = hard[j]
        if free and dt + 10 <= 21:
            dt += 10
        if dt == 21 and p21wins:
            dv = 2.0 * f  # rulings 5: doubled 21 paid 1 to 1 at once
        else:
            own = hard[j] + 10 if (nace[j] > 0 and hard[j] + 10 <= 21) else hard[j]
            if twice and dt == own and active[j]:
                keep = 2.0 * st[j]
            else:
                keep = stand_value(dist[j], dt, 2.0, nat_loss_dbl, peek)
            dv = keep
            if rescue and dt < 21:
                # 000 3.11.4, 004 3.25.3: withdraw the double, forfeit the original wager
                forf = -1.0 * f
                racc[dt] += weights[i] * p * (keep - forf)
                rf = resc_fix[i, r]
                rp = resc_pol[dt]
                if rf == 1 or (rf == -1 and (rp == 1 or (rp == -1 and forf > keep))):
                    dv = forf
                    rfl[i, r] = 1
                else:
                    rfl[i, r] = 0
        dsum += p * dv
    hit[i] = hsum
    dbl[i] = dsum


@njit(cache=True, inline="always")
def _accumulate(
    g0: int, g1: int, hard: np.ndarray, ncards: np.ndarray, nace: np.ndarray, active: np.ndarray,
    weights: np.ndarray, st: np.ndarray, hit: np.ndarray, dbl: np.ndarray, acc: np.ndarray,
) -> None:
    """``chain``'s build mode: the weighted stand / hit / double sums of the states g0..g1 of
    three or more cards, by class (soft, best total, cards)."""
    for i in range(g0, g1):
        if not active[i] or ncards[i] < 3:
            continue
        hv = hard[i]
        sf = 0
        bt = hv
        if nace[i] > 0 and hv + 10 <= 21:
            bt = hv + 10
            sf = 1
        if bt >= 21:
            continue
        nc = min(ncards[i], 11)
        w = weights[i]
        acc[sf, bt, nc, 0] += w * st[i]
        acc[sf, bt, nc, 1] += w * hit[i]
        acc[sf, bt, nc, 2] += w * dbl[i]


@njit(cache=True, inline="always")
def _class_code(sums: np.ndarray, can_stand: bool, can_dbl: bool) -> int:
    """The chart code of a class from its summed stand / hit / double values."""
    a_s = sums[0]
    a_h = sums[1]
    a_d = sums[2]
    best_c = HIT
    bv = a_h
    if can_stand and a_s > bv:
        best_c = STAND
        bv = a_s
    if can_dbl and a_d > bv:
        best_c = DOUBLE_HIT if (a_h >= a_s or not can_stand) else DOUBLE_STAND
    return best_c


@njit(cache=True, inline="always")
def _action(code: int, can_stand: bool, can_dbl: bool, st: float, hit: float, dbl: float) -> int:
    """The action a policy code takes where stand / double may not be legal (OPTIMAL: the best
    of the legal ones, stand before hit only when better, double only when better still)."""
    a = ACT_HIT
    if code == OPTIMAL:
        v = hit
        if can_stand and st > v:
            v = st
            a = ACT_STAND
        if can_dbl and dbl > v:
            a = ACT_DOUBLE
    elif code == STAND:
        a = ACT_STAND if can_stand else ACT_HIT
    elif code == DOUBLE_HIT:
        a = ACT_DOUBLE if can_dbl else ACT_HIT
    elif code == DOUBLE_STAND:
        if can_dbl:
            a = ACT_DOUBLE
        elif can_stand:
            a = ACT_STAND
    return a


@njit(cache=True, inline="always")
def _reachable(
    hard: np.ndarray, ncards: np.ndarray, nace: np.ndarray, trans: np.ndarray, active: np.ndarray,
    policy: np.ndarray, forced: int, dbl2: bool, dbl_any: bool,
) -> np.ndarray:
    """``chain``'s ``prune``: the active states a fixed policy can reach from the active two-card
    states (which are valued in full: stand, hit and double), lowest hard total first; None of
    the policy codes may be OPTIMAL (the action of a state then depends on its code alone)."""
    s_n = hard.shape[0]
    live = np.zeros(s_n, np.bool_)
    for i in range(s_n - 1, -1, -1):
        if not active[i] or ncards[i] < 1:
            continue
        if ncards[i] == 2:
            live[i] = True
        if not live[i]:
            continue
        hv = hard[i]
        bt = hv + 10 if (nace[i] > 0 and hv + 10 <= 21) else hv
        go = ncards[i] == 2  # every option of a two-card hand is valued (a soft 21's hit too)
        if not go and bt < 21:  # 21 stands (or is paid at once)
            a = _action(policy[i], bt >= forced, dbl_any, 0.0, 0.0, 0.0)
            go = a == ACT_HIT or a == ACT_DOUBLE
        if go:
            for r in range(10):
                j = trans[i, r]
                if j >= 0 and active[j]:
                    live[j] = True
    return live


@njit(cache=True)
def chain(
    counts: np.ndarray,
    hard: np.ndarray,
    ncards: np.ndarray,
    nace: np.ndarray,
    trans: np.ndarray,
    active: np.ndarray,
    base: np.ndarray,
    dist: np.ndarray,
    pay21: np.ndarray,
    up: int,
    peek: bool,
    p21wins: bool,
    nat_loss: float,
    nat_loss_dbl: float,
    forced: int,
    dbl2: bool,
    dbl_any: bool,
    a2: int,
    ace_one: bool,
    rescue: bool,
    policy: np.ndarray,
    resc_pol: np.ndarray,
    resc_fix: np.ndarray,
    build: bool,
    prune: bool,
    weights: np.ndarray,
    st: np.ndarray,
    hit: np.ndarray,
    dbl: np.ndarray,
    val: np.ndarray,
    dec: np.ndarray,
    racc: np.ndarray,
    act: np.ndarray,
    rfl: np.ndarray,
) -> None:
    """Values of every active state, highest hard total first (a card always raises it).

    ``st`` stand, ``hit`` hit then play on, ``dbl`` double (one card, then keep or rescue),
    ``val`` the value of holding the state undoubled (21 paid at once where ``p21wins``).
    ``policy[s]``: OPTIMAL or a fixed code. In ``build`` mode, states of three or more cards take
    the action that is best summed over their class (soft, best total, cards) with ``weights``,
    recorded in ``dec[soft, best, min(cards, 11)]`` (a total-dependent chart with card counts).
    ``racc[t]`` accumulates the weighted advantage of keeping a double on total t over rescuing.
    ``resc_fix[s, r]``: 1 rescue / 0 keep a double of ``s`` that drew ``r`` (-1: ``resc_pol``).
    Out: ``act[s]`` the action taken (ACT_STAND, ACT_HIT, ACT_DOUBLE; ACT_21 on 21) and
    ``rfl[s, r]`` 1 where that double is rescued (the strategy played, for ``onewager``).
    ``prune`` (not with ``build``): where no active state's code is OPTIMAL, only the two-card
    states and the states the policy reaches from them are valued (about a fifth of a split
    hand's states): there ``st``, ``dbl``, ``val``, ``act`` and ``rfl`` are those of the full
    chain, ``hit`` too on two-card states and where the policy draws (elsewhere it counts the
    unvalued states as 0); the states not reached keep zeros (``act`` as given).
    """
    s_n = hard.shape[0]
    nbase = 0
    for r in range(10):
        nbase += base[r]
    live = active
    if prune and not build:
        fixed = True
        for i in range(s_n):
            if active[i] and policy[i] == OPTIMAL:
                fixed = False
                break
        if fixed:
            live = _reachable(hard, ncards, nace, trans, active, policy, forced, dbl2, dbl_any)
    s = 0
    acc = np.zeros((2, 22, 12, 3))
    while s < s_n:
        g0 = s
        h = hard[s]
        while s < s_n and hard[s] == h:
            s += 1
        # pass 1: stand, hit, double of every state of this hard total (their cards lead to
        # higher totals, already valued)
        for i in range(g0, s):
            if live[i] and ncards[i] >= 1:
                _options(
                    i, counts, hard, ncards, nace, trans, live, base, nbase, dist, up, peek, p21wins,
                    nat_loss, nat_loss_dbl, a2, ace_one, rescue, resc_pol, resc_fix, weights, st, hit, dbl,
                    val, racc, rfl,
                )
        if build:
            _accumulate(g0, s, hard, ncards, nace, live, weights, st, hit, dbl, acc)
        # pass 2: the value of holding each state
        for i in range(g0, s):
            if not live[i] or ncards[i] < 1:
                continue
            hv = hard[i]
            sf = 0
            bt = hv
            if nace[i] > 0 and hv + 10 <= 21:
                bt = hv + 10
                sf = 1
            if bt == 21:
                act[i] = ACT_21
                if p21wins:
                    val[i] = pay21[i] * _nonnat(base, counts[i], -1, up, peek)
                else:
                    val[i] = st[i]
                continue
            can_stand = bt >= forced  # rulings 14: forced draw below the limit
            can_dbl = dbl_any or (ncards[i] == 2 and dbl2)
            code = policy[i]
            if build and ncards[i] >= 3:
                nc = min(ncards[i], 11)
                code = _class_code(acc[sf, bt, nc], can_stand, can_dbl)
                dec[sf, bt, nc] = code
            a = _action(code, can_stand, can_dbl, st[i], hit[i], dbl[i])
            act[i] = a
            if a == ACT_STAND:
                val[i] = st[i]
            elif a == ACT_DOUBLE:
                val[i] = dbl[i]
            else:
                val[i] = hit[i]


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


@njit(cache=True)
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


# rows of removed cards handled together by ``dealer_all_upcards``: the trie walk's inner loops
# run over a block of rows (contiguous, fixed length), which the compiler turns into vector
# instructions (the sums by cell are written out for exactly eight lanes)
DEALER_BLOCK = 8


@njit(cache=True)
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
    not fit); by up card first, so that one up card's rows are contiguous. Rows are taken
    ``DEALER_BLOCK`` at a time through the trie."""
    k_n = removed.shape[0]
    n_nodes = parent.shape[0]
    n_c = contrib.shape[0]
    out = np.zeros((10, k_n, 7))
    prod = np.empty((n_nodes, DEALER_BLOCK))
    inv = np.zeros((32, DEALER_BLOCK))
    fac = np.zeros((10 * 24, DEALER_BLOCK))
    acc = np.zeros((70, DEALER_BLOCK))
    cb = np.zeros((DEALER_BLOCK, 10), np.int64)
    nb = np.zeros(DEALER_BLOCK, np.int64)
    rows = np.zeros(DEALER_BLOCK, np.int64)
    # node i multiplies by fac[slot[i]] * inv[depth[i]]; the contributions are taken by cell
    # (up card, outcome), cell x summing node[t], ords[t] for t in cstart[x]..cstart[x + 1]
    slot = np.zeros(n_nodes, np.int64)
    for i in range(n_nodes):
        slot[i] = rank[i] * 24 + min(used[i], 23)
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
    k = 0
    while k < k_n:
        m = 0  # rows of this block that fit
        while m < DEALER_BLOCK and k < k_n:
            ok = True
            n = 0
            for r in range(10):
                x = full[r] - removed[k, r]
                cb[m, r] = x
                if x < 0:
                    ok = False
                n += x
            if ok and n > 0:
                nb[m] = n
                rows[m] = k
                m += 1
            k += 1
        if m == 0:
            break
        for b in range(m, DEALER_BLOCK):  # padding lanes: a copy of the first row (discarded)
            nb[b] = nb[0]
            for r in range(10):
                cb[b, r] = cb[0, r]
        for d in range(32):
            for b in range(DEALER_BLOCK):
                x = nb[b] - d
                inv[d, b] = 1.0 / x if x > 0 else 0.0
        for r in range(10):
            for j in range(24):
                for b in range(DEALER_BLOCK):
                    fac[r * 24 + j, b] = max(cb[b, r] - j, 0)
        for b in range(DEALER_BLOCK):
            prod[0, b] = 1.0
        for i in range(1, n_nodes):
            pi = parent[i]
            si = slot[i]
            di = depth[i]
            for b in range(DEALER_BLOCK):
                prod[i, b] = prod[pi, b] * (fac[si, b] * inv[di, b])
        for x in range(70):
            # eight named sums (one per lane of the block) stay in registers
            a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
            for q in range(cstart[x], cstart[x + 1]):
                nd = node[q]
                o = ords[q]
                a0 += o * prod[nd, 0]
                a1 += o * prod[nd, 1]
                a2 += o * prod[nd, 2]
                a3 += o * prod[nd, 3]
                a4 += o * prod[nd, 4]
                a5 += o * prod[nd, 5]
                a6 += o * prod[nd, 6]
                a7 += o * prod[nd, 7]
            acc[x, 0] = a0
            acc[x, 1] = a1
            acc[x, 2] = a2
            acc[x, 3] = a3
            acc[x, 4] = a4
            acc[x, 5] = a5
            acc[x, 6] = a6
            acc[x, 7] = a7
        for b in range(m):
            kk = rows[b]
            n = nb[b]
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
