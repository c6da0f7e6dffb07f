"""Recorded hold against theory (``pontoon history --hold``, issue 23 item 5; Maryland COMAR
36.05.03: investigation of a hold outside a 95% interval).

The hold of a wager kind is the house's win per unit of initial wager, -net / initial. Its theory
is the exact house edge (the main wager: the chart's, the Super Bonus at the table minimum, from
``distribution``; a side wager: its pay table). With per-round initial wagers b_i and a round's
standard deviation sigma (units of the wager), the hold's standard error is
sigma sqrt(sum b_i^2) / sum b_i, and the 95% interval is the edge +- 1.96 standard errors (normal).
"""

from __future__ import annotations

import math
from typing import Any

from pontoon.analysis.distribution import round_distribution
from pontoon.analysis.paytables import pay_tables
from pontoon.rules.model import CasinoRules

Z95 = 1.959963984540054


def theory(rules: CasinoRules) -> dict[str, tuple[float, float]]:
    """{kind: (house edge, standard deviation per unit of initial wager)}."""
    d = round_distribution(rules, basic=True)
    out = {"main": (d["house_edge"], d["sd"])}
    for kind, t in pay_tables(rules).items():
        if "house_edge" in t:
            out[kind] = (t["house_edge"], t["sd"])
    return out


def hold_rows(rules: CasinoRules, recorded: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per recorded wager kind: hold, theory, the 95% interval and whether it is outside."""
    th = theory(rules)
    rows = []
    for kind, r in sorted(recorded.items()):
        initial = float(r["initial"])
        if kind not in th or initial <= 0:
            rows.append({"kind": kind, "rounds": r["rounds"], "note": "no theoretical value for this wager"})
            continue
        edge, sd = th[kind]
        hold = -float(r["net"]) / initial
        se = sd * math.sqrt(float(r["initial_sq"])) / initial
        lo, hi = edge - Z95 * se, edge + Z95 * se
        rows.append(
            {
                "kind": kind,
                "rounds": r["rounds"],
                "initial": r["initial"],
                "wagered": r["wagered"],
                "net": r["net"],
                "hold": hold,
                "theory": edge,
                "interval": [lo, hi],
                "outside": not lo <= hold <= hi,
            }
        )
    return rows
