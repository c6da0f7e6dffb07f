"""Issue 27 item 3: the control variate of the pooled best response to the reading banker (the same deals
valued against the blind banker, ``analysis/british/reading_control.py``): its mean is exact, the difference
estimator is unbiased and covers the truth at the stated rate, and ``bench/device_nbr.py`` replays and pools
it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from pontoon.analysis.british.game import NCLASS, counts_of, multiset_p
from pontoon.analysis.british.reading_control import blind_values, check, control_record
from pontoon.analysis.british.reading_pool import deal_record, load_runs, pool_cell, summary, table
from pontoon.rules.british import BRITISH

RULES = BRITISH.with_(pack_ranks="5T", pack_suits=4, packs=2)  # as test_british_reading_pool
ROOT = Path(__file__).resolve().parents[2]


def _heads_up_mean(t) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``E[c_D]`` heads-up, exactly: every pair of the banker's first two cards by its chance (a banker's
    Pontoon gives 0)."""
    acc, total = np.zeros(len(t.y0)), 0.0
    for a in range(NCLASS):
        for b in range(a, NCLASS):
            p = multiset_p(t.n0, (), (a, b))
            total += p
            if p and (a, b) != tuple(sorted(t.sol.game.pontoon)):
                acc += p * blind_values(t, ((a, b), [], [], np.array(counts_of((a, b)), np.int64)))
    assert abs(total - 1.0) < 1e-12
    return acc


def test_the_control_mean_is_exact_heads_up(cache) -> None:  # type: ignore[no-untyped-def]
    """Heads-up a deal is the banker's first two cards: the mean of ``c_D`` over all of them is
    ``control_mean`` (the heads-up terminal values against the blind banker less the banker's Pontoon part)
    to 1e-12, terminal by terminal."""
    t = table(RULES, 1)
    assert np.abs(_heads_up_mean(t) - t.mu).max() < 1e-12
    assert np.abs(t.mu).max() > 0.5  # not trivially zero


@pytest.mark.slow
@pytest.mark.parametrize("packs", [1, 2])
def test_the_control_mean_is_exact_heads_up_on_full_packs(packs: int) -> None:
    t = table(BRITISH.with_(packs=packs), 1)
    assert np.abs(_heads_up_mean(t) - t.mu).max() < 1e-12


def test_the_control_mean_holds_with_two_players(cache) -> None:  # type: ignore[no-untyped-def]
    """With two players the other hand is unseen cards to the blind banker: over 400 fresh deals the
    control's mean (the solution's value and each deviation's gain against the blind banker) is within 4
    standard errors of the exact heads-up one."""
    t = table(RULES, 2)
    got = check(t, 31, 400)
    for name in ("solved", "heads_up", "blind"):
        v = got[name]
        assert v["se"] > 0 and abs(v["mean"] - v["exact"]) < 4 * v["se"], (name, v)


def test_the_replayed_control_is_the_deals(cache) -> None:  # type: ignore[no-untyped-def]
    """``control_record`` (what ``device_nbr.py control`` writes for old runs) replays the deal of
    ``deal_record``: the same ``c_D`` and scalars to 1e-12."""
    t = table(RULES, 2)
    for j in range(6):
        rec, _, c = deal_record(t, 9, j)
        got, c2 = control_record(t, 9, j)
        assert np.abs(c - c2).max() < 1e-12
        for k, v in got.items():
            assert abs(rec[k] - v) < 1e-12


def _synthetic(rng: np.random.Generator, n: int, truth: dict[str, float], mu: np.ndarray) -> list[dict]:  # type: ignore[type-arg]
    """Deals with a known mean: per deviation a skewed control ``c`` (mean ``mu``, mostly 0 as most deals
    give the deviation nothing) and the gain ``truth + 0.95 (c - mu) + noise``; a reading gain >= 0."""
    out = []
    for j in range(n):
        rec: dict[str, float] = {"seed": 1, "j": j, "reading_gain": float(rng.exponential(0.01))}
        for k, (name, m) in enumerate(truth.items()):
            c = float(mu[k] + (rng.exponential(0.1) - 0.1) * (rng.random() < 0.4) / 0.4)
            rec[f"{name}_ctl"] = c
            rec[name] = m + 0.95 * (c - mu[k]) + float(rng.standard_t(5) * 0.01)
        out.append(rec)
    return out


def test_the_difference_estimator_is_unbiased_and_covers_at_the_stated_rate() -> None:
    """On synthetic deals whose truth is known (a skewed control with a known mean, heavy-tailed noise), 600
    seeded replicas of 150 deals: the controlled gain's mean over replicas is the truth (within 4 standard
    errors of that mean), truth +/- 1.96 standard errors covers it in 93% to 97% of them (95% stated), the
    edge (blind edge + reading gain - gain) alike, and the control cuts the standard error several-fold."""
    truth = {"heads_up": -0.004, "blind": 0.006}
    mu = np.array([0.02, -0.03])
    t = SimpleNamespace(players=5, packs=2, y0=np.zeros(2), mu=mu, blind_edge=0.01)
    t.dev_flows = {"heads_up": np.array([1.0, 0.0]), "blind": np.array([0.0, 1.0])}
    est: dict[str, list[float]] = {name: [] for name in truth}
    covered = dict.fromkeys(truth, 0)
    edge_covered = dict.fromkeys(truth, 0)
    ratio = []
    reps = 600
    for r in range(reps):
        rng = np.random.default_rng([27, r])
        cell = pool_cell(t, _synthetic(rng, 150, truth, mu), [])  # type: ignore[arg-type]
        for name, m in truth.items():
            d = cell["controlled"]["deviations"][name]
            est[name].append(d["gain"])
            covered[name] += abs(d["gain"] - m) <= 1.96 * d["gain_se"]
            edge = t.blind_edge + 0.01 - m  # E[reading gain] = 0.01
            edge_covered[name] += abs(d["edge"] - edge) <= 1.96 * d["edge_se"]
            ratio.append(cell["deviations"][name]["gain_se"] / d["gain_se"])
    for name, m in truth.items():
        e = np.array(est[name])
        assert abs(e.mean() - m) < 4 * e.std(ddof=1) / np.sqrt(reps), name
        assert 0.93 <= covered[name] / reps <= 0.97, (name, covered[name])
        assert 0.93 <= edge_covered[name] / reps <= 0.97, (name, edge_covered[name])
    assert np.median(ratio) > 3.0


def test_deals_without_their_control_keep_their_plain_value() -> None:
    """A deal with no control line counts with its plain gain (each is unbiased for the same figure): the
    controlled mean is the mean of the controlled and the plain values."""
    t = SimpleNamespace(players=3, packs=1, y0=np.zeros(2), mu=np.array([0.5, -0.25]), blind_edge=0.0)
    t.dev_flows = {"heads_up": np.array([1.0, 0.0]), "blind": np.array([0.0, 1.0])}
    recs = [
        {
            "seed": 1,
            "j": 0,
            "reading_gain": 0.0,
            "heads_up": 1.0,
            "blind": 2.0,
            "heads_up_ctl": 0.75,
            "blind_ctl": 0.0,
        },
        {"seed": 1, "j": 1, "reading_gain": 0.0, "heads_up": 3.0, "blind": 4.0},
    ]
    cell = pool_cell(t, recs, [])  # type: ignore[arg-type]
    assert cell["controlled"]["deals_with_control"] == 1
    assert abs(cell["controlled"]["deviations"]["heads_up"]["gain"] - (1.0 - 0.75 + 0.5 + 3.0) / 2) < 1e-12
    assert abs(cell["controlled"]["deviations"]["blind"]["gain"] - (2.0 - 0.0 - 0.25 + 4.0) / 2) < 1e-12
    assert "controlled" not in pool_cell(t, recs[1:], [])  # type: ignore[arg-type]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "device_nbr.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_device_nbr_control_and_pool_print_the_controlled_columns(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``control`` replays a run's deals of a full-pack cell (scalars equal ``control_record``'s, one control
    batch per batch); ``pool`` over the run and its control prints the columns with and without the control
    and the controlled figures; a file of another kind is refused with exit 2."""
    t = table(BRITISH.with_(packs=1), 3)
    rng = np.random.default_rng(5)
    run = tmp_path / "nbr-deals.jsonl"
    with open(run, "w", encoding="utf-8") as fh:  # synthetic scalars of real deals (seed 77, 0..5)
        for j in range(6):
            rec = {"cell": "3x1", "seed": 77, "j": j, "reading_gain": float(rng.exponential(0.01))}
            fh.write(json.dumps(rec | {"heads_up": float(rng.normal()), "blind": float(rng.normal())}) + "\n")
    got = _cli("control", str(run), "--out", str(tmp_path / "ctl"))
    assert got.returncode == 0, got.stderr
    lines = [json.loads(x) for x in (tmp_path / "ctl" / "nbr-control.jsonl").read_text().splitlines()]
    assert sorted(r["j"] for r in lines) == list(range(6))
    for r in lines:
        ref, _ = control_record(t, 77, r["j"])
        assert (
            abs(r["blind_ctl"] - ref["blind_ctl"]) < 1e-12
            and abs(r["heads_up_ctl"] - ref["heads_up_ctl"]) < 1e-12
        )
    files = [str(run), str(tmp_path / "ctl" / "nbr-control.jsonl")]
    got = _cli("pool", *files, "--json", str(tmp_path / "pool.json"))
    assert got.returncode == 0, got.stderr
    assert "| with the control (z) |" in got.stdout and "| without the control |" in got.stdout
    row = next(x for x in got.stdout.splitlines() if x.startswith("| 3 | 1 |"))
    assert "| 6 (0) | 6 (0) |" in row
    records, batches, controls = load_runs(files)
    cell = pool_cell(t, records["3x1"], [], [])
    s = summary(cell["controlled"])
    assert f"{100 * s['edge_at_most']:+.3f}%" in row and f"{100 * s['lower']:+.3f}%" in row
    assert json.loads((tmp_path / "pool.json").read_text())["3x1"]["controlled"]["deals_with_control"] == 6
    bad = tmp_path / "x.txt"
    bad.write_text("{}")
    got = _cli("control", str(bad), "--out", str(tmp_path / "o"))
    assert got.returncode == 2 and got.stderr.startswith("error: ") and ".jsonl" in got.stderr
