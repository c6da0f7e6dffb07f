"""The math report of a table (issue 23): the analysis, the main wager's outcome distributions
under the chart and optimal play, every side wager's pay table, the exposure at the table limits
and the bankroll risk of flat betting. A plain dict, written as JSON by ``pontoon report``
(docs/analysis.md, "The math report")."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from pontoon.analysis.distribution import approximation, round_distributions
from pontoon.analysis.paytables import pay_tables
from pontoon.analysis.report import _plain, analyze
from pontoon.analysis.risk import risk_report
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules

RISK_NOTE = (
    "risk of ruin, trip ruin and the bands are the diffusion (Brownian motion) approximations of "
    "Schlesinger's Blackjack Attack, from the exact mean and standard deviation of the chart's round"
)


def main_exposure(rules: CasinoRules) -> dict[str, Any]:
    """The largest payment one box's main wager can win at the table maximum: the best single-hand
    pay (doubled where doubling is allowed) on every hand a split can make, plus the top Super Bonus;
    and the table's exposure per round with every box at the maximum."""
    single = max(
        rules.pontoon_pays,
        rules.regular_pays,
        rules.pays_5_card_21,
        rules.pays_6_card_21,
        rules.pays_7_card_21,
        rules.pays_678_spades,
        rules.pays_777_spades,
        rules.pays_678_suited,
        rules.pays_777_suited,
    )
    doubled = max(single, Decimal(2))  # a doubled hand wins 1 to 1 on twice the wager
    hands = rules.max_split_hands
    multiple = max(single, doubled * hands if rules.double_after_split else max(doubled, single * hands))
    top = (
        max((t.amount for t in rules.super_bonus_tiers), default=Decimal(0))
        if rules.super_bonus
        else Decimal(0)
    )
    largest = rules.table_max * multiple + top
    return {
        "largest_multiple": multiple,
        "largest_payout": largest,
        "max_exposure_per_round": largest * rules.max_boxes,
    }


def math_report(
    rules: CasinoRules,
    bet: Decimal | None = None,
    bankroll: Decimal | None = None,
    goal: Decimal | None = None,
    trip_rounds: int = 1000,
    exact_splits: bool = False,
) -> dict[str, Any]:
    """The whole report for one table (``bankroll`` and ``goal`` in money; default 100 bets;
    ``exact_splits``: every split round's distribution exact, ``distribution.round_distributions``)."""
    t0 = time.perf_counter()
    base = analyze(rules, bet)
    unit = rules.table_min if bet is None else bet
    bankroll = unit * 100 if bankroll is None else bankroll
    if bankroll <= 0:
        raise PontoonError(f"--bankroll {bankroll}: give a positive amount")
    if goal is not None and goal <= 0:
        raise PontoonError(f"--goal {goal}: give a positive amount")
    basic, optimal = round_distributions(rules, (True, False), bet, exact_splits=exact_splits)
    dists = {"basic": basic, "optimal": optimal}
    pair7 = base["strategy"].get("pair", {}).get("7", {}).get("7")
    hits = pair7 is None or pair7.split(";")[0].strip() == "H"
    d = dists["basic"]
    risk = risk_report(
        d["mean"], d["sd"], float(bankroll / unit), None if goal is None else float(goal / unit), trip_rounds
    )
    risk.update({"unit": unit, "bankroll": bankroll, "strategy": "basic"})
    if goal is not None:
        risk["win_goal"] = goal
    out = dict(base)
    out["distribution"] = dists
    out["main_wager"] = {
        "house_edge": {k: v["house_edge"] for k, v in dists.items()},
        "element_of_risk": {k: v["element_of_risk"] for k, v in dists.items()},
        "sd": {k: v["sd"] for k, v in dists.items()},
        **main_exposure(rules),
    }
    out["side_wagers"] = pay_tables(rules, hits)
    out["risk"] = risk
    method = dict(base["method"])
    method["approximations"] = [
        *method["approximations"],
        *(approximation(x) for x in dists.values()),
        RISK_NOTE,
    ]
    out["method"] = method
    out["seconds"] = time.perf_counter() - t0
    return _plain(out)  # type: ignore[no-any-return]
