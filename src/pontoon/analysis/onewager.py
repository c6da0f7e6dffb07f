"""FED's one-wager loss of a split box to a dealer Pontoon, exactly (001 Splits, rulings 6 and 26).

Against a dealer Pontoon a split box loses one wager in all; a busted split hand was lost at once
and a 21 paid at once (rul 26), so the box loses one wager with probability
P(dealer Pontoon and some split hand alive). The dealer's second card is the first card after the
box's cards (rulings 4: no hole card). By exchangeability that card may as well be dealt *first*:
the probability that the box's cards are a given stopped sequence s and the next card is x equals
the probability that the first card is x and the next ones are s, and whether s is a complete play
of the split depends on s alone. Hence

    P(Pontoon and some hand alive) = d0 * (1 - P(every hand dead | one complement card removed)),

d0 = the chance of the complement card (a ten-value card to an Ace, an Ace to a ten-value card)
from the shoe less the up card and the two pair cards. The joint probability that every hand of
the split busts, makes 21 (paid at once) or is rescued is computed by playing the hands one after
another over the exact multiset of cards the earlier (dead) hands used (``all_dead``): hands whose
cards differ in order but not in multiset are merged. Exact for any strategy that decides by the
hand's own cards (CDZ-, CDP1, a chart); CDP decides by the number of pair cards out when the split
is over, which no causal play knows, and keeps the union approximation (``UpcardSolver``).
"""

from __future__ import annotations

import numpy as np

from pontoon.analysis import aot
from pontoon.analysis.aot import kernel
from pontoon.analysis.kernels import ACT_DOUBLE, ACT_HIT, ACT_STAND

if aot.state().mode != "aot":  # numba's typed containers, for the kernels compiled by numba
    from numba import types as nt
    from numba.typed import Dict, List

_NT = 10


@kernel()
def _play_hand(
    counts: np.ndarray,
    hard: np.ndarray,
    ncards: np.ndarray,
    nace: np.ndarray,
    trans: np.ndarray,
    shoe0: np.ndarray,
    mult: np.ndarray,
    used: np.ndarray,
    ukey: int,
    p: int,
    s2: int,
    w: float,
    one_card: bool,
    p21wins: bool,
    ace_one: bool,
    act: np.ndarray,
    rfl: np.ndarray,
    mass: np.ndarray,
    reach: np.ndarray,
    n_reach: int,
    last: bool,
    dead_keys: List,
    dead_w: List,
) -> float:
    """Play one split hand from its two-card state ``s2`` (holding ``p``; weight ``w``) drawing
    from ``shoe0 - used`` (``used`` / ``ukey``: the cards of the earlier hands); append (multiset key of
    every card used so far, weight) of each way it ends dead, or (``last``: no hand follows) only
    return the probability that it ends dead."""
    total = 0.0
    a2h = nace[s2]  # Aces among the hand's first two cards (the chain's a2)
    mass[s2] = w
    # ``reach``: the states this hand can pass through, in increasing hard total (a card always
    # raises it), so every state's mass is complete when it is reached
    for k in range(n_reach):
        i = reach[k]
        m = mass[i]
        if m == 0.0:
            continue
        mass[i] = 0.0
        # cards of this hand drawn from shoe0: its cards less the pair card it was dealt
        hkey = ukey
        n_left = 0
        for r in range(_NT):
            drawn = counts[i, r] - (1 if r == p else 0)
            hkey += drawn * mult[r]
            n_left += shoe0[r] - used[r] - drawn
        hv = hard[i]
        bt = hv + 10 if (nace[i] > 0 and hv + 10 <= 21) else hv
        if bt == 21:
            if p21wins:
                total += m  # rul 26: a 21 is paid at once
                if not last:
                    dead_keys.append(hkey)
                    dead_w.append(m)
            continue
        if one_card and ncards[i] == 2:
            continue  # 000 3.9.1: one card on each split Ace; it stands alive
        a = act[a2h, i]
        if a == ACT_STAND or n_left <= 0:
            continue
        for r in range(_NT):
            cr = shoe0[r] - used[r] - (counts[i, r] - (1 if r == p else 0))
            if cr <= 0:
                continue
            q = m * cr / n_left
            j = trans[i, r]
            if j < 0:
                total += q  # bust: lost at once (rul 26)
                if not last:
                    dead_keys.append(hkey + mult[r])
                    dead_w.append(q)
                continue
            if a == ACT_HIT:
                mass[j] += q
                continue
            if a != ACT_DOUBLE:
                continue
            free = nace[j] > 0
            if ace_one:
                free = nace[j] > (nace[i] if ncards[i] == 2 else a2h)
            dt = hard[j] + 10 if (free and hard[j] + 10 <= 21) else hard[j]
            if (dt == 21 and p21wins) or (dt < 21 and rfl[a2h, i, r] == 1):
                total += q  # doubled 21 paid at once, or rescued
                if not last:
                    dead_keys.append(hkey + mult[r])
                    dead_w.append(q)
    return total


@kernel()
def _reachable(
    hard: np.ndarray,
    trans: np.ndarray,
    shoe0: np.ndarray,
    p: int,
    one_card: bool,
    act: np.ndarray,
    two: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """For each second card r2: the states a split hand of ``p`` that drew r2 can hit through
    (a superset: any card the shoe holds), in increasing hard total (``reach[r2, :n[r2]]``)."""
    s_n = hard.shape[0]
    reach = np.zeros((_NT, s_n), np.int64)
    n = np.zeros(_NT, np.int64)
    seen = np.zeros(s_n, np.bool_)
    stack = np.zeros(s_n, np.int64)
    for r2 in range(_NT):
        s2 = two[p, r2]
        if s2 < 0 or shoe0[r2] + (2 if r2 == p else 0) <= 0:
            continue
        a2h = 0
        if p == 0:
            a2h += 1
        if r2 == 0:
            a2h += 1
        seen[:] = False
        seen[s2] = True
        stack[0] = s2
        top = 1
        while top > 0:
            top -= 1
            i = stack[top]
            if act[a2h, i] != 1 or (one_card and i == s2):  # ACT_HIT: the hand goes on
                continue
            for r in range(_NT):
                j = trans[i, r]
                if j >= 0 and not seen[j]:
                    seen[j] = True
                    stack[top] = j
                    top += 1
        k = 0
        for i in range(s_n - 1, -1, -1):  # the space is sorted by decreasing hard total
            if seen[i]:
                reach[r2, k] = i
                k += 1
        n[r2] = k
    return reach, n


@kernel(
    "f8(i8[:, ::1], i8[::1], i8[::1], i8[::1], i8[:, ::1], i8[::1], i8, i8, b1, b1, b1, i1[:, ::1], "
    "i1[:, :, ::1], i8[:, ::1], i8)"
)
def all_dead(
    counts: np.ndarray,
    hard: np.ndarray,
    ncards: np.ndarray,
    nace: np.ndarray,
    trans: np.ndarray,
    shoe0: np.ndarray,
    p: int,
    max_hands: int,
    one_card: bool,
    p21wins: bool,
    ace_one: bool,
    act: np.ndarray,
    rfl: np.ndarray,
    two: np.ndarray,
    max_states: int,
) -> float:
    """P(every hand of a split of ``p`` ends dead) when the hands draw from ``shoe0`` (the shoe
    less the up card and the two pair cards, and whatever else is known out). Each hand gets its
    second card when its turn comes; a pair card starts a new hand while fewer than ``max_hands``
    exist (004 3.24.2, 000 3.9; the analyser always resplits). ``act[a2, s]`` / ``rfl[a2, s, r]``:
    the chains' actions and rescues by the Aces among the hand's first two cards; ``two[p, r]``
    the state of the two cards p and r. Returns -1 once more than ``max_states`` partial box
    states (cards used, hands) have been played (bounded time and memory)."""
    reach, n_reach = _reachable(hard, trans, shoe0, p, one_card, act, two)
    mult = np.zeros(_NT, np.int64)
    acc = 1
    for r in range(_NT):
        mult[r] = acc
        acc *= shoe0[r] + 1
    mass = np.zeros(hard.shape[0])
    used = np.zeros(_NT, np.int64)
    # level: key = multiset key * 64 + hands * 8 + hands still to play
    level = Dict.empty(key_type=nt.int64, value_type=nt.float64)
    level[2 * 8 + 2] = 1.0
    result = 0.0
    played = 0
    while len(level) > 0:
        nxt = Dict.empty(key_type=nt.int64, value_type=nt.float64)
        played += len(level)
        if played > max_states:
            return -1.0
        for key, w in level.items():
            rem = key % 8
            hands = (key // 8) % 8
            ukey = key // 64
            x = ukey
            for r in range(_NT):
                used[r] = (x // mult[r]) % (shoe0[r] + 1)
            # the hand in turn draws its second card; a pair card while hands < max splits again
            while True:
                n = 0
                for r in range(_NT):
                    n += shoe0[r] - used[r]
                if n <= 0:
                    break
                dead_keys = List.empty_list(nt.int64)
                dead_w = List.empty_list(nt.float64)
                resplit = hands < max_hands and shoe0[p] - used[p] > 0
                for r2 in range(_NT):
                    cr = shoe0[r2] - used[r2]
                    if cr <= 0 or (r2 == p and resplit):
                        continue
                    dead = _play_hand(
                        counts,
                        hard,
                        ncards,
                        nace,
                        trans,
                        shoe0,
                        mult,
                        used,
                        ukey,
                        p,
                        two[p, r2],
                        w * cr / n,
                        one_card,
                        p21wins,
                        ace_one,
                        act,
                        rfl,
                        mass,
                        reach[r2],
                        n_reach[r2],
                        rem == 1,
                        dead_keys,
                        dead_w,
                    )
                    if rem == 1:
                        result += dead
                for k in range(len(dead_keys)):
                    nk = dead_keys[k] * 64 + hands * 8 + (rem - 1)
                    nxt[nk] = nxt.get(nk, 0.0) + dead_w[k]
                if not resplit:
                    break
                w = w * (shoe0[p] - used[p]) / n
                used[p] += 1
                ukey += mult[p]
                hands += 1
                rem += 1
        level = nxt
    return result


MAX_STATES = 50_000  # partial box states played at most (about 0.3 ms each; FED 6 decks: 2-2 to 4-4
# against an Ace are past it, 5-5 and above within)


def key_fits(shoe0: np.ndarray) -> bool:
    """Whether ``all_dead``'s multiset keys (mixed radix by ``shoe0``, times 64) fit an int64."""
    return int(np.prod([int(c) + 1 for c in shoe0], dtype=object)) * 64 < 2**62
