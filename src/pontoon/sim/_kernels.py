"""Numba kernels of the fast simulator: plain arrays in, integer counts out.

Nothing here knows about rules objects, strategies as dicts or random generators: ``api.py``
turns the rules into the ``P`` parameter vector, the strategy into the ``strat`` table
(``tables.py``), and draws every random number (uniform floats) outside. The kernels are the
unchecked fast path; the public functions in ``api.py`` validate everything first.

The shoe is dealt by a lazy Fisher-Yates shuffle: the card at ``pos`` is swapped with a card
chosen uniformly from ``shoe[pos:]`` (``_below``: exact, by Lemire's multiply-shift with
rejection) using the next 32 bits of the buffer ``ur``, which ``api.py`` fills from numpy's SFC64
bit generator, seeded per chunk from the chunk's SeedSequence: the kernel has no generator of
its own.
Resetting ``pos`` to 0 is therefore a full reshuffle, which is how both the cut card and the
continuous shuffler are modelled. Stacked shoes (``st[3] == 1``, tests) are dealt in stored
order and take Pandemonium presses from ``ju``.

Speed: the per-round functions are compiled with ``_nrt=False`` (no reference counting: they
never allocate). Compiled with it, numba increfs/decrefs every array argument with atomic
instructions on each call, which cost about 60% of the run time (2M rounds/s -> 8.8M with it off);
inlining them at the numba IR level (``inline="always"``) did not avoid it.

Money is integer "quanta" (``api.py`` picks the quantum so that every payment is whole).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from pontoon.sim.numba_cache import configure

# compiled kernels cached on disk where that can be written (numba_cache.py; never fails read-only)
CACHE = configure()
# no reference counting (the functions never allocate): see the module docstring
_NO_NRT: dict[str, Any] = {"cache": CACHE, "_nrt": False, "error_model": "numpy"}

# ---- parameter vector indices -------------------------------------------------------------
P_CUT = 0  # cards dealt before the cut card comes out; 0 = continuous shuffler (every round)
P_BOXES = 1
P_HOLE = 2  # dealer takes a hole card in the initial deal (blackjack)
P_PEEK = 3  # dealer peeks for a natural with an Ace or ten-value up card
P_H17 = 4  # dealer hits soft 17 (rulings 7)
P_21WINS = 5  # rulings 5: a player's 21 is paid at once and cannot lose
P_NATPUSH = 6  # player natural pushes against a dealer natural (blackjack); else paid at once
P_SPLIT_RANK = 7  # split needs equal rank (else equal value: rulings 10)
P_MAXHANDS = 8
P_RSA = 9  # resplit aces
P_HSA = 10  # hit split aces
P_DBL_ANY = 11  # FED: double on any number of cards
P_DAS = 12
P_DSA = 13  # double split aces
P_DBL_ACE1 = 14  # rulings 12: Aces among the first two cards count 1 on a doubled hand
P_RESCUE = 15  # rulings 13
P_DBL_ORIG = 16  # rulings 6: a doubled hand loses only its original wager to a dealer Pontoon
P_SPLIT_ONE = 17  # FED: a split box loses only one wager to a dealer Pontoon
P_SURR = 18  # 0 none, 1 early (before any draw, lost in full to a dealer natural), 2 late
P_INS = 19  # insurance offered (and taken on every box by this bettor)
P_FORCED = 20  # rulings 14: a hand below this best total must draw (0 = none)
P_SB_AMT = 21  # Super Bonus fixed amount for the simulated wager (0 = none)
P_SB_OTHER = 22  # the payment to every other box in a Super Bonus round
P_PAIR = 23
P_BONUS = 24
P_PAN = 25
P_W = 26  # the main wager
P_WIN = 27  # a regular win on W
P_NAT = 28  # a natural (Pontoon) on W
P_5C = 29
P_6C = 30
P_7C = 31
P_678M = 32
P_678S = 33
P_678SP = 34
P_777M = 35
P_777S = 36
P_777SP = 37
P_INS_STAKE = 38
P_INS_WIN = 39
P_SURR_LOSS = 40
P_SIDE = 41  # side wager
P_PAIR_WIN = 42
P_B_SA = 43
P_B_AA = 44
P_B_HP = 45
P_B_AP = 46
P_B_LP = 47
P_B_AL = 48
P_SUR_ANYUP = 49  # surrender against any up card (blackjack late surrender)
P_SPLIT_NAT = 50  # split Ace + ten counts as a natural
P_SB_ON = 51  # Super Bonus offered (rulings 17)
P_COMP = 52  # 1 = the composition table ``comp`` overrides the chart (``--strategy optimal``)
P_ROOT = 53  # the empty hand's state in ``trans`` (``--strategy optimal``)
NP = 54

# ---- strategy codes -----------------------------------------------------------------------
C_H = 0
C_S = 1
C_D = 2  # double, else hit
C_DS = 3  # double, else stand
C_P = 4
C_R = 5  # surrender, else hit
C_RS = 6  # surrender, else stand
C_NONE = -1  # pair table: no split advice (play the total)
K_HARD = 0
K_SOFT = 1
K_PAIR = 2
K_RESCUE = 3
NC_MAX = 9  # card-count index: min(ncards, NC_MAX)
# composition table (``--strategy optimal``, ``analysis.optimal_table.optimal_tables``):
# comp[upcard points, kind, state]; state = the hand's multiset of card values, followed card by
# card through trans[state, value index] (``analysis.states.state_space``); kind 0 / 1 = an
# unsplit two-card hand of different / one suit, 2 = an unsplit hand of 3+ cards, 3 + p = a hand
# from a split of value index p. -1 = no entry (play the chart); else ``code & 7`` is C_H C_S
# C_D or C_R and ``code & COMP_SPLIT`` says split (or resplit) where the rules allow it.
COMP_SPLIT = 8
COMP_KIND_SPLIT = 3
NF = 14  # integer fields per hand (``_play_round``: F_N .. F_KD)

# ---- lines (acc[line, 0] = count, acc[line, 1] = net quanta) --------------------------------
L_PONTOON = 0
L_21_5 = 1
L_21_6 = 2
L_21_7 = 3
L_678_M = 4
L_678_S = 5
L_678_SP = 6
L_777_M = 7
L_777_S = 8
L_777_SP = 9
L_21 = 10  # any other 21 paid at once (split two-card 21, 3/4-card 21, doubled 21)
L_WIN = 11
L_PUSH = 12
L_LOSS = 13
L_BUST = 14
L_SURR = 15
L_RESCUE = 16
L_SB = 17
L_SB_OTHER = 18
L_INS = 19
L_PAIR = 20
L_BONUS = 21
L_PAN = 22
L_VOID = 23  # count only
L_DOUBLE = 24  # count only (hands doubled)
L_SPLIT = 25  # count only (splits made)
L_DEALER_PONTOON = 26  # count only
L_B_SA = 27  # bonus sub-lines: count = hits, money = amount won (already inside L_BONUS)
L_B_AA = 28
L_B_HP = 29
L_B_AP = 30
L_B_LP = 31
L_B_AL = 32
L_PAIR_LOSE = 33
L_BONUS_LOSE = 34
L_PAN_LOSE = 35
L_INS_LOSE = 36
NL = 37

# wager kinds of the per-round record (and of each line); -1 = information only
K_MAIN = 0
K_INSUR = 1
K_PAIRB = 2
K_BONUSB = 3
K_PANB = 4
K_SUPER = 5
NK = 6
REC_W = 8  # record row: NK kinds, then the jackpot multiplier index (-1 none), then void flag
LINE_KIND = np.array(
    [K_MAIN] * 17
    + [K_SUPER, K_SUPER, K_INSUR, K_PAIRB, K_BONUSB, K_PANB]
    + [-1] * 10
    + [K_PAIRB, K_BONUSB, K_PANB, K_INSUR],
    dtype=np.int64,
)

MAXCARDS = 24  # cards per hand (cannot exceed 21 points with more than 21 cards)
LOGN = 256

# ---- cards ----------------------------------------------------------------------------------
# code = rank_index * 4 + suit_index; ranks "A23456789TJQK", suits "SHDC" (pontoon.cards)
POINTS = np.array([min(r + 1, 10) for r in range(13) for _ in range(4)], dtype=np.int64)


U32 = np.uint64(0xFFFFFFFF)
INV32 = 1.0 / 4294967296.0  # 2**-32


@njit(**_NO_NRT)
def _u32(st, ur):
    """The next 32 random bits of the buffer ``ur`` (drawn by ``api.py``), at index ``st[1]``.

    Past the end of the buffer (possible only after some 2**32 / n improbable rejections in
    ``_below``: never in practice) it wraps to the start rather than read outside it."""
    i = st[1]
    if i >= ur.shape[0]:
        i = 0
    st[1] = i + 1
    return np.uint64(ur[i])


@njit(**_NO_NRT)
def _below(st, ur, m):
    """A uniform integer in [0, m) (0 < m < 2**32): Lemire's multiply-shift with rejection, so
    every value has exactly the same probability (the rejection happens with probability below
    m / 2**32, under 1e-7 for a shoe)."""
    mm = np.uint64(m)
    x = _u32(st, ur) * mm
    low = x & U32
    if low < mm:
        t = (U32 + np.uint64(1) - mm) % mm
        while low < t:
            x = _u32(st, ur) * mm
            low = x & U32
    return np.int64(x >> np.uint64(32))


@njit(**_NO_NRT)
def _uniform(st, ur):
    """A float in [0, 1) with 32 random bits (Pandemonium presses)."""
    return np.float64(_u32(st, ur)) * INV32


@njit(**_NO_NRT)
def _draw(shoe, st, ur):
    """Next card: lazy Fisher-Yates step. -1 when the shoe is empty (the round is void).

    ``st[3] == 1`` (stacked shoes): the cards are dealt in stored order, ``ur`` is not used."""
    pos = st[0]
    n = shoe.shape[0]
    if pos >= n:
        return -1
    st[0] = pos + 1
    if st[3] == 1:
        return shoe[pos]
    j = pos + _below(st, ur, n - pos)
    c = shoe[j]
    shoe[j] = shoe[pos]
    shoe[pos] = c
    return c


@njit(**_NO_NRT)
def _pts(c):
    r = c >> 2
    if r >= 9:
        return 10
    return r + 1


@njit(**_NO_NRT)
def _log(logl, loga, logb, n, line, amount, box):
    logl[n] = line
    loga[n] = amount
    logb[n] = box
    return n + 1


@njit(**_NO_NRT, inline="always")
def _play_round(
    shoe, st, ur, ju, P, pan_pay, pan_cum, strat, comp, trans, hc, hi, bx, logl, loga, logb, jrec
):
    """Play one round. Returns the number of log entries, or -1 when the round is void.

    Workspace: hc[h, k] cards of hand h; hi[h, :] integer hand fields (see below).
    jrec[box] receives the Pandemonium multiplier index drawn for the box (-1 none).
    """
    nb = P[P_BOXES]
    W = P[P_W]
    nlog = 0
    # hand fields
    F_N = 0  # cards
    F_HARD = 1
    F_ACE = 2  # any Ace
    F_ACE2 = 3  # an Ace at index >= 2 (may count 11 on a doubled hand)
    F_SPLIT = 4  # hand comes from a split
    F_SACE = 5  # split Aces hand
    F_DBL = 6
    F_LIVE = 7  # 1 = waits for the dealer
    F_SURR = 8
    F_NAT = 9  # natural waiting for the dealer (blackjack push rule)
    F_TOT = 10  # final total of a live hand
    F_SB = 11
    F_ST = 12  # the hand's state in ``trans`` (-1 past 21), kept only with a composition table
    F_KD = 13  # its composition-table kind when split (3 + pair value index), else -1
    cp = P[P_COMP] == 1
    root = P[P_ROOT]
    for b in range(nb):
        jrec[b] = -1
        bx[1, b] = 0
    # ---- initial deal (scenario-format: boxes in order, dealer, second card to each box) ----
    for b in range(nb):
        h = b * 4
        c = _draw(shoe, st, ur)
        if c < 0:
            return -1
        hc[h, 0] = c
    up = _draw(shoe, st, ur)
    if up < 0:
        return -1
    for b in range(nb):
        h = b * 4
        c = _draw(shoe, st, ur)
        if c < 0:
            return -1
        hc[h, 1] = c
    upp = _pts(up)
    upr = up >> 2
    hole = -1
    if P[P_HOLE] == 1:
        hole = _draw(shoe, st, ur)
        if hole < 0:
            return -1
    # box bookkeeping: nh[b] hands in hi rows b*4 .. b*4+nh-1
    nh = bx[0]
    ins = bx[1]
    anyplay = False
    for b in range(nb):
        h = b * 4
        nh[b] = 1
        a = hc[h, 0]
        c = hc[h, 1]
        pa = _pts(a)
        pc = _pts(c)
        hi[h, F_N] = 2
        hi[h, F_HARD] = pa + pc
        hi[h, F_ACE] = 1 if (pa == 1 or pc == 1) else 0
        hi[h, F_ACE2] = 0
        hi[h, F_SPLIT] = 0
        hi[h, F_SACE] = 0
        hi[h, F_DBL] = 0
        hi[h, F_LIVE] = 0
        hi[h, F_SURR] = 0
        hi[h, F_NAT] = 0
        hi[h, F_SB] = 0
        if cp:
            hi[h, F_ST] = trans[trans[root, pa - 1], pc - 1]
            hi[h, F_KD] = -1
        ra = a >> 2
        rc = c >> 2
        # ---- interim settlement: side bets on the box's first two cards ----
        if P[P_PAIR] == 1:  # rulings 18
            if ra == rc:
                nlog = _log(logl, loga, logb, nlog, L_PAIR, P[P_PAIR_WIN], b)
            else:
                nlog = _log(logl, loga, logb, nlog, L_PAIR_LOSE, -P[P_SIDE], b)
        if P[P_BONUS] == 1:  # rulings 19: only the highest matching line pays
            sub = -1
            if ra == 0 and rc == 0:
                sub = L_B_SA if (a & 3) == (c & 3) else L_B_AA
            elif ra == rc and ra >= 10:
                sub = L_B_HP
            elif (ra == 0 and rc >= 10) or (rc == 0 and ra >= 10):
                sub = L_B_AP
            elif ra == rc and 1 <= ra <= 9:
                sub = L_B_LP
            elif (ra == 0 and 1 <= rc <= 8) or (rc == 0 and 1 <= ra <= 8):
                sub = L_B_AL
            if sub < 0:
                nlog = _log(logl, loga, logb, nlog, L_BONUS_LOSE, -P[P_SIDE], b)
            else:
                win = P[P_B_SA + (sub - L_B_SA)]
                nlog = _log(logl, loga, logb, nlog, L_BONUS, win, b)
                nlog = _log(logl, loga, logb, nlog, sub, win, b)
        natural = (pa == 1 and pc == 10) or (pa == 10 and pc == 1)
        if P[P_PAN] == 1:  # rulings 20: one press per box
            if natural:
                if st[3] == 1:
                    u = ju[st[2]]
                    st[2] += 1
                else:
                    u = _uniform(st, ur)
                k = 0
                while k < pan_cum.shape[0] - 1 and u >= pan_cum[k]:
                    k += 1
                jrec[b] = k
                nlog = _log(logl, loga, logb, nlog, L_PAN, pan_pay[k], b)
            else:
                nlog = _log(logl, loga, logb, nlog, L_PAN_LOSE, -P[P_SIDE], b)
        if natural:
            if P[P_NATPUSH] == 1 and (upp == 1 or upp == 10):
                hi[h, F_NAT] = 1  # waits for the dealer (blackjack)
            else:
                # rulings 5: paid 3 to 2 at once, can no longer lose
                nlog = _log(logl, loga, logb, nlog, L_PONTOON, P[P_NAT], b)
                hi[h, F_N] = -2  # marks "finished natural"
        if not natural:
            anyplay = True
    # rulings 8: insurance when the dealer shows an Ace (the engine opens the window only while
    # some hand is still to act)
    if P[P_INS] == 1 and upr == 0 and anyplay:
        for b in range(nb):
            ins[b] = 1
    # ---- blackjack: peek for a natural ----
    dealer_nat = False
    peeked = False
    if P[P_HOLE] == 1 and P[P_PEEK] == 1 and (upp == 1 or upp == 10):
        peeked = True
        hp = _pts(hole)
        if (upp == 1 and hp == 10) or (upp == 10 and hp == 1):
            dealer_nat = True
            nlog = _log(logl, loga, logb, nlog, L_DEALER_PONTOON, 0, 0)
            for b in range(nb):
                h = b * 4
                if ins[b] == 1:
                    nlog = _log(logl, loga, logb, nlog, L_INS, P[P_INS_WIN], b)
                if hi[h, F_NAT] == 1:
                    nlog = _log(logl, loga, logb, nlog, L_PUSH, 0, b)
                elif hi[h, F_N] != -2:
                    nlog = _log(logl, loga, logb, nlog, L_LOSS, -W, b)
            return nlog
    # ---- players act, box by box, hand by hand ----
    any_sb = False
    pending = False  # something needs the dealer's second card (insurance, surrender, natural)
    live_any = False
    for b in range(nb):
        if ins[b] == 1:
            pending = True
        k = 0
        while k < nh[b]:
            h = b * 4 + k
            if hi[h, F_N] == -2:
                k += 1
                continue
            if hi[h, F_NAT] == 1:
                pending = True
                k += 1
                continue
            if hi[h, F_N] == 1:
                # a split hand gets its second card when its turn comes (004 3.24.2)
                c = _draw(shoe, st, ur)
                if c < 0:
                    return -1
                hc[h, 1] = c
                hi[h, F_N] = 2
                hi[h, F_HARD] += _pts(c)
                if _pts(c) == 1:
                    hi[h, F_ACE] = 1
                if cp:
                    hi[h, F_ST] = trans[hi[h, F_ST], _pts(c) - 1]
            while True:
                n = hi[h, F_N]
                hard = hi[h, F_HARD]
                tot = hard
                soft = False
                if hi[h, F_ACE] == 1 and hard + 10 <= 21:
                    tot = hard + 10
                    soft = True
                if hard > 21:  # rulings 6 / 000 3.16: a bust loses at once
                    nlog = _log(logl, loga, logb, nlog, L_BUST, -W, b)
                    break
                if tot == 21:
                    if n == 2 and hi[h, F_SPLIT] == 1 and P[P_SPLIT_NAT] == 1 and P[P_NATPUSH] == 0:
                        nlog = _log(logl, loga, logb, nlog, L_PONTOON, P[P_NAT], b)
                        break
                    if P[P_21WINS] == 1:
                        # rulings 5 and 16: paid at once at the pay-table odds
                        line = L_21
                        pay = P[P_WIN]
                        if n == 3:
                            r0 = hc[h, 0] >> 2
                            r1 = hc[h, 1] >> 2
                            r2 = hc[h, 2] >> 2
                            s0 = hc[h, 0] & 3
                            s1 = hc[h, 1] & 3
                            s2 = hc[h, 2] & 3
                            same = s0 == s1 and s1 == s2
                            if r0 == 6 and r1 == 6 and r2 == 6:
                                if same and s0 == 0:
                                    line = L_777_SP
                                    pay = P[P_777SP]
                                elif same:
                                    line = L_777_S
                                    pay = P[P_777S]
                                else:
                                    line = L_777_M
                                    pay = P[P_777M]
                                # rulings 17: Super Bonus (unsplit, undoubled, one suit, dealer 7)
                                if same and upr == 6 and hi[h, F_SPLIT] == 0 and P[P_SB_ON] == 1:
                                    hi[h, F_SB] = 1
                                    any_sb = True
                                    nlog = _log(logl, loga, logb, nlog, L_SB, P[P_SB_AMT], b)
                            elif (
                                r0 + r1 + r2 == 18
                                and r0 != r1
                                and r1 != r2
                                and r0 != r2
                                and (r0 == 5 or r0 == 6 or r0 == 7)
                                and (r1 == 5 or r1 == 6 or r1 == 7)
                            ):
                                if same and s0 == 0:
                                    line = L_678_SP
                                    pay = P[P_678SP]
                                elif same:
                                    line = L_678_S
                                    pay = P[P_678S]
                                else:
                                    line = L_678_M
                                    pay = P[P_678M]
                        elif n == 5:
                            line = L_21_5
                            pay = P[P_5C]
                        elif n == 6:
                            line = L_21_6
                            pay = P[P_6C]
                        elif n >= 7:
                            line = L_21_7
                            pay = P[P_7C]
                        nlog = _log(logl, loga, logb, nlog, line, pay, b)
                    else:
                        hi[h, F_LIVE] = 1
                        hi[h, F_TOT] = 21
                        live_any = True
                    break
                # 000 3.9.1: split Aces take one card each and no further action
                locked = hi[h, F_SACE] == 1 and P[P_HSA] == 0
                nci = n if n < NC_MAX else NC_MAX
                oc = -1  # composition table's code
                if cp and hi[h, F_ST] >= 0:
                    kd = hi[h, F_KD]
                    if kd < 0:
                        if n == 2:
                            kd = 1 if (hc[h, 0] & 3) == (hc[h, 1] & 3) else 0
                        else:
                            kd = 2
                    oc = comp[upp, kd, hi[h, F_ST]]
                # -- split? --
                if n == 2:
                    c0 = hc[h, 0]
                    c1 = hc[h, 1]
                    p0 = _pts(c0)
                    pairok = (c0 >> 2) == (c1 >> 2) if P[P_SPLIT_RANK] == 1 else p0 == _pts(c1)
                    if pairok and nh[b] < P[P_MAXHANDS] and (p0 != 1 or hi[h, F_SACE] == 0 or P[P_RSA] == 1):
                        if ((oc & COMP_SPLIT) != 0) if oc >= 0 else (strat[K_PAIR, p0, nci, upp] == C_P):
                            # split: this hand keeps its first card and draws its second now
                            last = b * 4 + nh[b]
                            nn = h + 1
                            for q in range(last, nn, -1):
                                for f in range(NF):
                                    hi[q, f] = hi[q - 1, f]
                                for f in range(3):
                                    hc[q, f] = hc[q - 1, f]
                            nh[b] += 1
                            nlog = _log(logl, loga, logb, nlog, L_SPLIT, 0, b)
                            hc[nn, 0] = c1
                            hi[nn, F_N] = 1
                            hi[nn, F_HARD] = p0
                            hi[nn, F_ACE] = 1 if p0 == 1 else 0
                            hi[nn, F_ACE2] = 0
                            hi[nn, F_SPLIT] = 1
                            hi[nn, F_SACE] = 1 if p0 == 1 else 0
                            hi[nn, F_DBL] = 0
                            hi[nn, F_LIVE] = 0
                            hi[nn, F_SURR] = 0
                            hi[nn, F_NAT] = 0
                            hi[nn, F_SB] = 0
                            hi[h, F_SPLIT] = 1
                            hi[h, F_SACE] = 1 if p0 == 1 else 0
                            c = _draw(shoe, st, ur)
                            if c < 0:
                                return -1
                            hc[h, 1] = c
                            hi[h, F_HARD] = p0 + _pts(c)
                            hi[h, F_ACE] = 1 if (p0 == 1 or _pts(c) == 1) else 0
                            if cp:
                                hi[nn, F_ST] = trans[root, p0 - 1]
                                hi[nn, F_KD] = COMP_KIND_SPLIT + p0 - 1
                                hi[h, F_ST] = trans[trans[root, p0 - 1], _pts(c) - 1]
                                hi[h, F_KD] = COMP_KIND_SPLIT + p0 - 1
                            continue
                if locked:
                    hi[h, F_LIVE] = 1
                    hi[h, F_TOT] = tot
                    live_any = True
                    break
                code = strat[K_SOFT if soft else K_HARD, tot, nci, upp]
                if oc >= 0:
                    code = oc & 7
                # -- resolve the code against what is legal --
                can_dbl = False
                if P[P_DBL_ANY] == 1 or n == 2:
                    can_dbl = hi[h, F_SPLIT] == 0 or P[P_DAS] == 1
                    if hi[h, F_SACE] == 1 and P[P_DSA] == 0:
                        can_dbl = False
                can_surr = (
                    P[P_SURR] > 0
                    and n == 2
                    and nh[b] == 1
                    and hi[h, F_SPLIT] == 0
                    and (P[P_SUR_ANYUP] == 1 or upr == 0 or upr >= 10)
                )
                act = C_H
                if code == C_S:
                    act = C_S
                elif code == C_D:
                    act = C_D if can_dbl else C_H
                elif code == C_DS:
                    act = C_D if can_dbl else C_S
                elif code == C_R:
                    act = C_R if can_surr else C_H
                elif code == C_RS:
                    act = C_R if can_surr else C_S
                if act == C_S and tot < P[P_FORCED]:  # rulings 14: forced draw
                    act = C_H
                if act == C_S:
                    hi[h, F_LIVE] = 1
                    hi[h, F_TOT] = tot
                    live_any = True
                    break
                if act == C_R:  # rulings 9
                    hi[h, F_SURR] = 1
                    pending = True
                    break
                c = _draw(shoe, st, ur)
                if c < 0:
                    return -1
                pc = _pts(c)
                hc[h, n] = c if n < MAXCARDS else hc[h, MAXCARDS - 1]
                hi[h, F_N] = n + 1
                hi[h, F_HARD] = hard + pc
                if pc == 1:
                    hi[h, F_ACE] = 1
                    hi[h, F_ACE2] = 1
                if cp and hi[h, F_ST] >= 0:
                    hi[h, F_ST] = trans[hi[h, F_ST], pc - 1]
                if act == C_D:
                    # rulings 12: exactly one card; Aces of the first two cards count 1
                    hi[h, F_DBL] = 1
                    nlog = _log(logl, loga, logb, nlog, L_DOUBLE, 0, b)
                    dh = hard + pc
                    if P[P_DBL_ACE1] == 1:
                        xt = dh + 10 if (hi[h, F_ACE2] == 1 and dh + 10 <= 21) else dh
                    else:
                        xt = dh + 10 if (hi[h, F_ACE] == 1 and dh + 10 <= 21) else dh
                    if xt > 21:
                        nlog = _log(logl, loga, logb, nlog, L_BUST, -2 * W, b)
                    elif xt == 21 and P[P_21WINS] == 1:
                        nlog = _log(logl, loga, logb, nlog, L_21, 2 * P[P_WIN], b)  # 1 to 1 only
                    elif xt < 21 and P[P_RESCUE] == 1 and strat[K_RESCUE, xt, 3, upp] == 1:
                        nlog = _log(logl, loga, logb, nlog, L_RESCUE, -W, b)  # rulings 13
                    else:
                        hi[h, F_LIVE] = 1
                        hi[h, F_TOT] = xt
                        live_any = True
                    break
            k += 1
    # ---- dealer: second card and draws only when the game needs them ----
    dealer_nat = False
    dt = 0
    if live_any or pending:
        if hole < 0:
            hole = _draw(shoe, st, ur)
            if hole < 0:
                return -1
        hp = _pts(hole)
        dealer_nat = (upp == 1 and hp == 10) or (upp == 10 and hp == 1)
        if dealer_nat and not peeked:
            nlog = _log(logl, loga, logb, nlog, L_DEALER_PONTOON, 0, 0)
        dhard = upp + hp
        dace = upp == 1 or hp == 1
        if live_any and not dealer_nat:
            while True:
                dt = dhard
                dsoft = False
                if dace and dhard + 10 <= 21:
                    dt = dhard + 10
                    dsoft = True
                if dt > 17 or (dt == 17 and not (dsoft and P[P_H17] == 1)):
                    break
                c = _draw(shoe, st, ur)
                if c < 0:
                    return -1
                pc = _pts(c)
                dhard += pc
                if pc == 1:
                    dace = True
            if dt > 21:
                dt = 0  # dealer bust: every live hand beats it
    # ---- final settlement ----
    for b in range(nb):
        if ins[b] == 1:
            if dealer_nat:
                nlog = _log(logl, loga, logb, nlog, L_INS, P[P_INS_WIN], b)
            else:
                nlog = _log(logl, loga, logb, nlog, L_INS_LOSE, -P[P_INS_STAKE], b)
        lost_one = False
        for k in range(nh[b]):
            h = b * 4 + k
            if hi[h, F_SURR] == 1:
                nlog = _log(logl, loga, logb, nlog, L_SURR, -W if dealer_nat else -P[P_SURR_LOSS], b)
            elif hi[h, F_NAT] == 1:
                if dealer_nat:
                    nlog = _log(logl, loga, logb, nlog, L_PUSH, 0, b)
                else:
                    nlog = _log(logl, loga, logb, nlog, L_PONTOON, P[P_NAT], b)
            elif hi[h, F_LIVE] == 1:
                m = 2 if hi[h, F_DBL] == 1 else 1
                if dealer_nat:  # rulings 6
                    if P[P_SPLIT_ONE] == 1 and nh[b] > 1:
                        if lost_one:
                            nlog = _log(logl, loga, logb, nlog, L_PUSH, 0, b)
                        else:
                            lost_one = True
                            nlog = _log(logl, loga, logb, nlog, L_LOSS, -W, b)
                    elif m == 2 and P[P_DBL_ORIG] == 1:
                        nlog = _log(logl, loga, logb, nlog, L_LOSS, -W, b)
                    else:
                        nlog = _log(logl, loga, logb, nlog, L_LOSS, -m * W, b)
                else:
                    t = hi[h, F_TOT]
                    if t > dt:
                        nlog = _log(logl, loga, logb, nlog, L_WIN, m * P[P_WIN], b)
                    elif t == dt:
                        nlog = _log(logl, loga, logb, nlog, L_PUSH, 0, b)
                    else:
                        nlog = _log(logl, loga, logb, nlog, L_LOSS, -m * W, b)
    if any_sb:  # rulings 17: every other box receives the fixed payment
        for b in range(nb):
            got = False
            for k in range(nh[b]):
                if hi[b * 4 + k, F_SB] == 1:
                    got = True
            if not got:
                nlog = _log(logl, loga, logb, nlog, L_SB_OTHER, P[P_SB_OTHER], b)
    return nlog


@njit(**_NO_NRT)
def _commit(nlog, logl, loga, acc):
    """Add one round's log to the line totals; returns (main-game net, total net) in quanta."""
    x = 0
    t = 0
    for i in range(nlog):
        ln = logl[i]
        a = loga[i]
        acc[ln, 0] += 1
        acc[ln, 1] += a
        kd = LINE_KIND[ln]
        if kd >= 0:
            t += a
            if kd == K_MAIN or kd == K_SUPER or kd == K_INSUR:
                x += a
    return x, t


@njit(cache=CACHE)
def _workspace(nb):
    """The round's scratch arrays for ``nb`` boxes (up to 4 hands each): hand cards, hand fields,
    the pay-line log, Pandemonium draws, box bookkeeping."""
    hc = np.zeros((nb * 4, MAXCARDS), dtype=np.int64)
    hi = np.zeros((nb * 4, NF), dtype=np.int64)
    logl = np.zeros(LOGN, dtype=np.int64)
    loga = np.zeros(LOGN, dtype=np.int64)
    logb = np.zeros(LOGN, dtype=np.int64)
    jrec = np.zeros(nb, dtype=np.int64)
    bx = np.zeros((2, nb), dtype=np.int64)
    return hc, hi, logl, loga, logb, jrec, bx


@njit(cache=CACHE)
def run_random(
    shoe, st, ur, P, pan_pay, pan_cum, strat, comp, trans, max_rounds, acc, mom, sess, sess_len, r0
):
    """Play up to ``max_rounds`` rounds, taking every random number from ``ur`` (uint32 random
    bits drawn by the caller) from index ``st[1]`` on. A round starts only while ``ur`` holds at
    least ``len(shoe) + boxes`` unused numbers (no round can use more: one per card dealt, one
    Pandemonium press per box), so a round never runs out; the caller refills ``ur`` and calls
    again. ``st`` = [pos, ur index, -, 0]; ``shoe`` and ``st[0]`` carry over between calls
    (``st[0] >= len(shoe)``: shuffle before the first round). ``mom`` = [rounds, voids, sum x,
    sum x^2, sum t, sum t^2]. ``sess[(r0 + i) // sess_len]`` adds each round's main-game net (when
    ``sess`` is not empty). Returns the rounds played.
    """
    nb = P[P_BOXES]
    hc, hi, logl, loga, logb, jrec, bx = _workspace(nb)
    ju = np.zeros(1)  # Pandemonium presses come from ur too (st[3] == 0)
    st[3] = 0
    return _run_loop(
        shoe, st, ur, ju, P, pan_pay, pan_cum, strat, comp, trans, hc, hi, bx, logl, loga, logb, jrec,
        max_rounds, acc, mom, sess, sess_len, r0,
    )  # fmt: skip


@njit(**_NO_NRT)
def _run_loop(
    shoe, st, ur, ju, P, pan_pay, pan_cum, strat, comp, trans, hc, hi, bx, logl, loga, logb, jrec,
    max_rounds, acc, mom, sess, sess_len, r0,
):  # fmt: skip
    """The round loop of ``run_random`` (no allocation; ``_play_round`` inlined, no refcounts)."""
    n = shoe.shape[0]
    cut = P[P_CUT]
    nsess = sess.shape[0]
    done = 0
    last = ur.shape[0] - n - P[P_BOXES]  # a round may use at most n + boxes numbers
    while done < max_rounds and st[1] <= last:
        if st[0] >= cut:
            st[0] = 0  # shuffle (lazy: every later card is uniform over the unseen ones)
        nlog = _play_round(
            shoe, st, ur, ju, P, pan_pay, pan_cum, strat, comp, trans, hc, hi, bx, logl, loga, logb, jrec
        )
        mom[0] += 1
        if nlog < 0:  # rulings 2: the shoe ran out, the round is void
            mom[1] += 1
            acc[L_VOID, 0] += 1
            st[0] = n
        else:
            x, t = _commit(nlog, logl, loga, acc)
            mom[2] += x
            mom[3] += x * x
            mom[4] += t
            mom[5] += t * t
            if nsess > 0:
                si = (r0 + done) // sess_len
                if si < nsess:
                    sess[si] += x
        done += 1
    return done


@njit(cache=CACHE)
def run_stacked(shoes, lens, ju, P, pan_pay, pan_cum, strat, comp, trans, rec):
    """One round per row of ``shoes`` (card codes, ``lens[i]`` of them), dealt in order.

    ``rec[i, box, :NK]`` receives the net per wager kind, ``rec[i, box, NK]`` the Pandemonium
    multiplier index drawn (-1 none) and ``rec[i, 0, NK + 1]`` is 1 when the round was void.
    """
    nb = P[P_BOXES]
    hc, hi, logl, loga, logb, jrec, bx = _workspace(nb)
    st = np.zeros(4, dtype=np.int64)
    st[3] = 1  # deal in stored order; Pandemonium presses from ju
    ur = np.zeros(1, dtype=np.uint32)  # not used
    acc = np.zeros((NL, 2), dtype=np.int64)
    for i in range(shoes.shape[0]):
        shoe = shoes[i, : lens[i]].copy()
        st[0] = 0
        nlog = _play_round(
            shoe, st, ur, ju, P, pan_pay, pan_cum, strat, comp, trans, hc, hi, bx, logl, loga, logb, jrec
        )
        for b in range(nb):
            for k in range(NK):
                rec[i, b, k] = 0
            rec[i, b, NK] = jrec[b]
            rec[i, b, NK + 1] = 0
        if nlog < 0:
            rec[i, 0, NK + 1] = 1
            continue
        for e in range(nlog):
            kd = LINE_KIND[logl[e]]
            if kd >= 0:
                rec[i, logb[e], kd] += loga[e]
        _commit(nlog, logl, loga, acc)
    return st[2]
