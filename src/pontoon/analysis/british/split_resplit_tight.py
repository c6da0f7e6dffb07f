"""A tighter rigorous bound on what resplits add (issue 27; 003 Split: "If either of the new cards dealt is equal to
the first two you may choose to split again"): each hand's value with the cards before it **averaged**, not
chosen anew at every draw (``split_resplit_bound``'s ``T_J``).

**The argument** (docs/analysis.md "Resplits", "A tighter bound"). Within a split, against the house banker, the
value from an offer on is the banker's Pontoon term plus the sum over hands of each hand's value settled when it
ends (``split_resplit``: a martingale). Let ``V0(q, c)`` be the exact best value of the one hand x-c, the cards
``q`` out (its own among them), played alone (no resplit) and settled when it ends: the compiled world's
``_rest`` with no hand after it (``split_resplit_fast``; equal to ``hand_tables`` at ``J = 0``). Two facts:

* *A hand is worth at most V0 of the pack at its start.* Whatever the player did before, at the start of a hand
  he knows the cards out ``q``; his play of this hand (whatever it aims at for the later hands) is one play of it
  alone, so its expected settled value given ``q`` is at most ``V0(q, c)``.
* *V0 is a submartingale in cards seen.* Let ``Y_j = V0(q + first j cards of the rest of the pack, c)``: by
  exchangeability a player who ignores the ``j+1``-th card draws his and the banker's cards from a pack with the
  same law as one who had not seen it, so ``E[Y_{j+1} | first j] >= Y_j``. The cards the earlier hands draw
  before this one starts are the first ``tau`` cards of the rest of the pack, ``tau`` a stopping time (each hand
  decides to draw on what it has seen) at most ``k`` (three draws a hand), so by optional stopping ``E[Y_tau] <=
  E[Y_k] = W(q, c, k)``: the hand's ``V0`` averaged over ``k`` cards drawn at random (``_w``).

So, the new second cards ``a``, ``b`` drawn exactly: ``ra[c2] <= -collects * pp + sum_{a,b} P(a, b) (V0(q, a) +
W(q, b, 3) + W(q, c2, 6))`` with ``q`` the pair, the hand split again, ``c2``, ``a`` and ``b`` out (the first new
hand starts with nothing unseen, the second after the first's draws, the old second hand after both), and
``rb[e] <= -collects * pp + first + sum_{a,b} P(a, b) (V0(q, a) + W(q, b, 3))``.

*Where a fourth hand can be made* (four hands allowed; issue 27's second step). A hand x-x there may be split
again at its start: its value and its new hands' (each gets a card at once) given ``q`` at its start are at most
``G(q) = max(V0(q, x), S(q))``, ``S(q) = sum_{a',b'} P(a', b') (V0(q', a') + W(q', b', 3))``, ``q' = q + a' + b'``
(the player decides on ``q``; either way the bound holds). ``S`` is a submartingale in cards seen (a card seen
before ``a'``, ``b'`` has, by exchangeability, the law of one seen after them, and ``V0``, ``W(., 3)`` are
submartingales), so ``G`` is one (a maximum of submartingales), and a hand x-x after ``k`` cards gets
``W(q, G, k)``, ``G`` averaged likewise (``NSPLIT``). A hand after one that may be split again starts after up to
five more cards (``FOURTH``: the two new second cards and three draws; at most one hand can be split to four), so
it gets ``W(q, c, k + 5)``. Each term is the smaller of that and ``split_resplit_bound``'s ``H[J][c]`` (both bound
the hand), so the result is never above the ``T_J`` bound nor above this bound without these terms (which kept
``H`` there); a term averaged over more than ``DEEP`` cards (``G`` after more than six: its own five counted) keeps
``H``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS
from pontoon.analysis.british.split_resplit_fast import _jit_rec, _rest

FOURTH = 5  # cards a fourth hand can add unseen: its second card, the other hand's new one, three draws
KSTRIDE = 16  # ``_w``'s memo key: (composition code, class or NSPLIT, k)
NSPLIT = NCLASS  # ``_w``'s class for ``G``, the hand x-x that may be split again
DEEP = 11  # the most cards a term is averaged over (``G``'s five below it counted); deeper: the ``T_J`` term
# ``tighten``'s depths in turn: the terms no fourth hand reaches (and ``G`` at once), then all. The default
# (``pontoon analyze --resplits``) stops at six cards, minutes a pair; ``DEEP_STAGES`` goes on to eleven, whose
# cost on a full pack is not yet measured (more than 45 minutes of CPU on two packs: docs/analysis.md)
STAGES = (6,)
DEEP_STAGES = (6, DEEP)


@_jit_rec
def _w(q, c, k, K, wmemo, memo, dmemo, dstore):  # type: ignore[no-untyped-def]
    """``W(q, c, k)``: ``V0`` of the hand x-c (its cards in ``q``, the cards out) averaged over ``k`` more cards
    drawn at random from the pack (``V0`` = ``_rest`` of that hand alone, the player holding the most hands, so
    no resplit); ``c`` = ``NSPLIT`` (one past the last class): ``G``, the hand x-x that may be split again, the
    better of ``V0(q, x)`` and ``S(q)``, its two new hands' ``V0`` and ``W(., 3)`` (module docstring), averaged
    likewise. Memoized in ``wmemo``; ``q`` is restored on return."""
    counts, base, ints = K[0], K[1], K[9]
    nc = counts.shape[0]
    if k == 0 and c < nc:
        one = np.full(1, c, np.int64)
        return _rest(q, one, ints[4], K, memo, dmemo, dstore)
    code = 0
    for d in range(nc):
        code += q[d] * base[d]
    key = (code * (nc + 1) + c) * KSTRIDE + k
    got = wmemo.get(key, 1e301)
    if got < 1e300:
        return got
    left = ints[0] - q.sum()
    acc = 0.0
    if k == 0:  # G: the two new hands x-a, x-b (each gets a card at once), or the hand played on
        for a in range(nc):
            ka = counts[a] - q[a]
            if ka <= 0:
                continue
            q[a] += 1
            for b in range(nc):
                kb = counts[b] - q[b]
                if kb <= 0:
                    continue
                q[b] += 1
                one = _w(q, a, 0, K, wmemo, memo, dmemo, dstore) + _w(q, b, 3, K, wmemo, memo, dmemo, dstore)
                acc += ka / left * kb / (left - 1) * one
                q[b] -= 1
            q[a] -= 1
        on = _w(q, ints[3], 0, K, wmemo, memo, dmemo, dstore)
        if on > acc:
            acc = on
    else:
        for d in range(nc):
            ld = counts[d] - q[d]
            if ld > 0:
                q[d] += 1
                acc += ld / left * _w(q, c, k - 1, K, wmemo, memo, dmemo, dstore)
                q[d] -= 1
    wmemo[key] = acc
    return acc


class TightWorld:
    """The memo of ``V0`` and ``W`` for one pair x-x (``split_resplit_fast.FastWorld``'s, against the house
    banker); ``w(q, c, k)``."""

    def __init__(self, world: Any) -> None:
        from numba import types
        from numba.typed import Dict

        self.world = world
        self.wmemo = Dict.empty(types.int64, types.float64)

    def w(self, q: np.ndarray, c: int, k: int) -> float:
        fw = self.world
        return float(_w(q.astype(np.int64), c, k, fw.K, self.wmemo, fw.memo, fw.dmemo, fw.dstore))


def tight_terms(
    tw: TightWorld, x: int, q0: np.ndarray, four: bool, old: Any, j1: int, third: int, deep: int = DEEP
) -> float:
    """``sum_{a,b} P(a, b)`` of the new hands' bounds (and, ``third`` >= 0, the hand x-``third`` after them) from
    the cards out ``q0``: each term the smaller of ``old(J, c)``, the ``T_J`` bound with the same count of unseen
    cards as ``split_resplit_bound.resplit_bounds`` (``j1`` for the first new hand), and ``W`` (module docstring):
    over ``k`` cards the hands before it can draw, five more after a hand x-x while four hands are allowed
    (``FOURTH``: its split's two new cards and three draws), and for a hand x-x there ``G`` (``W`` with
    ``NSPLIT``); ``old`` alone where that averages over more than ``deep`` cards."""
    counts = tw.world.K[0]
    left = int(counts.sum() - q0.sum())

    def term(q: np.ndarray, c: int, k: int, j: int) -> float:
        bound = old(j, c)
        split = four and c == x
        if k + (FOURTH if split else 0) <= deep:
            bound = min(bound, tw.w(q, NSPLIT if split else c, k))
        return bound

    acc = 0.0
    q = q0.astype(np.int64).copy()
    for a in range(NCLASS):
        ka = counts[a] - q[a]
        if ka <= 0:
            continue
        q[a] += 1
        for b in range(NCLASS):
            kb = counts[b] - q[b]
            if kb <= 0:
                continue
            q[b] += 1
            p = ka / left * kb / (left - 1)
            extra_b = FOURTH if four and a == x else 0
            extra_c = FOURTH if four and x in (a, b) else 0
            t = term(q, a, 0, j1) + term(q, b, 3 + extra_b, j1 + 3 + extra_b)
            if third >= 0:
                t += term(q, third, 6 + extra_c, 8 + extra_c)
            acc += p * t
            q[b] -= 1
        q[a] -= 1
    return acc


def tighten(
    model: Any,
    x: int,
    world: Any,
    H: np.ndarray,
    four: bool,
    ra: np.ndarray,
    rb: np.ndarray,
    enough: Any = None,
    deeps: tuple[int, ...] = STAGES,
) -> tuple[np.ndarray, np.ndarray]:
    """``split_resplit_bound.resplit_bounds``'s ``ra_U``, ``rb_U`` (from its tables ``H[J, c]`` and the compiled
    world ``world`` against the house banker) with each hand's term the smaller of the two bounds (module
    docstring): the first hand's offer per ``c2`` and the second hand's per end ``e`` of the first. The depths
    ``deeps`` in turn (one memo), each bound below the one before, until ``enough(ra_U, rb_U)`` (if given) holds."""
    tw = TightWorld(world)
    got = ra, rb
    for deep in deeps if four else deeps[-1:]:
        got = _tighten(model, x, tw, H, four, ra, rb, deep)
        if enough is not None and enough(*got):
            break
    return got


def _tighten(
    model: Any, x: int, tw: TightWorld, H: np.ndarray, four: bool, ra: np.ndarray, rb: np.ndarray, deep: int
) -> tuple[np.ndarray, np.ndarray]:
    """``tighten`` at one depth ``deep`` (``tight_terms``)."""
    from pontoon.analysis.british.split_resplit_fast import _dist, _ended

    world = tw.world
    hg = model.graph(x)[0]
    ex = (np.arange(NCLASS) == x).astype(np.int64)
    collects = float(model.rules.banker_pontoon_collects)

    def old(j: int, c: int) -> float:
        return float(H[j, c])

    ra_t = ra.copy()
    for c2 in np.flatnonzero(np.isfinite(ra)):
        q0 = 3 * ex + (np.arange(NCLASS) == c2)
        d = _dist(q0.astype(np.int64), world.K, world.dmemo, world.dstore)
        ra_t[c2] = -collects * float(d[24]) + tight_terms(tw, x, q0, four, old, 2, int(c2), deep)
    rb_t = rb.copy()
    ends = world.K[19]
    news: dict[int, float] = {}  # per multiset of the first hand's cards: the new hands' terms
    for e in np.flatnonzero(np.isfinite(rb)):
        ms = int(hg.e_mset[e])
        q = (hg.mcnt[ms] + 2 * ex).astype(np.int64)
        if ms not in news:
            h1 = int(hg.mcnt[ms].sum()) - 1
            news[ms] = tight_terms(tw, x, q, four, old, h1 + 1, -1, deep)
        d = _dist(q, world.K, world.dmemo, world.dstore)
        rb_t[e] = -collects * float(d[24]) + float(_ended(d, e, ends)) + news[ms]
    return np.minimum(ra, ra_t), np.minimum(rb, rb_t)
