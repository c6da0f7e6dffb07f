"""Numba kernels of the player's side of the analyser: arrays in, arrays out, no objects.

A dealer distribution (``analysis.dealer``): 0..4 = final 17..21, NAT = 5 natural, BUST = 6 bust.
Value index of a card: 0 = Ace, 1..8 = 2..9, 9 = ten-value.
"""

from __future__ import annotations

import numpy as np

from pontoon.analysis.aot import kernel
from pontoon.analysis.dealer import BUST, NAT

# The helpers of ``chain`` are inlined into it (numba's inline="always": one compiled function,
# no calls between them in the hot loop; about a quarter faster than calls). Its pass 1 (stand,
# hit, double of each state) is written out in it, not an inlined helper: numba counts the
# references of every array an inlined function takes (an atomic increment and decrement each,
# per call), which with some twenty arrays per state was half of a split's time (2.6x faster
# pasted, issue 15 item 3); for the same reason the stand value's sums are pasted there too
# (``stand_value``'s text; ``test_split_runs`` holds them equal).

# policy codes for a state (``chain``)
OPTIMAL = -1
STAND = 0
HIT = 1
DOUBLE_HIT = 2  # double, else hit
DOUBLE_STAND = 3  # double, else stand

# what ``chain``'s pass 1 values in a state (its ``lean``)
NEED_ALL = 0
NEED_HIT = 1
NEED_STAND = 2

# the action ``chain`` takes in a state (its ``act`` output)
ACT_STAND = 0
ACT_HIT = 1
ACT_DOUBLE = 2
ACT_21 = 3  # a total of 21: paid at once where player 21 wins, else stands


@kernel("f8(f8[::1], i8, f8, f8, b1)", inline=True)
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


@kernel(inline=True)
def _nonnat(n_left: int, k_other: int, up: int, peek: bool) -> float:
    """In peek mode: probability the dealer has no natural given the cards now out (``n_left``
    cards left, ``k_other`` of them the up card's complement) (else 1)."""
    if not peek or (up != 0 and up != 9) or n_left <= 0:
        return 1.0
    return 1.0 - k_other / n_left


@kernel(inline=True)
def _accumulate(
    order: np.ndarray,
    g0: int,
    g1: int,
    hard: np.ndarray,
    ncards: np.ndarray,
    nace: np.ndarray,
    active: np.ndarray,
    weights: np.ndarray,
    st: np.ndarray,
    hit: np.ndarray,
    dbl: np.ndarray,
    acc: np.ndarray,
) -> None:
    """``chain``'s build mode: the weighted stand / hit / double sums of the states
    ``order[g0:g1]`` of three or more cards, by class (soft, best total, cards)."""
    for k in range(g0, g1):
        i = order[k]
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


@kernel(inline=True)
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


@kernel(inline=True)
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


@kernel(inline=True)
def _reachable(
    hard: np.ndarray,
    ncards: np.ndarray,
    nace: np.ndarray,
    trans: np.ndarray,
    active: np.ndarray,
    policy: np.ndarray,
    forced: int,
    dbl2: bool,
    dbl_any: bool,
    live: np.ndarray,
    order: np.ndarray,
) -> int:
    """``chain``'s ``prune``: the active states a fixed policy can reach from the active two-card
    states (which are valued in full: stand, hit and double), lowest hard total first, into
    ``live`` (all False on entry) and, as their indices in ascending order (``chain``'s order),
    into ``order[:n]``; returns n. None of the policy codes may be OPTIMAL (the action of a state
    then depends on its code alone)."""
    s_n = hard.shape[0]
    n = 0
    for i in range(s_n - 1, -1, -1):
        if not active[i] or ncards[i] < 1:
            continue
        if ncards[i] == 2:
            live[i] = True
        if not live[i]:
            continue
        order[n] = i
        n += 1
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
    for k in range(n // 2):  # found lowest hard total (highest index) first
        t = order[k]
        order[k] = order[n - 1 - k]
        order[n - 1 - k] = t
    return n


@kernel(
    "void(i8[:, ::1], i8[::1], i8[::1], i8[::1], i8[:, ::1], b1[::1], i8[::1], f8[:, ::1], i8[::1], f8[::1], "
    "i8, b1, b1, f8, f8, i8, b1, b1, i8, b1, b1, i8[::1], i8[::1], i1[:, ::1], b1, b1, b1, "
    "f8[::1], f8[::1], f8[::1], f8[::1], f8[::1], i8[:, :, ::1], f8[::1], i1[::1], i1[:, ::1])"
)
def chain(
    counts: np.ndarray,
    hard: np.ndarray,
    ncards: np.ndarray,
    nace: np.ndarray,
    trans: np.ndarray,
    active: np.ndarray,
    base: np.ndarray,
    drows: np.ndarray,
    dpos: np.ndarray,
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
    lean: bool,
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

    The dealer's distribution against state ``s`` is ``drows[dpos[s]]`` (a table of dealer rows
    and each state's row in it, -1: the table's last row, zeros, for states without one).

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
    ``lean`` (not with ``build``; what the split hands read, ``split_runs``): states of three or
    more cards get no ``dbl`` (0) and no ``rfl`` where they may not double, and where ``prune``
    left a fixed policy, only the value of the action it takes (``st`` always; ``hit`` where it
    draws, ``dbl`` where it doubles); every other output as without it.
    """
    s_n = hard.shape[0]
    nbase = 0
    for r in range(10):
        nbase += base[r]
    live = active
    fixed = False
    order = np.empty(s_n, np.int64)  # the states valued, by index (highest hard total first)
    n_ord = 0
    if prune and not build:
        fixed = True
        for i in range(s_n):
            if active[i] and policy[i] == OPTIMAL:
                fixed = False
                break
        if fixed:
            live = np.zeros(s_n, np.bool_)
            n_ord = _reachable(hard, ncards, nace, trans, active, policy, forced, dbl2, dbl_any, live, order)
    if not fixed:
        for i in range(s_n):
            if live[i] and ncards[i] >= 1:
                order[n_ord] = i
                n_ord += 1
    lean = lean and not build
    acc = np.zeros((2, 22, 12, 3)) if build else np.zeros((1, 1, 1, 3))
    k = 0
    while k < n_ord:
        g0 = k
        h = hard[order[k]]
        while k < n_ord and hard[order[k]] == h:
            k += 1
        # pass 1: stand, hit, double of every state of this hard total (their cards lead to
        # higher totals, already valued)
        for kk in range(g0, k):
            i = order[kk]
            need = NEED_ALL
            if lean and ncards[i] >= 3:
                need = NEED_ALL if dbl_any else NEED_HIT
                if fixed:
                    hv = hard[i]
                    bt = hv + 10 if (nace[i] > 0 and hv + 10 <= 21) else hv
                    need = NEED_STAND
                    if bt < 21:  # 21 stands (or is paid at once)
                        a = _action(policy[i], bt >= forced, dbl_any, 0.0, 0.0, 0.0)
                        if a == ACT_HIT:
                            need = NEED_HIT
                        elif a == ACT_DOUBLE:
                            need = NEED_ALL
            # stand, hit (then its best play, ``val`` of the states one card on) and double (one
            # card, then keep or rescue); ``need`` (``lean``): NEED_ALL all three, NEED_HIT no
            # double (``dbl`` 0, no rescue flags, nothing into ``racc``), NEED_STAND the stand
            # value only. The states one card on (higher hard totals) are already valued: where
            # a doubled hand's total is that state's own best total, keeping the double is twice
            # its stand value (exactly: the same sums times 2), else the stand value is taken
            # afresh. The peek's chance of no dealer natural is worked out from the cards left.
            n_left = nbase - ncards[i]
            hv = hard[i]
            bt = hv
            if nace[i] > 0 and hv + 10 <= 21:
                bt = hv + 10
            # stand (``stand_value``'s sums, pasted: no array view per state)
            d_i = dpos[i]
            win = drows[d_i, BUST]
            lose = 0.0
            for c in range(5):
                if 17 + c < bt:
                    win += drows[d_i, c]
                elif 17 + c > bt:
                    lose += drows[d_i, c]
            v_st = 1.0 * (win - lose)
            if not peek:
                v_st -= nat_loss * drows[d_i, NAT]
            st[i] = v_st
            if need == NEED_STAND:
                continue
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
                continue
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
                if need == NEED_HIT:
                    continue
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
                    if twice and dt == own and live[j]:
                        keep = 2.0 * st[j]
                    else:
                        d_j = dpos[j]  # ``stand_value``'s sums, pasted
                        win = drows[d_j, BUST]
                        lose = 0.0
                        for c in range(5):
                            if 17 + c < dt:
                                win += drows[d_j, c]
                            elif 17 + c > dt:
                                lose += drows[d_j, c]
                        keep = 2.0 * (win - lose)
                        if not peek:
                            keep -= nat_loss_dbl * drows[d_j, NAT]
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
        if build:
            _accumulate(order, g0, k, hard, ncards, nace, live, weights, st, hit, dbl, acc)
        # pass 2: the value of holding each state
        for kk in range(g0, k):
            i = order[kk]
            hv = hard[i]
            sf = 0
            bt = hv
            if nace[i] > 0 and hv + 10 <= 21:
                bt = hv + 10
                sf = 1
            if bt == 21:
                act[i] = ACT_21
                if p21wins:
                    k_o = base[9 if up == 0 else 0] - counts[i, 9 if up == 0 else 0]
                    val[i] = pay21[i] * _nonnat(nbase - ncards[i], k_o, up, peek)
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
