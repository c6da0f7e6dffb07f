"""The distribution of the main wager's net outcome per round (issue 23 item 1).

For each up card the analysis's chains (``strategy.solve``, kept in ``UpcardResult.detail``) give
the action taken in every hand composition (``ChainOut.act``) and every rescue (``ChainOut.rfl``).
Replaying those actions with measures over the net outcome in place of expectations gives, by the
same linear recursion over the states (highest hard total first), the exact probability of every
outcome of an unsplit hand: stand against the dealer's row of the state's shoe, hit (each card, bust
at once, a 21 paid at once), double (one card, then keep, rescue or a doubled 21). Each starting
hand then takes the option optimal play or the chart chose, in each suit class of its cards and the
up card (6-7-8, 7-7-7 and the Super Bonus paid by suits). Every row also carries the chance of
each pay line and the amount wagered, so hit frequencies and the average total wagered are exact
too.

Splits are the one approximation: a split round's hands are played as the analysis plays them
(the chart's rows; under optimal play the split chains, CDP1), against one dealer: given the
dealer's final class (17..21, Pontoon, bust) they are independent; how many hands the split makes
(resplits to the rules' limit, second cards dealt in turn) is exact for the pair cards left
(``hand_counts``), a hand completed before the limit has a non-pair second card; FED's one-wager
loss of a split box is in the shape (given a dealer Pontoon: the dead hands' sum less one wager if
some hand is alive). The split's mean is then moved to the analysis's exact split value by
shifting a little mass between its most likely losing and winning outcomes. Only the rounds that
split are approximated, so the total variation distance to the exact distribution is at most the
chance of a split round (reported).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import product
from typing import Any

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.dealer import BUST, NAT
from pontoon.analysis.player import ChainOut, UpcardSolver
from pontoon.analysis.strategy import UpcardResult, _fallback, _row_key, solve
from pontoon.analysis.suits import BONUS_COMPLETION, SUITS
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules

LINES = (
    "pontoon",
    "21",
    "5-card 21",
    "6-card 21",
    "7+-card 21",
    "doubled 21",
    "6-7-8 mixed",
    "6-7-8 suited",
    "6-7-8 spades",
    "7-7-7 mixed",
    "7-7-7 suited",
    "7-7-7 spades",
    "super bonus",
)
_LINE = {name: k for k, name in enumerate(LINES)}
ROUND = 9  # outcomes are merged at 1e-9 units (every pay is a multiple of 1e-4 at most)


@dataclass
class Grid:
    """The net outcomes one hand can have, then one column per pay line, then the amount wagered."""

    values: list[float]
    blocks: int = 1  # > 1: one block of outcome columns per dealer class, the last for no class
    index: dict[float, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.values = sorted({round(v, ROUND) for v in self.values})
        self.index = {v: k for k, v in enumerate(self.values)}

    @property
    def g(self) -> int:
        return len(self.values)

    @property
    def line0(self) -> int:
        """The first pay-line column (after the outcome blocks)."""
        return self.blocks * self.g

    @property
    def ncol(self) -> int:
        return self.line0 + len(LINES) + 1

    def col(self, v: float) -> int:
        return self.index[round(v, ROUND)]

    def unit(self, v: float, wager: float, line: str | None = None) -> np.ndarray:
        u = np.zeros(self.ncol)
        u[(self.blocks - 1) * self.g + self.col(v)] = 1.0  # an event that does not wait for the dealer
        u[-1] = wager
        if line is not None:
            u[self.line0 + _LINE[line]] = 1.0
        return u

    def mean(self, vec: np.ndarray) -> float:
        return float(np.dot(vec[: self.g], self.values))


def _tier(kind: str, suits: tuple[str, ...]) -> str:
    if len(set(suits)) > 1:
        return f"{kind} mixed"
    return f"{kind} spades" if suits[0] == "S" else f"{kind} suited"


def _tier_pay(rules: CasinoRules, tier: str) -> float:
    kind, how = tier.split(" ")
    k = "678" if kind == "6-7-8" else "777"
    return float(getattr(rules, f"pays_{k}_{how}"))


def _full_shoe_tiers(rules: CasinoRules, kind: str) -> dict[str, float]:
    """P(tier) of a 6-7-8 or 7-7-7 of random suits from a full shoe (``average_three_card_pay``'s
    weights)."""
    d = rules.decks
    n = 4 * d
    out: dict[str, float] = {}
    for s in product(SUITS, repeat=3):
        if kind == "6-7-8":
            p = 1 / 64
        else:
            p = d / n * (d - (s[1] == s[0])) / (n - 1) * (d - (s[2] == s[0]) - (s[2] == s[1])) / (n - 2)
        if p > 0:
            t = _tier(kind, s)
            out[t] = out.get(t, 0.0) + p
    return out


def _completion_dists(
    rules: CasinoRules, i: int, j: int, up: int, sb: float
) -> list[tuple[float, float, dict[tuple[float, str], float]]]:
    """(weight, mean pay, {(pay, line): probability}) of the third card completing the bonus hand
    (i, j) by suit class of the two cards and the up card (``suits.completion_classes``' sums)."""
    key = (min(i, j), max(i, j))
    c = BONUS_COMPLETION[key]
    kind = "7-7-7" if key == (6, 6) else "6-7-8"
    d = rules.decks
    n = 4 * d
    merged: dict[float, tuple[float, dict[tuple[float, str], float]]] = {}
    for s1, s2, su in product(SUITS, repeat=3):
        p = 0.25
        p *= (d - (up == i and su == s1)) / (n - (up == i))
        p *= (d - (up == j and su == s2) - (i == j and s1 == s2)) / (n - (up == j) - (i == j))
        if p <= 0:
            continue
        removed = {s: 0 for s in SUITS}
        k = 0
        for idx, s in ((i, s1), (j, s2), (up, su)):
            if idx == c:
                removed[s] += 1
                k += 1
        dist: dict[tuple[float, str], float] = {}
        m = 0.0
        for s3 in SUITS:
            q = (d - removed[s3]) / (n - k) if n - k > 0 else 0.0
            if q <= 0:
                continue
            tier = _tier(kind, (s1, s2, s3))
            v = _tier_pay(rules, tier)
            line = tier
            # rulings 17: 7-7 of one suit, the third 7 of that suit, the dealer's first card a 7
            if kind == "7-7-7" and up == 6 and s1 == s2 == s3 and sb > 0:
                v += sb
                line = "super bonus"
            dist[(v, line)] = dist.get((v, line), 0.0) + q
            m += q * v
        km = round(m, 12)
        w0, d0 = merged.get(km, (0.0, {}))
        tot = w0 + p
        merged[km] = (
            tot,
            {x: (d0.get(x, 0.0) * w0 + dist.get(x, 0.0) * p) / tot for x in set(d0) | set(dist)},
        )
    return [(w, m, dist) for m, (w, dist) in merged.items()]


def _grid(rules: CasinoRules, sb: float) -> Grid:
    vals = [-2.0, -1.0, -0.5, 0.0, 1.0, 2.0, float(rules.pontoon_pays), float(rules.regular_pays)]
    vals += [-float(1 if rules.double_loses_original_only else 2)]
    vals += [float(rules.pays_5_card_21), float(rules.pays_6_card_21), float(rules.pays_7_card_21)]
    for k, how in product(("678", "777"), ("mixed", "suited", "spades")):
        vals.append(float(getattr(rules, f"pays_{k}_{how}")))
    vals += [float(rules.pays_777_suited) + sb, float(rules.pays_777_spades) + sb]
    return Grid(vals)


def _stand(grid: Grid, rows: np.ndarray, t: np.ndarray, m: float, loss: float, peek: bool) -> np.ndarray:
    """Measures of standing on totals ``t`` (``m`` units at stake) against dealer rows ``rows``
    (with ``grid.blocks`` > 1, each dealer class's outcome in its own block)."""
    out = np.zeros((len(t), grid.ncol))
    mass = np.zeros(len(t))
    cw, c0, cl = grid.col(m), grid.col(0.0), grid.col(-m)
    for d in range(7):
        if d == NAT and peek:
            continue
        off = d * grid.g if grid.blocks > 1 else 0
        p = rows[:, d]
        mass += p
        if d == NAT:
            out[:, off + grid.col(-loss)] += p
        elif d == BUST:
            out[:, off + cw] += p
        else:
            dt = 17 + d
            out[:, off + cw] += np.where(dt < t, p, 0.0)
            out[:, off + c0] += np.where(dt == t, p, 0.0)
            out[:, off + cl] += np.where(dt > t, p, 0.0)
    out[:, -1] = m * mass
    return out


@dataclass
class Tables:
    """Measures per state: stand, hit, double and the value of holding it (the chain's action)."""

    st: np.ndarray
    hit: np.ndarray
    dbl: np.ndarray
    val: np.ndarray
    act: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    pos: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # state -> row

    def row(self, name: str, s: int) -> np.ndarray:
        """State ``s``'s measure in ``st``, ``hit``, ``dbl`` or ``val`` (zeros where not valued)."""
        arr: np.ndarray = getattr(self, name)
        return arr[self.pos[s]]  # type: ignore[no-any-return]


def _twentyone(rules: CasinoRules, grid: Grid, solver: UpcardSolver, s: int) -> np.ndarray:
    """The measure of a 21 paid at once in state ``s`` (by cards; 6-7-8 / 7-7-7 by full-shoe suits)."""
    sp = solver.sp
    n = int(sp.ncards[s])
    c = sp.counts[s]
    if n == 3 and c[5] == 1 and c[6] == 1 and c[7] == 1:
        tiers = _full_shoe_tiers(rules, "6-7-8")
    elif n == 3 and c[6] == 3:
        tiers = _full_shoe_tiers(rules, "7-7-7")
    else:
        line = {5: "5-card 21", 6: "6-card 21"}.get(n, "7+-card 21" if n >= 7 else "21")
        return grid.unit(float(solver.pr.pay21[s]), 1.0, line)
    return sum((p * grid.unit(_tier_pay(rules, t), 1.0, t) for t, p in tiers.items()), np.zeros(grid.ncol))


def _paid21(rules: CasinoRules, grid: Grid, solver: UpcardSolver) -> np.ndarray:
    """The measure of every 21 paid at once (rows of the states of best total 21; kept on the solver)."""
    memo: dict[tuple[object, ...], np.ndarray] = solver.__dict__.setdefault("_dist_paid21", {})
    key = (tuple(grid.values), grid.blocks)
    got = memo.get(key)
    if got is not None:
        return got
    sp, pr = solver.sp, solver.pr
    out = np.zeros((sp.size, grid.ncol))
    other = 9 if solver.up == 0 else 0
    pk = pr.peek and solver.up in (0, 9)
    for s in np.nonzero(solver.active & (sp.best == 21))[0].tolist():
        nn = 1.0
        if pk:
            nn = 1.0 - (solver.base[other] - sp.counts[s, other]) / max(solver.n - sp.ncards[s], 1)
        out[s] = nn * _twentyone(rules, grid, solver, s)
    memo[key] = out
    return out


def reach(solver: UpcardSolver, out: ChainOut, start: np.ndarray) -> np.ndarray:
    """The states ``start`` (a mask) and every state that a hand in them reaches by drawing: every
    card of a two-card state (each option is valued there), then the states where the chain hits."""
    sp = solver.sp
    mark = start & solver.active
    hard = sp.hard
    for h in range(int(hard.min()), int(hard.max()) + 1):
        g = np.nonzero(mark & (hard == h))[0]
        if not len(g):
            continue
        go = g[(sp.ncards[g] == 2) | ((out.act[g] == K.ACT_HIT) & (sp.best[g] < 21))]
        nxt = sp.trans[go].ravel()
        nxt = nxt[nxt >= 0]
        mark[nxt[solver.active[nxt]]] = True
    return mark


def tables(
    rules: CasinoRules,
    grid: Grid,
    solver: UpcardSolver,
    out: ChainOut,
    a2: int,
    rows: np.ndarray | None = None,
    states: np.ndarray | None = None,
) -> Tables:
    """Replay one chain's actions as measures (see the module's text and ``kernels.chain``);
    ``rows``: the dealer rows to stand against (default the solver's own); ``states``: only these
    (a mask closed under drawing, ``reach``), default all."""
    rows = solver.dist if rows is None else rows
    sp, pr = solver.sp, solver.pr
    size, nc = sp.size, grid.ncol
    live_states = solver.active & (sp.ncards >= 1)
    if states is not None:
        live_states = live_states & states
    idx_all = np.nonzero(live_states)[0]
    n = len(idx_all)
    pos = np.full(size + 1, n, dtype=np.int64)  # each state's row; n: the zero row (not valued)
    pos[idx_all] = np.arange(n)
    st = np.zeros((n + 1, nc))
    hit = np.zeros((n + 1, nc))
    dbl = np.zeros((n + 1, nc))
    val = np.zeros((n + 1, nc))
    st[:n] = _stand(grid, rows[idx_all], sp.best[idx_all], 1.0, 1.0, pr.peek)
    base, up = solver.base, solver.up
    other = 9 if up == 0 else 0
    n_left = solver.n - sp.ncards[idx_all]
    cnt = base[None, :] - sp.counts[idx_all]
    ok = (cnt > 0) & (n_left > 0)[:, None]
    prob = np.where(ok, cnt / np.maximum(n_left, 1)[:, None], 0.0)
    f = np.ones_like(prob)
    if pr.peek and up in (0, 9):  # P(no dealer natural | the cards out), as the chain
        k_other = (base[other] - sp.counts[idx_all, other])[:, None] - (np.arange(10) == other)[None, :]
        f = np.where((n_left - 1 > 0)[:, None], 1.0 - k_other / np.maximum(n_left - 1, 1)[:, None], 1.0)
    jn = sp.trans[idx_all]
    bust = ok & (jn < 0)
    live = ok & (jn >= 0)
    pf_bust = (prob * f * bust).sum(axis=1)
    p_live = prob * live
    jx = pos[np.where(live, jn, size)]
    # double: one card, then a doubled 21 paid, a rescue, or the doubled total stands
    dbl[:n] = pf_bust[:, None] * grid.unit(-2.0, 2.0)
    si, ri = np.nonzero(live)
    jj = jn[si, ri]
    a2e = np.where(sp.ncards[idx_all[si]] == 2, sp.nace[idx_all[si]], a2)
    free = sp.nace[jj] > (a2e if pr.ace_one else 0)
    dt = np.where(free & (sp.hard[jj] + 10 <= 21), sp.hard[jj] + 10, sp.hard[jj])
    is21 = (dt == 21) & pr.p21wins
    rescued = ~is21 & (out.rfl[idx_all[si], ri] == 1) & pr.rescue & (dt < 21)
    keep = ~is21 & ~rescued
    pw = prob[si, ri]
    pfw = pw * f[si, ri]
    contrib = np.zeros((len(si), nc))
    contrib[is21] = pfw[is21, None] * grid.unit(2.0, 2.0, "doubled 21")
    contrib[rescued] = pfw[rescued, None] * grid.unit(-1.0, 2.0)
    if keep.any():
        contrib[keep] = pw[keep, None] * _stand(grid, rows[jj[keep]], dt[keep], 2.0, pr.nat_loss_dbl, pr.peek)
    if len(si):  # si is sorted (np.nonzero's row-major order): one sum per state
        first, starts = np.unique(si, return_index=True)
        dbl[first] += np.add.reduceat(contrib, starts, axis=0)
    v21 = _paid21(rules, grid, solver) if pr.p21wins else np.zeros((0, nc))
    bust1 = grid.unit(-1.0, 1.0)
    hard = sp.hard[idx_all]
    for h in sorted(set(hard.tolist()), reverse=True):
        g = np.nonzero(hard == h)[0]
        idx = idx_all[g]
        hit[g] = np.einsum("nr,nrc->nc", p_live[g], val[jx[g]]) + pf_bust[g, None] * bust1
        a = out.act[idx]
        val[g] = np.where(
            (a == K.ACT_STAND)[:, None], st[g], np.where((a == K.ACT_DOUBLE)[:, None], dbl[g], hit[g])
        )
        b21 = sp.best[idx] == 21
        if b21.any():
            val[g[b21]] = v21[idx[b21]] if pr.p21wins else st[g[b21]]
    return Tables(st, hit, dbl, val, out.act, pos)


@dataclass
class RoundDist:
    """A measure over the round's net outcome, with pay lines and amount wagered."""

    probs: dict[float, float] = field(default_factory=dict)
    lines: np.ndarray = field(default_factory=lambda: np.zeros(len(LINES)))
    wagered: float = 0.0
    split_mass: float = 0.0
    moved_mass: float = 0.0

    def add_vec(self, grid: Grid, vec: np.ndarray, w: float) -> None:
        for k in np.nonzero(vec[: grid.g])[0]:
            v = grid.values[k]
            self.probs[v] = self.probs.get(v, 0.0) + w * float(vec[k])
        self.lines += w * vec[grid.line0 : grid.line0 + len(LINES)]
        self.wagered += w * float(vec[-1])

    def add_dict(self, d: dict[float, float], w: float) -> None:
        for v, p in d.items():
            self.probs[v] = self.probs.get(v, 0.0) + w * p


Lattice = tuple[np.ndarray, float]  # probabilities on v0, v0 + step, ...; v0
Sparse = dict[float, float]  # {outcome: probability}, where a lattice would be too long
MAX_LATTICE = 4096  # points of one hand's lattice; beyond it (odd pays), sparse sums


def _step(values: list[float]) -> float | None:
    """The coarsest step of 1/2, 1/4, 1/20, 1/100, 1/10000 of a wager that every value is a multiple
    of and that spans them in at most MAX_LATTICE points (None: none does)."""
    span = max(values) - min(values) if values else 0.0
    for st in (0.5, 0.25, 0.05, 0.01, 1e-4):
        if all(abs(v / st - round(v / st)) < 1e-6 for v in values):
            return st if span / st <= MAX_LATTICE else None
    return None


def _lattice(grid: Grid, vec: np.ndarray, step: float | None) -> Lattice | Sparse:
    nz = np.nonzero(vec[: grid.g])[0]
    if step is None:
        return {grid.values[k]: float(vec[k]) for k in nz}
    if not len(nz):
        return np.zeros(1), 0.0
    vals = [grid.values[k] for k in nz]
    v0 = min(vals)
    arr = np.zeros(int(round((max(vals) - v0) / step)) + 1)
    for k, v in zip(nz, vals, strict=True):
        arr[int(round((v - v0) / step))] += vec[k]
    return arr, v0


def _conv(a: Lattice | Sparse, b: Lattice | Sparse) -> Lattice | Sparse:
    if isinstance(a, dict) and isinstance(b, dict):
        out: Sparse = {}
        for va, pa in a.items():
            for vb, pb in b.items():
                v = round(va + vb, ROUND)
                out[v] = out.get(v, 0.0) + pa * pb
        return out
    assert isinstance(a, tuple) and isinstance(b, tuple)
    return np.convolve(a[0], b[0]), a[1] + b[1]


def hand_counts(n_pair: int, n_cards: int, max_hands: int, resplit: bool) -> dict[tuple[int, int], float]:
    """How a split ends: {(hands, hands whose second card came once the limit was reached): P}.
    Second cards are dealt in turn (004 3.24.2); a pair card starts a new hand while fewer than
    ``max_hands`` exist (never without ``resplit``); ``n_pair`` pair cards among ``n_cards``."""
    if not resplit or max_hands <= 2:
        return {(2, 2): 1.0}
    out: dict[tuple[int, int], float] = {}
    todo = {(2, 2, 0, 0): 1.0}  # hands, hands waiting for a second card, pair cards, others drawn
    while todo:
        (h, wait, a, b), p = todo.popitem()
        if h == max_hands:
            key = (h, wait)
            out[key] = out.get(key, 0.0) + p
            continue
        if wait == 0:
            out[(h, 0)] = out.get((h, 0), 0.0) + p
            continue
        left = n_cards - a - b
        q = (n_pair - a) / left if left > 0 else 0.0
        # a pair card: a new hand, which waits too, and the hand draws again
        for nxt, pr in (((h + 1, wait + 1, a + 1, b), q), ((h, wait - 1, a, b + 1), 1 - q)):
            if pr > 0:
                todo[nxt] = todo.get(nxt, 0.0) + p * pr
    return out


def _add(
    conv: dict[float, float], lat: Lattice | Sparse, f: float, step: float | None, shift: float = 0.0
) -> None:
    if isinstance(lat, dict):
        for v, p in lat.items():
            key = round(v + shift, ROUND)
            conv[key] = conv.get(key, 0.0) + p * f
        return
    assert step is not None
    arr, v0 = lat
    for i in np.nonzero(arr)[0].tolist():
        v = round(v0 + i * step + shift, ROUND)
        conv[v] = conv.get(v, 0.0) + float(arr[i]) * f


def _power(ns: Lattice | Sparse, xs: Lattice | Sparse, h: int, k: int) -> Lattice | Sparse:
    acc: Lattice | Sparse = {0.0: 1.0} if isinstance(ns, dict) else (np.ones(1), 0.0)
    for _ in range(h - k):
        acc = _conv(acc, ns)
    for _ in range(k):
        acc = _conv(acc, xs)
    return acc


def _split(
    grid: Grid,
    hands: tuple[list[np.ndarray], list[np.ndarray], tuple[np.ndarray, np.ndarray] | None],
    counts: dict[tuple[int, int], float],
    target: float,
    scale: float,
    rd: RoundDist,
    w: float,
) -> None:
    """A split's hands against the same dealer: ``hands`` = (a hand whose second card is not a pair
    card, a hand whose second card is any card), each a list over the dealer's final class d (17..21,
    Pontoon, bust) of its measure jointly with d; given d the hands are independent, ``counts``
    (``hand_counts``) says how many of each. Scaled to ``scale`` of the round's mass, the mean moved
    to ``target`` (the analysis's exact split value) by shifting mass from the most likely losing
    outcome to the most likely winning one (or back). ``hands[2]`` (FED, 001 "Splits"): the two
    hands' measures of the events that do not wait for the dealer, jointly with a dealer Pontoon:
    given it, the box loses one wager in all if some hand is alive."""
    non, anyc, dead = hands
    seen = np.nonzero(np.sum(anyc, axis=0)[: grid.g])[0]
    step = _step([grid.values[k] for k in seen])  # split hands' outcomes (no Super Bonus)
    mass = float(np.sum(anyc, axis=0)[: grid.g].sum())
    conv: dict[float, float] = {}
    for cls in range(len(anyc)):
        pd = float(anyc[cls][: grid.g].sum())
        pn = float(non[cls][: grid.g].sum())
        if pd <= 0:
            continue
        xs = _lattice(grid, anyc[cls] / pd, step)
        ns = _lattice(grid, non[cls] / pn, step) if pn > 0 else xs
        if cls == NAT and dead is not None:
            # a hand is alive (value 0 here) or dead (its own outcome); all dead: the sum; else the
            # sum of the dead hands less one wager: (alive + dead)^h - dead^h, shifted by -1
            dn = dead[0][: grid.g] / (pn if pn > 0 else pd)
            dx = dead[1][: grid.g] / pd
            lat: dict[str, tuple[Lattice | Sparse, Lattice | Sparse]] = {}
            for key, dv in (("n", dn), ("x", dx)):
                ad = np.zeros(grid.ncol)
                ad[: grid.g] = dv
                ad[grid.col(0.0)] += 1.0 - float(dv.sum())
                lat[key] = (
                    _lattice(grid, ad, step),
                    _lattice(grid, np.pad(dv, (0, grid.ncol - grid.g)), step),
                )
            for (h, k), ph in counts.items():
                f = ph * scale * pd / mass
                some = _power(lat["n"][0], lat["x"][0], h, k)
                alldead = _power(lat["n"][1], lat["x"][1], h, k)
                _add(conv, some, f, step, -1.0)
                _add(conv, alldead, f, step)
                _add(conv, alldead, -f, step, -1.0)
            continue
        for (h, k), ph in counts.items():
            _add(conv, _power(ns, xs, h, k), ph * scale * pd / mass, step)
    rd.moved_mass += w * _match_mean(conv, target)
    rd.add_dict(conv, w)
    total: np.ndarray = np.sum(anyc, axis=0)
    nh = sum(h * p for (h, _k), p in counts.items())
    rd.lines += w * nh * total[grid.line0 : grid.line0 + len(LINES)] / mass * scale
    rd.wagered += w * nh * float(total[-1]) / mass * scale
    rd.split_mass += w * scale


def _match_mean(conv: dict[float, float], target: float) -> float:
    """Move probability from losing outcomes to the most likely winning one (or back) until the mean
    is ``target``, the most likely first; returns the probability moved."""
    d = target - sum(v * p for v, p in conv.items())
    if d == 0.0:
        return 0.0
    wins = [v for v in conv if v > 0 and conv[v] > 0]
    losses = [v for v in conv if v < 0 and conv[v] > 0]
    if not wins or not losses:
        raise PontoonError("a split's outcome distribution has no win or no loss to match its exact mean")
    up = d > 0
    dst = max(wins if up else losses, key=lambda v: conv[v])
    moved = 0.0
    for src in sorted(losses if up else wins, key=lambda v: -conv[v]):
        if d == 0.0:
            break
        gain = dst - src  # mean change per unit of probability moved from src to dst
        eps = min(conv[src], d / gain)
        conv[src] -= eps
        conv[dst] += eps
        d -= eps * gain
        moved += eps
    return moved


def _split_hand(
    grid: Grid, solver: UpcardSolver, wide: Tables, p: int
) -> tuple[list[np.ndarray], list[np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
    """One split hand of pair card ``p``, jointly with the dealer's final class (``wide``: tables
    on a grid with a block per dealer class and a last block for the events that do not wait for
    the dealer: bust, a 21 paid at once, a rescue, spread over the classes by the dealer's chances
    from the shoe less the pair): its second card from the shoe less both pair cards (not a pair
    card; any card), then played as the chain plays that composition (a double where the rules
    forbid one after a split is a stand, or a hit below the forced draw; split Aces take one card
    unless they may be hit). Per dealer class, a measure on ``grid`` (the class's share of lines
    and wagers)."""
    sp, pr = solver.sp, solver.pr
    shoe = solver.base.copy()
    shoe[p] -= 2
    n = int(shoe.sum())
    row = solver.dist[solver.state_of(p, p)].copy()
    if pr.peek:
        row[NAT] = 0.0
    row = row / row.sum()
    hand = np.zeros(wide.val.shape[1])
    nonpair = np.zeros(wide.val.shape[1])
    for r in range(10):
        if shoe[r] <= 0:
            continue
        cnt = [0] * 10
        cnt[p] += 1
        cnt[r] += 1
        s = sp.index[tuple(cnt)]
        v = wide.row("val", s)
        if sp.best[s] < 21:
            if p == 0 and not pr.hit_split_aces:
                v = wide.row("st", s)
            elif not pr.das and int(wide.act[s]) == K.ACT_DOUBLE:
                v = wide.row("st", s) if sp.best[s] >= pr.forced else wide.row("hit", s)
        hand += shoe[r] / n * v
        if r != p:
            nonpair += shoe[r] / (n - shoe[p]) * v
    g, free, line0 = grid.g, 7 * grid.g, 8 * grid.g
    res: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    for which, src in ((0, nonpair), (1, hand)):
        for d in range(7):
            out = np.zeros(grid.ncol)
            out[:g] = src[d * g : (d + 1) * g] + row[d] * src[free : free + g]
            out[g:] = row[d] * src[line0:]
            res[which].append(out)
    dead = None
    if pr.split_one_wager:  # FED: what each hand does without the dealer, jointly with a Pontoon
        dead = (row[NAT] * nonpair[free : free + g], row[NAT] * hand[free : free + g])
    return res[0], res[1], dead


@dataclass
class _Up:
    """One up card's inputs to the round's distribution."""

    rules: CasinoRules
    grid: Grid
    ur: UpcardResult
    basic: bool
    rd: RoundDist
    tabs: dict[int, Tables]
    by_d: dict[tuple[int, int], Tables] = field(default_factory=dict)

    @property
    def solver(self) -> UpcardSolver:
        return self.ur.detail["solver"]  # type: ignore[no-any-return]

    @property
    def outs(self) -> dict[int, ChainOut]:
        return self.ur.detail["outs_basic" if self.basic else "outs_opt"]  # type: ignore[no-any-return]

    def _split_key(self, p: int, a2: int) -> tuple[int, int]:
        """Split hands' tables are shared by the pairs under the chart, one per pair under optimal play."""
        det = self.ur.detail
        if self.basic or det["split_opt"].get(p) == det["split_basic"].get(p):
            return (-1, a2)
        return (p, a2)

    def split(self, p: int, a2: int, target: float, scale: float, extra: np.ndarray, w: float) -> None:
        """A split of pair ``p`` (``target``: its exact value, without the peek's loss ``extra``)."""
        key = self._split_key(p, a2)
        if key not in self.by_d:
            solver, det = self.solver, self.ur.detail
            sp = solver.sp
            out = self.outs[a2]
            chart = self.basic or det["split_opt"].get(p) == det["split_basic"].get(p)
            if chart:  # the chart's rows (the chains above decided two-card hands optimally)
                out = solver.run(a2=a2, policy=det["policy"], resc_pol=det["rescue"])
                pairs = [q for q in range(10) if self.ur.hands.get((q, q), {}).get("P") is not None] or [p]
                start = (sp.ncards == 2) & (sp.counts[:, pairs].sum(axis=1) >= 1)
            else:  # optimal play's split hands (CDP1: decided for the shoe less the pair's cards)
                sc = solver.split_chains(p)
                if sc is not None:
                    out = sc.out_for(1 if p == 0 else 0, 0)
                start = (sp.ncards == 2) & (sp.counts[:, p] >= 1)
            mask = reach(solver, out, start)
            wide = Grid(self.grid.values, blocks=8)
            self.by_d[key] = tables(self.rules, wide, solver, out, a2, states=mask)
        hands = _split_hand(self.grid, self.solver, self.by_d[key], p)
        pr = self.solver.pr
        shoe = self.solver.base
        resplit = pr.max_hands > 2 and (p != 0 or pr.resplit_aces)
        counts = hand_counts(int(shoe[p]) - 2, int(shoe.sum()) - 2, pr.max_hands, resplit)
        _split(self.grid, hands, counts, target, scale, self.rd, w)
        self.rd.add_vec(self.grid, extra, w)


def _classes(u: _Up, tb: Tables, i: int, j: int, s: int) -> list[tuple[float, float, np.ndarray]]:
    """Suit classes of a starting hand: (weight, hit adjustment, the hit's measure); one class but
    for a 6-7, 6-8, 7-8 or 7-7 where a player's 21 is paid at once (6-7-8, 7-7-7, Super Bonus)."""
    solver, grid = u.solver, u.grid
    sp, pr = solver.sp, solver.pr
    if (i, j) not in BONUS_COMPLETION or not pr.p21wins:
        return [(1.0, 0.0, tb.row("hit", s))]
    c = BONUS_COMPLETION[(i, j)]
    qc = (int(solver.base[c]) - int(sp.counts[s, c])) / (solver.n - 2)
    s3 = int(sp.trans[s, c])
    out = []
    for cw, m, dist in _completion_dists(u.rules, i, j, solver.up, pr.sb_units):
        vec = sum((q * grid.unit(v, 1.0, ln) for (v, ln), q in dist.items()), np.zeros(grid.ncol))
        out.append((cw, qc * (m - float(pr.pay21[s3])), tb.row("hit", s) - qc * tb.row("val", s3) + qc * vec))
    return out


def _hand(u: _Up, i: int, j: int, wt: float) -> None:
    """One starting hand (i, j) of weight ``wt`` in the round, played as optimal play or the chart chose."""
    solver, grid, rd, det = u.solver, u.grid, u.rd, u.ur.detail
    sp, pr = solver.sp, solver.pr
    s = solver.state_of(i, j)
    q0 = solver.q_nat(s)
    opts = u.ur.hands[(i, j)]
    if (i, j) == (0, 9):
        pays = float(u.rules.pontoon_pays)
        if pr.nat_push or pr.peek:
            rd.add_vec(grid, (1 - q0) * grid.unit(pays, 1.0, "pontoon") + q0 * grid.unit(0.0, 1.0), wt)
        else:
            rd.add_vec(grid, grid.unit(pays, 1.0, "pontoon"), wt)
        return
    a2 = int(sp.nace[s]) if int(sp.nace[s]) in u.tabs else min(u.tabs)
    tb = u.tabs[a2]
    extra = q0 * grid.unit(-1.0, 1.0) if pr.peek else np.zeros(grid.ncol)
    scale = 1 - q0 if pr.peek else 1.0
    if pr.surrender == "late" and not pr.peek:  # rulings 9: the engine takes half whatever the dealer makes
        surrender = grid.unit(-0.5, 1.0)
    else:  # half the wager, the whole wager if the dealer makes Pontoon
        surrender = (1 - q0) * grid.unit(-0.5, 1.0) + q0 * grid.unit(-1.0, 1.0)
    classes = _classes(u, tb, i, j, s)
    measures = {"S": tb.row("st", s) + extra, "D": tb.row("dbl", s) + extra, "R": surrender}
    if u.basic:
        code = (
            det["pair_codes"][i]
            if i == j
            else det["row_code"][_row_key(i, j, int(sp.best[s]), bool(sp.soft[s]))]
        )
        if code == "P":
            u.split(i, a2, det["split_basic"][i], scale, extra, wt)
        elif code in ("R", "Rs") and "R" in opts:
            rd.add_vec(grid, surrender, wt)
        elif code in ("D", "Ds"):
            rd.add_vec(grid, measures["D"], wt)
        elif _fallback(code) == "S" and "S" in opts:
            rd.add_vec(grid, measures["S"], wt)
        else:
            for cw, _adj, hv in classes:
                rd.add_vec(grid, hv + extra, wt * cw)
        return
    joint = det["pair_cls"].get(i) if i == j and "P" in opts else None
    cls_list = list(joint) if joint else [(cw, adj, 0.0) for cw, adj, _ in classes]
    for cw, hadj, padj in cls_list:
        o = dict(opts)
        o["H"] += hadj
        if "P" in o:
            o["P"] += padj
        best = max(o, key=lambda k: o[k])
        if best == "P":
            u.split(i, a2, o["P"] + (q0 if pr.peek else 0.0), scale, extra, wt * cw)
        elif best == "H":
            hv = min(classes, key=lambda c: abs(c[1] - hadj))[2]
            rd.add_vec(grid, hv + extra, wt * cw)
        else:
            rd.add_vec(grid, measures[best], wt * cw)


def _upcard(
    rules: CasinoRules, grid: Grid, ur: UpcardResult, basic: bool, rd: RoundDist, p_up: float
) -> None:
    solver: UpcardSolver = ur.detail["solver"]
    outs = ur.detail["outs_basic" if basic else "outs_opt"]
    two = solver.sp.ncards == 2
    tabs = {a2: tables(rules, grid, solver, o, a2, states=reach(solver, o, two)) for a2, o in outs.items()}
    u = _Up(rules, grid, ur, basic, rd, tabs)
    for i, j, w in solver.start_weights():
        _hand(u, i, j, p_up * w)


def _moments(probs: dict[float, float]) -> tuple[float, float, float]:
    mean = sum(v * p for v, p in probs.items())
    var = sum((v - mean) ** 2 * p for v, p in probs.items())
    sd = math.sqrt(var)
    skew = sum((v - mean) ** 3 * p for v, p in probs.items()) / sd**3 if sd > 0 else 0.0
    return mean, sd, skew


def round_distribution(
    rules: CasinoRules, basic: bool, bet: Decimal | int | None = None, shoe: tuple[int, ...] | None = None
) -> dict[str, Any]:
    """The net outcome of one round's main wager (units of the initial wager) under the chart
    (``basic``) or optimal play, with its moments, element of risk and hit frequencies
    (``shoe``: cards by value index, default the rules' shoe)."""
    sol = solve(rules, bet, shoe=shoe)
    grid = _grid(rules, sol.upcards[0].detail["solver"].pr.sb_units)
    rd = RoundDist()
    for ur in sol.upcards:
        _upcard(rules, grid, ur, basic, rd, ur.prob)
    probs = {v: p for v, p in sorted(rd.probs.items()) if p != 0.0}
    mean, sd, skew = _moments(probs)
    ev = float(sol.ev_basic if basic else sol.ev_optimal)
    return {
        "strategy": "basic" if basic else "optimal",
        "outcomes": [{"net": v, "probability": p} for v, p in probs.items()],
        "total_probability": sum(probs.values()),
        "mean": mean,
        "house_edge": -ev,
        "sd": sd,
        "variance": sd * sd,
        "skewness": skew,
        "average_wagered": rd.wagered,
        "element_of_risk": -ev / rd.wagered,
        "win": sum(p for v, p in probs.items() if v > 0),
        "push": probs.get(0.0, 0.0),
        "loss": sum(p for v, p in probs.items() if v < 0),
        "lines": {name: float(x) for name, x in zip(LINES, rd.lines, strict=True) if x > 0},
        "split_probability": rd.split_mass,
        "moved_probability": rd.moved_mass,
    }


def approximation(d: dict[str, Any]) -> str:
    """``method.approximations``' line for a distribution."""
    return (
        f"outcome distribution ({d['strategy']}): rounds that split ({d['split_probability']:.4%} of rounds) "
        "play their hands (resplits included, the number of hands exact) independently given the "
        "dealer's final total, their mean moved to the exact split value "
        f"({d['moved_probability']:.2e} of probability moved); every other round is exact, so the "
        "distribution is within that split probability of the exact one in total variation, its mean is "
        "the exact edge, and the pay-line frequencies and amount wagered of split rounds are approximate "
        "in the same way"
    )
