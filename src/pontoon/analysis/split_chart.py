"""FED's splits that optimal play plays by the chart (``strategy.solve``): split hands' chains decide
as if a live hand lost nothing to a dealer Pontoon (001 "Splits", rulings 6 and 26: the box loses
one wager in all), so where the chart's play of a split loses less to that rule, optimal play
takes the chart's play of the split's hands (6 decks: 8-8 against a ten). The simulator's optimal
table (``optimal_table``) and the outcome distribution (``distribution``) play those hands by the
chart too, so that all three play one policy."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pontoon.analysis.player import Params
from pontoon.analysis.strategy import solve
from pontoon.rules.model import CasinoRules

ChartSplit = tuple[np.ndarray, np.ndarray | None, float]  # the chart's policy, its rescues, the split's value


def chart_splits(rules: CasinoRules) -> dict[int, dict[int, ChartSplit]]:
    """{up card's value index: {pair's value index: (the chart's policy of every state, its rescue
    policy, the split's exact value)}} for the splits optimal play takes as the chart plays them;
    empty unless a split box loses one wager to a dealer Pontoon (elsewhere the chains are optimal)."""
    if not Params.of(rules).split_one_wager:
        return {}
    return _cached(rules.model_dump_json())


@lru_cache(maxsize=8)
def _cached(key: str) -> dict[int, dict[int, ChartSplit]]:
    out: dict[int, dict[int, ChartSplit]] = {}
    for ur in solve(CasinoRules.model_validate_json(key)).upcards:
        det = ur.detail
        for p, v in det["split_basic"].items():
            if det["split_opt"].get(p) == v:  # strategy.solve: the chart's split, not the chains'
                out.setdefault(int(det["solver"].up), {})[p] = (det["policy"], det["rescue"], float(v))
    return out
