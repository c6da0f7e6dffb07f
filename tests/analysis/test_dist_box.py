"""Every split round exact on any shoe (analysis/dist_box.py, issue 23): the compiled recursion equals
the round engine's enumeration of small stacked shoes (every ordering, the distribution's own play)
to 1e-12, equals the Python recursion (``dist_exact``) on a split of a six-deck shoe, and differs
there from the approximation that it replaces."""

from __future__ import annotations

import pytest

from pontoon.analysis import dist_exact as E
from pontoon.analysis import distribution as D
from pontoon.analysis.distribution import approximation, round_distribution
from pontoon.rules.load import resolve_rules

from .enumerate_engine import shoe_values
from .test_distribution_splits import CASES, engine_distribution
from .test_enumeration import FLAT


@pytest.mark.parametrize("basic", [True, False], ids=["basic", "optimal"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_split_rounds_equal_the_engine(case: str, basic: bool) -> None:
    preset, sets, cards = CASES[case]
    rules = resolve_rules(preset, sets)
    if rules.is_pontoon:
        rules = rules.with_(**FLAT)
    d = round_distribution(rules, basic, shoe=shoe_values(cards), exact_splits=True)
    assert d["split_probability"] > 0.05
    assert d["exact_split_probability"] == d["split_probability"]
    engine = engine_distribution(rules, cards, basic)
    mine = {o["net"]: o["probability"] for o in d["outcomes"] if o["probability"] > 1e-15}
    assert set(mine) == set(engine)
    for v, p in engine.items():
        assert mine[v] == pytest.approx(float(p), abs=1e-12), v
    assert d["total_probability"] == pytest.approx(1.0, abs=1e-12)
    assert d["mean"] == pytest.approx(-d["house_edge"], abs=1e-12)
    assert approximation(d).startswith(
        f"outcome distribution ({d['strategy']}): exact, the rounds that split"
    )


def _split_of(rules_name: str, sets: dict[str, object], up: int, p: int, how: str) -> dict[float, float]:
    """The round dealt pair ``p`` against up card ``up`` on the rules' own shoe, its split worked
    out ``how``: "compiled" (dist_box), "python" (dist_exact's recursion past its limits) or
    "approx" (the approximation the compiled path replaces)."""
    rules = resolve_rules(rules_name, sets)
    real = E.split_exact

    def forced(*a: object, **k: object) -> E.SplitExact | None:
        if how == "approx":
            return None
        old = E.SMALL_SHOE
        E.SMALL_SHOE = 10**6
        try:
            return real(*a[:5], 10**9, how == "compiled")  # type: ignore[arg-type]
        finally:
            E.SMALL_SHOE = old

    saved = D.split_exact
    D.split_exact = forced  # type: ignore[assignment]
    try:
        return D.hand_distribution(rules, True, up, p, p)
    finally:
        D.split_exact = saved


def test_six_deck_split_equals_the_python_recursion_not_the_approximation() -> None:
    """mbs (six decks) split to two hands at most, 9-9 against a 9 under the chart (each hand
    doubling where the chart says): 60,490 ways, small enough for the Python recursion (seconds)."""
    up, p = 8, 8  # value indices: a 9 up, a pair of 9s
    sets = {"max_split_hands": 2}
    fast = _split_of("mbs", sets, up, p, "compiled")
    slow = _split_of("mbs", sets, up, p, "python")
    approx = _split_of("mbs", sets, up, p, "approx")
    assert sum(fast.values()) == pytest.approx(1.0, abs=1e-12)
    assert set(fast) == set(slow)
    for v, q in slow.items():
        assert fast[v] == pytest.approx(q, abs=1e-13), v
    mean = sum(v * q for v, q in fast.items())
    assert mean == pytest.approx(sum(v * q for v, q in approx.items()), abs=1e-12)  # both the exact value
    gap = max(abs(approx.get(v, 0.0) - q) for v, q in fast.items())
    assert gap > 1e-6  # what the compiled path replaced: the hands independent given the dealer


def test_rows_grown_from_one_give_the_same_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """A level's rows start with room for one and grow by half where full (memory: no room zeroed
    up front for rows never made): the same measure, to the last bit, as with room for 1,024."""
    from pontoon.analysis import dist_box

    sets = {"max_split_hands": 2}
    roomy = _split_of("mbs", sets, 8, 8, "compiled")
    monkeypatch.setattr(dist_box, "FIRST_ROWS", 1)
    grown = _split_of("mbs", sets, 8, 8, "compiled")
    assert grown == roomy


def test_a_split_past_its_memory_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MEM_LIMIT`` (a job's share in bench/precompute_splits --jobs): a split whose levels would
    hold more rows is given up (None) and the round keeps the approximation."""
    from pontoon.analysis import dist_box

    sets = {"max_split_hands": 2}
    exact = _split_of("mbs", sets, 8, 8, "compiled")
    monkeypatch.setattr(dist_box, "MEM_LIMIT", 200_000)  # a few rows: the split makes hundreds
    given_up = _split_of("mbs", sets, 8, 8, "compiled")
    assert given_up == _split_of("mbs", sets, 8, 8, "approx")
    assert given_up != exact
