"""Split rounds of ``distribution`` (its one approximation): the hands against one dealer,
independent given the dealer's final class but for their second cards (distinct cards of one shoe,
``_sample_sums``), the number of hands exact (``hand_counts``), the mean matched to the analysis's
exact split value."""

from __future__ import annotations

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.dealer import NAT
from pontoon.analysis.dist_tables import LINES, ROUND, Grid, RoundDist, Tables
from pontoon.analysis.player import UpcardSolver
from pontoon.errors import PontoonError

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


SplitMeasure = tuple[dict[float, float], np.ndarray, float]  # outcomes, summed hand measure, its mass


def _split(
    grid: Grid,
    hands: tuple[list[np.ndarray], list[np.ndarray], tuple[np.ndarray, np.ndarray] | None],
    counts: dict[tuple[int, int], float],
    target: float,
    scale: float,
    rd: RoundDist,
    w: float,
    per_rank: tuple[dict[int, tuple[int, np.ndarray]], int] | None = None,
    measure: SplitMeasure | None = None,
) -> None:
    """A split's hands against the same dealer: ``hands`` = (a hand whose second card is not a pair
    card, a hand whose second card is any card), each a list over the dealer's final class d (17..21,
    Pontoon, bust) of its measure jointly with d; given d the hands are independent, ``counts``
    (``hand_counts``) says how many of each. Scaled to ``scale`` of the round's mass, the mean moved
    to ``target`` (the analysis's exact split value) by shifting mass from the most likely losing
    outcome to the most likely winning one (or back). ``hands[2]`` (FED, 001 "Splits"): the two
    hands' measures of the events that do not wait for the dealer, jointly with a dealer Pontoon:
    given it, the box loses one wager in all if some hand is alive. ``measure``: ``_split_measure``
    of the same arguments, worked out before (the mean matched to ``target`` on a copy)."""
    conv, total, mass = (
        _split_measure(grid, hands, counts, scale, per_rank)
        if measure is None
        else (dict(measure[0]), measure[1], measure[2])
    )
    rd.moved_mass += w * _match_mean(conv, target)
    rd.add_dict(conv, w)
    nh = sum(h * p for (h, _k), p in counts.items())
    rd.lines += w * nh * total[grid.line0 : grid.line0 + len(LINES)] / mass * scale
    rd.wagered += w * nh * float(total[-1]) / mass * scale
    rd.split_mass += w * scale


def _split_measure(
    grid: Grid,
    hands: tuple[list[np.ndarray], list[np.ndarray], tuple[np.ndarray, np.ndarray] | None],
    counts: dict[tuple[int, int], float],
    scale: float,
    per_rank: tuple[dict[int, tuple[int, np.ndarray]], int] | None = None,
) -> SplitMeasure:
    """``_split``'s outcome measure before its mean is matched (with the hands' summed measure and
    its mass, for the lines and the amount wagered)."""
    non, anyc, dead = hands
    ranks = per_rank[0] if per_rank is not None else {}
    seen = np.nonzero(np.sum(anyc, axis=0)[: grid.g])[0]
    step = _step([grid.values[k] for k in seen])  # split hands' outcomes (no Super Bonus)
    mass = float(np.sum(anyc, axis=0)[: grid.g].sum())
    conv: dict[float, float] = {}
    sums = None
    if ranks and step is not None and per_rank is not None:
        # the hands' second cards off one shoe: the non-pair ones distinct non-pair cards, those
        # dealt once the limit is reached distinct cards of any rank (the two groups apart)
        pds = np.array([float(x[: grid.g].sum()) for x in anyc])
        nonpair = {r: x for r, x in ranks.items() if r != per_rank[1]}
        sums = (
            _sample_sums(nonpair, pds, grid, step, max(h - k for h, k in counts)),
            _sample_sums(ranks, pds, grid, step, max(k for _h, k in counts)),
        )
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
        if sums is not None:
            one: Lattice = (np.ones(1), 0.0)
            for (h, k), ph in counts.items():
                got = (sums[0][cls].get(h - k, ns) if h > k else one, sums[1][cls].get(k, xs) if k else one)
                _add(conv, _conv(*got), ph * scale * pd / mass, step)
            continue
        for (h, k), ph in counts.items():
            _add(conv, _power(ns, xs, h, k), ph * scale * pd / mass, step)
    total: np.ndarray = np.sum(anyc, axis=0)
    return conv, total, mass


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
    grid: Grid,
    solver: UpcardSolver,
    wides: dict[int, Tables],
    p: int,
    per_rank: dict[int, tuple[int, np.ndarray]] | None = None,
) -> tuple[list[np.ndarray], list[np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
    """One split hand of pair card ``p``, jointly with the dealer's final class (``wide``: tables
    on a grid with a block per dealer class and a last block for the events that do not wait for
    the dealer: bust, a 21 paid at once, a rescue, spread over the classes by the dealer's chances
    from the shoe less the pair): its second card from the shoe less both pair cards (not a pair
    card; any card), then played as the chain plays that composition (a double where the rules
    forbid one after a split is a stand, or a hit below the forced draw; split Aces take one card
    unless they may be hit). Per dealer class, a measure on ``grid`` (the class's share of lines
    and wagers). ``wides`` by a2, the Aces among the hand's first two cards (its pair card and its
    second card): each hand is played and valued by the tables of its own a2 where there is one
    (FED, 001 Doubling: those Aces count one on a later double), else by the only one.
    ``per_rank`` (filled where given): {non-pair second card r: (its count in the shoe less both
    pair cards, the hand's measure given r on ``grid`` per dealer class, shape (7, grid.g))}."""
    sp, pr = solver.sp, solver.pr
    shoe = solver.base.copy()
    shoe[p] -= 2
    n = int(shoe.sum())
    row = solver.dist[solver.state_of(p, p)].copy()
    if pr.peek:
        row[NAT] = 0.0
    row = row / row.sum()
    only = next(iter(wides.values()))
    hand = np.zeros(only.val.shape[1])
    nonpair = np.zeros(only.val.shape[1])
    for r in range(10):
        if shoe[r] <= 0:
            continue
        cnt = [0] * 10
        cnt[p] += 1
        cnt[r] += 1
        s = sp.index[tuple(cnt)]
        wide = wides.get(int(p == 0) + int(r == 0), only)
        v = wide.row("val", s)
        if sp.best[s] < 21:
            if p == 0 and not pr.hit_split_aces:
                v = wide.row("st", s)
            elif not pr.das and int(wide.act[s]) == K.ACT_DOUBLE:
                v = wide.row("st", s) if sp.best[s] >= pr.forced else wide.row("hit", s)
        hand += shoe[r] / n * v
        if r != p:
            nonpair += shoe[r] / (n - shoe[p]) * v
        if per_rank is not None:
            per_rank[r] = (int(shoe[r]), _by_class(grid, row, v))
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


def _by_class(grid: Grid, row: np.ndarray, v: np.ndarray) -> np.ndarray:
    """A wide measure's outcomes per dealer class (7, grid.g): its class block, plus the events that
    do not wait for the dealer spread by the dealer's chances ``row``."""
    g, free = grid.g, 7 * grid.g
    return np.stack([v[d * g : (d + 1) * g] + row[d] * v[free : free + g] for d in range(7)])


def _sample_sums(
    per_rank: dict[int, tuple[int, np.ndarray]], pds: np.ndarray, grid: Grid, step: float, m_max: int
) -> list[dict[int, Lattice]]:
    """Per dealer class d, the sum of ``m`` (1..m_max) hands' outcomes given d when their second
    cards are ``m`` distinct cards of ``per_rank``'s (drawn without replacement, 004 3.24.2: the
    hands' second cards come off one shoe): with card c's measure u_c (its class-d measure over
    ``pds[d]``), the mean over m-card subsets of u_c1 * ... * u_cm is the m-th elementary symmetric
    polynomial of the cards' measures over C(N, m) (Newton's identities from the power sums
    p_k = sum_r n_r u_r^k, products being convolutions, taken in Fourier space). Each sum is scaled to
    mass 1 (the class's chance is kept). [{m: lattice} per class]."""
    live = [x for x in per_rank.values() if x[0] > 0]
    if m_max < 1 or not live:
        return [{} for _ in pds]
    n = np.array([float(n_r) for n_r, _u in live])
    div = np.where(pds > 0, pds, 1.0)
    a = np.stack([u for _n, u in live], axis=1) / div[:, None, None]  # (classes, ranks, grid.g)
    cols = np.nonzero((a != 0.0).any(axis=(0, 1)))[0]
    vals = np.array([grid.values[k] for k in cols.tolist()])
    v0 = float(vals.min())
    pos = np.rint((vals - v0) / step).astype(np.int64)
    length = int(pos.max()) + 1
    onto = np.zeros((len(cols), length))
    onto[np.arange(len(cols)), pos] = 1.0
    base = a[:, :, cols] @ onto  # each grid value onto its lattice point
    size = m_max * (length - 1) + 1
    f = np.fft.rfft(base, n=size, axis=2)
    pk = [np.ones(f.shape[::2])] + [np.einsum("r,crf->cf", n, f**k) for k in range(1, m_max + 1)]
    e = [np.ones(f.shape[::2], dtype=complex)]
    out: list[dict[int, Lattice]] = [{} for _ in pds]
    for m in range(1, m_max + 1):
        e.append(sum(((-1) ** (k - 1)) * e[m - k] * pk[k] for k in range(1, m + 1)) / m)
        em = np.fft.irfft(e[m], n=size, axis=1)[:, : m * (length - 1) + 1]
        for d in range(len(pds)):
            # the identities cancel terms N^m times larger: what is left below that rounding is none
            arr = np.where(em[d] > 1e-12 * float(np.abs(em[d]).max(initial=0.0)), em[d], 0.0)
            if pds[d] > 0 and n.sum() >= m and arr.sum() > 0:
                out[d][m] = (arr / float(arr.sum()), m * v0)
    return out
