"""One round of a casino table in the numba kernel, cut along the round's own phases.

``_play_round`` is the round: the deal (``_deal``), each box's first two cards and the interim
settlement of its side bets and natural (``_open_box``), the blackjack peek (``_peek_natural``),
each hand's play (``_play_hand``: 21s, splits, the chart or composition code, hits and doubles),
the dealer (``_dealer``) and the final settlement (``_settle_box``, ``_super_bonus_others``).

Every piece is compiled with ``inline="always"`` and without reference counting, so numba pastes
it into ``_play_round`` (itself inlined into the round loop of ``_kernels.py``): the compiled
round is the one function it was before the split, and a seed's totals are bit-identical.
Hand fields ``hi[h, F_*]`` are listed in ``_consts.py``; ``bx[0, b]`` is box b's hand count and
``bx[1, b]`` its insurance flag. A piece that deals returns -1 when the shoe ran out (rulings 2:
the round is void); otherwise the pieces return the new length of the pay-line log.
"""

# ruff: noqa: F405  (names from the layout module, _consts)
from __future__ import annotations

from numba import njit

from pontoon.sim._consts import *  # noqa: F403  (the layout: P_*, L_*, F_*, C_* ...)
from pontoon.sim._draws import _NO_NRT, _draw, _log, _pts, _uniform

_INLINE = {**_NO_NRT, "inline": "always"}


# ---- the deal --------------------------------------------------------------------------------
@njit(**_INLINE)
def _deal(shoe, st, ur, P, hc):
    """The initial deal (scenario format: a card to each box in order, the dealer's up card, a
    second card to each box; the hole card where the dealer takes one). Returns (up, hole):
    up = -1 when the shoe ran out (void), hole = -1 when none is dealt."""
    nb = P[P_BOXES]
    for b in range(nb):
        c = _draw(shoe, st, ur)
        if c < 0:
            return -1, -1
        hc[b * 4, 0] = c
    up = _draw(shoe, st, ur)
    if up < 0:
        return -1, -1
    for b in range(nb):
        c = _draw(shoe, st, ur)
        if c < 0:
            return -1, -1
        hc[b * 4, 1] = c
    hole = -1
    if P[P_HOLE] == 1:
        hole = _draw(shoe, st, ur)
        if hole < 0:
            return -1, -1
    return up, hole


@njit(**_INLINE)
def _is_natural(p1, p2):
    return (p1 == 1 and p2 == 10) or (p1 == 10 and p2 == 1)


# ---- the interim settlement: each box's first two cards ---------------------------------------
@njit(**_INLINE)
def _side_bets(b, a, c, P, logl, loga, logb, nlog):
    """The pair and bonus side bets on the box's first two cards ``a``, ``c``."""
    ra = a >> 2
    rc = c >> 2
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
    return nlog


@njit(**_INLINE)
def _pandemonium(b, natural, st, ur, ju, P, pan_pay, pan_cum, jrec, logl, loga, logb, nlog):
    """rulings 20: one press per box holding a natural (``ju`` for stacked shoes)."""
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
        return _log(logl, loga, logb, nlog, L_PAN, pan_pay[k], b)
    return _log(logl, loga, logb, nlog, L_PAN_LOSE, -P[P_SIDE], b)


@njit(**_INLINE)
def _open_box(b, upp, st, ur, ju, P, pan_pay, pan_cum, trans, hc, hi, bx, jrec, logl, loga, logb, nlog):
    """Box b's two-card hand: its fields, the side bets, a natural paid at once or kept for the
    dealer. Returns (log length, whether the hand is a natural)."""
    h = b * 4
    bx[0, b] = 1
    a = hc[h, 0]
    c = hc[h, 1]
    pa = _pts(a)
    pc = _pts(c)
    for f in range(NF - 2):
        hi[h, f] = 0
    hi[h, F_N] = 2
    hi[h, F_HARD] = pa + pc
    hi[h, F_ACE] = 1 if (pa == 1 or pc == 1) else 0
    if P[P_COMP] == 1:
        root = P[P_ROOT]
        hi[h, F_ST] = trans[trans[root, pa - 1], pc - 1]
        hi[h, F_KD] = -1
    nlog = _side_bets(b, a, c, P, logl, loga, logb, nlog)
    natural = _is_natural(pa, pc)
    if P[P_PAN] == 1:
        nlog = _pandemonium(b, natural, st, ur, ju, P, pan_pay, pan_cum, jrec, logl, loga, logb, nlog)
    if natural:
        if P[P_NATPUSH] == 1 and (upp == 1 or upp == 10):
            hi[h, F_NAT] = 1  # waits for the dealer (blackjack)
        else:
            # rulings 5: paid 3 to 2 at once, can no longer lose
            nlog = _log(logl, loga, logb, nlog, L_PONTOON, P[P_NAT], b)
            hi[h, F_N] = -2  # marks "finished natural"
    return nlog, natural


@njit(**_INLINE)
def _peek_natural(P, hi, bx, logl, loga, logb, nlog):
    """Blackjack: the dealer peeked and holds a natural; the round ends here."""
    nlog = _log(logl, loga, logb, nlog, L_DEALER_PONTOON, 0, 0)
    for b in range(P[P_BOXES]):
        h = b * 4
        if bx[1, b] == 1:
            nlog = _log(logl, loga, logb, nlog, L_INS, P[P_INS_WIN], b)
        if hi[h, F_NAT] == 1:
            nlog = _log(logl, loga, logb, nlog, L_PUSH, 0, b)
        elif hi[h, F_N] != -2:
            nlog = _log(logl, loga, logb, nlog, L_LOSS, -P[P_W], b)
    return nlog


# ---- a hand's play --------------------------------------------------------------------------
@njit(**_INLINE)
def _three_card_line(h, b, upr, P, hc, hi, logl, loga, logb, nlog):
    """A three-card 21: 7-7-7 or 6-7-8 by suit class (and the Super Bonus), else a plain 21.
    Returns (line, payment, log length)."""
    line = L_21
    pay = P[P_WIN]
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
    return line, pay, nlog


@njit(**_INLINE)
def _twenty_one(h, b, n, upr, P, hc, hi, logl, loga, logb, nlog):
    """A hand reaching 21: a split Ace-ten natural, a 21 paid at once at the pay-table odds, or a
    live 21 waiting for the dealer."""
    if n == 2 and hi[h, F_SPLIT] == 1 and P[P_SPLIT_NAT] == 1 and P[P_NATPUSH] == 0:
        return _log(logl, loga, logb, nlog, L_PONTOON, P[P_NAT], b)
    if P[P_21WINS] == 1:
        # rulings 5 and 16: paid at once at the pay-table odds
        line = L_21
        pay = P[P_WIN]
        if n == 3:
            line, pay, nlog = _three_card_line(h, b, upr, P, hc, hi, logl, loga, logb, nlog)
        elif n == 5:
            line = L_21_5
            pay = P[P_5C]
        elif n == 6:
            line = L_21_6
            pay = P[P_6C]
        elif n >= 7:
            line = L_21_7
            pay = P[P_7C]
        return _log(logl, loga, logb, nlog, line, pay, b)
    hi[h, F_LIVE] = 1
    hi[h, F_TOT] = 21
    return nlog


@njit(**_INLINE)
def _comp_code(h, n, upp, hc, hi, comp):
    """The composition table's code for hand h (``--strategy optimal``); -1 = none."""
    kd = hi[h, F_KD]
    if kd < 0:
        if n == 2:
            kd = 1 if (hc[h, 0] & 3) == (hc[h, 1] & 3) else 0
        else:
            kd = 2
    if comp.shape[1] > COMP_KINDS:
        # a table by a2 (FED: 001 Doubling, Aces among the first two cards count one on a double,
        # so the decision depends on them, not only on the hand's cards): block a2 of the kinds
        if _pts(hc[h, 0]) == 1:
            kd += COMP_KINDS
        if _pts(hc[h, 1]) == 1:
            kd += COMP_KINDS
    return comp[upp, kd, hi[h, F_ST]]


@njit(**_INLINE)
def _is_pair(h, p0, P, hc):
    """Hand h's two cards are a pair: equal rank, or equal value where the rules split by value."""
    return (hc[h, 0] >> 2) == (hc[h, 1] >> 2) if P[P_SPLIT_RANK] == 1 else p0 == _pts(hc[h, 1])


@njit(**_INLINE)
def _wants_split(h, b, p0, upp, oc, nci, P, strat, hc, hi, bx):
    """A two-card hand that may be split (equal rank or value, hands left, Aces resplit where
    allowed) and that the composition code or the pair chart splits."""
    if (
        _is_pair(h, p0, P, hc)
        and bx[0, b] < P[P_MAXHANDS]
        and (p0 != 1 or hi[h, F_SACE] == 0 or P[P_RSA] == 1)
    ):
        return ((oc & COMP_SPLIT) != 0) if oc >= 0 else (strat[K_PAIR, p0, nci, upp] == C_P)
    return False


@njit(**_INLINE)
def _split(h, b, p0, shoe, st, ur, P, trans, hc, hi, bx, logl, loga, logb, nlog):
    """Split hand h: it keeps its first card and draws its second now; the new hand (its second
    card) goes right after it and draws when its turn comes (004 3.24.2)."""
    last = b * 4 + bx[0, b]
    nn = h + 1
    for q in range(last, nn, -1):
        for f in range(NF):
            hi[q, f] = hi[q - 1, f]
        for f in range(3):
            hc[q, f] = hc[q - 1, f]
    bx[0, b] += 1
    nlog = _log(logl, loga, logb, nlog, L_SPLIT, 0, b)
    hc[nn, 0] = hc[h, 1]
    for f in range(NF - 2):
        hi[nn, f] = 0
    hi[nn, F_N] = 1
    hi[nn, F_HARD] = p0
    hi[nn, F_ACE] = 1 if p0 == 1 else 0
    hi[nn, F_SPLIT] = 1
    hi[nn, F_SACE] = 1 if p0 == 1 else 0
    hi[h, F_SPLIT] = 1
    hi[h, F_SACE] = 1 if p0 == 1 else 0
    c = _draw(shoe, st, ur)
    if c < 0:
        return -1
    hc[h, 1] = c
    hi[h, F_HARD] = p0 + _pts(c)
    hi[h, F_ACE] = 1 if (p0 == 1 or _pts(c) == 1) else 0
    if P[P_COMP] == 1:
        root = P[P_ROOT]
        hi[nn, F_ST] = trans[root, p0 - 1]
        hi[nn, F_KD] = COMP_KIND_SPLIT + p0 - 1
        hi[h, F_ST] = trans[trans[root, p0 - 1], _pts(c) - 1]
        hi[h, F_KD] = COMP_KIND_SPLIT + p0 - 1
    return nlog


@njit(**_INLINE)
def _resolve(code, h, b, n, tot, upr, P, hi, bx):
    """The chart's code as a legal action: D -> hit, Ds -> stand, R -> hit, Rs -> stand when not
    allowed; a stand below the forced-draw threshold is a hit (rulings 14)."""
    can_dbl = False
    if P[P_DBL_ANY] == 1 or n == 2:
        can_dbl = hi[h, F_SPLIT] == 0 or P[P_DAS] == 1
        if hi[h, F_SACE] == 1 and P[P_DSA] == 0:
            can_dbl = False
    can_surr = (
        P[P_SURR] > 0
        and n == 2
        and bx[0, b] == 1
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
    return act


@njit(**_INLINE)
def _double_settle(h, b, dh, upp, P, strat, comp, hc, hi, logl, loga, logb, nlog):
    """A doubled hand of hard total ``dh`` holding its one card (rulings 12: Aces among the first
    two cards count 1 where the rules say so): bust, 21 paid at once, rescued, or live. Rescued as
    the composition table says where it has the hand's state (``--strategy optimal``), else by the
    chart's rescue row."""
    W = P[P_W]
    if P[P_DBL_ACE1] == 1:
        xt = dh + 10 if (hi[h, F_ACE2] == 1 and dh + 10 <= 21) else dh
    else:
        xt = dh + 10 if (hi[h, F_ACE] == 1 and dh + 10 <= 21) else dh
    if xt > 21:
        return _log(logl, loga, logb, nlog, L_BUST, -2 * W, b)
    if xt == 21 and P[P_21WINS] == 1:
        return _log(logl, loga, logb, nlog, L_21, 2 * P[P_WIN], b)  # 1 to 1 only
    if xt < 21 and P[P_RESCUE] == 1:
        resc = strat[K_RESCUE, xt, 3, upp] == 1
        if P[P_COMP] == 1 and hi[h, F_ST] >= 0:
            oc = _comp_code(h, hi[h, F_N], upp, hc, hi, comp)
            if oc >= 0 and (oc & COMP_RESCUE) != 0:
                resc = (oc & (COMP_RESCUE_SOFT if xt != dh else COMP_RESCUE_HARD)) != 0
        if resc:
            return _log(logl, loga, logb, nlog, L_RESCUE, -W, b)  # rulings 13
    hi[h, F_LIVE] = 1
    hi[h, F_TOT] = xt
    return nlog


@njit(**_INLINE)
def _play_hand(h, b, upp, upr, shoe, st, ur, P, strat, comp, trans, hc, hi, bx, logl, loga, logb, nlog):
    """Play hand h of box b to its end (bust, 21, stand, surrender, double); a split keeps playing
    this hand with its new second card. Returns the log length, or -1 when the round is void."""
    cp = P[P_COMP] == 1
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
            return _log(logl, loga, logb, nlog, L_BUST, -P[P_W], b)
        if tot == 21:
            return _twenty_one(h, b, n, upr, P, hc, hi, logl, loga, logb, nlog)
        # 000 3.9.1: split Aces take one card each and no further action
        locked = hi[h, F_SACE] == 1 and P[P_HSA] == 0
        nci = n if n < NC_MAX else NC_MAX
        oc = -1  # composition table's code
        if cp and hi[h, F_ST] >= 0:
            oc = _comp_code(h, n, upp, hc, hi, comp)
        pcode = C_NONE  # an unsplit pair's own play (the counter's pair index rows), if any
        if n == 2:
            p0 = _pts(hc[h, 0])
            if _wants_split(h, b, p0, upp, oc, nci, P, strat, hc, hi, bx):
                nlog = _split(h, b, p0, shoe, st, ur, P, trans, hc, hi, bx, logl, loga, logb, nlog)
                if nlog < 0:
                    return -1
                continue
            pcode = strat[K_PAIRPLAY, p0, nci, upp]
            if pcode != C_NONE and not _is_pair(h, p0, P, hc):
                pcode = C_NONE
        if locked:
            hi[h, F_LIVE] = 1
            hi[h, F_TOT] = tot
            return nlog
        code = strat[K_SOFT if soft else K_HARD, tot, nci, upp]
        if oc >= 0:
            code = oc & 7
        elif pcode != C_NONE:
            code = pcode
        act = _resolve(code, h, b, n, tot, upr, P, hi, bx)
        if act == C_S:
            hi[h, F_LIVE] = 1
            hi[h, F_TOT] = tot
            return nlog
        if act == C_R:  # rulings 9
            hi[h, F_SURR] = 1
            return nlog
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
            # rulings 12: exactly one card
            hi[h, F_DBL] = 1
            nlog = _log(logl, loga, logb, nlog, L_DOUBLE, 0, b)
            return _double_settle(h, b, hard + pc, upp, P, strat, comp, hc, hi, logl, loga, logb, nlog)


# ---- the dealer ------------------------------------------------------------------------------
@njit(**_INLINE)
def _dealer_draws(upp, hp, shoe, st, ur, P):
    """The dealer draws to 17 (hits soft 17 where the rules say: rulings 7). Returns the final
    total, 0 for a bust (every live hand beats it), -1 when the shoe ran out."""
    dhard = upp + hp
    dace = upp == 1 or hp == 1
    dt = 0
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
        return 0
    return dt


@njit(**_INLINE)
def _dealer(hole, upp, live_any, pending, peeked, shoe, st, ur, P, logl, loga, logb, nlog):
    """The dealer's second card and draws, only when the game needs them. Returns (log length or
    -1 when void, dealer natural, dealer total: 0 = bust)."""
    dealer_nat = False
    dt = 0
    if live_any or pending:
        if hole < 0:
            hole = _draw(shoe, st, ur)
            if hole < 0:
                return -1, False, 0
        hp = _pts(hole)
        dealer_nat = _is_natural(upp, hp)
        if dealer_nat and not peeked:
            nlog = _log(logl, loga, logb, nlog, L_DEALER_PONTOON, 0, 0)
        if live_any and not dealer_nat:
            dt = _dealer_draws(upp, hp, shoe, st, ur, P)
            if dt < 0:
                return -1, False, 0
    return nlog, dealer_nat, dt


# ---- the final settlement --------------------------------------------------------------------
@njit(**_INLINE)
def _settle_box(b, dealer_nat, dt, P, hi, bx, logl, loga, logb, nlog):
    """Box b's insurance and every hand still open against the dealer's hand."""
    W = P[P_W]
    if bx[1, b] == 1:
        if dealer_nat:
            nlog = _log(logl, loga, logb, nlog, L_INS, P[P_INS_WIN], b)
        else:
            nlog = _log(logl, loga, logb, nlog, L_INS_LOSE, -P[P_INS_STAKE], b)
    lost_one = False
    nh = bx[0, b]
    for k in range(nh):
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
                if P[P_SPLIT_ONE] == 1 and nh > 1:
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
    return nlog


@njit(**_INLINE)
def _super_bonus_others(P, hi, bx, logl, loga, logb, nlog):
    """rulings 17: in a Super Bonus round every other box receives the fixed payment."""
    for b in range(P[P_BOXES]):
        got = False
        for k in range(bx[0, b]):
            if hi[b * 4 + k, F_SB] == 1:
                got = True
        if not got:
            nlog = _log(logl, loga, logb, nlog, L_SB_OTHER, P[P_SB_OTHER], b)
    return nlog


# ---- the round -------------------------------------------------------------------------------
@njit(**_INLINE)
def _play_round(
    shoe, st, ur, ju, P, pan_pay, pan_cum, strat, comp, trans, hc, hi, bx, logl, loga, logb, jrec
):
    """Play one round. Returns the number of log entries, or -1 when the round is void.

    Workspace: hc[h, k] cards of hand h; hi[h, :] integer hand fields (``_consts.F_*``); bx[0, b]
    hands of box b, bx[1, b] its insurance. jrec[box] receives the Pandemonium multiplier index
    drawn for the box (-1 none)."""
    nb = P[P_BOXES]
    nlog = 0
    for b in range(nb):
        jrec[b] = -1
        bx[1, b] = 0
    up, hole = _deal(shoe, st, ur, P, hc)
    if up < 0:
        return -1
    upp = _pts(up)
    upr = up >> 2
    anyplay = False
    for b in range(nb):
        nlog, natural = _open_box(
            b, upp, st, ur, ju, P, pan_pay, pan_cum, trans, hc, hi, bx, jrec, logl, loga, logb, nlog
        )
        if not natural:
            anyplay = True
    # rulings 8: insurance when the dealer shows an Ace (the engine opens the window only while
    # some hand is still to act)
    if P[P_INS] == 1 and upr == 0 and anyplay:
        for b in range(nb):
            bx[1, b] = 1
    peeked = False
    if P[P_HOLE] == 1 and P[P_PEEK] == 1 and (upp == 1 or upp == 10):  # blackjack: peek
        peeked = True
        if _is_natural(upp, _pts(hole)):
            return _peek_natural(P, hi, bx, logl, loga, logb, nlog)
    # ---- players act, box by box, hand by hand ----
    any_sb = False
    pending = False  # something needs the dealer's second card (insurance, surrender, natural)
    live_any = False
    for b in range(nb):
        if bx[1, b] == 1:
            pending = True
        k = 0
        while k < bx[0, b]:
            h = b * 4 + k
            k += 1
            if hi[h, F_N] == -2:
                continue
            if hi[h, F_NAT] == 1:
                pending = True
                continue
            nlog = _play_hand(
                h, b, upp, upr, shoe, st, ur, P, strat, comp, trans, hc, hi, bx, logl, loga, logb, nlog
            )
            if nlog < 0:
                return -1
            live_any = live_any or hi[h, F_LIVE] == 1
            pending = pending or hi[h, F_SURR] == 1
            any_sb = any_sb or hi[h, F_SB] == 1
    nlog, dealer_nat, dt = _dealer(
        hole, upp, live_any, pending, peeked, shoe, st, ur, P, logl, loga, logb, nlog
    )
    if nlog < 0:
        return -1
    for b in range(nb):
        nlog = _settle_box(b, dealer_nat, dt, P, hi, bx, logl, loga, logb, nlog)
    if any_sb:
        nlog = _super_bonus_others(P, hi, bx, logl, loga, logb, nlog)
    return nlog
