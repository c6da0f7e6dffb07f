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
inlining refcounted functions at the numba IR level (``inline="always"``) did not avoid it.

The round itself is ``_round.py`` (deal, interim settlement, a hand's play, dealer, final
settlement), its pieces inlined at numba's IR level (``inline="always"``) into one compiled
round; the random draws are ``_draws.py``; the layout (parameter vector, lines, hand fields) is
``_consts.py``, re-exported here. numba's on-disk cache tracks only the source file of the
function compiled: after editing ``_round.py``, ``_draws.py`` or ``_consts.py`` in a checkout,
clear ``sim/__pycache__`` (an installed package does not change under its cache).

Money is integer "quanta" (``api.py`` picks the quantum so that every payment is whole).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pontoon.sim._consts import *  # noqa: F403  (the layout, re-exported: ``K.P_W``, ``K.L_WIN``, ...)
from pontoon.sim._consts import (
    K_INSUR,
    K_MAIN,
    K_SUPER,
    L_VOID,
    LINE_KIND,
    LOGN,
    MAXCARDS,
    NF,
    NK,
    NL,
    P_BOXES,
    P_CUT,
)
from pontoon.sim._draws import _NO_NRT, CACHE
from pontoon.sim._round import _play_round


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


@njit(cache=CACHE, nogil=True)  # other threads (a Dask worker's event loop) run meanwhile
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
