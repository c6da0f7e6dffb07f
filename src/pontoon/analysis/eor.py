"""Effects of removal: the exact change in expectation from removing one card of each value.

For a shoe (default the rules' full shoe) and each card value r (A, 2..9, T = any ten-value card),
the shoe less one r is analysed exactly, and the change in the player's expectation is reported:

* main game under the *full shoe's* basic chart, played unchanged (``chart_ev``: what a counter
  without indices plays), and under optimal composition-dependent play (``strategy.solve`` on
  the smaller shoe);
* every side wager the table offers (pair, bonus, Pandemonium, insurance), per unit of that wager,
  over card identities (the card removed is one of its value's identities; the bets treat suits and
  the three pictures alike, so which one does not matter).

Normalisation ("per deck", as players publish effects of removal): a one-card change on a shoe of
N cards is scaled by (N - 1) / (D - 1), D the cards of one deck (48 or 52). This is Griffin's
scaling of a d-deck effect to its one-deck equivalent (the effect of one card is about inversely
proportional to the cards left), so figures for 4, 6 and 8 decks are comparable with each other
and with published one-deck tables. ``raw`` keeps the unscaled one-card change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pontoon.analysis.chart_ev import chart_ev
from pontoon.analysis.sidebets import Counts, bonus_bet, full_counts, insurance_bet, pair_bet, pandemonium_bet
from pontoon.analysis.states import VALUE_RANKS, shoe_counts, value_index
from pontoon.analysis.strategy import basic_strategy, solve
from pontoon.rules.model import CasinoRules

MAIN = ("basic", "optimal")


def side_wagers(rules: CasinoRules) -> list[str]:
    """The side wagers this table offers, in a fixed order."""
    out = []
    if rules.pair_bet:
        out.append("pair")
    if rules.bonus_bet:
        out.append("bonus")
    if rules.pandemonium_bet:
        out.append("pandemonium")
    if rules.insurance:
        out.append("insurance")
    return out


def side_ev(rules: CasinoRules, name: str, counts: Counts) -> float:
    """The player's expectation per unit of the side wager ``name`` dealt from ``counts``."""
    fn = {"pair": pair_bet, "bonus": bonus_bet, "pandemonium": pandemonium_bet, "insurance": insurance_bet}[
        name
    ]
    return -fn(rules, counts)["house_edge"]


def identities_of(rules: CasinoRules, shoe: np.ndarray) -> Counts:
    """Card identities for a shoe given by value: each value's copies shared as evenly as the full
    shoe shares them (a removal takes the first identity of its value that has most copies left)."""
    full = full_counts(rules)
    base = shoe_counts(rules.pack, rules.decks)
    out = dict(full)
    for r in range(10):
        missing = int(base[r]) - int(shoe[r])
        keys = [k for k in full if value_index(k[0]) == r]
        for _ in range(max(0, missing)):
            k = max(keys, key=lambda x: out[x])
            out[k] -= 1
    return out


def shoe_values(rules: CasinoRules, shoe: np.ndarray, what: tuple[str, ...]) -> dict[str, float]:
    """The expectations named in ``what`` (basic, optimal, side wagers) for the shoe ``shoe``."""
    out: dict[str, float] = {}
    tup = tuple(int(x) for x in shoe)
    if "basic" in what:
        out["basic"] = float(chart_ev(rules, basic_strategy(rules), shoe))  # type: ignore[arg-type]
    if "optimal" in what:
        out["optimal"] = float(solve(rules, shoe=tup).ev_optimal)
    sides = [w for w in what if w not in MAIN]
    if sides:
        ident = identities_of(rules, shoe)
        for w in sides:
            out[w] = side_ev(rules, w, ident)
    return out


@dataclass(frozen=True)
class Effects:
    """Effects of removal of one shoe: ``base`` the shoe's expectations, ``raw[what][r]`` the
    one-card change, ``per_deck[what][r]`` the same scaled as published (module docstring)."""

    rules: CasinoRules
    shoe: tuple[int, ...]
    base: dict[str, float]
    raw: dict[str, list[float]]
    per_deck: dict[str, list[float]]
    scale: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.preset,
            "decks": self.rules.decks,
            "shoe": list(self.shoe),
            "ranks": list(VALUE_RANKS),
            "base": self.base,
            "per_deck": {k: dict(zip(VALUE_RANKS, v, strict=True)) for k, v in self.per_deck.items()},
            "raw": {k: dict(zip(VALUE_RANKS, v, strict=True)) for k, v in self.raw.items()},
            "scale": self.scale,
        }


def removal_changes(
    values: Callable[[np.ndarray], dict[str, float]], shoe: np.ndarray
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """(values of ``shoe``, each value's change from removing one card of each value index; NaN
    where the shoe has none): the removal itself, for any valuation (the analysis, or the round
    engine over every ordering in tests/analysis/test_eor.py)."""
    full = np.asarray(shoe, dtype=np.int64)
    base = values(full)
    raw: dict[str, list[float]] = {w: [] for w in base}
    for r in range(10):
        less = full.copy()
        less[r] -= 1
        got = values(less) if full[r] > 0 else dict.fromkeys(base, float("nan"))
        for w in base:
            raw[w].append(got[w] - base[w])
    return base, raw


def deck_size(rules: CasinoRules) -> int:
    return int(shoe_counts(rules.pack, 1).sum())


def effects_of_removal(
    rules: CasinoRules, shoe: np.ndarray | None = None, what: tuple[str, ...] | None = None
) -> Effects:
    """Effects of removal for ``rules`` on ``shoe`` (default the full shoe), for ``what`` (default
    basic, optimal and every side wager offered)."""
    full = shoe_counts(rules.pack, rules.decks) if shoe is None else np.asarray(shoe, dtype=np.int64)
    wh = what if what is not None else (*MAIN, *side_wagers(rules))
    base, raw = removal_changes(lambda shoe: shoe_values(rules, shoe, wh), full)
    scale = (int(full.sum()) - 1) / (deck_size(rules) - 1)
    per = {w: [x * scale for x in v] for w, v in raw.items()}
    return Effects(rules, tuple(int(x) for x in full), base, raw, per, scale)


def deck_removal_check(rules: CasinoRules, what: str = "optimal") -> tuple[float, float, float]:
    """(sum over one deck's cards of the one-card changes, the exact change from removing that
    deck, their difference: what the linear approximation leaves out), for tests/analysis/test_eor.py.
    Under a fixed chart the weighted sum is exactly zero (the expectation of a fixed strategy is a
    martingale as cards are removed at random: a burned card changes nothing on average), and the
    change from removing a whole deck is the second-order "number of decks" effect."""
    eff = effects_of_removal(rules, what=(what,))
    one = shoe_counts(rules.pack, 1)
    full = np.array(eff.shoe, dtype=np.int64)
    linear = float(sum(one[r] * eff.raw[what][r] for r in range(10)))
    exact = shoe_values(rules, full - one, (what,))[what] - eff.base[what]
    return linear, exact, abs(exact - linear)
