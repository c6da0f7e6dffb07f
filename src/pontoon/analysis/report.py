"""The ``pontoon analyze`` report as a plain dict (docs: shared/spec/analysis-json.md)."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from pontoon.analysis.sidebets import side_bets
from pontoon.analysis.strategy import NOTATION, solve
from pontoon.errors import BetError
from pontoon.money import dumps, fmt, money_json, to_money
from pontoon.rules.model import CasinoRules


def _plain(v: Any) -> Any:
    if isinstance(v, Decimal):  # exact: written by money.dumps from the decimal's text (issue 10 item 10)
        return int(v) if v == v.to_integral_value() else money_json(v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v


SPLIT_NAMES = {
    "cdz": "CDZ- (the unsplit hand's best option)",
    "cdp1": "CDP1 (re-optimised for the shoe less the pair cards of the first split, then kept)",
    "cdp": "CDP (re-optimised for every number of pair cards out)",
}
# what stays approximate by design (docs/analysis.md, "Exact and approximate")
SUIT_SPLIT = (
    "split hands decide by card values, not by the suits they see (their hit or stand on a two-card hand "
    "that can become a 6-7-8 or 7-7-7 is chosen with that 21 paid its average over the suits of the full "
    "shoe): a strategy restriction whose value is exact (each split hand's 6-7-8 / 7-7-7 is paid by its "
    "suits given the suits of the pair and the up card, and optimal play chooses the split in each suit "
    "class of the pair: analysis/split_suits.py)"
)
CHART = "the basic chart is a strategy restriction (total-dependent with card-count exceptions)"
ONE_WAGER_EXACT = (
    "exact: P(dealer Pontoon and some split hand alive) = P(the Pontoon card) x (1 - P(every split hand "
    "busts, makes 21 or is rescued | that card out first)), the hands played in turn over the exact cards "
    "the earlier hands used (analysis/onewager.py); computed wherever the split may be played. A split "
    "that stays below the hand's best other option even with the least loss its hands allow is not "
    "played, and its own value keeps the union approximation (no edge or chart depends on it); so does a "
    "split past the work limit of 50,000 partial box states (2-2 to 4-4 against an Ace or ten in 6 decks, "
    "which are never played)"
)
ONE_WAGER_UNION = (
    "FED (001 Splits, rulings 6 and 26) under CDP: a split box's one-wager loss to a dealer Pontoon is "
    "the union over the hands of each hand's exact P(Pontoon and alive), taken as if the hands were alive "
    "independently given the Pontoon (CDP's play depends on the pair cards out when the split is over, "
    "which no hand-by-hand play knows, so the exact joint computation does not apply)"
)
ONE_WAGER_PLAY = (
    "FED: optimal split hands decide as if a live hand lost nothing to a dealer Pontoon (the one wager "
    "is charged to the box afterwards, exactly), or are played as the chart plays them where that loses "
    "less: a strategy restriction whose value is exact"
)


def approximations(rules: CasinoRules, split_strategy: str) -> list[str]:
    """What stays approximate by design for these rules and post-split strategy."""
    out = []
    if rules.split_loses_one_wager and rules.max_split_hands >= 2:
        if split_strategy == "cdp":
            out.append(ONE_WAGER_UNION)
        out.append(ONE_WAGER_PLAY)
    if rules.is_pontoon and rules.max_split_hands >= 2:
        out.append(SUIT_SPLIT)
    out.append(CHART)
    return out


def rules_dict(rules: CasinoRules) -> dict[str, Any]:
    return _plain(rules.model_dump())  # type: ignore[no-any-return]


def analyze(
    rules: CasinoRules, bet: Decimal | float | int | None = None, split_strategy: str = "cdp1"
) -> dict[str, Any]:
    """Run the whole analysis and return the report object (``split_strategy``: cdz, cdp1, cdp)."""
    if bet is not None:
        # bounded before the solver sees it: an enormous bet (1e999999999) hung the solver
        bet = to_money(bet, "bet")
        if not rules.table_min <= bet <= rules.table_max:
            raise BetError(
                f"bet {fmt(bet)}: the main wager is {fmt(rules.table_min)} to {fmt(rules.table_max)} at this table"
            )
    t0 = time.perf_counter()
    sol = solve(rules, bet, split_strategy=split_strategy)
    strategy = sol.strategy
    pair7 = strategy.get("pair", {}).get("7", {}).get("7")
    report: dict[str, Any] = {
        "rules": rules_dict(rules),
        "bet": _plain(bet if bet is not None else rules.table_min),
        "house_edge": {"basic": -float(sol.ev_basic), "optimal": -float(sol.ev_optimal)},
        "dealer": {u: {k: float(v) for k, v in d.items()} for u, d in sol.dealer.items()},
        "side_bets": side_bets(rules, pair7),
        "strategy": strategy,
        "notation": NOTATION,
        "by_upcard": {
            u.label: {"probability": u.prob, "ev_basic": float(u.ev_basic), "ev_optimal": float(u.ev_optimal)}
            for u in sol.upcards
        },
        "method": {
            "optimal": (
                "composition-dependent: each two-card hand against each upcard, every later decision on the "
                "exact cards held, suits tracked for 6-7-8 / 7-7-7 and the Super Bonus (the starting hand's, "
                "and a pair of 6s, 7s or 8s split or not by its suits and the up card's); dealer drawn from "
                "the shoe less every card seen"
            ),
            "splits": (
                "exact for the post-split strategy: every pair card drawn is resplit while fewer than "
                "max_split_hands hands exist (Aces once unless resplit_aces); each split hand's value is "
                "averaged over how the split's second cards fall, with the pair cards and the non-pair "
                "second cards known to be out removed from its shoe (E. Farmer's removal recursion); "
                f"split hands played {SPLIT_NAMES[split_strategy]}"
            ),
            "approximations": approximations(rules, split_strategy),
        },
        "seconds": 0.0,
    }
    if rules.split_loses_one_wager and rules.max_split_hands >= 2 and split_strategy != "cdp":
        report["method"]["one_wager"] = ONE_WAGER_EXACT
    if rules.dealer_hole_card and rules.dealer_peeks:
        report["dealer_note"] = "dealer probabilities are before the peek (naturals included)"
    report["seconds"] = time.perf_counter() - t0
    return report


def to_json(report: dict[str, Any]) -> str:
    return dumps(report, indent=2)
