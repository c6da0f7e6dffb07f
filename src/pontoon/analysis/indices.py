"""Index plays: the true count at which each decision's better play changes, exactly per shoe.

For a count system, a penetration and each true-count bucket t (floor of the true count = t, as
the counter's kernel reckons it), shoe compositions are drawn exactly at that count
(``count_law``: at depths weighted by how often each reaches the count) and each is analysed
exactly (``strategy.solve``); for every two-card decision of the basic chart
(analysis/decisions.py) the margin value(best other play) - value(chart's play) is averaged over
the bucket's shoes, each weighted by the chance that the shoe deals that hand against that up card
(the mean given that the hand is dealt), with a control variate (``_Control``: the margin's linear
prediction from its effects of removal, whose mean given the bucket comes from many cheap draws).
Draw j of every bucket reads the same uniforms (common random numbers) at the depth quantile
(j + u) / samples (stratified), so that a margin's change from one count to the next is read with
little noise. The index is where the bucket means change sign, interpolated between the two
buckets' mean true counts (``crossing_status``), printed only where every bucket more than one true
count below it has one sign and every bucket more than one above it the other (the issue's check);
a cell whose margin changes sign otherwise is listed apart (``IndexTable.excluded``) with why. The
other play is better at counts at or above the index (``direction`` "+") or at or below it ("-").
Insurance (given an Ace up) and each side wager offered get the count where they break even.

Rescue (004 3.25.3, 000 3.11.4, 002): where the rules allow it, each doubled total t < 21 against
each up card is a decision too, rescue vs stand (keep the double), as the chart's rescue rows
decide it: per shoe, the chains' ``racc[t]`` (``kernels.chain``; what ``strategy`` builds the
rescue chart from) is the sum over the doubles that end on t of P(double, card) * (keep - forfeit),
exact on that shoe; summed over the bucket's shoes and divided by the summed chance that a
two-card double ends on t (``rescue_weights``), it is the mean margin given that double, as for the
two-card decisions, and the index is where it crosses zero. Rows 'doubled t'; their weight is the
chance on the full shoe of that up card and a two-card double ending on t. (Where any hand may
double, federal, racc also holds the doubles of three or more cards: the divisor counts only the
two-card ones, which scales the margin but not its sign.)

"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pontoon.analysis.count_law import UNIFORMS, count_law
from pontoon.analysis.counts import CountSystem, decision_effects
from pontoon.analysis.decisions import UP_OF_LABEL, Decision, chart_decisions, decision_values
from pontoon.analysis.eor import deck_size, identities_of, side_ev, side_wagers
from pontoon.analysis.states import shoe_counts
from pontoon.analysis.strategy import Solution, basic_strategy, solve
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules


def true_count(system: CountSystem, rules: CasinoRules, dealt: np.ndarray) -> float:
    """The true count after the cards ``dealt`` (by value index): running count x cards a deck /
    cards left, as the counter's kernel reckons it (``_count_kernel._tc_bucket``)."""
    full = shoe_counts(rules.pack, rules.decks)
    rc = system.irc(rules.pack, rules.decks) + float(np.dot(system.tags, dealt))
    left = int(full.sum() - dealt.sum())
    return rc * float(deck_size(rules)) / left if left > 0 else 0.0


def sample_shoe(
    rules: CasinoRules, system: CountSystem, t: int, penetration: float, rng: np.random.Generator
) -> np.ndarray | None:
    """Cards dealt (by value index) at a true count in [t, t + 1), an exact draw at a depth drawn
    by how often that count occurs there (``count_law``), or None where no depth before the cut
    card reaches the count."""
    law = count_law(rules, system)
    depth = law.depth_law(t, penetration)
    if depth.sum() <= 0:
        return None
    return law.draw(t, depth, rng.random(UNIFORMS))


def crossing_status(x: np.ndarray, ys: np.ndarray, ws: np.ndarray) -> tuple[float | None, str, str]:
    """Where the bucket means ``ys`` (value of the other play - the chart's, at the buckets' mean
    true counts ``x``; buckets of weight ``ws`` 0 or NaN left out) change sign: (index, direction,
    '') where one crossing, interpolated linearly between the two buckets it lies between, has
    every bucket more than one true count below it on one side and every bucket more than one
    above it on the other (the issue's check); otherwise (None, '', why): 'holds' (the chart's play
    is at least as good at every count in range: a tie keeps the chart's play), 'other' (the other
    play is better throughout the range), 'twice' (the other play is better at both ends of the
    range, or at neither though it wins in between), 'unresolved' (the sign changes more than a
    step apart: the shoes sampled cannot place the index within one step)."""
    ok = ~np.isnan(ys) & (ws > 0)
    x, y = x[ok], ys[ok]
    if len(y) < 2:
        return None, "", ""
    sg = np.where(y > 0, 1, -1)
    ch = np.flatnonzero(sg[1:] != sg[:-1])
    if len(ch) == 0:
        return None, "", "holds" if sg[0] < 0 else "other"
    if sg[0] == sg[-1]:
        return None, "", "twice"
    good = []
    for i in ch:
        at = float(x[i] + (x[i + 1] - x[i]) * y[i] / (y[i] - y[i + 1]))
        if np.all(sg[x < at - 1] == sg[0]) and np.all(sg[x > at + 1] == sg[-1]):
            good.append(at)
    if not good:
        return None, "", "unresolved"
    return good[len(good) // 2], "+" if sg[-1] > 0 else "-", ""


def _hand_weight(shoe: np.ndarray, d: Decision) -> float:
    c = shoe.astype(float).copy()
    n = c.sum()
    w = c[d.up] / n
    c[d.up] -= 1
    w *= c[d.i] / (n - 1)
    c[d.i] -= 1
    return float(w * c[d.j] / (n - 2) * (1 if d.i == d.j else 2))


@dataclass
class IndexTable:
    rules: CasinoRules
    system: CountSystem
    penetration: float
    counts: list[int]  # the buckets
    mean_tc: list[float]
    samples: list[int]
    decisions: list[Decision]
    acc: np.ndarray  # [decision, bucket]: sum over the bucket's shoes of P(hand) * margin
    wsum: np.ndarray  # [decision, bucket]: sum of P(hand)
    extras: dict[str, list[float]]  # insurance and side wagers: expectation per bucket
    seconds: float
    # rescue (module docstring): [up, doubled total, bucket] the sums over the bucket's shoes of
    # racc (keep - rescue, weighted by the double's chance) and of that chance; the chart's play
    # per (total, up label)
    rescue: np.ndarray | None = None
    rescue_w: np.ndarray | None = None
    rescue_play: dict[tuple[int, str], str] = field(default_factory=dict)
    rescue_weight: np.ndarray | None = None  # [up, total] on the full shoe, with the up card's chance

    def rescue_margins(self, total: int, up: str) -> tuple[np.ndarray, np.ndarray]:
        """value(other play) - value(chart's play) of the doubled ``total`` against ``up`` per
        bucket, given that double (mean over the shoes, weighted by the double's chance), and that
        chance summed over the bucket's shoes."""
        assert self.rescue is not None and self.rescue_w is not None
        a, w = self.rescue[UP_OF_LABEL[up], total], self.rescue_w[UP_OF_LABEL[up], total]
        with np.errstate(invalid="ignore", divide="ignore"):
            keep_minus_rescue = np.where(w > 0, a / np.where(w > 0, w, 1), np.nan)
        return keep_minus_rescue if self.rescue_play[(total, up)] == "F" else -keep_minus_rescue, w

    def crossing(self, ys: np.ndarray, ws: np.ndarray) -> tuple[float | None, str]:
        """(the index, '+' where the other play is better at or above it, '-' at or below), or
        (None, why) where the printed chart has no index (``crossing_status``)."""
        at, direction, why = crossing_status(np.array(self.mean_tc), ys, ws)
        return (at, direction) if at is not None else (None, why)

    def groups(self) -> dict[tuple[str, str, str, str], list[int]]:
        """The decisions by chart cell: (row, up card, chart's play, other play) -> decisions."""
        out: dict[tuple[str, str, str, str], list[int]] = {}
        for k, d in enumerate(self.decisions):
            out.setdefault((d.row, d.up_label, d.play, d.alt), []).append(k)
        return out

    def cell_margins(self, ks: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(mean margin given the cell's hands are dealt, their weight) per bucket."""
        a = self.acc[ks].sum(axis=0)
        w = self.wsum[ks].sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(w > 0, a / np.where(w > 0, w, 1), np.nan), w

    def indices(self) -> list[dict[str, Any]]:
        """The index chart: one row per chart cell whose better play changes in the range."""
        return self._chart()[0]

    def excluded(self) -> list[dict[str, Any]]:
        """The cells (and rescue rows) whose margin changes sign in the range but that get no
        index, each with ``why`` (``crossing_status``); every other cell keeps the chart's play
        at every count in range."""
        return self._chart()[1]

    def _chart(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        out: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for (row, up, play, alt), ks in self.groups().items():
            ys, ws = self.cell_margins(ks)
            at, direction = self.crossing(ys, ws)
            if at is None:
                if direction not in ("", "holds"):
                    skipped.append({"row": row, "up": up, "play": play, "alt": alt, "why": direction,
                                    "weight": sum(self.decisions[k].weight for k in ks)})  # fmt: skip
                continue
            weight = sum(self.decisions[k].weight for k in ks)
            out.append({"row": row, "up": up, "play": play, "alt": alt, "index": at,
                        "direction": direction, "weight": weight,
                        "hands": [self.decisions[k].hand for k in ks]})  # fmt: skip
        for (t, up), play in self.rescue_play.items():
            at, direction = self.crossing(*self.rescue_margins(t, up))
            assert self.rescue_weight is not None
            if at is None:
                if direction not in ("", "holds"):
                    skipped.append({"row": f"doubled {t}", "up": up, "play": play, "alt": "S" if play == "F" else "F",
                                    "why": direction, "weight": float(self.rescue_weight[UP_OF_LABEL[up], t])})  # fmt: skip
                continue
            out.append({"row": f"doubled {t}", "up": up, "play": play, "alt": "S" if play == "F" else "F",
                        "index": at, "direction": direction,
                        "weight": float(self.rescue_weight[UP_OF_LABEL[up], t]), "hands": []})  # fmt: skip
        for name, ev in self.extras.items():
            at, direction = self.crossing(np.array(ev), np.array(self.samples, dtype=float))
            out.append({"row": "side", "up": "", "play": "no bet", "alt": name, "index": at,
                        "direction": direction if at is not None else "", "weight": 0.0, "hands": [],
                        **({} if at is not None else {"why": direction})})  # fmt: skip
        return out, skipped


def rescue_racc(sol: Solution) -> np.ndarray:
    """[up, doubled total]: the chains' ``racc`` of ``sol``'s shoe (keep - rescue of each double
    that ends on the total, times its chance given the up card), that the rescue chart reads."""
    out = np.zeros((10, 22))
    for ur in sol.upcards:
        out[UP_OF_LABEL[ur.label]] = ur.detail["outs_opt"][0].racc
    return out


def rescue_weights(shoe: np.ndarray, ace_one: bool, with_up: bool = False) -> np.ndarray:
    """[up, doubled total < 21]: the chance, given the up card (times its chance with ``with_up``),
    that a two-card hand doubled against it ends on that total with its card, totalled as the chains
    total it (their ``racc`` weights): an Ace counts 11 where it fits, but with ``ace_one`` only the
    doubling card's (000 3.17.2, 002 3.14, 004 3.25.2: the first two cards' Aces count 1)."""
    c0 = shoe.astype(float)
    n = c0.sum()
    out = np.zeros((10, 22))
    for up in range(10):
        if c0[up] <= 0:
            continue
        c = c0.copy()
        pu = c[up] / n if with_up else 1.0
        c[up] -= 1
        n1 = n - 1
        for i in range(10):
            for j in range(i, 10):
                d = c.copy()
                p = pu * d[i] / n1
                d[i] -= 1
                p *= d[j] / (n1 - 1) * (1 if i == j else 2)
                d[j] -= 1
                if p <= 0:
                    continue
                for r in range(10):
                    hard = i + j + r + 3
                    free = r == 0 if ace_one else 0 in (i, j, r)
                    dt = hard + 10 if free and hard + 10 <= 21 else hard
                    if dt < 21:
                        out[up, dt] += p * d[r] / (n1 - 2)
    return out


CHEAP_DRAWS = 300  # draws per bucket for the control variate's mean


class _Control:
    """The control variate: each decision's margin predicted linearly from the shoe by its exact
    effects of removal (``counts.decision_effects``), lin = sum_r E_r (N - 1)(f_r - q_r) with f, q
    the full and the remaining shoe's shares of each value (one card of value r removed: E_r
    exactly, up to the effects' weighted sum). A bucket's mean margin given the hand is estimated
    as the mean over the analysed shoes of (margin - lin), weighted by P(hand), plus the mean of
    lin given the hand over ``CHEAP_DRAWS`` draws of the bucket (no analysis: a draw and a
    product). Exact in expectation whatever the prediction's error; its variance is that of the
    margin's departure from linearity, far below the margin's own spread across the bucket."""

    def __init__(self, decs: list[Decision], full: np.ndarray, effects: Any) -> None:
        self.eff = np.asarray(effects.effects, dtype=float)
        self.full = full.astype(float)
        self.n = float(full.sum())
        self.ii = np.array([d.i for d in decs])
        self.jj = np.array([d.j for d in decs])
        self.uu = np.array([d.up for d in decs])
        self.same = self.ii == self.jj

    def lin(self, shoe: np.ndarray) -> np.ndarray:
        q = shoe / shoe.sum()
        return np.asarray(self.eff @ ((self.n - 1) * (self.full / self.n - q)))

    def weights(self, shoe: np.ndarray) -> np.ndarray:
        """P(hand, up card) of every decision on ``shoe`` (``_hand_weight``, all at once)."""
        c = shoe.astype(float)
        n = c.sum()
        w = c[self.uu] / n
        ci = c[self.ii] - (self.ii == self.uu)
        cj = c[self.jj] - (self.jj == self.uu) - self.same
        return np.asarray(w * ci / (n - 1) * np.maximum(cj, 0) / (n - 2) * np.where(self.same, 1, 2))

    def bucket_mean(self, law: Any, t: int, depth: np.ndarray, u: np.ndarray) -> np.ndarray:
        a = np.zeros(len(self.ii))
        w = np.zeros(len(self.ii))
        m = len(u)
        for j in range(m):
            shoe = self.full - law.draw(t, depth, u[j], (j + u[j, 0]) / m)
            hw = self.weights(shoe)
            a += hw * self.lin(shoe)
            w += hw
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(w > 0, a / np.where(w > 0, w, 1), 0.0)


@dataclass
class _ShoeTerms:
    acc: np.ndarray  # per decision: P(hand) * margin
    wsum: np.ndarray  # per decision: P(hand)
    racc: np.ndarray  # rescue_racc
    rw: np.ndarray  # rescue_weights
    sides: dict[str, float]


def _shoe_terms(rules: CasinoRules, decs: list[Decision], shoe: np.ndarray, sides: list[str]) -> _ShoeTerms:
    """One shoe's exact contribution to a bucket's sums (``index_table``)."""
    sol = solve(rules, shoe=tuple(int(x) for x in shoe))
    vals = decision_values(decs, sol)
    acc = np.zeros(len(decs))
    wsum = np.zeros(len(decs))
    for k, d in enumerate(decs):
        if not math.isnan(vals[k]):
            hw = _hand_weight(shoe, d)
            acc[k] = hw * vals[k]
            wsum[k] = hw
    resc = rules.rescue  # 004 3.25.3 rescue
    racc = rescue_racc(sol) if resc else np.zeros((10, 22))
    rw = rescue_weights(shoe, rules.double_ace_counts_one) if resc else np.zeros((10, 22))
    sv: dict[str, float] = {}
    if sides:
        ident = identities_of(rules, shoe)
        sv = {w: side_ev(rules, w, ident) for w in sides}
    return _ShoeTerms(acc, wsum, racc, rw, sv)


def index_table(
    rules: CasinoRules,
    system: CountSystem,
    *,
    penetration: float = 0.75,
    counts: range = range(-6, 7),
    samples: int = 6,
    seed: int = 0,
    effects: Any = None,
    cheap: int = CHEAP_DRAWS,
) -> IndexTable:
    """Index plays of ``rules``'s chart for ``system`` (module docstring): ``samples`` shoes per
    true-count bucket in ``counts``."""
    import time

    if not 0.1 <= penetration <= 0.95:
        raise PontoonError(f"penetration {penetration}: give 0.1 to 0.95 (the share of the shoe dealt)")
    t0 = time.perf_counter()
    law = count_law(rules, system)
    # common random numbers: draw j of every bucket reads the same uniforms, its depth at the
    # quantile (j + u) / samples of the bucket's depth law (stratified), so that neighbouring
    # buckets' shoes differ mostly by the count (module docstring)
    uni = np.random.default_rng(seed).random((samples, UNIFORMS))
    decs = chart_decisions(rules)
    full = shoe_counts(rules.pack, rules.decks)
    cv = _Control(decs, full, effects if effects is not None else decision_effects(rules))
    cheap_u = np.random.default_rng([seed, 1]).random((cheap, UNIFORMS))
    sides = side_wagers(rules)
    acc_all = np.zeros((len(decs), len(counts)))
    w_all = np.zeros((len(decs), len(counts)))
    extras: dict[str, list[float]] = {w: [] for w in sides}
    resc_all = np.zeros((10, 22, len(counts))) if rules.rescue else None  # 004 3.25.3 rescue
    resc_w = np.zeros((10, 22, len(counts)))
    mean_tc: list[float] = []
    got: list[int] = []
    seen: dict[tuple[int, ...], _ShoeTerms] = {}  # a shoe drawn at two buckets is analysed once
    for b, t in enumerate(counts):
        side_acc = dict.fromkeys(sides, 0.0)
        tcs = []
        depth = law.depth_law(t, penetration)
        if depth.sum() > 0:  # the control's mean given the bucket, from many cheap draws
            mean_lin = cv.bucket_mean(law, t, depth, cheap_u)
        for j in range(samples if depth.sum() > 0 else 0):
            dealt = law.draw(t, depth, uni[j], (j + uni[j, 0]) / samples)
            key = tuple(int(x) for x in full - dealt)
            if key not in seen:
                seen[key] = _shoe_terms(rules, decs, np.array(key), sides)
            terms = seen[key]
            tcs.append(true_count(system, rules, dealt))
            acc_all[:, b] += terms.acc + terms.wsum * (mean_lin - cv.lin(full - dealt))
            w_all[:, b] += terms.wsum
            if resc_all is not None:
                resc_all[:, :, b] += terms.racc
                resc_w[:, :, b] += terms.rw
            for w in sides:
                side_acc[w] += terms.sides[w]
        got.append(len(tcs))
        mean_tc.append(float(np.mean(tcs)) if tcs else float("nan"))
        for w in sides:
            extras[w].append(side_acc[w] / len(tcs) if tcs else float("nan"))
    keep = [b for b, n in enumerate(got) if n > 0]
    rescue_play: dict[tuple[int, str], str] = {}
    if resc_all is not None:  # the chart's rescue rows: 'F' rescue, 'S' keep the double
        for t, row in basic_strategy(rules).get("rescue", {}).items():
            for up, cell in row.items():
                rescue_play[(int(t), up)] = "F" if cell == "F" else "S"
    return IndexTable(
        rules,
        system,
        penetration,
        [counts[b] for b in keep],
        [mean_tc[b] for b in keep],
        [got[b] for b in keep],
        decs,
        acc_all[:, keep],
        w_all[:, keep],
        {w: [v[b] for b in keep] for w, v in extras.items()},
        time.perf_counter() - t0,
        None if resc_all is None else resc_all[:, :, keep],
        None if resc_all is None else resc_w[:, :, keep],
        rescue_play,
        rescue_weights(full, rules.double_ace_counts_one, with_up=True) if resc_all is not None else None,
    )
