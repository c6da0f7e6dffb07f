"""The counter's numba kernel: the plain kernel's round (``_round._play_round``, unchanged) with a
running count kept over the cards each round dealt, a strategy table and a bet chosen by the true
count before each round.

The shoe is dealt by the same lazy Fisher-Yates as ``_kernels.run_random``, so the cards a round
dealt are exactly ``shoe[pos before : pos after]``: the count adds their tags after the round
(every card of casino Pontoon is seen, the blackjack hole card too at the end of the round). A
shuffle (the cut card reached, or a void round: rulings 2) resets the running count to the IRC.

Before each round: true count = running count / decks left (``deck_cards`` cards a deck), its
floor (clipped to ``[tc_lo, tc_lo + nbuckets - 1]``) picks the bucket ``k``; the round is played
with the strategy table ``strats[k]`` (the chart plus the index plays of that count), on
``boxes[k]`` boxes of ``bets[k]`` units each (0 units: the counter sits out, wonging, and the
round is dealt to one box of someone else's, whose cards the counter still counts), and takes
insurance when ``ins[k]`` is 1.

``sums`` (float64) = [rounds seen, rounds played, sum of initial bets (units x boxes), sum w,
sum w^2, sum w^3, sum w^4, void rounds, sum of boxes played, sum b^2, sum w b] with w the round's main-game net
(insurance and Super Bonus included) in units of the table bet and b = units x boxes; ``fl[0]`` is the running count
(carried between calls, like ``st[0]``). ``trace`` (rows, 2), when it has rows: the running count
and the shoe position after each round (stacked-shoe tests).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pontoon.sim._consts import L_VOID, LINE_KIND, P_BOXES, P_CUT, P_INS, P_W
from pontoon.sim._draws import _NO_NRT, CACHE
from pontoon.sim._kernels import _commit, _workspace
from pontoon.sim._round import _play_round


@njit(**_NO_NRT)
def _tc_bucket(rc, pos, n, deck_cards, tc_lo, nb):
    left = n - pos
    if left <= 0:
        return 0
    tc = rc * deck_cards / left
    k = np.int64(np.floor(tc)) - tc_lo
    if k < 0:
        return 0
    if k >= nb:
        return nb - 1
    return k


@njit(**_NO_NRT)
def _count_loop(
    shoe, st, ur, ju, P, pan_pay, pan_cum, strats, comp, trans, hc, hi, bx, logl, loga, logb, jrec,
    acc, tags13, irc, deck_cards, tc_lo, bets, boxes, ins, max_rounds, sums, fl, trace,
):  # fmt: skip
    """The round loop of ``run_count`` (no allocation, no reference counts)."""
    n = shoe.shape[0]
    cut = P[P_CUT]
    nbk = bets.shape[0]
    W = np.float64(P[P_W])
    ntrace = trace.shape[0]
    done = 0
    last = ur.shape[0] - n - 8  # a round uses at most n + boxes numbers (boxes <= 8)
    while done < max_rounds and (st[3] == 1 or st[1] <= last):
        if st[0] >= cut or st[0] >= n:
            if st[3] == 1 and st[0] >= n:
                break  # a stacked shoe is dealt once
            st[0] = 0  # shuffle
            fl[0] = irc
        k = _tc_bucket(fl[0], st[0], n, deck_cards, tc_lo, nbk)
        units = bets[k]
        playing = units > 0
        P[P_BOXES] = boxes[k] if playing else 1
        P[P_INS] = ins[k] if playing else 0
        pos0 = st[0]
        nlog = _play_round(
            shoe, st, ur, ju, P, pan_pay, pan_cum, strats[k], comp, trans, hc, hi, bx, logl, loga, logb, jrec
        )
        sums[0] += 1.0
        for i in range(pos0, min(st[0], n)):  # every card the round dealt, a void round's too
            fl[0] += tags13[shoe[i] >> 2]
        if nlog < 0:  # rulings 2: the shoe ran out, the round is void; reshuffle
            sums[7] += 1.0
            acc[L_VOID, 0] += 1
            st[0] = n
        else:
            if playing:
                x, _t = _commit(nlog, logl, loga, acc)
                w = x * units / W
                sums[1] += 1.0
                sums[2] += units * boxes[k]
                sums[3] += w
                w2 = w * w
                sums[4] += w2
                sums[5] += w2 * w
                sums[6] += w2 * w2
                sums[8] += boxes[k]
                b = np.float64(units * boxes[k])
                sums[9] += b * b
                sums[10] += w * b
        if done < ntrace:
            trace[done, 0] = fl[0]
            trace[done, 1] = st[0]
        done += 1
    return done


@njit(cache=CACHE, nogil=True)
def run_count(
    shoe, st, ur, P, pan_pay, pan_cum, strats, comp, trans, tags13, irc, deck_cards, tc_lo, bets, boxes,
    ins, max_rounds, acc, sums, fl, trace,
):  # fmt: skip
    """Play up to ``max_rounds`` rounds counting (module docstring); ``st`` = [pos, ur index, -,
    stacked]: ``st[3] == 1`` deals ``shoe`` in stored order once (tests). Returns the rounds seen."""
    hc, hi, logl, loga, logb, jrec, bx = _workspace(8)
    ju = np.zeros(8)
    return _count_loop(
        shoe, st, ur, ju, P, pan_pay, pan_cum, strats, comp, trans, hc, hi, bx, logl, loga, logb, jrec,
        acc, tags13, irc, deck_cards, tc_lo, bets, boxes, ins, max_rounds, sums, fl, trace,
    )  # fmt: skip


_ = LINE_KIND  # the lines' kinds, as _commit reads them
