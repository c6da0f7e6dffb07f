"""The simulator against the exact outcome distribution (sim/agreement.py, issue 23): every
outcome's frequency and the sample variance within a few standard errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from pontoon.analysis.distribution import hand_distribution, round_distribution
from pontoon.cards import pack_cards
from pontoon.rules.load import resolve_rules
from pontoon.rules.model import CasinoRules
from pontoon.sim import _kernels as K
from pontoon.sim.agreement import agreement, pool_runs, simulated_outcomes
from pontoon.sim.api import build_spec, run_stacked


def _check(preset: str, rounds: int, strategy: str, bound: float) -> dict:  # type: ignore[type-arg]
    rules = resolve_rules(preset)
    exact = round_distribution(rules, strategy == "basic")
    counts, _rep = simulated_outcomes(rules, rounds, strategy, seed=23)
    a = agreement(exact, counts)
    assert a["rounds"] == rounds
    assert sum(counts.values()) == rounds
    # every simulated outcome is one the distribution has
    support = {round(o["net"] * 2) / 2 for o in exact["outcomes"]}
    assert set(counts) <= support
    bad = [r for r in a["outcomes"] if r["probability"] > 0 and abs(r["z"]) > bound]
    assert not bad, bad
    assert abs(a["variance"]["z"]) < bound
    assert abs(a["mean"]["z"]) < bound
    return a


@pytest.mark.parametrize("preset", ["mbs", "blackjack"])
def test_simulator_agrees_small(preset: str) -> None:
    _check(preset, 200_000, "basic", 4.0)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"])
def test_simulator_agrees_large(preset: str) -> None:
    _check(preset, 10_000_000, "basic", 4.0)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "blackjack"])
def test_simulator_agrees_large_optimal(preset: str) -> None:
    """Under optimal play; federal's split rounds were 5.6 standard errors off at 10^8 rounds
    before the simulator's table played the chart's split where optimal play takes it and the
    distribution played each split hand by its own Aces (docs/report-agreement.md)."""
    _check(preset, 10_000_000, "optimal", 4.0)


def _dealt(rules: CasinoRules, up_pts: int, pair_pts: int, n: int, seed: int) -> list[list[int]]:
    """``n`` shoes (card codes in deal order) that give one box a pair of ``pair_pts`` and the
    dealer an up card of ``up_pts`` (box card, up card, box card: the kernel's ``_deal``), suits at
    random, then 31 cards of the rest of the shoe shuffled."""
    pack = list(pack_cards(rules.pack))
    codes = np.array([c.code for c in pack] * rules.decks)
    pts = np.array([c.points for c in pack] * rules.decks)
    rng = np.random.default_rng(seed)
    shoes = []
    for _ in range(n):
        perm = rng.permutation(len(codes))
        a, b = perm[pts[perm] == pair_pts][:2]
        c = next(k for k in perm[pts[perm] == up_pts] if k not in (a, b))
        # the rest from a second shuffle (the first one's head holds no earlier card of those values)
        rest = [k for k in rng.permutation(len(codes))[:34] if k not in (a, b, c)][:31]
        shoes.append([int(codes[k]) for k in (a, c, b, *rest)])
    return shoes


def test_federal_split_of_eights_against_a_ten_agrees() -> None:
    """FED under optimal play, the rounds dealt 8-8 against a ten: the simulator's table (the
    kernel on stacked shoes) against the distribution's outcomes given that hand. Optimal play
    takes the chart's play of this split's hands (it loses less to the one-wager rule than the
    split chains, which decide as if a live hand lost nothing to a dealer Pontoon: analysis/
    split_chart.py); the table played the chains' (which double far more often against a ten):
    -4 was 18.7 standard errors off with 20,000 rounds, -3 14.0 (5.6 over all rounds at 10^8)."""
    rules = resolve_rules("federal")
    n = 20_000
    exact = hand_distribution(rules, False, 9, 7, 7)  # value indices: a ten, two 8s
    assert sum(exact.values()) == pytest.approx(1.0, abs=1e-12)
    spec = build_spec(rules, strategy="optimal")
    rec = run_stacked(spec, _dealt(rules, 10, 8, n, seed=29))
    net = rec[:, 0, K.K_MAIN] * float(spec.quantum) / float(spec.bet)
    vals, cnt = np.unique(np.round(net * 2) / 2, return_counts=True)
    counts = dict(zip(vals.tolist(), cnt.tolist(), strict=True))
    assert set(counts) <= set(exact)
    zs = {}
    for v, p in exact.items():
        if n * p >= 5:
            zs[v] = (counts.get(v, 0) - n * p) / math.sqrt(n * p * (1 - p))
    assert len(zs) >= 8
    assert max(abs(z) for z in zs.values()) < 4.5, zs


def test_deviation_bound_of_an_outcome() -> None:
    """``agreement``'s error bound: the largest |frequency - p| + 3 sqrt(p (1 - p) / n) over outcomes
    (-1, 0, +1 with 1/4, 1/2, 1/4, seen 300, 500 and 200 times in 1,000: 0.05 + 3 sqrt(3/16 / 1000))."""
    exact = {
        "outcomes": [
            {"net": -1.0, "probability": 0.25},
            {"net": 0.0, "probability": 0.5},
            {"net": 1.0, "probability": 0.25},
        ],
        "mean": 0.0,
        "variance": 0.5,
    }
    a = agreement(exact, {-1.0: 300, 0.0: 500, 1.0: 200})
    assert abs(a["max_deviation"]["deviation"]) == pytest.approx(0.05)
    assert a["deviation_bound"] == pytest.approx(0.05 + 3 * math.sqrt(3 / 16 / 1000))
    assert a["max_abs_z"] == pytest.approx(50 / math.sqrt(1000 * 3 / 16))


def _count_file(path: Path, seed: int, nets: np.ndarray) -> Path:
    """A run's counts as ``bench/report_agreement.py`` keeps them (bench/agreement/counts/*.json)."""
    vals, cnt = np.unique(np.round(nets * 2) / 2, return_counts=True)
    run = {
        "preset": "federal",
        "strategy": "basic",
        "seed": seed,
        "rounds": int(cnt.sum()),
        "outcomes": [{"net": float(v), "count": int(c)} for v, c in zip(vals, cnt, strict=True)],
    }
    f = path / f"federal-basic-s{seed}.json"
    f.write_text(json.dumps(run))
    return f


def test_pooled_runs_equal_one_run_of_both_lengths(tmp_path: Path) -> None:
    """Two runs' count files pooled (``pool_runs``) are the counts of the one run that played both
    runs' rounds (the simulator's table on the same stacked shoes, 8-8 against a ten, FED under the
    chart), and their agreement (rounds, every z, the sample mean and variance from the pooled
    moments) is that run's."""
    rules = resolve_rules("federal")
    spec = build_spec(rules, strategy="basic")
    shoes = _dealt(rules, 10, 8, 3_000, seed=31)
    scale = float(spec.quantum) / float(spec.bet)
    whole = run_stacked(spec, shoes)[:, 0, K.K_MAIN] * scale
    first = run_stacked(spec, shoes[:1_200])[:, 0, K.K_MAIN] * scale
    second = run_stacked(spec, shoes[1_200:])[:, 0, K.K_MAIN] * scale
    files = [_count_file(tmp_path, 1, first), _count_file(tmp_path, 2, second)]
    pool = pool_runs([json.loads(f.read_text()) for f in files])
    assert pool["rounds"] == 3_000 and pool["seeds"] == [1, 2]
    vals, cnt = np.unique(np.round(whole * 2) / 2, return_counts=True)
    assert pool["counts"] == dict(zip(vals.tolist(), cnt.tolist(), strict=True))
    exact = hand_distribution(rules, True, 9, 7, 7)  # value indices: a ten, two 8s
    dist = {
        "outcomes": [{"net": v, "probability": p} for v, p in exact.items()],
        "mean": sum(v * p for v, p in exact.items()),
        "variance": sum(v * v * p for v, p in exact.items()) - sum(v * p for v, p in exact.items()) ** 2,
    }
    a = agreement(dist, pool["counts"])
    assert a["rounds"] == 3_000
    assert a["mean"]["simulated"] == pytest.approx(float(whole.mean()), rel=1e-12)
    assert a["variance"]["simulated"] == pytest.approx(float(whole.var(ddof=1)), rel=1e-12)
    # the pooled moments: each run's variance and the gap between the runs' means
    (n1, m1, v1), (n2, m2, v2) = (
        (h["rounds"], h["mean"]["simulated"], h["variance"]["simulated"])
        for h in (agreement(dist, pool_runs([json.loads(f.read_text())])["counts"]) for f in files)
    )
    assert (n1, n2) == (1_200, 1_800)
    pooled = ((n1 - 1) * v1 + (n2 - 1) * v2 + n1 * n2 / (n1 + n2) * (m1 - m2) ** 2) / (n1 + n2 - 1)
    assert a["variance"]["simulated"] == pytest.approx(pooled, rel=1e-12)


@pytest.mark.parametrize(
    "change,needle",
    [
        ({"strategy": "optimal"}, "one preset and strategy only"),
        ({"preset": "mbs"}, "one preset and strategy only"),
        ({"seed": 1}, "distinct seed"),
    ],
)
def test_pooling_refuses_runs_of_other_kinds(change: dict, needle: str) -> None:  # type: ignore[type-arg]
    one = {"preset": "federal", "strategy": "basic", "seed": 1, "outcomes": [{"net": -1.0, "count": 3}]}
    other = {**one, "seed": 2, **change}
    with pytest.raises(ValueError, match=needle):
        pool_runs([one, other])
