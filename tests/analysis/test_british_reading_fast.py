"""Issue 27 item 3: the reading banker's programme as numba kernels (analysis/british/reading_fast.py) gives
the Python programme's values and decisions (reading._banker_tree, reading_response.outcome_chances_many)."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.reading import Reader, Seen
from pontoon.analysis.british.reading_fast import banker_nodes, outcome_chances_fast
from pontoon.analysis.british.reading_response import outcome_chances_many, twist_plan, twists
from pontoon.rules.british import BRITISH


@pytest.fixture(scope="module")
def readers() -> dict[int, tuple[Reader, Reader]]:
    """Python and kernel readers for the shipped one- and two-pack solutions."""
    out = {}
    for packs in (1, 2):
        sol = S.solved(BRITISH.with_(packs=packs))
        out[packs] = (Reader(sol, fast=False), Reader(sol))
    return out


def _random_seen(rd: Reader, rng: np.random.Generator) -> Seen:
    """His first two cards, one or two live hands the solved player shows, now and then a bust's cards."""
    obs = list(rd.support)
    firsts = [h for h in rd.sol.game.banker if len(h) == 2]
    live = tuple(sorted(obs[int(i)] for i in rng.choice(len(obs), int(rng.integers(1, 3)))))
    shown = tuple(sorted(int(c) for c in rng.integers(0, 10, int(rng.choice([0, 0, 3])))))
    return Seen(firsts[int(rng.integers(len(firsts)))], live, shown)


@pytest.mark.parametrize("packs", [1, 2])
def test_kernel_programme_equals_the_python_one(readers, packs: int) -> None:  # type: ignore[no-untyped-def]
    """On random states: every hand's stay and twist values, the value and the blind banker's to 1e-12,
    the same hands reached, the same decisions where they are not a tie, the same outcome chances."""
    py, nb = readers[packs]
    rng = np.random.default_rng(27 + packs)
    checked = decided = 0
    for _ in range(60):
        seen = _random_seen(py, rng)
        try:
            a = py._tree(seen)
        except ValueError:
            with pytest.raises(ValueError):
                nb._tree(seen)
            continue
        b = nb._tree(seen)
        assert set(a.stay) == set(b.stay) and set(a.twist) == set(b.twist)
        for h in a.stay:
            assert abs(a.stay[h] - b.stay[h]) < 1e-12, (seen, h)
        for h in a.twist:
            assert abs(a.twist[h] - b.twist[h]) < 1e-12, (seen, h)
            if abs(a.twist[h] - a.stay[h]) > 1e-12:
                decided += 1
                assert (a.twist[h] < a.stay[h]) == (b.twist[h] < b.stay[h])
        assert abs(a.value - b.value) < 1e-12 and abs(a.blind - b.blind) < 1e-12
        assert a.value <= a.blind + 1e-12  # reading every hand is never worse for him than the blind play
        # the kernel's twist flags are the Python twist set
        tw = twists(py, seen)
        hands, _, _ = banker_nodes(seen.first)
        flags = twist_plan(nb, seen)
        assert isinstance(flags, np.ndarray)
        ties = {h for h in a.twist if abs(a.twist[h] - a.stay[h]) <= 1e-12}  # either is a best response
        assert {h for h, x in zip(hands, flags, strict=True) if x} - ties == set(tw) - ties
        rooms = np.array(py.sol.game.counts, np.int64)[None, :] - rng.integers(0, 3, size=(8, 11))
        rooms = np.maximum(rooms, 0)
        for plan in (tw, flags):
            got = outcome_chances_fast(seen.first, rooms, plan)
            if plan is tw or not ties:
                assert np.abs(got - outcome_chances_many(seen.first, rooms, tw)).max() < 1e-12
            assert np.abs(got.sum(axis=1) - 1).max() < 1e-12
        checked += 1
    assert checked > 30 and decided > 200


def test_kernel_outcome_chances_on_small_packs() -> None:
    """Packs nearly exhausted (a card of a value gone, very few left): the kernel's outcome chances."""
    rng = np.random.default_rng(5)
    for first in [(0, 4), (1, 2), (3, 3), (0, 0), (5, 9)]:
        hands, _, _ = banker_nodes(first)
        twistable = [h for h in hands if sum(min(c + 1, 10) for c in h) < 21 and len(h) < 5]
        for _ in range(10):
            tw = frozenset(h for h in twistable if rng.random() < 0.6)
            rooms = rng.integers(0, 4, size=(12, 11))
            rooms[:, 0] += 1  # at least one card left
            assert (
                np.abs(outcome_chances_fast(first, rooms, tw) - outcome_chances_many(first, rooms, tw)).max()
                < 1e-12
            )


@pytest.mark.parametrize("packs", [1, 2])
def test_tree_last_equals_tree(readers, packs: int) -> None:  # type: ignore[no-untyped-def]
    """The other hands' programme combined once and a last hand added (``Reader.tree_last``, as a
    deviator's observations use it) gives ``tree``'s values, with the kernels and with the numpy programme."""
    rng = np.random.default_rng(7 + packs)
    for rd in readers[packs]:
        checked = 0
        for _ in range(30):
            seen = _random_seen(rd, rng)
            mine, others = seen.live[0], Seen(seen.banker, seen.live[1:], seen.shown)
            rd._cache.clear()
            try:
                a = rd.tree(seen)
            except ValueError:
                continue
            rd._cache.clear()
            b = rd.tree_last(others, mine)
            assert set(a.stay) == set(b.stay) and abs(a.value - b.value) < 1e-12 and a.states == b.states
            assert max(abs(a.stay[h] - b.stay[h]) for h in a.stay) < 1e-12
            assert max((abs(a.twist[h] - b.twist[h]) for h in a.twist), default=0.0) < 1e-12
            checked += 1
        assert checked > 15
