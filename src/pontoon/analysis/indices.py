"""Index plays: the true count at which each decision's better play changes, exactly per shoe.

For a count system, a penetration and each true-count bucket t (t <= TC < t + 1), shoe
compositions are sampled at that count and each is analysed exactly (``strategy.solve``); for
every two-card decision of the basic chart (analysis/decisions.py) the margin value(best other
play) - value(chart's play) is averaged over the bucket's shoes, each weighted by the chance that
the shoe deals that hand against that up card (the mean given that the hand is dealt). The index is
where the mean margin crosses zero, interpolated between the buckets' mean true counts: the other
play is better at counts at or above it (``direction`` "+") or at or below it ("-"). Insurance
(given an Ace up) and each side wager offered get the count where they break even.

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

Sampling (exact given the depth and the count): a depth of k cards is drawn uniformly between one
deck (a quarter of a one-deck shoe) and the penetration; the k cards dealt start as a uniform random draw and are moved by swap
steps (a dealt card for an undealt one, both chosen uniformly among the cards) that only go toward
the bucket until they reach it, then, inside it, by swaps kept only when they stay in it: a
Metropolis chain whose stationary law is the uniform law on the deals of k cards with the count in
the bucket, i.e. the multivariate hypergeometric composition given the count. Depths are not
reweighted by how often each one produces the count (documented in docs/counting.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pontoon.analysis.counts import CountSystem
from pontoon.analysis.decisions import UP_OF_LABEL, Decision, chart_decisions, decision_values
from pontoon.analysis.eor import deck_size, identities_of, side_ev, side_wagers
from pontoon.analysis.states import shoe_counts
from pontoon.analysis.strategy import Solution, basic_strategy, solve
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules

SIGNIFICANT = 3.0  # a cell's trend with the count must exceed this many standard errors
MIX_STEPS = 200  # swap steps inside the bucket after reaching it


def true_count(system: CountSystem, rules: CasinoRules, dealt: np.ndarray) -> float:
    """The true count after the cards ``dealt`` (by value index): running count / decks left."""
    full = shoe_counts(rules.pack, rules.decks)
    rc = system.irc(rules.pack, rules.decks) + float(np.dot(system.tags, dealt))
    left = int(full.sum() - dealt.sum())
    return rc / (left / deck_size(rules)) if left > 0 else 0.0


def sample_shoe(
    rules: CasinoRules, system: CountSystem, t: int, penetration: float, rng: np.random.Generator
) -> np.ndarray | None:
    """Cards dealt (by value index) at a true count in [t, t + 1), or None where the chain could
    not reach the bucket at the depth drawn (module docstring)."""
    full = shoe_counts(rules.pack, rules.decks)
    n = int(full.sum())
    lo = min(deck_size(rules), n // 4)  # from one deck dealt (a quarter of a one-deck shoe)
    hi = max(lo + 1, int(n * penetration))
    k = int(rng.integers(lo, hi))
    dealt = rng.multivariate_hypergeometric(full, k).astype(np.int64)
    tags = np.array(system.tags, dtype=float)

    def bucket(d: np.ndarray) -> float:
        return true_count(system, rules, d)

    tc = bucket(dealt)
    for _ in range(20 * n):  # toward the bucket
        if t <= tc < t + 1:
            break
        want_up = tc < t
        out_r = int(rng.choice(10, p=dealt / k))
        in_r = int(rng.choice(10, p=(full - dealt) / (n - k)))
        if (tags[in_r] - tags[out_r] > 0) != want_up or tags[in_r] == tags[out_r]:
            continue
        dealt[out_r] -= 1
        dealt[in_r] += 1
        tc = bucket(dealt)
    else:
        return None
    if not t <= tc < t + 1:
        return None
    for _ in range(MIX_STEPS):  # uniform over the deals in the bucket (Metropolis, symmetric swaps)
        out_r = int(rng.choice(10, p=dealt / k))
        in_r = int(rng.choice(10, p=(full - dealt) / (n - k)))
        dealt[out_r] -= 1
        dealt[in_r] += 1
        if not t <= bucket(dealt) < t + 1:
            dealt[out_r] += 1
            dealt[in_r] -= 1
    return dealt


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
        """(true count where the least-squares line through the bucket means ``ys`` (weights
        ``ws``) is zero, '+' where the other play is better above it); None where the slope is
        within ``SIGNIFICANT`` standard errors of zero or that count lies more than one bucket
        outside the buckets sampled."""
        x = np.array(self.mean_tc)
        ok = ~np.isnan(ys) & (ws > 0)
        if ok.sum() < 4:
            return None, ""
        (slope, icpt), cov = np.polyfit(x[ok], ys[ok], 1, w=np.sqrt(ws[ok]), cov=True)
        if slope == 0 or abs(slope) < SIGNIFICANT * math.sqrt(max(float(cov[0, 0]), 0.0)):
            return None, ""  # no trend with the count that the samples can tell from noise
        at = float(-icpt / slope)
        if not self.counts[0] - 1 <= at <= self.counts[-1] + 2:
            return None, ""
        return at, "+" if slope > 0 else "-"

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
        out = []
        for (row, up, play, alt), ks in self.groups().items():
            ys, ws = self.cell_margins(ks)
            at, direction = self.crossing(ys, ws)
            if at is None:
                continue
            weight = sum(self.decisions[k].weight for k in ks)
            out.append({"row": row, "up": up, "play": play, "alt": alt, "index": at,
                        "direction": direction, "weight": weight,
                        "hands": [self.decisions[k].hand for k in ks]})  # fmt: skip
        for (t, up), play in self.rescue_play.items():
            at, direction = self.crossing(*self.rescue_margins(t, up))
            if at is None:
                continue
            assert self.rescue_weight is not None
            out.append({"row": f"doubled {t}", "up": up, "play": play, "alt": "S" if play == "F" else "F",
                        "index": at, "direction": direction,
                        "weight": float(self.rescue_weight[UP_OF_LABEL[up], t]), "hands": []})  # fmt: skip
        for name, ev in self.extras.items():
            at, direction = self.crossing(np.array(ev), np.array(self.samples, dtype=float))
            out.append({"row": "side", "up": "", "play": "no bet", "alt": name, "index": at,
                        "direction": direction, "weight": 0.0, "hands": []})  # fmt: skip
        return out


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


def index_table(
    rules: CasinoRules,
    system: CountSystem,
    *,
    penetration: float = 0.75,
    counts: range = range(-6, 7),
    samples: int = 6,
    seed: int = 0,
) -> IndexTable:
    """Index plays of ``rules``'s chart for ``system`` (module docstring): ``samples`` shoes per
    true-count bucket in ``counts``."""
    import time

    if not 0.1 <= penetration <= 0.95:
        raise PontoonError(f"penetration {penetration}: give 0.1 to 0.95 (the share of the shoe dealt)")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    decs = chart_decisions(rules)
    full = shoe_counts(rules.pack, rules.decks)
    sides = side_wagers(rules)
    acc_all = np.zeros((len(decs), len(counts)))
    w_all = np.zeros((len(decs), len(counts)))
    extras: dict[str, list[float]] = {w: [] for w in sides}
    resc_all = np.zeros((10, 22, len(counts))) if rules.rescue else None  # 004 3.25.3 rescue
    resc_w = np.zeros((10, 22, len(counts)))
    mean_tc: list[float] = []
    got: list[int] = []
    for b, t in enumerate(counts):
        acc = np.zeros(len(decs))
        wsum = np.zeros(len(decs))
        side_acc = dict.fromkeys(sides, 0.0)
        tcs = []
        for _ in range(samples):
            dealt = sample_shoe(rules, system, t, penetration, rng)
            if dealt is None:
                continue
            shoe = full - dealt
            tcs.append(true_count(system, rules, dealt))
            sol = solve(rules, shoe=tuple(int(x) for x in shoe))
            vals = decision_values(decs, sol)
            if resc_all is not None:
                resc_all[:, :, b] += rescue_racc(sol)
                resc_w[:, :, b] += rescue_weights(shoe, rules.double_ace_counts_one)
            for k, d in enumerate(decs):
                if not math.isnan(vals[k]):
                    hw = _hand_weight(shoe, d)
                    acc[k] += hw * vals[k]
                    wsum[k] += hw
            if sides:
                ident = identities_of(rules, shoe)
                for w in sides:
                    side_acc[w] += side_ev(rules, w, ident)
        got.append(len(tcs))
        mean_tc.append(float(np.mean(tcs)) if tcs else float("nan"))
        acc_all[:, b] = acc
        w_all[:, b] = wsum
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
