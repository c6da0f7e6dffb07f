"""Issue 27 item 3: deals of the players' best response to the reading banker drawn by independent runs and
pooled (analysis/british/reading_pool.py, bench/device_nbr.py), on a reduced pack where the exact figures
are known (reading_response.exact_response, itself equal to every deal through the engine)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from pontoon.analysis.british.reading import Reader
from pontoon.analysis.british.reading_best import sampled_values
from pontoon.analysis.british.reading_pool import (
    deal_record,
    load_runs,
    pool_cell,
    read_batches,
    summary,
    table,
    write_batch,
)
from pontoon.analysis.british.reading_response import exact_response
from pontoon.analysis.british.reading_response_sample import deviation, sample_response
from pontoon.analysis.british.values import player_flow
from pontoon.rules.british import BRITISH

RULES = BRITISH.with_(pack_ranks="5T", pack_suits=4, packs=2)  # 16 cards: the best response gains 15 points


def test_deal_records_are_the_sampled_deals(cache) -> None:  # type: ignore[no-untyped-def]
    """A deal's ``z_D`` is ``reading_best.sampled_values``'s for the same seed and number, and the mean of its
    scalars is ``sample_response``'s (every programme) to 1e-12: the same deals, the same estimators."""
    t = table(RULES, 2)
    recs, zs, _ = zip(*(deal_record(t, 7, j) for j in range(30)), strict=True)
    for z, z_ref in zip(zs, sampled_values(RULES, 2, 30, 7), strict=True):
        assert np.abs(z - z_ref).max() < 1e-12
    ref = sample_response(RULES, 2, 30, 7, budget=None)
    assert abs(np.mean([r["reading_gain"] for r in recs]) - ref["reading_gain"]) < 1e-12
    for name in ("heads_up", "blind"):
        assert abs(np.mean([r[name] for r in recs]) - ref["deviations"][name]["gain"]) < 1e-12


def test_batch_records_round_trip_and_a_cut_tail_is_dropped() -> None:
    fh = io.BytesIO()
    z = np.linspace(-2.0, 3.0, 7)
    write_batch(fh, {"cell": "3x1", "seed": 5, "first": 0, "deals": 2}, z)
    write_batch(fh, {"cell": "3x1", "seed": 5, "first": 2, "deals": 1}, 2 * z)
    data = fh.getvalue()
    got = list(read_batches(data))
    assert [h["first"] for h, _ in got] == [0, 2]
    assert np.abs(got[1][1] - 2 * z).max() < 1e-6  # float32
    assert len(list(read_batches(data[:-5]))) == 1  # a run stopped mid-write
    one = len(data) - len(data[data.rindex(b"NBRZ1") :])  # the first record's length
    # the first record cut short, the second after it: the second is still read
    assert [h["first"] for h, _ in read_batches(data[: one - 10] + data[one:])] == [2]
    with pytest.raises(ValueError, match="not a batch record"):
        list(read_batches(b"garbage" + data))


def _run(t, folder, seed: int, deals: int, per_batch: int, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    """A run's files as ``bench/device_nbr.py`` writes them (deals of ``seed``, z and the control's sums in
    batches)."""
    jl, zb, cb = folder / f"{name}.jsonl", folder / f"{name}.bin", folder / f"{name}-c.bin"
    with open(jl, "w", encoding="utf-8") as fj, open(zb, "wb") as fz, open(cb, "wb") as fc:
        for first in range(0, deals, per_batch):
            acc, cacc = np.zeros(len(t.y0)), np.zeros(len(t.y0))
            for j in range(first, min(deals, first + per_batch)):
                rec, z, c = deal_record(t, seed, j)
                fj.write(json.dumps({"cell": "2x2", **rec}) + "\n")
                acc += z
                cacc += c
            header = {
                "cell": "2x2",
                "seed": seed,
                "first": first,
                "deals": min(deals, first + per_batch) - first,
            }
            write_batch(fz, header, acc)
            write_batch(fc, header | {"control": True}, cacc)
    return [str(jl), str(zb), str(cb)]


def test_pooled_runs_bracket_the_exact_best_response(cache, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two runs (other seeds), one file given twice: each deal counted once; the pooled fixed deviations'
    gains within 4 standard errors of their exact gains; the in-sample gain at least every fixed
    deviation's on the same deals; the cross-fitted lower figures within 4 standard errors below the exact
    best response's gain. The same with the control (``reading_control``): every deal and batch has it."""
    t = table(RULES, 2)
    files = _run(t, tmp_path, 11, 90, 3, "a") + _run(t, tmp_path, 12, 90, 2, "b")
    records, batches, controls = load_runs(files + files[:3])
    assert len(records["2x2"]) == 180 and sum(h["deals"] for h, _ in batches["2x2"]) == 180
    assert sum(h["deals"] for h, _ in controls["2x2"]) == 180
    cell = pool_cell(t, records["2x2"], batches["2x2"], controls["2x2"])
    assert (
        cell["controlled"]["deals_with_control"] == 180
        and cell["controlled"]["fit_deals_with_control"] == 180
    )
    sol, g = t.sol, t.sol.game
    ex = exact_response(Reader(sol), 2)
    y0 = player_flow(g, sol.sigma)
    best = ex["best"] - ex["solved"]
    assert best > 0.1
    for figures in (cell, cell["controlled"]):
        for name in ("heads_up", "blind"):
            d = figures["deviations"][name]
            exact = float((player_flow(g, deviation(sol, name)) - y0) @ ex["terminal_values"])
            assert d["gain_se"] > 0 and abs(d["gain"] - exact) < 4 * d["gain_se"], (name, d, exact)
            assert figures["in_sample_gain"] >= d["gain"] - 1e-12
        assert set(figures["cross_fitted"]) == {"fitted", "fitted_5", "fitted_15"}
        for d in figures["cross_fitted"].values():
            assert d["gain_se"] > 0 and d["gain"] < best + 4 * d["gain_se"]
        s = summary(figures)
        assert s["lower"] <= s["upper"] and s["edge_at_least"] <= s["edge_at_most"]


def test_run_files_of_another_kind_are_refused(tmp_path) -> None:
    p = tmp_path / "x.txt"
    p.write_text("{}")
    with pytest.raises(ValueError, match=r"\.jsonl \(deals\) or \.bin"):
        load_runs([str(p)])
