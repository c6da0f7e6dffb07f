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

Split rounds are exact where every run of the box's cards can be played (``dist_exact``: the hands
one after another as the engine plays them, 004 3.24.2, the recursion's state the multiset of cards
the box has used, carrying the outcome measure per dealer final class, the dealer then weighed from
the shoe less the box's cards): split Aces that take one card each and are not split again, and
every split on a shoe of at most ``dist_exact.SMALL_SHOE`` cards (the engine-enumeration tests).
The other splits of a casino shoe (small pairs with resplits in 6-8 decks would need millions of
box states) are the one approximation: a split round's hands are played as the analysis plays them
(the chart's rows; under optimal play the split chains, CDP1, or the chart's rows where optimal play
takes the chart's split, ``split_chart``), against one dealer: given the
dealer's final class (17..21, Pontoon, bust) they are independent but for their second cards,
distinct cards of one shoe (``dist_splits._sample_sums``); how many hands the split makes
(resplits to the rules' limit, second cards dealt in turn) is exact for the pair cards left
(``hand_counts``), a hand completed before the limit has a non-pair second card, each hand played by
the chain of its own Aces among its first two cards (FED doubles count them one) from the shoe less
the up card and both pair cards, as the split chains value it; FED's one-wager
loss of a split box is in the shape (given a dealer Pontoon: the dead hands' sum less one wager if
some hand is alive). The split's mean is then moved to the analysis's exact split value by
shifting a little mass between its most likely losing and winning outcomes. Only those rounds
are approximated, so the total variation distance to the exact distribution is at most their
chance (reported: ``split_probability`` less ``exact_split_probability``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from pontoon.analysis import dist_store
from pontoon.analysis.dist_exact import SMALL_SHOE, WORK, SplitExact, split_exact
from pontoon.analysis.dist_splits import _match_mean, _split, _split_hand, _split_measure, hand_counts
from pontoon.analysis.dist_tables import (
    LINES,
    Grid,
    RoundDist,
    Tables,
    _completion_dists,
    _grid,
    reach,
    tables,
)
from pontoon.analysis.player import ChainOut, UpcardSolver
from pontoon.analysis.strategy import UpcardResult, _fallback, _row_key, solve
from pontoon.analysis.suits import BONUS_COMPLETION
from pontoon.rules.model import CasinoRules

__all__ = [
    "LINES",
    "Grid",
    "_grid",
    "_match_mean",
    "approximation",
    "hand_counts",
    "hand_distribution",
    "round_distribution",
    "round_distributions",
    "tables",
]


@dataclass
class _Up:
    """One up card's inputs to the round's distribution."""

    rules: CasinoRules
    grid: Grid
    ur: UpcardResult
    basic: bool
    rd: RoundDist
    tabs: dict[int, Tables]
    by_d: dict[tuple[int, int], dict[int, Tables]] = field(default_factory=dict)
    chains: dict[tuple[int, int], dict[int, ChainOut]] = field(default_factory=dict)
    work: int = WORK  # ways a hand ends an exact split may apply (dist_exact); 0: always approximate
    exact: dict[tuple[int, int], SplitExact | None] = field(default_factory=dict)  # by split key
    from_store: set[tuple[int, int]] = field(default_factory=set)  # split keys taken from dist_store
    compiled: bool = False  # every split exact, by the compiled recursion (dist_box)
    shared: dict[Any, Any] = field(default_factory=dict)  # pure results, see ``_shared``
    stored: bool = True  # take a split's exact measure from the shipped data where its inputs match
    record: dict[str, Any] | None = None  # the compiled splits' measures by key (precompute_splits)

    @property
    def solver(self) -> UpcardSolver:
        return self.ur.detail["solver"]  # type: ignore[no-any-return]

    @property
    def outs(self) -> dict[int, ChainOut]:
        return self.ur.detail["outs_basic" if self.basic else "outs_opt"]  # type: ignore[no-any-return]

    def _split_key(self, p: int, a2: int) -> tuple[int, int]:
        """Split hands' tables: one per pair (each from the shoe less its pair's cards)."""
        return (p, a2)

    def _hand_a2s(self, p: int, a2: int) -> tuple[int, ...]:
        """The a2 (Aces among a split hand's first two cards: its pair card and its second card) a
        split hand of pair ``p`` can have where they change its play (FED, 001 Doubling: those Aces
        count one on a later double); else the starting hand's ``a2`` alone, as before."""
        pr = self.solver.pr
        if not (pr.dbl_any and pr.ace_one):
            return (a2,)
        return (1, 2) if p == 0 else (0, 1)

    def _chart(self, p: int) -> bool:
        """A split of pair ``p`` is played by the chart's rows (always under the chart; under optimal
        play where it takes the chart's split)."""
        det = self.ur.detail
        return self.basic or det["split_opt"].get(p) == det["split_basic"].get(p)

    def _shared(self, what: str, p: int, a2: int, *more: object) -> tuple[tuple[object, ...], dict[Any, Any]]:
        """The key and the store of a split's pure results (``shared``: one up card's, given to the
        chart's distribution and optimal play's by ``round_distributions``, then dropped): where
        optimal play takes the chart's split, both use the same tables, exact measure and hands
        (issue 23: worked out once)."""
        return (what, p, a2, self._chart(p), tuple(self.grid.values), *more), self.shared

    def _split_tables(self, p: int, a2: int, t: int) -> Tables:
        """The measures of a split hand of pair ``p`` whose first two cards hold ``t`` Aces, played
        by the chain of that ``t`` (as the analysis's split value and the simulator's table by a2)."""
        k, memo = self._shared("tables", p, a2, t)
        if k not in memo:
            memo[k] = self._new_split_tables(p, a2, t)
        out, tab = memo[k]
        self.chains.setdefault(self._split_key(p, a2), {})[t] = out
        return tab  # type: ignore[no-any-return]

    def _new_split_tables(self, p: int, a2: int, t: int) -> tuple[ChainOut, Tables]:
        solver, det = self.solver, self.ur.detail
        sp = solver.sp
        # the chart's rows, or optimal play's split hands (CDP1: decided for the shoe less the pair's cards)
        sc = (
            solver.split_chains(p, policy=det["policy"], resc_pol=det["rescue"])
            if self._chart(p)
            else solver.split_chains(p)
        )
        start = (sp.ncards == 2) & (sp.counts[:, p] >= 1)
        if len(self._hand_a2s(p, a2)) > 1:  # only the hands whose first two cards hold t Aces
            start &= sp.counts[:, 0] == t
        wide = Grid(self.grid.values, blocks=8)
        if sc is None:  # pragma: no cover - a pair that is split has its chains
            out = self.outs[a2]
            return out, tables(self.rules, wide, solver, out, t, states=reach(solver, out, start))
        out = sc.out_for(t, 0)
        # each hand from the shoe less the up card and the other pair card, against the dealer of
        # the shoe less its own cards too (split_setup), as the split chains value it
        act, (tab, pos) = solver.split_setup(p, 0)
        rows = np.zeros((sp.size, tab.shape[1]))
        rows[act] = tab[pos[act]]
        mask = reach(solver, out, start) & act
        return out, tables(self.rules, wide, solver, out, t, rows=rows, states=mask, base=sc.base)

    def store_key(self, p: int, a2: int) -> str:
        """The split's key in the shipped exact measures (``dist_store``)."""
        sv = self.solver
        cell = (int(sv.up), p, a2, self._chart(p))
        base = tuple(int(x) for x in sv.base)
        play = dist_store.play_hash(self.chains[self._split_key(p, a2)])
        return dist_store.cell_key(
            self.rules.model_dump_json(), base, self.grid.values, sv.pr.sb_units, cell, play
        )

    def _label(self, p: int) -> None:
        n = "A23456789T"
        label = f"{n[self.solver.up]} up {n[p]}-{n[p]} ({'chart' if self._chart(p) else 'optimal'})"
        if label not in self.rd.stored_cells:
            self.rd.stored_cells.append(label)

    def _exact(self, p: int, a2: int, key: tuple[int, int]) -> tuple[SplitExact | None, bool]:
        """The split's exact measure and whether it came from the shipped data: worked out where
        affordable (``dist_exact``: split Aces taking one card, small shoes), else shipped where its
        inputs match (``dist_store``), else (``compiled``) worked out by ``dist_box``, else None."""
        args = (self.rules, self.grid, self.solver, self.chains[key], p)
        if self.work and not self.compiled:
            ex = split_exact(*args, self.work, False)
            if ex is not None:
                return ex, False
        if self.stored:
            got = dist_store.lookup(self.store_key(p, a2))
            if got is not None:
                return got, True
        if not (self.work and self.compiled):
            return None, False
        t = time.process_time()
        ex = split_exact(*args, self.work, True)
        if ex is not None and self.record is not None:
            self.record[self.store_key(p, a2)] = (ex, time.process_time() - t)
        return ex, False

    def split(self, p: int, a2: int, target: float, scale: float, extra: np.ndarray, w: float) -> None:
        """A split of pair ``p`` (``target``: its exact value, without the peek's loss ``extra``)."""
        key = self._split_key(p, a2)
        if key not in self.by_d:
            self.by_d[key] = {t: self._split_tables(p, a2, t) for t in self._hand_a2s(p, a2)}
        if key not in self.exact:  # once per pair (optimal play may split it in several suit classes)
            k, memo = self._shared("exact", p, a2, self.work, self.compiled, self.stored)
            if k not in memo:
                memo[k] = self._exact(p, a2, key)
            self.exact[key] = memo[k][0]
            if memo[k][1]:
                self.from_store.add(key)
        ex = self.exact[key]
        if ex is not None:
            if key in self.from_store:
                self.rd.stored_mass += w * scale
                self._label(p)
            conv = ex.as_dict()
            if abs(sum(v * q for v, q in conv.items()) - target) > 1e-12:
                # optimal play's suit classes of a pair (6-7-8 / 7-7-7 paid by suit) each have their
                # own split value; the exact measure is the one averaged over the pair's suits
                self.rd.suit_moved_mass += w * _match_mean(conv, target)
            self.rd.add_dict(conv, w)
            self.rd.lines += w * ex.lines
            self.rd.wagered += w * ex.wager
            self.rd.split_mass += w * scale
            self.rd.exact_mass += w * scale
            self.rd.add_vec(self.grid, extra, w)
            return
        k, memo = self._shared("hands", p, a2)
        if k not in memo:
            ranks: dict[int, tuple[int, np.ndarray]] = {}
            memo[k] = (_split_hand(self.grid, self.solver, self.by_d[key], p, ranks), ranks)
        hands, ranks = memo[k]
        pr = self.solver.pr
        shoe = self.solver.base
        resplit = pr.max_hands > 2 and (p != 0 or pr.resplit_aces)
        counts = hand_counts(int(shoe[p]) - 2, int(shoe.sum()) - 2, pr.max_hands, resplit)
        k, memo = self._shared("measure", p, a2, scale)
        if k not in memo:  # the same for optimal play's suit classes (their targets differ)
            memo[k] = _split_measure(self.grid, hands, counts, scale, (ranks, p))
        _split(self.grid, hands, counts, target, scale, self.rd, w, (ranks, p), memo[k])
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
    nn = 1.0 - solver.q_nat(s3) if pr.peek else 1.0  # peek: paid only where the dealer has no natural
    memo = u.shared
    ck = ("completion", i, j, tuple(grid.values))
    if ck not in memo:  # the same for the chart's distribution and optimal play's
        memo[ck] = [
            (cw, m, sum((q * grid.unit(v, 1.0, ln) for (v, ln), q in dist.items()), np.zeros(grid.ncol)))
            for cw, m, dist in _completion_dists(u.rules, i, j, solver.up, pr.sb_units)
        ]
    out = []
    for cw, m, vec in memo[ck]:
        out.append(
            (
                cw,
                qc * nn * (m - float(pr.pay21[s3])),
                tb.row("hit", s) - qc * tb.row("val", s3) + qc * nn * vec,
            )
        )
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
        if pr.nat_push:  # with a peek too where it beats a dealer natural (Spanish 21; as player.py)
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


def _base_tables(
    rules: CasinoRules, grid: Grid, solver: UpcardSolver, outs: dict[int, ChainOut]
) -> dict[int, Tables]:
    """One up card's tables per a2 (the chain of the Aces among the first two cards): each from the
    two-card hands that ``_hand`` plays by it (those with a2 Aces; the least a2's also those whose
    count has no chain of its own) and the states they reach."""
    sp = solver.sp
    two = sp.ncards == 2
    out = {}
    for a2, o in outs.items():
        start = two
        if len(outs) > 1:
            own = sp.nace == a2
            if a2 == min(outs):
                own |= ~np.isin(sp.nace, list(outs))
            start = two & own
        out[a2] = tables(rules, grid, solver, o, a2, states=reach(solver, o, start))
    return out


def _upcard(
    rules: CasinoRules,
    grid: Grid,
    ur: UpcardResult,
    basic: bool,
    rd: RoundDist,
    p_up: float,
    work: int = WORK,
    compiled: bool = False,
    shared: dict[Any, Any] | None = None,
    stored: bool = True,
    record: dict[str, Any] | None = None,
) -> None:
    solver: UpcardSolver = ur.detail["solver"]
    outs = ur.detail["outs_basic" if basic else "outs_opt"]
    tabs = _base_tables(rules, grid, solver, outs)
    u = _Up(rules, grid, ur, basic, rd, tabs, work=work, compiled=compiled, stored=stored, record=record)
    if shared is not None:
        u.shared = shared
    for i, j, w in solver.start_weights():
        _hand(u, i, j, p_up * w)


def _moments(probs: dict[float, float]) -> tuple[float, float, float]:
    mean = sum(v * p for v, p in probs.items())
    var = sum((v - mean) ** 2 * p for v, p in probs.items())
    sd = math.sqrt(var)
    skew = sum((v - mean) ** 3 * p for v, p in probs.items()) / sd**3 if sd > 0 else 0.0
    return mean, sd, skew


def round_distribution(
    rules: CasinoRules,
    basic: bool,
    bet: Decimal | int | None = None,
    shoe: tuple[int, ...] | None = None,
    work: int = WORK,
    exact_splits: bool = False,
    stored: bool = True,
) -> dict[str, Any]:
    """The net outcome of one round's main wager (units of the initial wager) under the chart
    (``basic``) or optimal play, with its moments, element of risk and hit frequencies
    (``shoe``: cards by value index, default the rules' shoe; ``work``: the box states a split
    may play to be worked out exactly, ``dist_exact``; 0: every split approximated; ``exact_splits``:
    every split round exact, by the compiled recursion ``dist_box``, whatever ``work``; ``stored``:
    a split whose exact measure is shipped (``dist_store``, worked out offline) takes it)."""
    return round_distributions(rules, (basic,), bet, shoe, work, exact_splits, stored=stored)[0]


def round_distributions(
    rules: CasinoRules,
    strategies: tuple[bool, ...] = (True, False),
    bet: Decimal | int | None = None,
    shoe: tuple[int, ...] | None = None,
    work: int = WORK,
    exact_splits: bool = False,
    share: bool = True,
    stored: bool = True,
    record: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """``round_distribution`` of each strategy (True: the chart, False: optimal play), in order,
    up card by up card: with ``share``, what both play alike (a split that optimal play takes as
    the chart does: its hands' tables, exact measure and hands; the bonus completions) is worked
    out once per up card and dropped after it; the same numbers as each alone (issue 23).
    ``stored``: splits shipped exact (``dist_store``) are taken from there; ``record``: with
    ``exact_splits``, every compiled split's measure and CPU seconds by its ``dist_store`` key."""
    sol = solve(rules, bet, shoe=shoe)
    grid = _grid(rules, sol.upcards[0].detail["solver"].pr.sb_units)
    rds = [RoundDist() for _ in strategies]
    for ur in sol.upcards:
        shared: dict[Any, Any] = {}
        for basic, rd in zip(strategies, rds, strict=True):
            sh = shared if share else None
            if exact_splits:
                _upcard(rules, grid, ur, basic, rd, ur.prob, EXACT_WORK, True, sh, stored, record)
            else:
                _upcard(rules, grid, ur, basic, rd, ur.prob, work, False, sh, stored)
    return [_summary(rd, sol, basic, exact_splits) for basic, rd in zip(strategies, rds, strict=True)]


def _summary(rd: RoundDist, sol: Any, basic: bool, exact_splits: bool) -> dict[str, Any]:
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
        "exact_split_probability": rd.exact_mass,
        "stored_split_probability": rd.stored_mass,
        "stored_cells": rd.stored_cells,
        "suit_moved_probability": rd.suit_moved_mass,
        "exact_splits": exact_splits,
    }


def hand_distribution(rules: CasinoRules, basic: bool, up: int, i: int, j: int) -> dict[float, float]:
    """The net outcome of a round (units of the initial wager) given the starting hand of value
    indices ``i``, ``j`` and the up card's value index ``up`` (0 Ace .. 9 ten-value), played as
    ``round_distribution`` plays it (a split's hands included): for checks of one hand at a time
    (tests/sim/test_agreement.py)."""
    sol = solve(rules)
    ur = next(u for u in sol.upcards if u.detail["solver"].up == up)
    solver: UpcardSolver = ur.detail["solver"]
    grid = _grid(rules, solver.pr.sb_units)
    outs = ur.detail["outs_basic" if basic else "outs_opt"]
    tabs = _base_tables(rules, grid, solver, outs)
    rd = RoundDist()
    _hand(_Up(rules, grid, ur, basic, rd, tabs), min(i, j), max(i, j), 1.0)
    return {v: p for v, p in sorted(rd.probs.items()) if p != 0.0}


EXACT_WORK = 10**12  # ``exact_splits``: no split is too large for the compiled recursion

# Measured (docs/report-agreement.md): against 10^9 simulated rounds of every casino preset, each
# outcome's |exact - simulated| plus three standard errors is at most this; the largest relative
# gaps (about 3%) are in outcomes that need three split hands or several doubled ones.
MEASURED_BOUND = 1e-4


def _stored(d: dict[str, Any]) -> str:
    """What of the distribution's split rounds was worked out offline and shipped (``dist_store``)."""
    cells = d.get("stored_cells") or []
    if not cells:
        return ""
    return (
        f"; exact, precomputed: {d.get('stored_split_probability', 0.0):.4%} of rounds, the splits "
        f"{', '.join(cells)} (dist_box's exact measure worked out offline by bench/precompute_splits.py "
        "and shipped in analysis/data, used where every input of the split equals the shipped one's: "
        "rules, shoe, lattice and play)"
    )


def _suits(d: dict[str, Any]) -> str:
    moved = d.get("suit_moved_probability", 0.0)
    if not moved:
        return ""
    return (
        "; under optimal play a pair whose suit classes have split values of their own (6-7-8 / 7-7-7 "
        "paid by suit) takes the exact split measure averaged over the pair's suits, its mean moved to "
        f"the class's exact value ({moved:.2e} of probability moved)"
    )


def approximation(d: dict[str, Any]) -> str:
    """``method.approximations``' line for a distribution."""
    exact = d.get("exact_split_probability", 0.0)
    rest = d["split_probability"] - exact
    if d.get("exact_splits") and rest <= 1e-15:
        return (
            f"outcome distribution ({d['strategy']}): exact, the rounds that split "
            f"({d['split_probability']:.4%} of rounds) included: every run of the box's cards played "
            "(resplits to the rules' limit, the hands one after another from one shoe, the dealer from "
            "what they leave; dist_box, equal to the engine's enumeration of small shoes to 1e-12)"
            f"{_suits(d)}"
        )
    head = (
        f"outcome distribution ({d['strategy']}): the rounds that split ({d['split_probability']:.4%} of rounds) "
        "are exact where every run of the box's cards is affordable "
        f"({exact - d.get('stored_split_probability', 0.0):.4%} of rounds: split Aces that take "
        "one card each and are not split again, and every split on a shoe of at most "
        f"{SMALL_SHOE} cards; dist_exact, equal to the engine's enumeration of small shoes to 1e-12)"
        f"{_stored(d)}{_suits(d)}"
    )
    if rest <= 1e-15:
        return head + "; the distribution is exact"
    return head + (
        f"; the others ({rest:.4%} of rounds: the other pairs of a casino shoe) "
        "play their hands (resplits included, the number of hands exact) independently given the "
        "dealer's final total but for their second cards, distinct cards of one shoe (each dealt "
        "from the shoe less the up card and both pair cards), their "
        "mean moved to the exact split value "
        f"({d['moved_probability']:.2e} of probability moved); every other round is exact, so the "
        f"distribution is within {rest:.4%} of the exact one in total variation, its mean is "
        "the exact edge, and the pay-line frequencies and amount wagered of those split rounds are approximate "
        "in the same way; measured against 10^9 simulated rounds of each casino preset (before any split "
        "was shipped exact), no outcome's "
        f"probability is off by more than {MEASURED_BOUND:.0e} (three standard errors), the largest "
        "relative errors (about 3%) in outcomes that need three split hands or several doubled ones"
    )
