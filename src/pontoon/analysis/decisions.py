"""The two-card decisions of a basic chart, and their values on any shoe (for counts and indices).

A decision is a starting hand (two card values i <= j) against an up card: the chart's play and
the best other play on the full shoe. Its value on a shoe is the difference alternative - chart
play, each option valued exactly by ``strategy.solve`` on that shoe (the option first, optimal
play after it, per unit of the hand's original wager: ``UpcardResult.hands``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from pontoon.analysis.chart_ev import LABEL_OF_UP, cell_code
from pontoon.analysis.states import UPCARD_INDEX, UPCARD_LABELS, VALUE_RANKS, shoe_counts, state_space
from pontoon.analysis.strategy import Solution, basic_strategy, solve
from pontoon.rules.model import CasinoRules

OPTION_OF_CODE = {"S": "S", "H": "H", "D": "D", "Ds": "D", "P": "P", "R": "R", "Rs": "R"}
UP_OF_LABEL = dict(zip(UPCARD_LABELS, UPCARD_INDEX, strict=True))
NAMES = {"S": "stand", "H": "hit", "D": "double", "P": "split", "R": "surrender"}


@dataclass(frozen=True)
class Decision:
    """One starting hand against one up card: ``play`` the chart's option, ``alt`` the best other."""

    i: int
    j: int
    up: int
    play: str
    alt: str
    weight: float  # chance of this hand and up card from the full shoe
    margin: float  # value(alt) - value(play) on the full shoe (<= 0 where the chart is right)

    @property
    def hand(self) -> str:
        """'T6', 'A7', '88' (pairs by value)."""
        return f"{VALUE_RANKS[self.j]}{VALUE_RANKS[self.i]}" if self.i != 0 else f"A{VALUE_RANKS[self.j]}"

    @property
    def up_label(self) -> str:
        return LABEL_OF_UP[self.up]

    @property
    def label(self) -> str:
        return f"{self.hand} v {LABEL_OF_UP[self.up]}: {NAMES[self.play]}/{NAMES[self.alt]}"

    @property
    def row(self) -> str:
        """The chart row: 'hard 16', 'soft 18', 'pair 8'."""
        sp = state_space()
        cnt = [0] * 10
        cnt[self.i] += 1
        cnt[self.j] += 1
        s = sp.index[tuple(cnt)]
        if self.i == self.j:
            return f"pair {VALUE_RANKS[self.i]}"
        return f"{'soft' if sp.soft[s] else 'hard'} {int(sp.best[s])}"


def hand_options(sol: Solution) -> dict[tuple[int, int, int], dict[str, float]]:
    """(i, j, up) -> the options' values on the solution's shoe."""
    out: dict[tuple[int, int, int], dict[str, float]] = {}
    for ur in sol.upcards:
        up = UP_OF_LABEL[ur.label]
        for (i, j), opts in ur.hands.items():
            if "N" not in opts:
                out[(i, j, up)] = {k: float(v) for k, v in opts.items()}
    return out


def chart_decisions(rules: CasinoRules) -> list[Decision]:
    """Every two-card decision of the rules' basic chart on the full shoe."""
    chart: dict[str, Any] = basic_strategy(rules)
    sol = solve(rules)
    full = shoe_counts(rules.pack, rules.decks)
    n = int(full.sum())
    sp = state_space()
    dbl_any = rules.double_on == "any"
    out = []
    for (i, j, up), opts in hand_options(sol).items():
        label = LABEL_OF_UP[up]
        cnt = [0] * 10
        cnt[i] += 1
        cnt[j] += 1
        s = sp.index[tuple(cnt)]
        if i == j and VALUE_RANKS[i] in chart["pair"]:
            cell = chart["pair"][VALUE_RANKS[i]].get(label, "H")
        else:
            row = chart["soft" if sp.soft[s] else "hard"].get(str(int(sp.best[s])), {})
            cell = row.get(label, "H")
        play = OPTION_OF_CODE.get(cell_code(cell, 2, dbl_any), "H")
        if play not in opts:
            play = "H"
        others = {k: v for k, v in opts.items() if k != play}
        if not others:
            continue
        alt = max(others, key=lambda k: others[k])
        c = full.copy()
        w = c[up] / n
        c[up] -= 1
        w *= c[i] / (n - 1)
        c[i] -= 1
        w *= c[j] / (n - 2) * (1 if i == j else 2)
        out.append(Decision(i, j, up, play, alt, float(w), opts[alt] - opts[play]))
    return out


def decision_values(decisions: list[Decision], sol: Solution) -> np.ndarray:
    """value(alt) - value(play) of each decision on the solution's shoe (NaN where the shoe cannot
    deal the hand or an option is not offered there)."""
    opts = hand_options(sol)
    out = np.full(len(decisions), np.nan)
    for k, d in enumerate(decisions):
        o = opts.get((d.i, d.j, d.up))
        if o is not None and d.play in o and d.alt in o:
            out[k] = o[d.alt] - o[d.play]
    return out
