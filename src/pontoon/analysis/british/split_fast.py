"""The split deviation's exact values on full packs (issue 27; 003 Split your cards): ``splits.split_values``
as flat arrays and numba loops.

The same game as ``splits.py`` (its docstring: both hands get their second card at once, each is played best in
turn, the first hand's result and every card of the player known, buys on each hand's own initial stake; the
banker facing a split reads his own cards only), computed in two backward passes over the graph of one split
hand's states (its cards as a multiset, its stake, its last buy, whether it twisted):

* pass 2 (the second hand): for every way the first hand can end (its cards, its stake: the cards say whether it
  stuck, bust or made five), the value of each state of the second hand, the pack less both hands' cards; a
  finished pair of hands is settled against the banker's outcome distribution given every card of the player
  (his play reads his own cards only, so it is a hypergeometric sum over the hands he ends on);
* pass 1 (the first hand): for each second card of the second hand, the value of each state of the first hand,
  a finished first hand worth the second hand's value from its start (pass 2).

Exact as the enumeration (``tests/analysis/test_british_splits.py`` holds them equal to 1e-12 on reduced packs);
on 52 cards all the pairs take seconds where the enumeration took more than ten minutes for one.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from pontoon.analysis.british.game import (
    ACE,
    NCLASS,
    TEN,
    Game,
    banker_can_twist,
    banker_outcome,
    best,
    class_of,
    counts_of,
    hard,
)
from pontoon.analysis.british.values import _jit, _u
from pontoon.rules.british import BritishRules

TWIST, BUY1, BUY2 = 0, 1, 2  # the drawing actions of a split hand (003 Twist, Buy)


@dataclass
class HandGraph:
    """One split hand's states from every start (x, c), as flat arrays: children before parents in ``order``."""

    cnt: np.ndarray  # [node, class]: the hand's cards
    mset: np.ndarray  # node -> index of its multiset in ``mcnt``
    mcnt: np.ndarray  # [multiset, class]
    end: np.ndarray  # node -> its end (stick, or bust / five when forced), -1 none
    forced: np.ndarray  # node: the hand is over (bust, five cards)
    kid: np.ndarray  # [node, action, class] -> node, -1 not legal
    order: np.ndarray
    start: np.ndarray  # class c -> node of the hand (x, c), -1 none
    e_mset: np.ndarray  # per end: its multiset
    e_stake: np.ndarray
    e_fixed: np.ndarray  # per stake, paid unless the banker has a Pontoon (-1 bust, the Royal Pontoon's pay)
    e_total: np.ndarray  # against the banker: the stuck total (22 five cards), -1 none
    keys: list[tuple[tuple[int, ...], float, float, bool]]  # per node: (cards, stake, last buy, twisted)


def hand_graph(rules: BritishRules, x: int, counts: np.ndarray) -> HandGraph:
    """Every state of a hand split from the pair x-x, as ``splits.options`` plays it."""
    index: dict[tuple[Any, ...], int] = {}
    nodes: list[tuple[tuple[int, ...], float, float, bool]] = []
    kids: list[dict[tuple[int, int], tuple[Any, ...]]] = []
    ends: dict[tuple[tuple[int, ...], float], int] = {}
    end_rows: list[tuple[tuple[int, ...], float, float, int]] = []
    royal_pays = float(rules.royal_pontoon_pays)

    def end_of(hand: tuple[int, ...], stake: float, fixed: float, total: int) -> int:
        key = (hand, stake)
        if key not in ends:
            ends[key] = len(end_rows)
            end_rows.append((hand, stake, fixed * stake, total))
        return ends[key]

    starts = np.full(NCLASS, -1, np.int64)
    for c in range(NCLASS):
        if counts[c] - 2 * (c == x) >= 1:  # the pair's two cards are out of the pack
            key = (tuple(sorted((x, c))), 1.0, 2.0, False)
            if key not in index:
                index[key] = len(nodes)
                nodes.append(key)
            starts[c] = index[key]
    info: list[tuple[int, bool]] = []
    i = 0
    while i < len(nodes):
        hand, stake, last, twisted = nodes[i]
        h, n = hard(hand), len(hand)
        row: dict[tuple[int, int], tuple[Any, ...]] = {}
        if h > 21:
            info.append((end_of(hand, stake, -1.0, -1), True))  # 003 "you are bust"
        elif n == 5:
            info.append((end_of(hand, stake, 0.0, 22), True))  # 003 Five Card Trick
        else:
            e = -1
            if rules.stick_minimum <= best(hand) <= 21:
                royal = rules.royal_pontoon and hand == (6, 6, 6)  # 003 variation: three sevens
                e = end_of(hand, stake, royal_pays, -1) if royal else end_of(hand, stake, 0.0, best(hand))
            info.append((e, False))
            if h < 21:
                moves = [(TWIST, 0.0, True, last)]  # 003 Twist
                if not twisted and not (rules.no_buy_fifth_at_11_or_less and n == 4 and h <= 11):
                    # 003 Buy: between the initial stake and the previous buy (or twice)
                    moves += [(a, amt, False, amt) for a, amt in ((BUY1, 1.0), (BUY2, 2.0)) if amt <= last]
                for a, extra, tw, new_last in moves:
                    for c in range(NCLASS):
                        if counts[c] == 0:
                            continue
                        key = (tuple(sorted((*hand, c))), stake + extra, new_last, tw)
                        if key not in index:
                            index[key] = len(nodes)
                            nodes.append(key)
                        row[(a, c)] = key
        kids.append(row)
        i += 1
    nn = len(nodes)
    cnt = np.array([counts_of(nd[0]) for nd in nodes], np.int64).reshape(nn, NCLASS)
    msets: dict[tuple[int, ...], int] = {}
    mset = np.array([msets.setdefault(nd[0], len(msets)) for nd in nodes], np.int64)
    mcnt = np.array([counts_of(m) for m in msets], np.int64).reshape(len(msets), NCLASS)
    kid = np.full((nn, 3, NCLASS), -1, np.int64)
    for j, row in enumerate(kids):
        for (a, c), key in row.items():
            kid[j, a, c] = index[key]
    order = np.array(sorted(range(nn), key=lambda j: -len(nodes[j][0])), np.int64)
    e_mset = np.array([msets[r[0]] for r in end_rows], np.int64)
    return HandGraph(
        cnt,
        mset,
        mcnt,
        np.array([e for e, _ in info], np.int64),
        np.array([f for _, f in info], np.bool_),
        kid,
        order,
        starts,
        e_mset,
        np.array([r[1] for r in end_rows], np.float64),
        np.array([r[2] for r in end_rows], np.float64),
        np.array([r[3] for r in end_rows], np.int64),
        nodes,
    )


@dataclass
class BankerEnds:
    """The banker's final hands under a play that reads his own cards only, as a hypergeometric sum: the chance
    he ends on hand k, the player's cards out of the pack, is ``w[k] * prod_c C(left_c, k_c) / C(left, |k|)``."""

    cls: np.ndarray  # [hand, j]: the classes of the hand (up to five)
    mul: np.ndarray  # [hand, j]: their multiplicities
    size: np.ndarray
    w: np.ndarray  # the share of the hand's orders his play ends on
    out: np.ndarray  # index of his outcome in ``outs``
    outs: np.ndarray  # 0 bust, 1 five, else the total he stays on


def banker_ends(g: Game, twists: Any) -> BankerEnds:
    """``twists(hand)``: his chance of twisting there (a bool for a pure play; read where ``banker_can_twist``)."""
    reach = np.zeros(len(g.banker))
    rows = []
    for k, h in enumerate(g.banker):  # listed by size: parents before children
        if len(h) == 2:
            reach[k] = 1.0
        p = float(twists(h)) if banker_can_twist(h) else 0.0
        if p > 0.0:
            for c in range(NCLASS):
                d = tuple(sorted((*h, c)))
                if d in g.banker_index:  # the share of the orders of d that come from h
                    reach[g.banker_index[d]] += p * reach[k] * counts_of(d)[c] / len(d)
        if p < 1.0 and reach[k] > 0.0:
            rows.append((h, (1.0 - p) * reach[k]))
    outs = sorted({banker_outcome(h) for h, _ in rows})
    cls, mul = hand_classes([h for h, _ in rows])
    return BankerEnds(
        cls,
        mul,
        np.array([len(h) for h, _ in rows], np.int64),
        np.array([w for _, w in rows], np.float64),
        np.array([outs.index(banker_outcome(h)) for h, _ in rows], np.int64),
        np.array(outs, np.int64),
    )


def splittable(rules: BritishRules, counts: np.ndarray) -> list[int]:
    """Classes whose pairs may be split here (003 Split "equal in rank"; variation: only aces), ten-value classes
    included: two ten-value cards split only where they are "actually equal" (003), the share of such pairs in
    the class given by ``same_rank_share``; the split's value does not depend on which rank (cards by points)."""
    if rules.max_split_hands < 2:
        return []
    classes = [ACE] if rules.split_only_aces else list(range(NCLASS))
    return [c for c in classes if counts[c] >= 2]


def can_resplit(model: SplitModel, x: int) -> bool:
    """Whether a split hand of x-x may be split again here (003 Split: "If either of the new cards dealt is equal
    to the first two you may choose to split again"; variation: only aces; below the ten-value classes, whose
    resplit needs a rank the classes do not keep: ``split_resplit``)."""
    r = model.rules
    return r.max_split_hands >= 3 and x < TEN and (not r.split_only_aces or x == ACE)


def same_rank_share(rules: BritishRules, x: int) -> float:
    """The chance that two cards of class ``x`` are of one rank (003 Split: "you cannot split two ten point
    cards unless they are actually equal - two queens can be split but a queen and a jack"): 1 below the
    ten-value classes; for them the pack's ranks of the class (every order of the pack equally likely, so the
    two cards are a uniform pair of the class's cards)."""
    if x < TEN:
        return 1.0
    n = [rules.pack_suits * rules.packs_for(2) for r in rules.pack_ranks if class_of(r, rules) == x]
    total = sum(n)
    return sum(k * (k - 1) for k in n) / (total * (total - 1)) if total >= 2 else 0.0


def simple_twists(h: tuple[int, ...]) -> bool:
    """The simple banker of the bots (``pontoon.british.bots``; ``splits.simple_banker``): twists below 17 (his
    best total), and four cards of hard 11 or less (a sure Five Card Trick)."""
    return hard(h) < 21 and (best(h) < 17 or (len(h) == 4 and hard(h) <= 11))


def _binom(top: int) -> np.ndarray:
    return np.array([[float(comb(n, k)) for k in range(6)] for n in range(top + 1)], np.float64)


def hand_classes(hands: list[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """[hand, j]: the distinct classes of each hand (up to five) and their multiplicities, for ``_k_hyper``."""
    cls = np.zeros((len(hands), 5), np.int64)
    mul = np.zeros((len(hands), 5), np.int64)
    for i, h in enumerate(hands):
        for j, c in enumerate(sorted(set(h))):
            cls[i, j], mul[i, j] = c, h.count(c)
    return cls, mul


@_jit
def _k_hyper(rc, counts, total, cls, mul, size, binom, q):  # type: ignore[no-untyped-def]
    """``q[k]``: the chance that the banker's first cards form hand ``k`` (``hand_classes``), the player's cards
    ``rc`` out of the pack: a product of binomials over its classes (0 where the pack lacks them)."""
    left = total
    for c in range(rc.shape[0]):
        left -= rc[c]
    for k in range(cls.shape[0]):
        q[k] = 0.0
        s = size[k]
        if left < s:
            continue
        num = 1.0
        for j in range(5):
            m = mul[k, j]
            if m == 0:
                break
            lc = counts[cls[k, j]] - rc[cls[k, j]]
            if lc < m:
                num = 0.0
                break
            num *= binom[lc, m]
        q[k] = num / binom[left, s]


@_jit
def _k_banker(rc, counts, total, cls, mul, size, w, out, binom, outp, q):  # type: ignore[no-untyped-def]
    """The banker's outcome chances (his Pontoon excluded) given the player's cards ``rc`` out of the pack."""
    outp[:] = 0.0
    _k_hyper(rc, counts, total, cls, mul, size, binom, q)
    for k in range(cls.shape[0]):
        if q[k] != 0.0:
            outp[out[k]] += w[k] * q[k]


@_jit
def _k_banker_all(rcs, counts, total, cls, mul, size, w, out, binom, p0, p1, pb, pn, pp):  # type: ignore[no-untyped-def]
    """Per set of the player's cards out of the pack (rows of ``rcs``): the banker's outcome chances ``pb``, their
    sum ``pn`` (he has no Pontoon) and the chance ``pp`` of his Pontoon."""
    no = pb.shape[1]
    outp = np.zeros(no)
    q = np.zeros(cls.shape[0])
    for u in range(rcs.shape[0]):
        rc = rcs[u]
        _k_banker(rc, counts, total, cls, mul, size, w, out, binom, outp, q)
        s = 0.0
        for o in range(no):
            pb[u, o] = outp[o]
            s += outp[o]
        pn[u] = s
        left = total - rc.sum()
        # 003: the banker's Pontoon, shown before the split, collects on the initial stake
        pp[u] = (counts[p0] - rc[p0]) * (counts[p1] - rc[p1]) / binom[left, 2] if left >= 2 else 0.0


@_jit
def _k_banker_classes(rcs, counts, total, cls, mul, size, wk, out, binom, p0, p1, pb, pn, pp):  # type: ignore[no-untyped-def]
    """``_k_banker_all`` for a play per class (``wk[class, hand]``: the share of the orders of each banker hand
    that his play ends on; ``out[hand]`` his outcome 0 bust, 1 five, else his total): the hypergeometric chances
    of his hands once per set of the player's cards, for every class."""
    nk, nb = wk.shape[0], cls.shape[0]
    q = np.zeros(nb)
    for u in range(rcs.shape[0]):
        rc = rcs[u]
        _k_hyper(rc, counts, total, cls, mul, size, binom, q)
        for k in range(nb):
            if q[k] != 0.0:
                for cl in range(nk):
                    if wk[cl, k] != 0.0:
                        v = wk[cl, k] * q[k]
                        pb[cl, u, out[k]] += v
                        pn[cl, u] += v
        left = total - rc.sum()
        # 003: the banker's Pontoon, shown before the split, collects on the initial stake
        pp[u] = (counts[p0] - rc[p0]) * (counts[p1] - rc[p1]) / binom[left, 2] if left >= 2 else 0.0


@_jit
def _k_pass2(  # type: ignore[no-untyped-def]
    cnt, mset, mcnt, end, forced, a_start, k_start, k_cls, k_node, order, start, e_mset, e_stake, e_fixed,
    e_total, counts, total, pidx, pb, pn, pp, pay, collects, res, dec, phi, nphi,
):  # fmt: skip
    """``res[e, c]``: the second hand's value from its start (x, c), the first hand ended as ``e``; ``pidx[m1,
    m2]``: the row of ``pb``, ``pn``, ``pp`` for the two hands' multisets (-1: more cards than the pack has);
    ``pb[cl]``, ``pn[cl]``: the banker's outcome chances under his play for the class ``cl = phi[e1] * nphi +
    phi[e2]`` of what he sees of the two ended hands (``end_feature``; one class: his own cards only)."""
    nn, ne, nc = cnt.shape[0], e_mset.shape[0], counts.shape[0]
    no = pay.shape[1]
    v = np.zeros(nn)
    for e in range(ne):
        m1 = e_mset[e]
        s1, t1, f1 = e_stake[e], e_total[e], e_fixed[e]
        for i in range(nn):
            j = order[i]
            u = pidx[m1, mset[j]]
            if u < 0:
                v[j] = 0.0
                continue
            bestv = -1e300
            e2 = end[j]
            if e2 >= 0:
                s2, t2 = e_stake[e2], e_total[e2]
                cl = phi[e] * nphi + phi[e2]
                val = -collects * pp[u] + pn[cl, u] * (f1 + e_fixed[e2])
                for o in range(no):
                    q = 0.0
                    if t1 >= 0:
                        q += s1 * pay[t1, o]
                    if t2 >= 0:
                        q += s2 * pay[t2, o]
                    val += pb[cl, u, o] * q
                bestv = val
            dec[e, j] = -1  # the hand ends here (stick, or bust / five cards)
            if not forced[j]:
                left = total
                for c in range(nc):
                    left -= mcnt[m1, c] + cnt[j, c]
                for a in range(a_start[j], a_start[j + 1]):
                    acc = 0.0
                    for q in range(k_start[a], k_start[a + 1]):
                        c = k_cls[q]
                        lc = counts[c] - mcnt[m1, c] - cnt[j, c]
                        if lc > 0:
                            acc += lc / left * v[k_node[q]]
                    if acc > bestv:
                        bestv = acc
                        dec[e, j] = a - a_start[j]
            v[j] = bestv
        for c in range(nc):
            if start[c] >= 0:
                res[e, c] = v[start[c]]


@_jit
def _k_pass1(cnt, end, forced, kid, order, start, counts, total, x, res, out, dec, ra):  # type: ignore[no-untyped-def]
    """``out[c1]``: the split's value given the first hand's second card, over the second hand's second card;
    ``ra[c2]``: the value of splitting the first hand x-x again at its start (``split_resplit``; -inf: not)."""
    nn, nc = cnt.shape[0], counts.shape[0]
    v = np.zeros(nn)
    for c2 in range(nc):
        if start[c2] < 0:
            continue
        for i in range(nn):
            j = order[i]
            good = True
            for c in range(nc):
                if cnt[j, c] + (c == x) + (c == c2) > counts[c]:
                    good = False
            if not good:
                v[j] = 0.0
                continue
            e = end[j]
            bestv = -1e300
            if e >= 0:
                bestv = res[e, c2]
            dec[c2, j] = -1
            if not forced[j]:
                left = total - 2
                for c in range(nc):
                    left -= cnt[j, c]
                for a in range(3):
                    acc = 0.0
                    has = False
                    for c in range(nc):
                        k = kid[j, a, c]
                        if k < 0:
                            continue
                        has = True
                        lc = counts[c] - cnt[j, c] - (c == x) - (c == c2)
                        if lc > 0:
                            acc += lc / left * v[k]
                    if has and acc > bestv:
                        bestv = acc
                        dec[c2, j] = a
            v[j] = bestv
        for c1 in range(nc):
            s = start[c1]
            if s < 0:
                continue
            k1 = counts[c1] - 2 * (c1 == x)
            k2 = counts[c2] - 2 * (c2 == x) - (c2 == c1)
            if k1 <= 0 or k2 <= 0:
                continue
            val = v[s]
            if c1 == x and ra[c2] > val:
                val = ra[c2]  # 003 Split: "split again"
            out[c1] += k1 / (total - 2) * k2 / (total - 3) * val


def _csr(kid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The legal actions and their children as compressed rows: node -> actions -> (class, child)."""
    a_start, k_start, k_cls, k_node = [0], [0], [], []
    for j in range(kid.shape[0]):
        for a in range(kid.shape[1]):
            cs = np.flatnonzero(kid[j, a] >= 0)
            if len(cs):
                k_cls += cs.tolist()
                k_node += kid[j, a, cs].tolist()
                k_start.append(len(k_cls))
        a_start.append(len(k_start) - 1)
    arrays = (a_start, k_start, k_cls, k_node)
    return tuple(np.array(z, np.int64) for z in arrays)  # type: ignore[return-value]


def _pairs(mcnt: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two hands' cards together, once per distinct set: ``pidx[m1, m2]`` its row in ``rcs`` (-1 where the
    pack has fewer cards)."""
    base = np.cumprod(np.concatenate([[1], counts[:-1] + 1])).astype(np.int64)
    both = mcnt[:, None, :] + mcnt[None, :, :]
    valid = (both <= counts).all(-1)
    codes = both @ base
    uniq, first, inv = np.unique(codes[valid], return_index=True, return_inverse=True)
    pidx = np.full(valid.shape, -1, np.int64)
    pidx[valid] = inv.reshape(-1)
    rcs = both[valid][first]
    return pidx, np.ascontiguousarray(rcs, np.int64)


@dataclass
class SplitRun:
    """One pair's split against one banker play: the hand graph, the two passes' results and decisions."""

    x: int
    res: np.ndarray  # [first hand's end, second hand's second card]: the second hand's value
    dec1: np.ndarray  # [second hand's second card, node]: the first hand's decision (-1 end, else the action)
    dec2: (
        np.ndarray
    )  # [first hand's end, node]: the second hand's (-1 end, else the action's rank at the node)
    per: np.ndarray  # per first hand's second card: its share of the value
    value: float


class SplitModel:
    """The passes for ``rules``: ``run(x, banker)`` the player's best split of x-x against a banker who reads
    his own cards only (``BankerEnds``)."""

    def __init__(self, rules: BritishRules, g: Game) -> None:
        self.rules, self.g = rules, g
        self.counts = np.asarray(g.counts, np.int64)
        self.total = int(self.counts.sum())
        self.binom = _binom(self.total)
        self.p0, self.p1 = int(g.pontoon[0]), int(g.pontoon[1])
        self.graphs: dict[int, tuple[HandGraph, Any, np.ndarray, np.ndarray]] = {}

    def graph(self, x: int) -> tuple[HandGraph, Any, np.ndarray, np.ndarray]:
        """The hand graph of x-x, its children as compressed rows, and the distinct sets of the player's cards
        (``_pairs``)."""
        if x not in self.graphs:
            hg = hand_graph(self.rules, x, self.counts)
            self.graphs[x] = (hg, _csr(hg.kid), *_pairs(hg.mcnt, self.counts))
        return self.graphs[x]

    def payoffs(self, outs: np.ndarray) -> np.ndarray:
        """[stuck total 0..22, banker outcome in ``outs``]: the player's net per stake."""
        fp = float(self.rules.five_card_trick_pays)
        return np.array([[_u(t, int(o), fp) for o in outs] for t in range(23)], np.float64)

    def banker_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every banker hand of the game (``hand_classes``), its size and outcome (0 bust, 1 five, else total)."""
        if not hasattr(self, "_banker"):
            hands = list(self.g.banker)
            cls, mul = hand_classes(hands)
            size = np.array([len(h) for h in hands], np.int64)
            self._banker = (cls, mul, size, np.array([banker_outcome(h) for h in hands], np.int64))
        return self._banker

    def run(
        self,
        x: int,
        be: BankerEnds | list[BankerEnds] | np.ndarray,
        nphi: int = 1,
        resplit: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> SplitRun:
        """The player's best split of x-x against ``be``: one banker play reading his own cards, or (a list of
        ``nphi`` squared, or their end shares [class, banker hand], ``class_ends``) one per class of what he
        sees of the two ended hands (``end_feature``). ``resplit``: (``ra``, ``rb``) of
        ``split_resplit.resplit_values``, each hand x-x split again at its start where that is worth more
        (the decisions ``dec1``, ``dec2`` are then those of the hands played)."""
        hg, csr, pidx, rcs = self.graph(x)
        counts, total, binom = self.counts, self.total, self.binom
        phi = end_feature(hg, nphi)
        res = np.zeros((len(hg.e_mset), NCLASS))
        pp = np.zeros(len(rcs))
        if isinstance(be, np.ndarray):  # [class, banker hand]: the share of each hand's orders he ends on
            pb, pn = np.zeros((len(be), len(rcs), 23)), np.zeros((len(be), len(rcs)))
            cls, mul, size, out = self.banker_arrays()
            _k_banker_classes(
                rcs, counts, total, cls, mul, size, be, out, binom, self.p0, self.p1, pb, pn, pp
            )
        else:
            bes = be if isinstance(be, list) else [be]
            pb, pn = np.zeros((len(bes), len(rcs), 23)), np.zeros((len(bes), len(rcs)))
            for i, b in enumerate(bes):
                pbi = np.zeros((len(rcs), len(b.outs)))
                _k_banker_all(
                    rcs,
                    counts,
                    total,
                    b.cls,
                    b.mul,
                    b.size,
                    b.w,
                    b.out,
                    binom,
                    self.p0,
                    self.p1,
                    pbi,
                    pn[i],
                    pp,
                )
                pb[i][:, b.outs] = pbi
        dec2 = np.zeros((len(hg.e_mset), len(hg.cnt)), np.int8)
        _k_pass2(
            hg.cnt, hg.mset, hg.mcnt, hg.end, hg.forced, *csr, hg.order, hg.start,
            hg.e_mset, hg.e_stake, hg.e_fixed, hg.e_total, counts, total, pidx, pb, pn, pp,
            self.payoffs(np.arange(23)), float(self.rules.banker_pontoon_collects), res, dec2, phi, nphi,
        )  # fmt: skip
        ra = np.full(NCLASS, -np.inf)
        if resplit is not None:
            ra = resplit[0]
            res[:, x] = np.maximum(res[:, x], resplit[1])  # 003 Split: "split again" (the second hand)
        per = np.zeros(NCLASS)
        dec1 = np.zeros((NCLASS, len(hg.cnt)), np.int8)
        _k_pass1(hg.cnt, hg.end, hg.forced, hg.kid, hg.order, hg.start, counts, total, x, res, per, dec1, ra)
        return SplitRun(x, res, dec1, dec2, per, float(per.sum()))


SPLIT_CLASSES = 4  # what the banker facing a split reads of each ended hand (``end_feature``)


def end_feature(hg: HandGraph, nphi: int) -> np.ndarray:
    """Per end of a split hand, what the banker facing the split sees of it at his turn, coarsened to ``nphi``
    classes (003 Split "face up", "throw in your hand face up"; ruling 35: a bust and the number of cards are in
    ``view(banker)``): 0 bust, else the number of cards less one, capped at ``nphi - 1``
    (``nphi`` 1: nothing, his own cards only; 2: bust or live; 4, ``SPLIT_CLASSES``: bust, two, three, four or
    five cards). ``seen_class`` reads the same from a view."""
    live = hg.e_fixed >= 0.0  # a bust's fixed payment is its stake lost; a Royal Pontoon's is its pay
    n = hg.mcnt[hg.e_mset].sum(axis=1)
    return (
        np.where(live, np.minimum(n, nphi) - 1, 0).astype(np.int64)
        if nphi > 1
        else np.zeros(len(n), np.int64)
    )


def seen_class(hands: list[dict[str, Any]], nphi: int = SPLIT_CLASSES) -> int:
    """The class of what the banker sees of two ended split hands (``view(banker)``'s hands), as ``end_feature``
    numbers it: ``phi1 * nphi + phi2``."""
    if nphi == 1:
        return 0
    phi = [0 if h["status"] not in ("stuck", "five") else min(len(h["cards"]), nphi) - 1 for h in hands]
    return phi[0] * nphi + phi[1]


def split_values_fast(rules: BritishRules, g: Game, twists: Any = simple_twists) -> dict[int, float]:
    """``splits.split_values`` (per splittable class: the value of splitting its pair once, both hands played
    best, the banker's Pontoon included, per initial stake) by the two passes; ``twists``: the banker's play
    facing the split (his own cards only)."""
    model = SplitModel(rules, g)
    be = banker_ends(g, twists)
    return {x: model.run(x, be).value for x in splittable(rules, model.counts)}
