"""A rigorous upper bound on what resplits add to the player's best split (issue 27; 003 Split: "If either of the
new cards dealt is equal to the first two you may choose to split again"), in seconds on 52 or 104 cards.

The exact value of a resplit (``split_resplit_fast.FastWorld``) needs, for the hands after the first, their values
over every composition that the earlier hands can leave (tens of CPU-hours a pair on a full pack). The bound
replaces that uncertainty by an optimistic choice, at every card drawn, of the pack it is drawn from.

**The argument.** Fix the pack ``B`` left once three x's are out (the pair and the second card of the hand being
split again: every resplit offer has them out). At any later draw the pack left is ``B`` less the cards known at
that point (the hand's own cards, the banker's own cards in his play) less ``r``, cards out but not accounted for
(other hands' cards, the other second cards), with ``0 <= r`` and ``|r| <= J``, ``J`` a count of how many such cards
there can be (below). Let ``T_J`` be the optimistic expectation: the largest value of ``sum_c (m_c - r_c) w_c /
(M - |r|)`` over those ``r`` (``m`` the pack less the known cards, ``M`` its size, ``w_c`` the value after drawing
a card of class ``c``); for each ``|r|`` the best ``r`` takes the cards of the lowest ``w_c`` first. The true draw is
one member of the set, so by induction from the ends every value computed with ``T_J`` in place of the true
expectation is at least the true value, whatever the play (the player's best play included: a max of larger values
is larger).

* *The banker* (house banker facing three or four hands, who reads his own cards only): ``SU[J][t]``, the
  optimistic value per stake of a hand stuck on ``t`` (22: five cards) against his play, his two cards and his
  draws each by ``T_J`` (his own cards known), a Pontoon of his worth 0 there (003: it collects on the initial
  stake once, a term kept exact below), and ``PNU[J]``/``PNL[J]`` the largest/smallest chance he has no Pontoon.
  Each hand is settled against the pack left when it ends (``split_resplit``: a martingale), so a hand's end is
  worth at most ``stake * SU[J'][t] + fixed * (PNU or PNL)[J']``, ``J'`` counting the hand's own new cards too.
* *A hand* x-c (``V[J][c]``): the split hand's graph (``split_fast.hand_graph``: stick, twist, buy) played best with
  each draw by ``T_J`` and each end bounded as above. A hand x-x may be split again while four hands are allowed:
  it gets the better of ``V[J][x]`` and ``T_J`` of its new hand's value plus ``T_{J+1}`` of the next one's, each
  with a larger ``J`` (given to every hand x-x: a relaxation, only one can use it).
* *The sum.* With resplits the player's value from the offer on is the banker's Pontoon term plus the sum of the
  hands' values (``split_resplit``: each settled when it ends), and a sum of bounds bounds the sum whatever the
  order of play: ``ra_U[c2] = -collects * pp + sum_{a,b} P(a, b) (V[J1][a] + V[J2][b]) + V[J3][c2]`` for the first
  hand's offer (the new second cards ``a``, ``b`` drawn exactly from the pack at the offer), and ``rb_U[e] = -collects
  * pp + first + sum_{a,b} P(a, b) (V[J1][a] + V[J2][b])`` for the second hand's (``first`` the ended first hand
  against the house banker, exact). ``J`` counts the cards that can be out unseen by then: the other second
  cards, up to three draws per earlier hand, five more once a fourth hand can exist, and for the second hand's
  offer the first hand's cards.
* *The split.* ``SplitModel.run`` takes, at each offer, the larger of the resplit's value and playing on, and is
  otherwise a sum with non-negative weights: run with ``ra_U >= ra`` and ``rb_U >= rb`` it gives at least the split
  with resplits. So per pair the player's best response gains at most ``chance * (max(0, S_U - U) - max(0, S -
  U))`` from resplits (``S`` the split without them, ``U`` the pair unsplit); the banker's best response is
  unchanged (the profile never splits), and another play of the banker facing three or four hands can only lower
  the player's (he may decline every resplit). Ten-value pairs: offered at every second card of the class (more
  offers than 003's same rank: a larger value).

Checked on reduced packs against the exact values (``tests/analysis/test_british_resplit_bound.py``): ``ra_U >=
ra``, ``rb_U >= rb`` everywhere and the split's bound at least its exact value.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS, TEN, Game, banker_can_twist, banker_outcome, best
from pontoon.analysis.british.split_fast import SplitModel
from pontoon.analysis.british.split_resplit_tight import FOURTH
from pontoon.analysis.british.values import _jit

HOUSE_STAYS_ON = 17  # split_resplit.HOUSE_STAYS_ON: the house banker facing three or four hands
MAXJ = 40


@_jit
def _robust(w, m, J):  # type: ignore[no-untyped-def]
    """``T_J``: the largest ``sum_c (m_c - r_c) w_c / (M - |r|)`` over ``0 <= r <= m``, ``|r| <= J`` (the cards of
    the lowest ``w`` removed first); ``-1e300`` where no card is left."""
    nc = m.shape[0]
    order = np.argsort(w)
    tot = 0.0
    size = 0
    for c in range(nc):
        if m[c] > 0:
            tot += m[c] * w[c]
            size += m[c]
    if size <= 0:
        return -1e300
    bestv = tot / size
    k = 0
    used = 0  # removed from order[k]
    for s in range(1, J + 1):
        if size - s <= 0:
            break
        while k < nc and used >= m[order[k]]:
            k += 1
            used = 0
        if k >= nc:
            break
        tot -= w[order[k]]
        used += 1
        v = tot / (size - s)
        if v > bestv:
            bestv = v
    return bestv


@_jit
def _k_hand(nodes, cnt, end, forced, a_start, k_start, k_cls, k_node, endv, base, x, J, v):  # type: ignore[no-untyped-def]
    """``V[J][c]`` over the nodes ``nodes`` of the hand x-c (children first, the start last): each draw by
    ``T_J`` from ``base`` less the hand's own new cards, each end worth at most ``endv[e]`` (``end_values``)."""
    nc = base.shape[0]
    m = np.zeros(nc, np.int64)
    w = np.zeros(nc)
    for i in range(nodes.shape[0]):
        j = nodes[i]
        good = True
        for c in range(nc):
            m[c] = base[c] - cnt[j, c] + (c == x)
            if m[c] < 0:
                good = False
        if not good:
            v[j] = -1e300
            continue
        bestv = -1e300
        e = end[j]
        if e >= 0:
            bestv = endv[e]
        if not forced[j]:
            for a in range(a_start[j], a_start[j + 1]):
                for c in range(nc):
                    w[c] = 0.0
                ok = True
                for k in range(k_start[a], k_start[a + 1]):
                    w[k_cls[k]] = v[k_node[k]]
                for c in range(nc):
                    if m[c] > 0 and w[c] <= -1e299:
                        ok = False
                if not ok:
                    continue
                acc = _robust(w, m, J)
                if acc > bestv:
                    bestv = acc
        v[j] = bestv
    return v[nodes[nodes.shape[0] - 1]]


@_jit
def _k_end_values(kids, term, hcnt, base, own, tcol, jmax, out):  # type: ignore[no-untyped-def]
    """Per multiset ``own`` of a hand's new cards and ``J`` 0..``jmax``: ``out[J, i]`` the optimistic value per stake
    of the total ``tcol[i]`` (22: five cards; -1: none) against the banker, the largest and the smallest chance he
    has no Pontoon: his chain (states parents first, ``kids[state, c]``, ``kids[state, 0] == -2`` at an end, its
    payoffs in ``term``) with each card drawn by ``T_J`` from ``base`` less ``own`` and his own cards."""
    ns, nc = kids.shape[0], base.shape[0]
    m = np.zeros(nc, np.int64)
    w = np.zeros(nc)
    V = np.zeros((ns, 3))
    cols = np.zeros(3, np.int64)
    for i in range(own.shape[0]):
        cols[0] = tcol[i] if tcol[i] >= 0 else 0
        cols[1], cols[2] = 23, 24
        for J in range(jmax + 1):
            for s in range(ns - 1, -1, -1):
                if kids[s, 0] == -2:  # an end
                    for k in range(3):
                        V[s, k] = term[s, cols[k]]
                    continue
                good = True
                for c in range(nc):
                    m[c] = base[c] - own[i, c] - hcnt[s, c]
                    if m[c] < 0:
                        good = False
                if not good:
                    for k in range(3):
                        V[s, k] = 0.0
                    continue
                for k in range(3):
                    for c in range(nc):
                        w[c] = V[kids[s, c], k]
                    V[s, k] = _robust(w, m, J)
            out[J, i, 0] = V[0, 0]
            out[J, i, 1] = V[0, 1]
            out[J, i, 2] = -V[0, 2]


def banker_chain(g: Game, model: SplitModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The house banker (twists below 17, his best total; ``split_resplit.house_play``) as a chain over his hands
    from none (parents first): children per class (``-2`` in column 0 at an end), the payoff columns at an end
    (per stuck total 0..22 of the player, per stake; 23: 1 unless his Pontoon; 24: its negative; a Pontoon of his
    0 throughout: 003, it collects on the initial stake once, a term kept exact apart) and his cards' counts."""
    pay = model.payoffs(np.arange(23))  # [stuck total, banker outcome code]: per stake
    pont = tuple(sorted((model.p0, model.p1)))

    def stays(h: tuple[int, ...]) -> bool:
        return len(h) >= 2 and (h == pont or not (banker_can_twist(h) and best(h) < HOUSE_STAYS_ON))

    states: list[tuple[int, ...]] = [()]
    index: dict[tuple[int, ...], int] = {(): 0}
    k = 0
    while k < len(states):
        h = states[k]
        k += 1
        if stays(h):
            continue
        for c in range(NCLASS):
            d = tuple(sorted((*h, c)))
            if d not in index:
                index[d] = len(states)
                states.append(d)
    ns = len(states)
    kids = np.full((ns, NCLASS), -1, np.int64)
    term = np.zeros((ns, 25))
    hcnt = np.zeros((ns, NCLASS), np.int64)
    for s, h in enumerate(states):
        for c in h:
            hcnt[s, c] += 1
        if stays(h):
            kids[s, 0] = -2
            if h != pont:
                term[s, :23] = pay[:, banker_outcome(h)]
                term[s, 23], term[s, 24] = 1.0, -1.0
            continue
        for c in range(NCLASS):
            kids[s, c] = index[tuple(sorted((*h, c)))]
    return kids, term, hcnt


def end_values(g: Game, model: SplitModel, x: int, base: np.ndarray, jmax: int) -> np.ndarray:
    """``endv[J, e]``: the most an end ``e`` of a hand split from x-x can be worth against the house banker, its new
    cards (all but the x) known and at most ``J`` other cards out unseen: ``stake * SU + fixed * (PNU or PNL)``
    (module docstring), per ``J`` 0..``jmax``."""
    hg = model.graph(x)[0]
    kids, term, hcnt = banker_chain(g, model)
    used = np.unique(hg.e_mset)
    own = hg.mcnt[used].astype(np.int64) - (np.arange(NCLASS) == x).astype(np.int64)
    tcol = np.full(len(used), -1, np.int64)
    row = {int(m): i for i, m in enumerate(used)}
    for e in range(len(hg.e_mset)):
        if hg.e_total[e] >= 0:
            tcol[row[int(hg.e_mset[e])]] = int(hg.e_total[e])
    out = np.zeros((jmax + 1, len(used), 3))
    _k_end_values(kids, term, hcnt, base.astype(np.int64), np.ascontiguousarray(own), tcol, jmax, out)
    idx = np.array([row[int(m)] for m in hg.e_mset], np.int64)
    su, pnu, pnl = out[:, idx, 0], out[:, idx, 1], out[:, idx, 2]
    fixed = hg.e_fixed[None, :]
    val = fixed * np.where(fixed > 0, pnu, pnl)
    return np.where(hg.e_total[None, :] >= 0, val + hg.e_stake[None, :] * su, val)


def hand_tables(g: Game, model: SplitModel, x: int, base: np.ndarray, jmax: int) -> np.ndarray:
    """``V[J, c]`` for ``J`` 0..``jmax`` (module docstring): the hand x-c played best, each draw by ``T_J`` from
    ``base`` less its new cards, each end at most ``end_values``; -1e300 where it cannot start."""
    from pontoon.analysis.british.split_resplit_fast import _reachable

    hg, csr, _, _ = model.graph(x)
    r_off, r_nodes = _reachable(hg)
    endv = end_values(g, model, x, base, jmax)
    out = np.full((jmax + 1, NCLASS), -1e300)
    v = np.zeros(len(hg.cnt))
    b = base.astype(np.int64)
    for J in range(jmax + 1):
        ej = np.ascontiguousarray(endv[J])
        for c in range(NCLASS):
            if r_off[c + 1] > r_off[c] and b[c] >= 1:
                nodes = r_nodes[r_off[c] : r_off[c + 1]]
                out[J, c] = _k_hand(nodes, hg.cnt, hg.end, hg.forced, *csr, ej, b, x, J, v)
    return out


def _pp(n: np.ndarray, p0: int, p1: int) -> float:
    """The banker's Pontoon's chance from the pack ``n`` (class counts)."""
    left = int(n.sum())
    return float(n[p0] * n[p1] / (left * (left - 1) / 2)) if left >= 2 else 0.0


def offers(model: SplitModel, x: int) -> bool:
    """Whether the bound offers resplits of x-x: ``split_fast.can_resplit``, and for a ten-value pair wherever the
    rules allow resplits (every second card of the class: more offers than 003's same rank)."""
    from pontoon.analysis.british.split_fast import can_resplit

    r = model.rules
    return can_resplit(model, x) or (x >= TEN and r.max_split_hands >= 3 and not r.split_only_aces)


def resplit_bounds(
    model: SplitModel, x: int, tight: bool = True, enough: Any = None, deeps: tuple[int, ...] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``ra_U >= ra`` and ``rb_U >= rb`` (``split_resplit.resplit_values``, module docstring), -inf where the cards
    cannot be; the banker facing three or four hands the house banker. ``tight``: each hand's term the smaller of
    this bound and ``split_resplit_tight``'s (the cards before it averaged), so never above the ``T_J`` bound; its
    deeper averaging only until ``enough(ra_U, rb_U)`` (``split_resplit_tight.tighten``) if given, over the
    depths ``deeps`` (default ``split_resplit_tight.STAGES``; ``DEEP_STAGES`` goes on to eleven cards)."""
    from pontoon.analysis.british.split_resplit import house_play
    from pontoon.analysis.british.split_resplit_fast import FastWorld, _dist, _ended

    g, r = model.g, model.rules
    counts = model.counts
    four = int(r.max_split_hands) >= 4
    ex = (np.arange(NCLASS) == x).astype(np.int64)
    base = counts - 3 * ex
    hg = model.graph(x)[0]
    ra = np.full(NCLASS, -np.inf)
    rb = np.full(len(hg.e_mset), -np.inf)
    if base[x] < 0 or not offers(model, x):
        return ra, rb
    jh = 13 + FOURTH
    V = hand_tables(g, model, x, base, jh)
    H = V.copy()
    if four:  # a hand x-x split again (the fourth hand): T_J of the new hand, T_{J+1} of the next
        m = (base - ex).astype(np.int64)
        for J in range(jh + 1 - FOURTH):
            both = _robust(V[J + 2], m, J) + _robust(V[J + FOURTH], m, J + 1)
            H[J, x] = max(V[J, x], both)
    collects = float(r.banker_pontoon_collects)

    def new_hands(n: np.ndarray, j1: int) -> float:
        """The two new hands x-a, x-b, ``a`` and ``b`` drawn exactly from ``n``; ``j1`` the unseen cards for the
        first of them (``b`` included)."""
        left = int(n.sum())
        acc = 0.0
        for a in range(NCLASS):
            if n[a] <= 0:
                continue
            for b in range(NCLASS):
                kb = n[b] - (a == b)
                if kb <= 0:
                    continue
                j2 = j1 + 3 + (FOURTH if four and a == x else 0)
                acc += n[a] / left * kb / (left - 1) * (H[j1, a] + H[j2, b])
        return acc

    for c2 in range(NCLASS):  # the first hand x-x split again, the second hand x-c2
        n0 = base - (np.arange(NCLASS) == c2)
        if n0.min() < 0:
            continue
        left = int(n0.sum())
        acc = -collects * _pp(n0, model.p0, model.p1) + new_hands(n0, 2)
        third = 0.0
        for a in range(NCLASS):
            for b in range(NCLASS):
                kb = n0[b] - (a == b)
                if n0[a] <= 0 or kb <= 0:
                    continue
                j3 = 8 + (FOURTH if four and x in (a, b) else 0)
                third += n0[a] / left * kb / (left - 1) * H[j3, c2]
        ra[c2] = acc + third
    world = FastWorld(model, x, house_play(g))
    ends = world.K[19]
    for e in range(len(hg.e_mset)):  # the second hand x-x split again, the first hand ended as e
        q = (hg.mcnt[hg.e_mset[e]] + 2 * ex).astype(np.int64)
        if (q > counts).any():
            continue
        d = _dist(q, world.K, world.dmemo, world.dstore)
        first = float(_ended(d, e, ends))
        h1 = int(hg.mcnt[hg.e_mset[e]].sum()) - 1  # the first hand's cards but its x
        rb[e] = -collects * float(d[24]) + first + new_hands(counts - q, h1 + 1)
    if tight:
        from pontoon.analysis.british.split_resplit_tight import tighten

        return tighten(model, x, world, H, four, ra, rb, enough, *(() if deeps is None else (deeps,)))
    return ra, rb


def rank_shares(model: SplitModel, x: int) -> tuple[float, float]:
    """The most that the chance of an offer can be given a second card of the class ``x`` (1 below the ten-value
    classes): for a pair of one rank (003: "actually equal"), the first hand's second card of the rank given it is
    of the class, and the second hand's given the first hand's second card of another rank (the larger)."""
    if x < TEN:
        return 1.0, 1.0
    from pontoon.analysis.british.game import class_of

    r = model.rules
    per = [r.pack_suits * r.packs_for(2) for k in r.pack_ranks if class_of(k, r) == x]
    rank, cls = max(per), int(model.counts[x])
    return min(1.0, (rank - 2) / (cls - 2)), min(1.0, (rank - 2) / (cls - 3))


def pair_bound(
    model: SplitModel, x: int, be: Any, nphi: int, keep: float | None = None
) -> tuple[float, float]:
    """The split of x-x without resplits and the bound on it with them (``SplitModel.run`` with ``ra_U``,
    ``rb_U``), against the banker's play facing two hands ``be``. A ten-value pair: each offer taken with the
    chance that the card is of the pair's rank (``rank_shares``; the first hand's offer by the passes' sum over
    its second cards: only the starts x-x of the first hand read ``ra``, so the run with ``ra`` less the run
    without is the sum of the chance times ``max(0, ra - playing on)`` over them). The ``T_J`` bound first; the
    tighter one (``split_resplit_tight``, minutes a pair on a full pack) unless ``keep`` (the pair unsplit) is
    given and the ``T_J`` bound is already at most the larger of it and the split (no gain to bound)."""
    plain = model.run(x, be, nphi)
    if not offers(model, x):
        return plain.value, plain.value
    first, second = rank_shares(model, x)

    def value(ra: np.ndarray, rb: np.ndarray) -> float:
        """The split with the offers valued ``ra``, ``rb`` (monotone in both: the passes take maxima and sum
        with non-negative weights)."""
        if first >= 1.0:
            return model.run(x, be, nphi, resplit=(ra, rb)).value
        # the second hand's offer with chance ``second``: the passes take max(playing on, rb2), and rb2 = on +
        # second * (rb - on) gives on + second * max(0, rb - on) there (``plain.res``: playing on, no resplit read)
        on = plain.res[:, x]
        rb = np.where(np.isfinite(rb), on + second * (rb - on), rb)
        none = np.full(NCLASS, -np.inf)
        without = model.run(x, be, nphi, resplit=(none, rb)).value
        withra = model.run(x, be, nphi, resplit=(ra, rb)).value
        return without + first * (withra - without)

    upper = value(*resplit_bounds(model, x, tight=False))
    if keep is None:
        return plain.value, min(upper, value(*resplit_bounds(model, x)))
    if upper <= max(keep, plain.value):
        return plain.value, upper

    def enough(ra: np.ndarray, rb: np.ndarray) -> bool:
        """No gain left to bound (the deeper averaging of the fourth-hand terms skipped then)."""
        return value(ra, rb) <= max(keep, plain.value)

    return plain.value, min(upper, value(*resplit_bounds(model, x, enough=enough)))


def bound_profile(g: Game, dev: dict[str, Any], twists: dict[int, np.ndarray]) -> dict[str, Any]:
    """The bound on what resplits add to the profile's exploitability (issue 27): per pair the split without
    resplits, the bound with them and the pair unsplit, and ``gain_bound``, the sum over pairs of the chance per
    round times ``max(0, bound - unsplit) - max(0, split - unsplit)`` (``split_resplit.resplit_profile``'s best
    response with resplits, with each exact value replaced by its bound): no play with resplits gains more against
    the profile's banker, and the banker's best response is unchanged (module docstring)."""
    from pontoon.analysis.british.split_fast import SPLIT_CLASSES
    from pontoon.analysis.british.split_resplit import pair_offers

    t0 = time.perf_counter()
    model = SplitModel(g.rules, g)
    pairs: dict[str, dict[str, Any]] = {}
    total = 0.0
    for x, name, ends, p, keep in pair_offers(g, model, dev, twists):
        split, upper = pair_bound(model, x, ends, SPLIT_CLASSES, keep)
        gain = p * (max(0.0, upper - keep) - max(0.0, split - keep))
        total += gain
        pairs[name] = {
            "no_split": keep,
            "split": split,
            "split_with_resplits_bound": upper,
            "gain_bound": gain,
        }
    return {"gain_bound": total, "pairs": pairs, "seconds": time.perf_counter() - t0}
