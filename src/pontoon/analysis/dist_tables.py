"""The measures behind ``distribution``: the outcome grid, the pay lines, and ``tables``, which
replays one chain's actions as measures over the net outcome (see ``distribution``'s text)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.dealer import BUST, NAT
from pontoon.analysis.player import ChainOut, UpcardSolver
from pontoon.analysis.suits import BONUS_COMPLETION, SUITS
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
    # each column's sum, added class by class in order (as adding into the zero column did), then
    # written once: the columns of ``out`` are strided
    acc: dict[int, np.ndarray] = {}

    def add(col: int, x: np.ndarray) -> None:
        cur = acc.get(col)
        acc[col] = x if cur is None else cur + x

    for d in range(7):
        if d == NAT and peek:
            continue
        off = d * grid.g if grid.blocks > 1 else 0
        p = rows[:, d]
        mass += p
        if d == NAT:
            add(off + grid.col(-loss), p)
        elif d == BUST:
            add(off + cw, p)
        else:
            dt = 17 + d
            add(off + cw, np.where(dt < t, p, 0.0))
            add(off + c0, np.where(dt == t, p, 0.0))
            add(off + cl, np.where(dt > t, p, 0.0))
    for col, x in acc.items():
        out[:, col] = x
    out[:, -1] = m * mass
    return out


@dataclass
class Tables:
    """Measures per state: stand, hit, double and the value of holding it (the chain's action).
    ``val`` has every valued state; ``st``, ``hit`` and ``dbl`` the two-card states and those where
    the chain stands (or holds a 21 that is not paid at once), hits or doubles (the only ones
    read), zeros elsewhere."""

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
    rows = np.nonzero(solver.active & (sp.best == 21))[0]
    nn = np.ones(len(rows))
    if pr.peek and solver.up in (0, 9):
        nn = 1.0 - (solver.base[other] - sp.counts[rows, other]) / np.maximum(solver.n - sp.ncards[rows], 1)
    # the states by what their 21 pays (the number of cards and the pay; 6-7-8, 7-7-7): one measure each
    kinds: dict[tuple[object, ...], list[int]] = {}
    for k, s in enumerate(rows.tolist()):
        c = sp.counts[s]
        n = int(sp.ncards[s])
        three = n == 3 and ((c[5] == 1 and c[6] == 1 and c[7] == 1) or c[6] == 3)
        kinds.setdefault((n, tuple(c[5:8].tolist())) if three else (n, float(pr.pay21[s])), []).append(k)
    for ks in kinds.values():
        sel = np.array(ks)
        out[rows[sel]] = nn[sel, None] * _twentyone(rules, grid, solver, int(rows[ks[0]]))[None, :]
    memo[key] = out
    return out


def _by_hard(solver: UpcardSolver) -> list[np.ndarray]:
    """The active states by hard total, lowest first (kept on the solver: a few kB)."""
    got: list[np.ndarray] | None = solver.__dict__.get("_dist_by_hard")
    if got is None:
        hard = solver.sp.hard
        act = solver.active
        got = [np.nonzero(act & (hard == h))[0] for h in range(int(hard.min()), int(hard.max()) + 1)]
        solver.__dict__["_dist_by_hard"] = got
    return got


def reach(solver: UpcardSolver, out: ChainOut, start: np.ndarray) -> np.ndarray:
    """The states ``start`` (a mask) and every state that a hand in them reaches by drawing: every
    card of a two-card state (each option is valued there), then the states where the chain hits."""
    sp = solver.sp
    mark = start & solver.active
    for group in _by_hard(solver):
        g = group[mark[group]]
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
    base: np.ndarray | None = None,
    every: bool = False,
) -> Tables:
    """Replay one chain's actions as measures (see the module's text and ``kernels.chain``);
    ``rows``: the dealer rows to stand against (default the solver's own); ``states``: only these
    (a mask closed under drawing, ``reach``), default all; ``every``: every option's measure in
    every state (default: only those read, see ``Tables``)."""
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
    base = solver.base if base is None else base
    up = solver.up
    other = 9 if up == 0 else 0
    n_left = int(base.sum()) - sp.ncards[idx_all]
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
    # only the rows that are read: a stand's, a double's and a hit's measure where the chain takes
    # it (or a 21 stands), and every option of a two-card state (``distribution``, ``dist_splits``
    # read those); each row is worked out on its own, so the rows kept are the same numbers as when
    # every row was (issue 23)
    act = out.act[idx_all]
    best = sp.best[idx_all]
    two = (sp.ncards[idx_all] == 2) | every  # every: as if each state were a starting one
    b21 = best == 21
    stands, doubles = act == K.ACT_STAND, act == K.ACT_DOUBLE
    hits = ~stands & ~doubles & ~b21
    k = np.nonzero(two | stands | (b21 & (not pr.p21wins)))[0]
    st[k] = _stand(grid, rows[idx_all[k]], best[k], 1.0, 1.0, pr.peek)
    _doubles(
        grid, rows, solver, out, a2, idx_all, np.nonzero(two | doubles)[0], prob, f, live, jn, pf_bust, dbl
    )
    # the value of the states that do not hit first (a hit reads only higher hard totals' values)
    k = np.nonzero(stands & ~b21)[0]
    val[k] = st[k]
    k = np.nonzero(doubles & ~b21)[0]
    val[k] = dbl[k]
    k = np.nonzero(b21)[0]
    if len(k):
        val[k] = _paid21(rules, grid, solver)[idx_all[k]] if pr.p21wins else st[k]
    bust1 = grid.unit(-1.0, 1.0)
    need = np.nonzero(two | hits)[0]
    hard = sp.hard[idx_all[need]]
    order = np.argsort(-hard.astype(np.int64), kind="stable")  # highest hard total first, states in order
    need, hard = need[order], hard[order]
    for g in np.split(need, np.nonzero(np.diff(hard))[0] + 1):
        hit[g] = np.einsum("nr,nrc->nc", p_live[g], val[jx[g]]) + pf_bust[g, None] * bust1
        k = g[hits[g]]
        val[k] = hit[k]
    return Tables(st, hit, dbl, val, out.act, pos)


def _doubles(
    grid: Grid,
    rows: np.ndarray,
    solver: UpcardSolver,
    out: ChainOut,
    a2: int,
    idx_all: np.ndarray,
    want: np.ndarray,
    prob: np.ndarray,
    f: np.ndarray,
    live: np.ndarray,
    jn: np.ndarray,
    pf_bust: np.ndarray,
    dbl: np.ndarray,
) -> None:
    """Fill ``dbl``'s rows ``want`` (positions in ``idx_all``): one card, then a doubled 21 paid, a
    rescue, or the doubled total stands."""
    sp, pr = solver.sp, solver.pr
    nc = grid.ncol
    dbl[want] = pf_bust[want, None] * grid.unit(-2.0, 2.0)
    wi, ri = np.nonzero(live[want])
    si = want[wi]  # ascending, as ``want`` is: one run of rows per state
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
    if len(si):
        first, starts = np.unique(si, return_index=True)
        dbl[first] += np.add.reduceat(contrib, starts, axis=0)


@dataclass
class RoundDist:
    """A measure over the round's net outcome, with pay lines and amount wagered."""

    probs: dict[float, float] = field(default_factory=dict)
    lines: np.ndarray = field(default_factory=lambda: np.zeros(len(LINES)))
    wagered: float = 0.0
    split_mass: float = 0.0
    moved_mass: float = 0.0
    exact_mass: float = 0.0  # of split_mass, the split rounds worked out exactly (dist_exact)
    stored_mass: float = 0.0  # of exact_mass, those whose exact measure was shipped (dist_store)
    stored_cells: list[str] = field(default_factory=list)  # which: "6 up 2-2 (chart)", ...
    suit_moved_mass: float = 0.0  # exact splits moved to a suit class's split value (optimal play)

    def add_vec(self, grid: Grid, vec: np.ndarray, w: float) -> None:
        for k in np.nonzero(vec[: grid.g])[0]:
            v = grid.values[k]
            self.probs[v] = self.probs.get(v, 0.0) + w * float(vec[k])
        self.lines += w * vec[grid.line0 : grid.line0 + len(LINES)]
        self.wagered += w * float(vec[-1])

    def add_dict(self, d: dict[float, float], w: float) -> None:
        for v, p in d.items():
            self.probs[v] = self.probs.get(v, 0.0) + w * p
