"""FED's one-wager loss of a split box to a dealer Pontoon (001 Splits), computed exactly
(``analysis/onewager.py``; engine checks in test_split_enumeration.py), and the analysis's use of
it: the exact loss wherever a split can be played, the union approximation (kept below the best
other option) only where the split cannot win."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pontoon.analysis import strategy
from pontoon.analysis.player import Params, UpcardSolver
from pontoon.analysis.splits import SplitChains
from pontoon.analysis.states import shoe_counts
from pontoon.rules.load import resolve_rules

RULES = resolve_rules("federal")
ONE_DECK = tuple(int(x) for x in shoe_counts(RULES.pack, 1))  # a 48-card deck: small enough to
# compute the exact loss for every pair quickly (the rules take 4 to 8 decks; ``shoe`` any)


def _solver(up: int) -> UpcardSolver:
    rules = RULES
    full = ONE_DECK
    base = np.array(full, dtype=np.int64)
    base[up] -= 1
    return UpcardSolver(rules, Params.of(rules), base, up)


def test_beat_keeps_decisions_and_the_union_stays_below() -> None:
    """With ``beat`` above the split even at its least possible loss, the union figure is given
    and stays below ``beat``; with ``beat`` at or below the exact value the exact figure is."""
    sv = _solver(0)
    for p in (1, 7):  # 2-2 (many ways to bust) and 8-8 against an Ace
        exact = sv.split_value(p)
        union = sv.split_value(p, beat=exact + 1.0)
        assert union != exact
        assert union < exact + 1.0
        assert sv.split_value(p, beat=exact) == exact
        assert sv.split_value(p, beat=exact - 0.5) == exact


def test_lazy_exact_house_edges_equal_all_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis asks for the exact loss only where the split may be played: its house edges
    equal those of an analysis that computes it for every pair (FED, one deck)."""
    rules = RULES
    lazy = strategy._solve(rules, None, ONE_DECK, "cdp1")
    combine = UpcardSolver.split_combine

    def always_exact(self: UpcardSolver, p: int, sc: SplitChains, beat: Any = None) -> float:
        return combine(self, p, sc, None)

    monkeypatch.setattr(UpcardSolver, "split_combine", always_exact)
    full = strategy._solve(rules, None, ONE_DECK, "cdp1")
    assert lazy.ev_optimal == pytest.approx(full.ev_optimal, abs=1e-15)
    assert lazy.ev_basic == pytest.approx(full.ev_basic, abs=1e-15)
    assert lazy.strategy == full.strategy


def test_no_loss_without_a_pontoon_up_card() -> None:
    """Only an Ace or a ten-value up card can make a Pontoon: against a 6 the split's value does
    not depend on ``beat``."""
    sv = _solver(5)
    assert sv.split_value(7) == sv.split_value(7, beat=10.0)


def test_work_limit_falls_back_to_the_union_quickly() -> None:
    """FED, 6 decks, 2-2 against an Ace: the exact joint play passes ``onewager.MAX_STATES``
    partial box states, so even without ``beat`` the split keeps the union, in bounded time."""
    import time

    rules = RULES
    full = shoe_counts(rules.pack, rules.decks)
    base = np.array(full, dtype=np.int64)
    base[0] -= 1
    sv = UpcardSolver(rules, Params.of(rules), base, 0)
    t0 = time.perf_counter()
    sc = sv.split_chains(1)
    assert sc is not None
    assert sv._split_nat_loss_exact(1, sc) is None
    assert sv.split_value(1) == sv.split_value(1, beat=10.0)
    assert time.perf_counter() - t0 < 60  # the exact computation took 17-50 s here before the limit
    # a pair within the limit: exact, and not the union
    sc8 = sv.split_chains(7)
    assert sc8 is not None and sv._split_nat_loss_exact(7, sc8) is not None
    assert sv.split_value(7) != sv.split_value(7, beat=10.0)
