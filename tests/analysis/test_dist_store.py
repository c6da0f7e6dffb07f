"""Exact split rounds worked out offline and shipped (analysis/dist_store.py, issue 23): a stored
measure equals the engine's enumeration of small shoes, the shipped data equals a fresh computation,
a rules file that differs misses the store, and a preset's distribution with its shipped splits sums
to 1 and has the house edge as its mean, its ``method`` line naming the splits taken exact."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pontoon.analysis import dist_store
from pontoon.analysis import distribution as D
from pontoon.analysis.distribution import approximation, round_distribution, round_distributions
from pontoon.rules.load import resolve_rules

from .enumerate_engine import distinct_orders, shoe_values
from .test_distribution_splits import CASES, Play, engine_distribution, played
from .test_enumeration import FLAT


@pytest.fixture
def store_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data folder of our own in place of the shipped one (read again afterwards)."""
    monkeypatch.setattr(dist_store, "DATA", tmp_path)
    dist_store.shipped.cache_clear()
    yield tmp_path
    dist_store.shipped.cache_clear()


def _write(folder: Path, rec: dict[str, Any]) -> None:
    cells = {k: dist_store.to_json(ex, cpu) for k, (ex, cpu) in rec.items()}
    (folder / "splits-test.json").write_text(json.dumps({"about": {}, "cells": cells}))


def _small(case: str) -> tuple[Any, list[str]]:
    preset, sets, cards = CASES[case]
    rules = resolve_rules(preset, sets)
    return (rules.with_(**FLAT) if rules.is_pontoon else rules), cards


@pytest.mark.parametrize("basic", [True, False], ids=["basic", "optimal"])
@pytest.mark.parametrize("case", sorted(CASES)[:2])
def test_stored_splits_equal_the_engine(store_dir: Path, case: str, basic: bool) -> None:
    """Every split of a small stacked shoe worked out by the compiled recursion, written as the
    shipped files are, then read back by the report's default path: the whole distribution equals
    the round engine's enumeration of every ordering to 1e-12, every split from the store."""
    rules, cards = _small(case)
    shoe = shoe_values(cards)
    rec: dict[str, Any] = {}
    round_distributions(rules, (basic,), shoe=shoe, exact_splits=True, stored=False, record=rec)
    assert rec
    _write(store_dir, rec)
    d = round_distribution(rules, basic, shoe=shoe, work=0)  # work=0: nothing exact but the store
    assert d["split_probability"] > 0.05
    assert d["stored_split_probability"] == pytest.approx(d["split_probability"], abs=1e-15)
    engine = engine_distribution(rules, cards, basic)
    mine = {o["net"]: o["probability"] for o in d["outcomes"] if o["probability"] > 1e-15}
    assert set(mine) == set(engine)
    for v, p in engine.items():
        assert mine[v] == pytest.approx(float(p), abs=1e-12), v
    assert d["total_probability"] == pytest.approx(1.0, abs=1e-12)
    assert d["mean"] == pytest.approx(-d["house_edge"], abs=1e-12)
    line = approximation(d)
    assert "exact, precomputed" in line and line.endswith("the distribution is exact")
    # a rules file that differs in anything the split reads misses the store
    other = rules.with_(max_split_hands=3 if rules.max_split_hands != 3 else 2)
    assert round_distribution(other, basic, shoe=shoe, work=0)["stored_split_probability"] == 0.0


def _shipped_cheapest(copied: bool = False) -> tuple[str, dict[str, Any]]:
    cells = dist_store.shipped()
    assert cells, "no split shipped in analysis/data"
    ok = {k: c for k, c in cells.items() if c["work"] > 1000}  # compiled ones (not split Aces)
    if copied:
        ok = {k: c for k, c in ok.items() if "copied_from" in c}
        assert ok, "no split copied across a family (bench/merge_splits.py --family)"
    key = min(ok, key=lambda k: ok[k]["work"])
    return key, ok[key]


@pytest.mark.parametrize("copied", [False, True], ids=["cheapest", "cheapest-copied"])
def test_shipped_split_equals_a_fresh_computation(copied: bool) -> None:
    """The smallest shipped compiled split (a few seconds) worked out again by ``dist_box`` has the
    shipped measure, pay lines and amount wagered; so has the smallest split copied from another
    preset of the same main wager (``merge_splits --family``: rws-pandemonium's 6-6 against a 6
    from rws-plus's or mbs's, worked out under rws-pandemonium's own rules here)."""
    key, cell = _shipped_cheapest(copied)
    preset, rest = cell["label"].split(" ", 1)
    names = "A23456789T"
    up, p = names.index(rest[0]), names.index(rest.split(", ")[1][0])
    real = D.split_exact

    def only(*a: Any, **k: Any) -> Any:
        return real(*a, **k) if (a[2].up, a[4]) == (up, p) else None

    rec: dict[str, Any] = {}
    D.split_exact = only  # type: ignore[assignment]
    try:
        round_distributions(resolve_rules(preset), (True, False), exact_splits=True, stored=False, record=rec)
    finally:
        D.split_exact = real
    assert key in rec
    fresh = rec[key][0]
    stored = dist_store.from_json(cell)
    assert fresh.v0 == stored.v0 and fresh.step == stored.step
    assert np.abs(fresh.probs - stored.probs).max() <= 1e-15
    assert np.abs(fresh.lines - stored.lines).max() <= 1e-15
    assert fresh.wager == pytest.approx(stored.wager, abs=1e-15)


SHIPPED = sorted(f.stem.removeprefix("splits-") for f in dist_store.DATA.glob("splits-*.json"))


def test_every_shipped_cell_sums_to_one_and_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each shipped file is a preset's (named in ``about``), each cell's measure sums to 1 within
    1e-12 (less the dealer's natural where a peeking dealer shows an Ace or a ten), and each cell's key is one the preset's distributions (chart and optimal play) take here
    (but split Aces taking one card, exact without the store): nothing shipped is keyed by inputs
    that no longer occur."""
    taken: set[str] = set()
    real = dist_store.lookup

    def seen(key: str) -> Any:
        got = real(key)
        if got is not None:
            taken.add(key)
        return got

    for preset in SHIPPED:
        doc = json.loads((dist_store.DATA / f"splits-{preset}.json").read_text())
        assert doc["about"]["preset"] == preset
        peek = resolve_rules(preset).dealer_peeks
        for cell in doc["cells"].values():
            tot = sum(q for _k, q in cell["probs"])
            if peek and cell["label"].split(" ")[1] in ("A", "T"):
                assert 0.5 < tot < 1.0, cell["label"]  # the dealer's natural is counted apart
            else:
                assert tot == pytest.approx(1.0, abs=1e-12), cell["label"]
        taken.clear()
        monkeypatch.setattr(dist_store, "lookup", seen)
        round_distributions(resolve_rules(preset), (True, False))
        monkeypatch.setattr(dist_store, "lookup", real)
        # split Aces taking one card are worked out at once (dist_exact), never looked up
        dead = [c["label"] for k, c in doc["cells"].items() if k not in taken]
        assert all(label.endswith("A-A") for label in dead), dead


@pytest.mark.parametrize("preset", SHIPPED)
@pytest.mark.parametrize("basic", [True, False], ids=["basic", "optimal"])
def test_presets_with_shipped_splits(preset: str, basic: bool) -> None:
    """A preset's shipped splits: the distribution still sums to 1 and its mean is the house edge to
    1e-12, the shipped splits are counted as exact, and ``method`` names them."""
    d = round_distribution(resolve_rules(preset), basic)
    assert d["total_probability"] == pytest.approx(1.0, abs=1e-12)
    assert d["mean"] == pytest.approx(-d["house_edge"], abs=1e-12)
    assert d["stored_split_probability"] > 0.0
    assert d["exact_split_probability"] >= d["stored_split_probability"]
    line = approximation(d)
    assert "exact, precomputed" in line
    for label in d["stored_cells"]:
        assert label in line
    plain = round_distribution(resolve_rules(preset), basic, stored=False)
    assert plain["stored_split_probability"] == 0.0 and "precomputed" not in approximation(plain)


def _engine_wagered(rules: Any, cards: list[str], basic: bool) -> Fraction:
    """The round engine's amount wagered per round (every hand's stake, a doubled one's twice) over
    every ordering of a small stacked shoe, played as the distribution plays."""
    pl = Play(rules, shoe_values(cards), basic)
    tot, n = Fraction(0), 0
    for order in distinct_orders(cards):
        rnd = played(rules, order, pl)
        tot += sum((2 if h.doubled else 1) for b in rnd.boxes.values() for h in b.hands)
        n += 1
    return tot / n


def test_exact_splits_amount_wagered_equals_the_engine() -> None:
    """The amount wagered per round with every split exact (the compiled recursion, as shipped)
    equals the engine's over every ordering of a small shoe where pairs are split, resplit and
    doubled; the approximation's is lower there (federal's shipped splits raised its average
    wagered by 3e-4 of a round: docs/analysis.md)."""
    rules, cards = _small("blackjack-double")
    shoe = shoe_values(cards)
    engine = float(_engine_wagered(rules, cards, True))
    exact = round_distribution(rules, True, shoe=shoe, exact_splits=True)["average_wagered"]
    approx = round_distribution(rules, True, shoe=shoe, work=0, stored=False)["average_wagered"]
    assert exact == pytest.approx(engine, abs=1e-12)
    assert engine - approx > 1e-3
