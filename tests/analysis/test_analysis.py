from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from pontoon.analysis import dealer as D
from pontoon.analysis.dealer_rows import dealer_dists
from pontoon.analysis.hints import action_values
from pontoon.analysis.sidebets import insurance_bet, pair_bet, pandemonium_bet
from pontoon.analysis.states import UPCARD_LABELS, shoe_counts, state_space
from pontoon.analysis.strategy import basic_strategy
from pontoon.cards import Card, pack_cards, parse_cards
from pontoon.rules.load import resolve_rules

from .conftest import PRESETS

CELL = re.compile(r"^(H|S|D|Ds|P|R|Rs)(; (H|S|D|Ds|R|Rs) with \d+\+? cards)*$")


@pytest.mark.parametrize("preset", PRESETS)
def test_optimal_never_below_basic(solutions, preset: str) -> None:  # type: ignore[no-untyped-def]
    sol = solutions[preset]
    assert sol.ev_optimal >= sol.ev_basic - 1e-12
    for u in sol.upcards:
        assert u.ev_optimal >= u.ev_basic - 1e-12


@pytest.mark.parametrize("preset", PRESETS)
def test_strategy_contract(solutions, preset: str) -> None:  # type: ignore[no-untyped-def]
    st = solutions[preset].strategy
    assert set(st) <= {"hard", "soft", "pair", "rescue"}
    for kind in ("hard", "soft", "pair"):
        for row, cells in st[kind].items():
            assert list(cells) == list(UPCARD_LABELS), (kind, row)
            for c in cells.values():
                assert CELL.match(c), (kind, row, c)
    assert list(st["pair"]) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    if resolve_rules(preset).rescue:
        for cells in st["rescue"].values():
            assert set(cells.values()) <= {"F", "S"}
    assert basic_strategy(resolve_rules(preset)) is basic_strategy(resolve_rules(preset))  # cached


def test_pontoon_specifics(solutions) -> None:  # type: ignore[no-untyped-def]
    mbs = solutions["mbs"].strategy
    # the Super Bonus (100 units at the table minimum) makes 7-7 against a 7 a hit
    assert mbs["pair"]["7"]["7"] == "H"
    # the 5-card bonus: some hard total is hit with more cards than it is stood on with two
    assert any("H with" in c for row in mbs["hard"].values() for c in row.values())
    # forced draw below 12 (rulings 14): the PLUS chart never stands below 12
    plus = solutions["rws-plus"].strategy
    for t in range(4, 12):
        for c in plus["hard"].get(str(t), {}).values():
            assert not c.startswith("S")


def test_dealer_kernels_agree() -> None:
    sp = state_space()
    for pack, up, h17 in (("pontoon48", 1, True), ("standard52", 0, False), ("pontoon48", 9, True)):
        base = shoe_counts(pack, 1)
        base[up] -= 1
        rem = sp.counts[sp.ncards <= 4][:400]
        fast = dealer_dists(base, rem, up, h17)
        slow = D.dealer_batch(base, rem, up, h17)
        assert np.abs(fast - slow).max() < 1e-12
        ok = np.all(rem <= base[None, :], axis=1)
        assert np.allclose(fast[ok].sum(axis=1), 1.0)


def test_side_bets_exact() -> None:
    mbs = resolve_rules("mbs")
    p = 12 * (24 / 288) * (23 / 287)  # 12 ranks, 24 of each in six 48-card decks
    assert pair_bet(mbs)["hit_rate"] == pytest.approx(p)
    assert pair_bet(mbs)["house_edge"] == pytest.approx(1 - 12 * p)
    assert insurance_bet(mbs)["house_edge"] == pytest.approx(1 - 3 * 72 / 287)
    pan = resolve_rules("rws-pandemonium")
    nat = 2 * 24 * 72 / (288 * 287)
    assert pandemonium_bet(pan)["hit_rate"] == pytest.approx(nat)


def _remaining(rules, out):  # type: ignore[no-untyped-def]
    c = Counter({k: v * rules.decks for k, v in Counter(x.rank for x in pack_cards(rules.pack)).items()})
    for x in out:
        c[x.rank] -= 1
    return c


def test_hints_match_the_solver_and_are_fast(solutions) -> None:  # type: ignore[no-untyped-def]
    import time

    rules = resolve_rules("mbs")
    hand = parse_cards("JS 6H")
    up = Card.parse("KC")
    t = time.perf_counter()
    v = action_values(
        rules, _remaining(rules, hand + [up]), hand, up, legal=["hit", "stand", "double", "surrender"]
    )
    assert time.perf_counter() - t < 1.0
    ref = next(u for u in solutions["mbs"].upcards if u.label == "T").hands[(5, 9)]
    assert v["stand"] == pytest.approx(ref["S"], abs=1e-12)
    assert v["hit"] == pytest.approx(ref["H"], abs=1e-12)
    assert v["double"] == pytest.approx(ref["D"], abs=1e-12)
    assert v["surrender"] == pytest.approx(ref["R"], abs=1e-12)


def test_hints_super_bonus_and_rescue() -> None:
    rules = resolve_rules("mbs")
    up = Card.parse("7H")
    suited = parse_cards("7S 7S")
    mixed = parse_cards("7S 7D")
    vs = action_values(rules, _remaining(rules, suited + [up]), suited, up, legal=["hit", "stand", "split"])
    vm = action_values(rules, _remaining(rules, mixed + [up]), mixed, up, legal=["hit", "stand", "split"])
    assert vs["hit"] > 0.5 > vm["hit"]  # 100 units at 7S-7S-7S against a 7
    assert vs["stand"] == pytest.approx(vm["stand"])
    hand = parse_cards("5S 6H 4C")  # doubled 11, drew a 4: 15 against a picture
    upk = Card.parse("KD")
    d = action_values(
        rules, _remaining(rules, hand + [upk]), hand, upk, legal=["stand", "rescue"], doubled=True
    )
    assert d["rescue"] == -1.0 and d["stand"] < -1.0  # rescue the doubled 15 (the chart says F)
    assert basic_strategy(rules)["rescue"]["15"]["T"] == "F"
