"""``--strategy optimal``: the rescue of a doubled hand (000 3.11.4, 004 3.25.3) from the analyser's
exact choice (``optimal_table.optimal_rescue``), not the chart's rescue row by total.

The bits sit on the state a doubled hand holds after its doubling card, in the hand's kind; the
kernel (``_round._double_settle``) and the engine driver (``reference.py``) read them alike."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from decimal import Decimal

import numpy as np
import pytest

from pontoon.analysis.split_chart import chart_splits
from pontoon.cards import Card, pack_cards
from pontoon.hands import hand_total
from pontoon.rules import resolve_rules
from pontoon.sim import _kernels as K
from pontoon.sim.api import build_spec, run_stacked
from pontoon.sim.reference import play_engine_round
from pontoon.sim.tables import StrategyError, comp_table

try:
    from pontoon.analysis.hints import action_values
    from pontoon.analysis.optimal_table import (
        KIND_MULTI,
        OPT_RESCUE,
        OPT_RESCUE_HARD,
        OPT_RESCUE_SOFT,
        optimal_rescue,
        optimal_tables,
    )
    from pontoon.analysis.states import state_space
except ImportError as err:  # pragma: no cover
    pytest.skip(f"pontoon.analysis is not importable: {err}", allow_module_level=True)

RESCUE_BITS = K.COMP_RESCUE | K.COMP_RESCUE_HARD | K.COMP_RESCUE_SOFT


def _state(cards: list[Card]) -> int:
    counts = [0] * 10
    for c in cards:
        counts[c.points - 1] += 1
    return state_space().find(counts)


def _cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def test_bits_are_the_kernels_and_laid_on_the_table() -> None:
    assert (OPT_RESCUE, OPT_RESCUE_HARD, OPT_RESCUE_SOFT) == (
        K.COMP_RESCUE,
        K.COMP_RESCUE_HARD,
        K.COMP_RESCUE_SOFT,
    )
    rules = resolve_rules("mbs")
    spec = build_spec(rules, strategy="optimal")
    codes, bits = optimal_tables(rules), optimal_rescue(rules)
    assert bits.shape == codes.shape and not bits.flags.writeable
    np.testing.assert_array_equal(np.where(spec.comp >= 0, spec.comp & RESCUE_BITS, 0), bits)
    plain = np.where(bits != 0, spec.comp & 15, spec.comp)
    np.testing.assert_array_equal(np.where((bits != 0) & (codes < 0), -1, plain), codes)
    # every two-card double an unsplit hand can make has its rescue decided by the table
    sp = state_space()
    two = np.nonzero((sp.ncards == 2) & (sp.best < 21))[0]
    for up in range(1, 11):
        for s in two:
            for r in range(10):
                j = sp.trans[s, r]
                if (
                    j < 0
                    or min(sp.hard[j] + (10 if sp.nace[j] > sp.nace[s] and sp.hard[j] <= 11 else 0), 21) >= 21
                ):
                    continue
                assert bits[up, KIND_MULTI, j] & OPT_RESCUE, (up, sp.counts[s], r)


def test_comp_table_refuses_rescue_bits_without_the_flag() -> None:
    n = state_space().size
    bad = np.full((11, 13, n), -1, dtype=np.int8)
    bad[5, 2, 7] = K.C_S | K.COMP_RESCUE_HARD  # a rescue without "the table decides"
    with pytest.raises(StrategyError, match="not a decision code"):
        comp_table(bad, n)
    bad[5, 2, 7] = K.C_S | K.COMP_RESCUE_HARD | K.COMP_RESCUE
    comp_table(bad, n)


@pytest.mark.parametrize(
    ("preset", "hand", "up"),
    [
        ("mbs", "5S 6H 2C", "TC"),  # 13 against a ten
        ("mbs", "5S 6H 5C", "AC"),  # 16 against an Ace
        ("mbs", "2S 9H 6D", "7C"),  # 17 against a 7
        ("mbs", "AS 5H 2D", "TC"),  # the Ace among the first two counts 1: hard 8
        ("mbs", "4S 5H AD", "9C"),  # the doubling card's Ace counts 11: soft 20
        ("federal", "5S 6H 4C", "TC"),  # 15 against a ten
        ("federal", "AS 6H 6D", "AC"),  # hard 13
    ],
)
def test_rescue_bit_is_the_hint_argmax(preset: str, hand: str, up: str) -> None:
    """The table's rescue of an unsplit doubled hand against ``pontoon analyze --hints``."""
    rules = resolve_rules(preset)
    bits = optimal_rescue(rules)
    cards, upc = _cards(hand), Card.parse(up)
    rem = Counter(c.rank for c in pack_cards(rules.pack) for _ in range(rules.decks))
    for c in (*cards, upc):
        rem[c.rank] -= 1
    rem_t: Counter[str] = Counter()
    for r, n in rem.items():
        rem_t["T" if r in "TJQK" else r] += n
    vals = action_values(rules, rem_t, cards, upc, legal=["stand", "rescue"], doubled=True)
    soft = hand_total(cards, 2 if rules.double_ace_counts_one else 0)[1]
    e = int(bits[upc.points, KIND_MULTI, _state(cards)])
    assert e & OPT_RESCUE
    assert bool(e & (OPT_RESCUE_SOFT if soft else OPT_RESCUE_HARD)) == (vals["rescue"] > vals["stand"]), vals


def test_federal_split_double_rescues_as_optimal_play_and_the_engine_agree() -> None:
    """federal, 8-8 against a ten: split; the split hand 8-3 doubles and draws a 5 (16). The split
    chains keep a doubled 16 against a ten (they decide as if a live split hand lost nothing to a
    dealer Pontoon), but optimal play takes the chart's play of this split, which loses less to
    FED's one-wager rule (001 Splits; analysis/split_chart.py): the chart's rescue row forfeits the
    doubled 16. The table rescues it, the kernel and the engine driven by it agree (0: -10
    forfeited, the other hand's 18 wins 10 against the dealer's 17); the chains' keep was -10."""
    rules = resolve_rules("federal")
    assert 7 in chart_splits(rules)[9]  # value indices: 8s against a ten
    spec = build_spec(rules, strategy="optimal")
    s = _state(_cards("8S 3C 5H"))
    e = int(spec.comp[10, K.COMP_KIND_SPLIT + 7, s])
    assert e & K.COMP_RESCUE and e & K.COMP_RESCUE_HARD  # rescue
    shoe = _cards("8S KH 8D 3C 5H KS 7C 9S 9H")  # box 8S 8D, up KH; 8-3 doubles, 5; 8-K; dealer K 7
    rec = run_stacked(spec, [shoe])
    kernel = Decimal(int(rec[0, 0, K.K_MAIN])) * Decimal(spec.quantum.numerator) / spec.quantum.denominator
    status, ref = play_engine_round(rules, shoe, spec.strat, bet=spec.bet, comp=spec.comp)
    assert status == "settled"
    assert ref[1]["main"] == kernel == Decimal(0)
    # keeping the doubled 16 instead (the chains' choice): the kernel and the engine agree on -10
    keep = spec.comp.copy()
    keep[10, K.COMP_KIND_SPLIT + 7, s] = (e & ~RESCUE_BITS) | K.COMP_RESCUE
    kept = replace(spec, comp=keep)
    rec_k = run_stacked(kept, [shoe])
    got = Decimal(int(rec_k[0, 0, K.K_MAIN])) * Decimal(spec.quantum.numerator) / spec.quantum.denominator
    assert got == Decimal(-10)
    _, ref_k = play_engine_round(rules, shoe, kept.strat, bet=kept.bet, comp=kept.comp)
    assert ref_k[1]["main"] == Decimal(-10)
