"""The full analysis of a table: optimal composition-dependent play, the total-dependent basic
strategy chart (with card-count exceptions and the rescue chart) and both house edges.

``solve(rules)`` does the work (cached per rules, bet and shoe); ``basic_strategy(rules)`` returns
the chart object shared with the simulator (see docs/analysis.md and analysis-json.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from math import lgamma
from typing import Any

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.player import (
    CODE_TO_POLICY,
    ChainOut,
    Params,
    UpcardSolver,
    dealer_cache,
)
from pontoon.analysis.split_suits import split_with_suits
from pontoon.analysis.splits import SPLIT_STRATEGIES
from pontoon.analysis.states import UPCARD_INDEX, UPCARD_LABELS, VALUE_RANKS, shoe_counts, state_space
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules

NOTATION = (
    "Cells: H hit, S stand, D double (else hit), Ds double (else stand), P split, R surrender (else hit), "
    "Rs surrender (else stand). Rows: hard and soft totals of the hand, pairs by card value (T = two "
    "ten-value cards). A cell 'BASE; CODE with N+ cards' plays CODE when the hand holds N or more cards "
    "('with N cards': exactly N), BASE otherwise; BASE's fallback (H for D and R, S for Ds and Rs) applies "
    "to hands of three or more cards unless the rules allow doubling them. 'rescue': after the doubling "
    "card, on the doubled total, F = withdraw the double and forfeit the original wager, S = keep it."
)
LETTER = {K.STAND: "S", K.HIT: "H", K.DOUBLE_HIT: "D", K.DOUBLE_STAND: "Ds"}

_LG = np.array([lgamma(k + 1) for k in range(2000)])
_VALUES = np.arange(10)


def comp_weights(base: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Multivariate hypergeometric probability of each state's cards as the first cards dealt."""
    n_total = int(base.sum())
    fits = np.all(counts <= base[None, :], axis=1)
    c = np.minimum(counts, base[None, :])
    n = c.sum(axis=1)
    # log C(base_r, c) by (r, c) once, then read per state (the same terms as elementwise)
    cc = np.arange(int(c.max()) + 1 if c.size else 1)
    table = _LG[base][:, None] - _LG[cc][None, :] - _LG[np.maximum(base[:, None] - cc[None, :], 0)]
    v = table[_VALUES[None, :], c].sum(axis=1)
    v -= _LG[n_total] - _LG[n] - _LG[np.maximum(n_total - n, 0)]
    return np.where(fits, np.exp(v), 0.0)


def _fallback(code: str) -> str:
    return "S" if code in ("S", "Ds", "Rs") else "H"


@dataclass
class UpcardResult:
    label: str
    prob: float
    ev_optimal: float
    ev_basic: float
    hands: dict[tuple[int, int], dict[str, float]] = field(default_factory=dict)
    # what the play was decided from (solver, chains, splits, chart codes), for analysis/distribution.py
    detail: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class Solution:
    rules: CasinoRules
    ev_optimal: float
    ev_basic: float
    strategy: dict[str, Any]
    upcards: list[UpcardResult]
    dealer: dict[str, dict[str, float]]
    seconds: float


def _row_key(i: int, j: int, best: int, soft: bool) -> tuple[str, int]:
    return ("soft" if soft else "hard", best)


def _class_choice(sums: dict[str, float], legal_stand: bool) -> str:
    best = max(sums, key=lambda k: sums[k])
    if best in ("D", "R"):
        h = sums.get("H", -9.0)
        s = sums.get("S", -9.0) if legal_stand else -9.0
        return best if h >= s else best + "s"
    return best


def solve(
    rules: CasinoRules,
    bet: Decimal | float | int | None = None,
    shoe: tuple[int, ...] | None = None,
    split_strategy: str = "cdp1",
) -> Solution:
    """Analyse the table (``shoe``: the full shoe by value index, default the rules' shoe;
    ``split_strategy``: how split hands are played under optimal play, ``cdz`` / ``cdp1`` /
    ``cdp`` as in ``UpcardSolver.split_value``)."""
    if split_strategy not in SPLIT_STRATEGIES:
        raise PontoonError(
            f"split strategy {split_strategy!r} is not known: accepted {', '.join(SPLIT_STRATEGIES)}"
        )
    key = (rules.model_dump_json(), None if bet is None else str(bet), shoe, split_strategy)
    return _solve_cached(key, rules, bet, shoe, split_strategy)


_CACHE: dict[tuple[Any, ...], Solution] = {}


def _solve_cached(
    key: tuple[Any, ...],
    rules: CasinoRules,
    bet: Decimal | float | int | None,
    shoe: tuple[int, ...] | None,
    split_strategy: str,
) -> Solution:
    if key in _CACHE:
        return _CACHE[key]
    sol = _solve(rules, bet, shoe, split_strategy)
    if len(_CACHE) > 32:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = sol
    return sol


def _solve(
    rules: CasinoRules, bet: Decimal | float | int | None, shoe: tuple[int, ...] | None, split_strategy: str
) -> Solution:
    t0 = time.perf_counter()
    pr = Params.of(rules, bet)
    sp = state_space()
    full = np.array(shoe, dtype=np.int64) if shoe is not None else shoe_counts(rules.pack, rules.decks)
    n_full = int(full.sum())
    dealer_cache(full, pr.h17).prefetch(pr)  # every dealer distribution in one kernel call
    two = sp.ncards == 2
    hard_rows: dict[int, dict[str, str]] = {}
    soft_rows: dict[int, dict[str, str]] = {}
    pair_rows: dict[int, dict[str, str]] = {}
    rescue_rows: dict[int, dict[str, str]] = {}
    upres: list[UpcardResult] = []
    dealer: dict[str, dict[str, float]] = {}
    ev_opt = 0.0
    ev_basic = 0.0
    memo: dict[tuple[object, ...], list[tuple[float, float]]] = {}  # completion classes, all up cards
    for label, up in zip(UPCARD_LABELS, UPCARD_INDEX, strict=True):
        if full[up] <= 0:
            continue
        p_up = float(full[up]) / n_full
        base = full.copy()
        base[up] -= 1
        solver = UpcardSolver(rules, pr, base, up, split_strategy=split_strategy, completion_memo=memo)
        d0 = solver.dealers.get(np.zeros((1, 10), dtype=np.int64), up)[0]
        dealer[label] = {
            "17": d0[0],
            "18": d0[1],
            "19": d0[2],
            "20": d0[3],
            "21": d0[4],
            "pontoon": d0[5],
            "bust": d0[6],
        }
        w_all = comp_weights(base, sp.counts)
        w_dbl = w_all if pr.dbl_any else np.where(two, w_all, 0.0)
        a2s = (0, 1, 2) if pr.dbl_any else (0,)
        outs_a = {a2: solver.run(a2=a2, weights=w_dbl) for a2 in a2s}
        solver.main_outs.update(outs_a)  # the CDZ- decisions of split hands (weights: rescue chart only)
        starts = solver.start_weights()
        # optimal play's options without the split (added once the split is valued, below)
        opt_opts = {(i, j): solver.hand_options(i, j, outs_a, None) for i, j, _w in starts}
        split_opt: dict[int, float] = {}
        # suit classes of the pairs whose split value depends on the pair's and up card's suits
        # (6-7-8 / 7-7-7 in split hands, rulings 16): (weight, hit adjustment, split adjustment)
        pair_cls: dict[int, list[tuple[float, float, float]] | None] = {}
        ur = UpcardResult(label, p_up, 0.0, 0.0)
        resc = _rescue_chart(pr, outs_a[0].racc, label, rescue_rows)
        # build the total-dependent chart for three or more cards
        out_b = solver.run(a2=0, build=True, weights=w_all, resc_pol=resc)
        dec = out_b.dec
        pol = _chart_policy(dec)
        outs_b: dict[int, ChainOut] = {0: out_b}
        for a2 in a2s[1:]:
            outs_b[a2] = solver.run(a2=a2, policy=pol, resc_pol=resc)
        # two-card decisions by class
        cls_sums: dict[tuple[str, int], dict[str, float]] = {}
        cls_pair_only: dict[tuple[str, int], dict[str, float]] = {}
        pair_sums: dict[int, dict[str, float]] = {}
        hand_b: dict[tuple[int, int], tuple[dict[str, float], float]] = {}
        for i, j, w in starts:
            if (i, j) == (0, 9):
                continue
            opts, classes = solver.hand_options(i, j, outs_b, None)
            adj = sum(cw * a for cw, a in classes)
            opts["H"] += adj
            hand_b[(i, j)] = (opts, adj)
            s = solver.state_of(i, j)
            row = _row_key(i, j, int(sp.best[s]), bool(sp.soft[s]))
            target = cls_pair_only if i == j else cls_sums
            acc = target.setdefault(row, {})
            for name, v in opts.items():
                acc[name] = acc.get(name, 0.0) + w * v
            if i == j and pr.max_hands >= 2:
                # the split's value decides only where it may beat the best other option, both
                # under optimal play and under the chart (split_value's beat)
                beat = min(solver.split_beat(i, *opt_opts[(i, j)]), solver.split_beat(i, opts, [(1.0, 0.0)]))
                split_opt[i], pair_cls[i] = split_with_suits(solver, i, beat=beat)
            if i == j:
                ps = pair_sums.setdefault(i, {})
                for name, v in opts.items():
                    ps[name] = ps.get(name, 0.0) + w * v
                if i in split_opt and not np.isnan(split_opt[i]):
                    ps["P"] = ps.get("P", 0.0) + w * (split_opt[i] + (-solver.q_nat(s) if pr.peek else 0.0))
        row_code: dict[tuple[str, int], str] = {}
        for row in set(cls_sums) | set(cls_pair_only):
            sums = cls_sums.get(row) or cls_pair_only[row]
            row_code[row] = _class_choice(sums, "S" in sums)
        for i, ps in pair_sums.items():
            pair_rows.setdefault(i, {})[label] = _class_choice(ps, "S" in ps)
        # policy of split hands' two-card states: the hard / soft row codes
        for k in np.nonzero(two)[0]:
            b = int(sp.best[k])
            row = ("soft" if sp.soft[k] else "hard", b)
            if row in row_code:
                pol[k] = CODE_TO_POLICY[row_code[row]]
        split_b: dict[int, float] = {}
        cls_b: dict[int, list[tuple[float, float, float]] | None] = {}
        for i, cells in pair_rows.items():
            if cells.get(label) == "P":
                split_b[i], cls_b[i] = split_with_suits(solver, i, policy=pol, resc_pol=resc)
        # optimal play; a split played as the chart plays it is one of optimal play's choices
        # (FED: split hands decide as if a live hand lost nothing to a dealer Pontoon, and the
        # chart's play can lose less to the one-wager rule)
        for i, v in split_b.items():
            if pr.split_one_wager and not v < split_opt.get(i, float("-inf")):
                split_opt[i] = v
                pair_cls[i] = cls_b[i]
        ur.ev_optimal = _optimal_ev(solver, starts, opt_opts, split_opt, ur, pair_cls)
        ev_b = _basic_ev(solver, starts, ur, hand_b, pair_rows, row_code, split_b, label)
        ur.ev_basic = ev_b
        ur.detail = {
            "solver": solver,
            "outs_opt": outs_a,
            "outs_basic": outs_b,
            "split_opt": dict(split_opt),
            "pair_cls": dict(pair_cls),
            "split_basic": dict(split_b),
            "row_code": dict(row_code),
            "pair_codes": {i: cells[label] for i, cells in pair_rows.items() if label in cells},
            "policy": pol,  # the chart's policy of every state (split hands' two-card states by row)
            "rescue": resc,
        }
        ev_opt += p_up * ur.ev_optimal
        ev_basic += p_up * ev_b
        upres.append(ur)
        _chart_cells(row_code, dec, label, pr.dbl_any, hard_rows, soft_rows)
    strategy: dict[str, Any] = {
        "hard": {str(t): _order(hard_rows[t]) for t in sorted(hard_rows)},
        "soft": {str(t): _order(soft_rows[t]) for t in sorted(soft_rows)},
        "pair": {VALUE_RANKS[i]: _order(pair_rows[i]) for i in sorted(pair_rows, key=lambda x: (x == 0, x))},
    }
    if pr.rescue:
        strategy["rescue"] = {str(t): _order(rescue_rows[t], fill="S") for t in sorted(rescue_rows)}
    # Ace pairs first in the conventional order: A, 2..9, T
    strategy["pair"] = {
        k: strategy["pair"][k] for k in (["A"] + list(VALUE_RANKS[1:])) if k in strategy["pair"]
    }
    return Solution(rules, ev_opt, ev_basic, strategy, upres, dealer, time.perf_counter() - t0)


def _rescue_chart(
    pr: Params, racc: np.ndarray, label: str, rescue_rows: dict[int, dict[str, str]]
) -> np.ndarray:
    """The rescue chart by doubled total (1 rescue, 0 keep; -1 everywhere without rescue) from
    the weighted advantage ``racc`` of keeping each doubled total; its rows into ``rescue_rows``."""
    resc = np.full(22, -1, dtype=np.int64)
    if pr.rescue:
        resc[:] = 0
        for t in range(2, 21):
            if racc[t] < 0:
                resc[t] = 1
        # rows only where a doubled total can occur
        for t in range(4, 21):
            if racc[t] != 0:
                rescue_rows.setdefault(t, {})[label] = "F" if resc[t] == 1 else "S"
    return resc


def _chart_policy(dec: np.ndarray) -> np.ndarray:
    """Policy codes of the states of three or more cards from the chart ``dec`` (HIT elsewhere)."""
    sp = state_space()
    pol = np.full(sp.size, K.HIT, dtype=np.int64)
    k = np.nonzero((sp.ncards >= 3) & (sp.best < 21))[0]
    c = dec[sp.soft[k].astype(np.int64), sp.best[k], np.minimum(sp.ncards[k], 11)]
    pol[k[c >= 0]] = c[c >= 0]
    return pol


def _optimal_ev(
    solver: UpcardSolver,
    starts: list[tuple[int, int, float]],
    opt_opts: dict[tuple[int, int], tuple[dict[str, float], list[tuple[float, float]]]],
    split_opt: dict[int, float],
    ur: UpcardResult,
    pair_cls: dict[int, list[tuple[float, float, float]] | None] | None = None,
) -> float:
    """Optimal play's expectation against one up card: each starting hand (and suit class) takes
    its best option, the split included; the options kept in ``ur.hands``. A pair in
    ``pair_cls`` takes it in each suit class of the pair and the up card (hit and split
    adjusted: ``split_suits.pair_suit_classes``)."""
    ev_u = 0.0
    for i, j, w in starts:
        opts, classes = opt_opts[(i, j)]
        sv = split_opt.get(i) if i == j else None
        if sv is not None and not np.isnan(sv) and "N" not in opts:
            opts = {**opts, "P": sv + (-solver.q_nat(solver.state_of(i, j)) if solver.pr.peek else 0.0)}
        ur.hands[(i, j)] = dict(opts)
        if "N" in opts:
            ev_u += w * opts["N"]
            continue
        joint = (pair_cls or {}).get(i) if i == j and "P" in opts else None
        if joint is not None:
            for cw, hadj, padj in joint:
                o = dict(opts)
                o["H"] += hadj
                o["P"] += padj
                ev_u += w * cw * max(o.values())
            continue
        for cw, adj in classes:
            o = dict(opts)
            o["H"] += adj
            ev_u += w * cw * max(o.values())
    return ev_u


def _basic_ev(
    solver: UpcardSolver,
    starts: list[tuple[int, int, float]],
    ur: UpcardResult,
    hand_b: dict[tuple[int, int], tuple[dict[str, float], float]],
    pair_rows: dict[int, dict[str, str]],
    row_code: dict[tuple[str, int], str],
    split_b: dict[int, float],
    label: str,
) -> float:
    """The chart's expectation against one up card: each starting hand plays its row's code."""
    sp, pr = solver.sp, solver.pr
    ev_b = 0.0
    for i, j, w in starts:
        if (i, j) == (0, 9):
            ev_b += w * ur.hands[(i, j)]["N"]
            continue
        opts, _adj = hand_b[(i, j)]
        s = solver.state_of(i, j)
        code = pair_rows[i][label] if i == j else row_code[_row_key(i, j, int(sp.best[s]), bool(sp.soft[s]))]
        if code == "P":
            v = split_b[i] + (-solver.q_nat(s) if pr.peek else 0.0)
        elif code in ("R", "Rs") and "R" in opts:
            v = opts["R"]
        elif code in ("D", "Ds"):
            v = opts["D"]
        else:
            v = opts["S"] if _fallback(code) == "S" and "S" in opts else opts["H"]
        ev_b += w * v
    return ev_b


def _chart_cells(
    row_code: dict[tuple[str, int], str],
    dec: np.ndarray,
    label: str,
    dbl_any: bool,
    hard_rows: dict[int, dict[str, str]],
    soft_rows: dict[int, dict[str, str]],
) -> None:
    """The chart's hard and soft cells of one up card, with their card-count exceptions, and the
    rows that only occur with three or more cards."""
    for (kind, total), code in row_code.items():
        cell = code + _exceptions(code, dec[1 if kind == "soft" else 0, total], dbl_any)
        (soft_rows if kind == "soft" else hard_rows).setdefault(total, {})[label] = cell
    for sf, rows in ((0, hard_rows), (1, soft_rows)):
        for total in range(4, 21):
            if (("soft" if sf else "hard"), total) in row_code:
                continue
            ns = [n for n in range(3, 12) if dec[sf, total, n] >= 0]
            if not ns:
                continue
            base_code = LETTER[int(dec[sf, total, ns[0]])]
            rows.setdefault(total, {})[label] = base_code + _exceptions(base_code, dec[sf, total], dbl_any)


def _order(cells: dict[str, str], fill: str | None = None) -> dict[str, str]:
    out = {}
    for lab in UPCARD_LABELS:
        if lab in cells:
            out[lab] = cells[lab]
        elif fill is not None:
            out[lab] = fill
    return out


def _exceptions(base: str, dec_row: np.ndarray, dbl_any: bool) -> str:
    """'; CODE with N+ cards' parts where three-or-more-card hands play otherwise than ``base``."""
    eff = base if (dbl_any and base in ("D", "Ds")) else _fallback(base)
    ns = [n for n in range(3, 12) if dec_row[n] >= 0]
    codes = {n: LETTER[int(dec_row[n])] for n in ns}
    parts: list[str] = []
    diff = [n for n in ns if codes[n] != eff and not (codes[n] in ("D", "Ds") and not dbl_any)]
    if not diff:
        return ""
    for code in sorted({codes[n] for n in diff}, key=lambda c: min(n for n in diff if codes[n] == c)):
        mine = [n for n in diff if codes[n] == code]
        tail = [n for n in ns if n >= mine[0]]
        if mine == tail:
            parts.append(f"{code} with {mine[0]}+ cards")
        else:
            parts.extend(f"{code} with {n} cards" for n in mine)
    return "".join("; " + p for p in parts)


@lru_cache(maxsize=16)
def _basic_cached(key: str) -> dict[str, Any]:
    rules = CasinoRules.model_validate_json(key)
    return solve(rules).strategy


def basic_strategy(rules: CasinoRules) -> dict[str, Any]:
    """The total-dependent chart for these rules (cached): {"hard", "soft", "pair"[, "rescue"]}."""
    return _basic_cached(rules.model_dump_json())


def evaluate_policy(
    rules: CasinoRules,
    shoe: tuple[int, ...],
    policy: Callable[[tuple[int, ...], int], str],
    rescue: Callable[[int, int], bool] | None = None,
) -> float:
    """Expectation of a fixed strategy on the shoe ``shoe`` (cards by value index).

    ``policy(state_counts, upcard)`` returns S, H, D, Ds, R, Rs or P for every hand of two or more
    cards (D/Ds on two cards only, R/Rs where surrender is offered; P on a two-card pair: split,
    and resplit whenever the rules allow, else stand); ``rescue(total, upcard)`` says whether to
    rescue a doubled total. Used to check the analyser against enumeration.
    """
    pr = Params.of(rules)
    sp = state_space()
    full = np.array(shoe, dtype=np.int64)
    n_full = int(full.sum())
    total = 0.0
    for up in range(10):
        if full[up] <= 0:
            continue
        base = full.copy()
        base[up] -= 1
        solver = UpcardSolver(rules, pr, base, up)
        pol = np.full(sp.size, K.HIT, dtype=np.int64)
        for s in np.nonzero(solver.active & (sp.ncards >= 2))[0]:
            pol[s] = CODE_TO_POLICY.get(policy(tuple(int(x) for x in sp.counts[s]), up), K.STAND)
        resc = np.full(22, 0, dtype=np.int64)
        if rescue is not None:
            for t in range(22):
                resc[t] = 1 if rescue(t, up) else 0
        outs = {
            a2: solver.run(a2=a2, policy=pol, resc_pol=resc) for a2 in ((0, 1, 2) if pr.dbl_any else (0,))
        }
        ev = 0.0
        for i, j, w in solver.start_weights():
            opts, classes = solver.hand_options(i, j, outs, None)
            if "N" in opts:
                ev += w * opts["N"]
                continue
            code = policy(tuple(int(x) for x in sp.counts[solver.state_of(i, j)]), up)
            adj = sum(cw * a for cw, a in classes)
            if code == "P" and i == j and pr.max_hands >= 2:
                sv = solver.split_value(i, policy=pol, resc_pol=resc)
                v = sv + (-solver.q_nat(solver.state_of(i, j)) if pr.peek else 0.0)
            elif code in ("R", "Rs") and "R" in opts:
                v = opts["R"]
            elif code in ("D", "Ds"):
                v = opts["D"]
            elif _fallback(code) == "S" and "S" in opts:
                v = opts["S"]
            else:
                v = opts["H"] + adj
            ev += w * v
        total += float(full[up]) / n_full * ev
    return total
