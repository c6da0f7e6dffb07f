"""Policies for the casino env, and the exact grading of a strategy chart by the analyser.

A chart is the analyser's shape (``pontoon analyze --json``'s ``strategy``; see
``pontoon.sim.tables``): ``{"hard": {TOTAL: {UPCARD: CODE}}, "soft": ..., "pair": ..., "rescue": ...}``
with codes H S D Ds P R Rs (and F/S for rescue), card-count exceptions ``"S; H with 4+ cards"``.

``ChartPolicy`` plays a chart in ``PontoonEnv`` from the observation alone. ``chart_ev`` is the
chart's exact expectation per unit of the main wager for one box off the top of a full shoe, by
the analyser's own method (``analysis/strategy.py``: the basic-strategy expectation, with the
chart in place of the analyser's chart), so ``chart_ev(rules, basic_strategy(rules))`` equals the
analyser's ``ev_basic``. Insurance is never taken by a chart (a chart has no insurance row).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from pontoon.errors import PontoonError
from pontoon.rl.casino_env import ACTION_INDEX, ACTIONS
from pontoon.rules.model import CasinoRules

CODE_NAMES = ("H", "S", "D", "Ds", "P", "R", "Rs")  # sim kernel codes 0..6 (pontoon.sim._kernels)


class Policy(Protocol):
    name: str

    def act(self, obs: Mapping[str, Any], rng: np.random.Generator) -> int: ...


class RandomPolicy:
    """A uniformly random legal action."""

    name = "random"

    def act(self, obs: Mapping[str, Any], rng: np.random.Generator) -> int:
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))


class ChartPolicy:
    """Plays a strategy chart (see the module docstring); never insures."""

    def __init__(self, chart: Mapping[str, Any], name: str = "chart") -> None:
        from pontoon.sim.tables import strategy_table

        self.chart = dict(chart)
        self.name = name
        self.table = strategy_table(chart)  # int8[kind, total, ncards, upcard] (sim/tables.py)

    def code(self, kind: int, total: int, ncards: int, up: int) -> int:
        return int(self.table[kind, min(total, 31), min(ncards, 9), up])

    def act(self, obs: Mapping[str, Any], rng: np.random.Generator | None = None) -> int:
        mask = obs["action_mask"]

        def ok(verb: str) -> bool:
            return bool(mask[ACTION_INDEX[verb]])

        legal = [ACTIONS[i] for i in np.flatnonzero(mask)]
        if legal == ["stand"]:
            return ACTION_INDEX["stand"]
        total, soft, n, up = int(obs["total"]), int(obs["soft"]), int(obs["num_cards"]), int(obs["upcard"])
        if obs["doubled"]:
            if ok("rescue") and self.code(3, total, n, up) == 1:
                return ACTION_INDEX["rescue"]
            return ACTION_INDEX["stand"] if ok("stand") else ACTION_INDEX[legal[0]]
        c = CODE_NAMES[self.code(1 if soft else 0, total, n, up)]
        if obs["pair"] and n == 2:
            pc = self.code(2, 1 if soft else total // 2, n, up)
            if pc == 4 and ok("split"):
                return ACTION_INDEX["split"]
            if 0 <= pc != 4:
                c = CODE_NAMES[pc]  # a pair row may say how to play the pair unsplit (analyser's charts)
        order = {
            "H": ("hit", "stand"),
            "S": ("stand", "hit"),
            "D": ("double", "hit", "stand"),
            "Ds": ("double", "stand", "hit"),
            "P": ("hit", "stand"),
            "R": ("surrender", "hit", "stand"),
            "Rs": ("surrender", "stand", "hit"),
        }[c]
        for verb in order:
            if ok(verb):
                return ACTION_INDEX[verb]
        return ACTION_INDEX[legal[0]]


def load_policy(spec: str, rules: CasinoRules) -> tuple[Policy, dict[str, Any] | None]:
    """``basic`` (the analyser's chart for these rules), ``random``, or a chart JSON file.
    Returns the policy and its chart (None for ``random``)."""
    if spec == "random":
        return RandomPolicy(), None
    if spec == "basic":
        from pontoon.analysis.strategy import basic_strategy

        chart = basic_strategy(rules)
        return ChartPolicy(chart, "basic"), chart
    p = Path(spec)
    if not p.is_file():
        raise PontoonError(f"policy {spec!r}: not 'basic', 'random' or an existing chart JSON file")
    from pontoon.sim.tables import load_chart

    chart = load_chart(p)
    return ChartPolicy(chart, p.name), chart


def chart_ev(rules: CasinoRules, chart: Mapping[str, Any]) -> float:
    """Exact expectation of playing ``chart`` (per unit of the main wager, one box, full shoe)."""
    from pontoon.analysis import kernels as K
    from pontoon.analysis.chart_ev import code_value
    from pontoon.analysis.player import CODE_TO_POLICY, Params, UpcardSolver
    from pontoon.analysis.states import UPCARD_INDEX, shoe_counts, state_space
    from pontoon.sim.tables import strategy_table

    tab = strategy_table(chart)
    pr = Params.of(rules)
    sp = state_space()
    full = shoe_counts(rules.pack, rules.decks)
    n_full = int(full.sum())
    total = 0.0
    for up in UPCARD_INDEX:
        if full[up] <= 0:
            continue
        pts = up + 1  # value index 0 = Ace (1 point) .. 9 = ten-value cards
        base = full.copy()
        base[up] -= 1
        solver = UpcardSolver(rules, pr, base, up)

        def code_of(s: int, pts: int = pts) -> str:
            kind = 1 if sp.soft[s] else 0
            return CODE_NAMES[int(tab[kind, int(sp.best[s]), min(int(sp.ncards[s]), 9), pts])]

        pol = np.full(sp.size, K.HIT, dtype=np.int64)
        for k in np.nonzero(solver.active & (sp.ncards >= 2) & (sp.best < 21))[0]:
            pol[k] = CODE_TO_POLICY.get(code_of(int(k)), K.HIT)
        # rescue: 000 3.11.4 (rulings 13); the chart's row is the doubled total (three cards)
        resc = np.zeros(22, dtype=np.int64)
        for t in range(22):
            resc[t] = int(tab[3, t, 3, pts])
        a2s = (0, 1, 2) if pr.dbl_any else (0,)
        outs = {a2: solver.run(a2=a2, policy=pol, resc_pol=resc) for a2 in a2s}
        ev = 0.0
        for i, j, w in solver.start_weights():
            opts, classes = solver.hand_options(i, j, outs, None)
            if "N" in opts:
                ev += w * opts["N"]
                continue
            s = solver.state_of(i, j)
            code = code_of(s)
            pc = int(tab[2, i + 1, 2, pts]) if i == j else -1
            if 0 <= pc != 4:
                code = CODE_NAMES[pc]  # the pair played unsplit as its pair row says (as strategy.py)
            if pc == 4 and pr.max_hands >= 2:
                v = solver.split_value(i, policy=pol, resc_pol=resc)
                if v == v:  # not NaN: the pair can be split here
                    ev += w * (v + (-solver.q_nat(s) if pr.peek else 0.0))
                    continue
            ev += w * code_value(code, opts, classes)
        total += float(full[up]) / n_full * ev
    return total
