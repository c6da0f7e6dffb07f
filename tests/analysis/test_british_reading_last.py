"""Issue 27 item 3: the reading banker's decisions for every observation of the deviator at one deal from
one table of sums over the other hands' programme (analysis/british/reading_last.py) give the programme's
(``Reader.tree_last``) values and decisions, and the best response's sampled figures built on it equal the
programme's."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.reading import Reader, Seen
from pontoon.analysis.british.reading_best import sampled_values
from pontoon.analysis.british.reading_fast import banker_nodes
from pontoon.analysis.british.reading_last import LastPlanner, planner
from pontoon.analysis.british.reading_response_sample import sample_response
from pontoon.rules.british import BRITISH

REDUCED = BRITISH.with_(pack_ranks="5T", pack_suits=4, packs=2)  # as test_british_reading_best


def _check(rd: Reader, others: Seen, mine_all: list, rng: np.random.Generator, count: int) -> tuple[int, int]:
    """``LastPlanner``'s values against ``tree_last``'s for ``count`` observations: (checked, off)."""
    hands, _, _ = banker_nodes(others.first)
    pl = LastPlanner(rd, others)
    checked = off = 0
    for k in rng.choice(len(mine_all), size=count, replace=False):
        mine = mine_all[int(k)]
        got = pl.values(mine)
        rd._cache.clear()
        try:
            t = rd.tree_last(others, mine)
        except ValueError:
            assert got is None
            off += 1
            continue
        assert got is not None
        stay, twist, value, blind = got
        assert {h for h, x in zip(hands, stay, strict=True) if not np.isnan(x)} == set(t.stay)
        assert {h for h, x in zip(hands, twist, strict=True) if not np.isnan(x)} == set(t.twist)
        assert max(abs(stay[hands.index(h)] - v) for h, v in t.stay.items()) < 1e-12
        assert max((abs(twist[hands.index(h)] - v) for h, v in t.twist.items()), default=0.0) < 1e-12
        assert abs(value - t.value) < 1e-12 and abs(blind - t.blind) < 1e-12
        with np.errstate(invalid="ignore"):
            assert (pl.plan(mine) == t.flags).all()  # ties (to rounding) stay in both
        checked += 1
    return checked, off


@pytest.mark.parametrize("packs", [1, 2])
def test_table_of_sums_equals_the_programme(packs: int) -> None:
    """Full packs, random tables of one to three other hands (now and then a bust shown): for random
    observations of the deviator, every stay and twist value, the value and the blind banker's equal
    ``tree_last``'s to 1e-12, the same hands reached, the same decisions."""
    sol = S.solved(BRITISH.with_(packs=packs))
    rd = Reader(sol)
    obs = list(rd.support)
    firsts = [h for h in sol.game.banker if len(h) == 2]
    rng = np.random.default_rng(27 + packs)
    checked = 0
    for _ in range(6):
        live = tuple(sorted(obs[int(i)] for i in rng.choice(len(obs), int(rng.integers(1, 4)))))
        shown = tuple(sorted(int(c) for c in rng.integers(0, 10, int(rng.choice([0, 0, 3])))))
        others = Seen(firsts[int(rng.integers(len(firsts)))], live, shown)
        got, _ = _check(rd, others, obs, rng, 12)
        checked += got
    assert checked > 40


def test_off_model_observations_stay() -> None:
    """An observation the solved player never shows, or a table no deal gives: he stays throughout (an
    empty plan), as ``twist_plan_last``."""
    sol = S.solved(BRITISH)
    rd = Reader(sol)
    first = next(h for h in sol.game.banker if len(h) == 2)
    pl = LastPlanner(rd, Seen(first, (next(iter(rd.support)),), ()))
    assert pl.plan(((9, 9, 9, 9), (0, 0, 0))) == frozenset()
    assert not isinstance(planner(rd, Seen(first, (), ())), LastPlanner)  # a small table: the programme
    rd.last = False
    assert not isinstance(planner(rd, Seen(first, (), ())), LastPlanner)


def test_sampled_figures_equal_the_programmes(cache, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The fit's per-deal terminal values and the valuation's gains and edges (the reduced pack, two
    players, every programme and two drawn per deal; a full pack, three players, six drawn) equal those
    from the programme per observation (``reading_response.twist_plan_last``) to 1e-12."""
    from pontoon.analysis.british import reading_best, reading_last, reading_response_sample

    def each(rd: Reader, others: Seen, count: int = 1000):  # type: ignore[no-untyped-def]
        rd.last = False
        return planner(rd, others, count)

    def both(fn):  # type: ignore[no-untyped-def]
        a = fn()
        with monkeypatch.context() as mp:
            mp.setattr(reading_best, "planner", each)
            mp.setattr(reading_response_sample, "planner", each)
            b = fn()
        return a, b

    monkeypatch.setattr(reading_last, "MIN_STATES", 0)  # the table of sums at every deal
    monkeypatch.setattr(reading_last, "MIN_COUNT", 0)
    for rules, players, deals, budget in ((REDUCED, 2, 25, None), (REDUCED, 2, 25, 2), (BRITISH, 3, 4, 6)):
        a, b = both(lambda: list(sampled_values(rules, players, deals, 5, budget=budget)))  # noqa: B023
        assert len(a) == len(b) == deals
        assert max(abs(x - y).max() for x, y in zip(a, b, strict=True)) < 1e-12
        assert sum(float(abs(x).sum()) for x in a) > 0
    for rules, players, deals, budget in ((REDUCED, 2, 30, None), (BRITISH, 3, 4, 6)):
        fast, slow = both(lambda: sample_response(rules, players, deals, 9, budget=budget))  # noqa: B023
        assert fast["reading_gain"] > 0 and abs(fast["reading_gain"] - slow["reading_gain"]) < 1e-12
        for name, d in fast["deviations"].items():
            assert abs(d["gain"] - slow["deviations"][name]["gain"]) < 1e-12
            assert abs(d["edge"] - slow["deviations"][name]["edge"]) < 1e-12
