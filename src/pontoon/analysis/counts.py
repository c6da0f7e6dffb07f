"""Card-counting systems as data, and how well each one fits a table's exact effects of removal.

A system is a tag per card value (A, 2..9, T = every ten-value card) and an initial running count
(IRC) of ``irc_per_deck * decks + irc_constant``; ``irc_per_deck`` None means "minus the tags of
one deck", so that the count ends at zero after the whole shoe (Walker's adaptation of Hi-Lo to
48-card decks: the count starts at -4 per deck, -24 for six decks). The true count is the running
count divided by the decks left (decks of the table's pack: 48 or 52 cards).

Figures (Griffin, The Theory of Blackjack, ch. 4), all over the cards of one deck, each card
weighted as one card:

* betting correlation (BC): the correlation of the tags with the effects of removal of the full
  shoe's basic chart (analysis/eor.py);
* insurance correlation (IC): the correlation with the insurance bet's effects of removal;
* playing efficiency (PE): for each two-card decision of the chart (analysis/decisions.py), the
  exact effects of removal of its margin (value of the best other play - value of the chart's
  play) give, at a depth of k cards dealt, a margin that varies over shoes with standard deviation
  s = sqrt(k (N - k) / (N - 1) * Var(E)) (the linear approximation, hypergeometric dealing). A
  player who knew the margin would gain P(hand) * s * L(|m| / s) (L(x) = phi(x) - x (1 - Phi(x)),
  the normal loss integral, m the full-shoe margin); one who estimates it from the count (linear
  regression on it, correlation rho with the decision's effects) gains P(hand) * |rho| s *
  L(|m| / (|rho| s)). PE = the counter's gain over the perfect gain, summed over the decisions,
  averaged over depths from 0 to the penetration.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pontoon.analysis.decisions import chart_decisions, decision_values
from pontoon.analysis.eor import Effects, deck_size, effects_of_removal
from pontoon.analysis.states import VALUE_RANKS, shoe_counts
from pontoon.analysis.strategy import solve
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules


class CountError(PontoonError):
    """A count system that cannot be read."""


@dataclass(frozen=True)
class CountSystem:
    name: str
    tags: tuple[float, ...]  # by value index: A, 2..9, T
    irc_per_deck: float | None = 0.0  # None: minus one deck's tags (the count ends at zero)
    irc_constant: float = 0.0

    def deck_sum(self, pack: str) -> float:
        one = shoe_counts(pack, 1)
        return float(sum(t * n for t, n in zip(self.tags, one, strict=True)))

    def balanced(self, pack: str) -> bool:
        """Whether the tags of a deck of ``pack`` sum to zero."""
        return self.deck_sum(pack) == 0

    def irc(self, pack: str, decks: int) -> float:
        per = -self.deck_sum(pack) if self.irc_per_deck is None else self.irc_per_deck
        return per * decks + self.irc_constant

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tags": dict(zip(VALUE_RANKS, self.tags, strict=True)),
            "irc_per_deck": self.irc_per_deck,
            "irc_constant": self.irc_constant,
        }


SYSTEMS: dict[str, CountSystem] = {
    "hi-lo": CountSystem("Hi-Lo", (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1)),
    # KO: unbalanced on 52 cards (+4 a deck); the IRC per deck balances it, +4 sets the pivot
    "ko": CountSystem("KO", (-1, 1, 1, 1, 1, 1, 1, 0, 0, -1), irc_per_deck=None, irc_constant=4),
    "hi-opt-ii": CountSystem("Hi-Opt II", (0, 1, 1, 2, 2, 1, 1, 0, 0, -2)),
    "zen": CountSystem("Zen", (-1, 1, 1, 2, 2, 2, 1, 0, 0, -2)),
    # K. Walker, The Pro's Guide to Spanish 21 and Australian Pontoon (2008), ch. 5: Hi-Lo tags,
    # the running count started at -4 per 48-card deck (-24 for six decks)
    "walker-hi-lo": CountSystem(
        "Walker's Spanish 21 Hi-Lo", (-1, 1, 1, 1, 1, 1, 0, 0, 0, -1), irc_per_deck=None
    ),
}


def _tag(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or abs(v) > 100:
        raise CountError(f"count file {where}: give a number from -100 to 100, not {str(v)[:40]!r}")
    return float(v)


def load_system(path: str | Path) -> CountSystem:
    """A user's count from a JSON file: {"name": ..., "tags": {"A": -1, "2": 1, ..., "T": -1},
    "irc_per_deck": number or null, "irc_constant": number} (irc fields optional, default 0)."""
    p = Path(path)
    try:
        if p.stat().st_size > 1_000_000:
            raise CountError(f"count file {str(p)!r} is larger than 1 MB")
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as err:
        raise CountError(f"cannot read count file {str(p)!r}: {err.strerror or err}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CountError(f"count file {str(p)!r} is not JSON: {err}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tags"), dict):
        raise CountError(
            f"count file {str(p)!r}: expected an object with 'tags': {{'A': .., '2': .., 'T': ..}}"
        )
    tags_in = {str(k).upper(): v for k, v in data["tags"].items()}
    for alias in ("10", "J", "Q", "K"):
        if alias in tags_in:
            tags_in.setdefault("T", tags_in.pop(alias))
    unknown = sorted(set(tags_in) - set(VALUE_RANKS))
    missing = [r for r in VALUE_RANKS if r not in tags_in]
    if unknown or missing:
        raise CountError(
            f"count file {str(p)!r}: tags must name exactly A, 2..9 and T"
            + (f"; unknown {', '.join(unknown)}" if unknown else "")
            + (f"; missing {', '.join(missing)}" if missing else "")
        )
    where = repr(str(p))
    tags = tuple(_tag(tags_in[r], f"{where}, tag {r}") for r in VALUE_RANKS)
    per = data.get("irc_per_deck", 0.0)
    irc_per = None if per is None else _tag(per, f"{where}, irc_per_deck")
    const = _tag(data.get("irc_constant", 0.0), f"{where}, irc_constant")
    name = str(data.get("name", p.stem))[:60]
    return CountSystem(name, tags, irc_per, const)


def find_system(name: str) -> CountSystem:
    """A built-in system by id, or a user's JSON file."""
    key = name.strip().lower()
    if key in SYSTEMS:
        return SYSTEMS[key]
    if Path(name).suffix.lower() == ".json":
        return load_system(name)
    raise CountError(f"count system {name!r} is not known: accepted {', '.join(SYSTEMS)} or a .json file")


def correlation(tags: np.ndarray, effects: np.ndarray, weights: np.ndarray) -> float:
    """Pearson correlation over the cards of a deck (``weights`` cards of each value)."""
    w = weights / weights.sum()
    t = tags - np.dot(w, tags)
    e = effects - np.dot(w, effects)
    den = math.sqrt(float(np.dot(w, t * t)) * float(np.dot(w, e * e)))
    return float(np.dot(w, t * e)) / den if den > 0 else 0.0


def _loss(x: float) -> float:
    """The unit normal loss integral: E[max(Z - x, 0)]."""
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi) - x * 0.5 * math.erfc(x / math.sqrt(2))


@dataclass(frozen=True)
class DecisionEffects:
    """Each chart decision's margin on the full shoe and the effects of removal of that margin."""

    weights: np.ndarray
    margins: np.ndarray
    effects: np.ndarray  # [decision, value index]
    labels: list[str]


def decision_effects(rules: CasinoRules) -> DecisionEffects:
    decs = chart_decisions(rules)
    full = shoe_counts(rules.pack, rules.decks)
    base = decision_values(decs, solve(rules))
    eff = np.zeros((len(decs), 10))
    for r in range(10):
        less = full.copy()
        less[r] -= 1
        eff[:, r] = decision_values(decs, solve(rules, shoe=tuple(int(x) for x in less))) - base
    eff = np.nan_to_num(eff)
    return DecisionEffects(np.array([d.weight for d in decs]), base, eff, [d.label for d in decs])


def playing_efficiency(
    rules: CasinoRules, tags: np.ndarray, de: DecisionEffects, penetration: float = 0.75
) -> float:
    """PE of ``tags`` (module docstring), averaged over eight depths up to ``penetration``."""
    full = shoe_counts(rules.pack, rules.decks).astype(float)
    n = float(full.sum())
    w = full / n
    gain = 0.0
    perfect = 0.0
    for frac in np.linspace(penetration / 8, penetration, 8):
        k = frac * n
        f = k * (n - k) / (n - 1)
        for d in range(len(de.weights)):
            e = de.effects[d]
            var = float(np.dot(w, (e - np.dot(w, e)) ** 2))
            if var <= 0:
                continue
            s = math.sqrt(f * var)
            m = abs(float(de.margins[d]))
            rho = abs(correlation(tags, e, full))
            perfect += de.weights[d] * s * _loss(m / s)
            if rho > 0:
                gain += de.weights[d] * rho * s * _loss(m / (rho * s))
    return gain / perfect if perfect > 0 else 0.0


def evaluate(
    rules: CasinoRules,
    system: CountSystem,
    eff: Effects | None = None,
    de: DecisionEffects | None = None,
    penetration: float = 0.75,
) -> dict[str, Any]:
    """BC, PE and IC of ``system`` for ``rules`` (module docstring), with its IRC and balance."""
    e = eff if eff is not None else effects_of_removal(rules, what=("basic", "insurance"))
    one = shoe_counts(rules.pack, 1).astype(float)
    tags = np.array(system.tags, dtype=float)
    d = de if de is not None else decision_effects(rules)
    out: dict[str, Any] = {
        "system": system.name,
        "balanced": system.balanced(rules.pack),
        "irc": system.irc(rules.pack, rules.decks),
        "betting_correlation": correlation(tags, np.array(e.raw["basic"]), one),
        "playing_efficiency": playing_efficiency(rules, tags, d, penetration),
    }
    if "insurance" in e.raw:
        out["insurance_correlation"] = correlation(tags, np.array(e.raw["insurance"]), one)
    return out


def best_linear_count(rules: CasinoRules, eff: Effects, level: int = 0) -> dict[str, Any]:
    """The linear count that best fits the effects of removal: tags proportional to the basic
    chart's effects (betting correlation 1), scaled so that the largest is ``level`` and rounded
    to integers (``level`` 0: the exact effects per deck, in percent)."""
    v = np.array(eff.per_deck["basic"]) * 100
    tags = v if level <= 0 else np.round(v / np.abs(v).max() * level)
    one = shoe_counts(rules.pack, 1).astype(float)
    return {
        "level": level,
        "tags": dict(zip(VALUE_RANKS, (float(x) for x in tags), strict=True)),
        "betting_correlation": correlation(tags, np.array(eff.raw["basic"]), one),
        "deck_cards": deck_size(rules),
    }
