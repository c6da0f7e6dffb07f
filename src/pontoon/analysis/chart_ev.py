"""The exact expectation of a *fixed* basic-strategy chart on any shoe composition.

``strategy.solve(rules, shoe=...)`` re-derives the chart for the shoe it is given; a counter plays
the full shoe's chart on every shoe, so effects of removal and indices value that chart as it
stands (`chart_ev`). The chart's cells are read as the simulator and the engine read them (card-count
exceptions, a base D/Ds/R/Rs falling back on three or more cards unless doubling them is allowed);
every value comes from the same kernels and split code as ``solve``'s basic edge, and on the full
shoe the two agree to rounding (tests/analysis/test_eor.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.dealer_rows import dealer_cache
from pontoon.analysis.player import CODE_TO_POLICY, Params, UpcardSolver
from pontoon.analysis.split_suits import split_with_suits
from pontoon.analysis.states import UPCARD_INDEX, UPCARD_LABELS, VALUE_RANKS, state_space
from pontoon.rules.model import CasinoRules

_EXC = re.compile(r"^\s*([A-Za-z]+)\s+with\s+(\d+)(\+?)\s+cards?\s*$")
LABEL_OF_UP = dict(zip(UPCARD_INDEX, UPCARD_LABELS, strict=True))


def cell_code(cell: str, ncards: int, dbl_any: bool) -> str:
    """The code a chart cell plays on a hand of ``ncards`` cards (its exceptions applied, a
    doubling or surrender code falling back where the hand may not take it)."""
    parts = [p for p in (x.strip() for x in cell.split(";")) if p]
    code = parts[0]
    for p in parts[1:]:
        m = _EXC.match(p)
        if m is None:
            continue
        k = int(m.group(2))
        if ncards == k or (m.group(3) == "+" and ncards >= k):
            code = m.group(1)
    if ncards >= 3 and (code in ("R", "Rs") or (code in ("D", "Ds") and not dbl_any)):
        code = "S" if code in ("Ds", "Rs") else "H"
    return code


def _row_cell(chart: dict[str, Any], soft: bool, best: int, label: str) -> str | None:
    row = chart["soft" if soft else "hard"].get(str(best))
    return None if row is None else row.get(label)


def code_value(code: str, opts: dict[str, float], classes: list[tuple[float, float]]) -> float:
    """The value of a two-card hand played as a chart's code (``cell_code``): rescue, double or stand
    where the code says and the hand may, else hit (with its suit classes' adjustments)."""
    if code in ("R", "Rs") and "R" in opts:
        return opts["R"]
    if code in ("D", "Ds"):
        return opts["D"]
    if code in ("S", "Ds", "Rs") and "S" in opts:
        return opts["S"]
    return opts["H"] + sum(cw * a for cw, a in classes)


def chart_policy(chart: dict[str, Any], up: int, dbl_any: bool) -> np.ndarray:
    """``chain``'s policy for every state against up card ``up`` (pairs played as their total:
    a split is decided on the starting hand, resplits by ``split_value``'s walk)."""
    sp = state_space()
    label = LABEL_OF_UP[up]
    pol = np.full(sp.size, K.HIT, dtype=np.int64)
    memo: dict[tuple[bool, int, int], int] = {}
    for s in np.nonzero((sp.ncards >= 2) & (sp.best < 21))[0]:
        key = (bool(sp.soft[s]), int(sp.best[s]), min(int(sp.ncards[s]), 11))
        got = memo.get(key)
        if got is None:
            cell = _row_cell(chart, key[0], key[1], label)
            code = ("S" if key[1] >= 17 else "H") if cell is None else cell_code(cell, key[2], dbl_any)
            got = CODE_TO_POLICY.get(code, K.STAND)
            memo[key] = got
        pol[s] = got
    return pol


def rescue_policy(chart: dict[str, Any], up: int, rescue: bool) -> np.ndarray:
    """The rescue chart by doubled total (1 rescue, 0 keep; -1 everywhere without rescue)."""
    resc = np.full(22, -1, dtype=np.int64)
    if rescue:
        resc[:] = 0
        label = LABEL_OF_UP[up]
        for t, row in chart.get("rescue", {}).items():
            if row.get(label) == "F":
                resc[int(t)] = 1
    return resc


# Shoe-independent inputs of ``chart_ev``, kept across calls (effects of removal and indices value
# one chart on many shoes): each up card's policy and rescue arrays by the chart's text, and the
# suit classes of the bonus hands by the rules (``UpcardSolver.completion``: they read the rules,
# the up card and the hand, never the shoe). A few of each are kept.
_POLICIES: dict[tuple[str, bool, bool], dict[int, tuple[np.ndarray, np.ndarray]]] = {}
_COMPLETIONS: dict[CasinoRules, dict[tuple[object, ...], list[tuple[float, float]]]] = {}
_KEPT = 8


def _kept(store: dict[Any, Any], key: Any, make: Any) -> Any:
    got = store.get(key)
    if got is None:
        if len(store) >= _KEPT:
            store.pop(next(iter(store)))
        got = store[key] = make()
    return got


def chart_policies(chart: dict[str, Any], pr: Params) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """{up card: (``chart_policy``, ``rescue_policy``)} for ``chart`` under ``pr``, computed once
    per chart (the arrays are shared: the kernels only read them)."""
    key = (json.dumps(chart, sort_keys=True, default=repr), pr.dbl_any, pr.rescue)
    return _kept(  # type: ignore[no-any-return]
        _POLICIES,
        key,
        lambda: {
            up: (chart_policy(chart, up, pr.dbl_any), rescue_policy(chart, up, pr.rescue))
            for up in UPCARD_INDEX
        },
    )


def chart_ev(
    rules: CasinoRules, chart: dict[str, Any], shoe: np.ndarray, by_upcard: bool = False
) -> float | dict[int, float]:
    """Expectation per initial wager of playing ``chart`` on the shoe ``shoe`` (cards by value
    index), exactly: every decision as the chart says, splits and rescues included.
    ``by_upcard``: {up card: expectation given that up card} instead."""
    pr = Params.of(rules)
    sp = state_space()
    full = np.asarray(shoe, dtype=np.int64)
    n_full = int(full.sum())
    total = 0.0
    per: dict[int, float] = {}
    a2s = (0, 1, 2) if pr.dbl_any else (0,)
    dealer_cache(full, pr.h17).prefetch(pr)  # every dealer distribution in one kernel call, as solve
    policies = chart_policies(chart, pr)
    memo = _kept(_COMPLETIONS, rules, dict)
    for up in UPCARD_INDEX:
        if full[up] <= 0:
            continue
        base = full.copy()
        base[up] -= 1
        label = LABEL_OF_UP[up]
        solver = UpcardSolver(rules, pr, base, up, completion_memo=memo)
        pol, resc = policies[up]
        outs = {a2: solver.run(a2=a2, policy=pol, resc_pol=resc) for a2 in a2s}
        ev = 0.0
        for i, j, w in solver.start_weights():
            opts, classes = solver.hand_options(i, j, outs, None)
            if "N" in opts:
                ev += w * opts["N"]
                continue
            s = solver.state_of(i, j)
            if i == j and VALUE_RANKS[i] in chart.get("pair", {}):
                cell = chart["pair"][VALUE_RANKS[i]].get(label, "H")
            else:
                cell = _row_cell(chart, bool(sp.soft[s]), int(sp.best[s]), label) or "H"
            code = cell_code(cell, 2, pr.dbl_any)
            if code == "P" and i == j and pr.max_hands >= 2:
                v = split_with_suits(solver, i, policy=pol, resc_pol=resc)[0]
                v += -solver.q_nat(s) if pr.peek else 0.0
            else:
                v = code_value(code, opts, classes)
            ev += w * v
        per[up] = ev
        total += float(full[up]) / n_full * ev
    return per if by_upcard else total
