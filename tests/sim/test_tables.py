"""Strategy charts -> the kernel's table."""

from __future__ import annotations

import json

import pytest

from pontoon.sim import _kernels as K
from pontoon.sim.tables import StrategyError, default_table, fallback_chart, load_chart, strategy_table


def test_defaults() -> None:
    t = default_table()
    assert t[K.K_HARD, 11, 2, 10] == K.C_H
    assert t[K.K_HARD, 14, 2, 5] == K.C_S and t[K.K_HARD, 14, 2, 9] == K.C_H
    assert t[K.K_HARD, 17, 3, 1] == K.C_S
    assert t[K.K_SOFT, 17, 2, 6] == K.C_H and t[K.K_SOFT, 18, 2, 6] == K.C_S
    assert (t[K.K_PAIR, :, :, 1:] == K.C_NONE).all()
    assert (t[K.K_RESCUE] == 0).all()


def test_codes_and_card_count_exceptions() -> None:
    chart = {
        "hard": {"16": {"T": "R", "9": "H; S with 5+ cards", "8": "S; H with 3 cards"}, "11": {"A": "D"}},
        "soft": {"18": {"6": "Ds", "A": "Rs"}},
        "pair": {"A": {"5": "P"}, "T": {"6": "S"}},
        "rescue": {"14": {"T": "F", "2": "S"}},
    }
    t = strategy_table(chart)
    assert t[K.K_HARD, 16, 2, 10] == K.C_R
    assert [t[K.K_HARD, 16, n, 9] for n in (2, 4, 5, 7, 9)] == [K.C_H, K.C_H, K.C_S, K.C_S, K.C_S]
    assert [t[K.K_HARD, 16, n, 8] for n in (2, 3, 4)] == [K.C_S, K.C_H, K.C_S]
    assert t[K.K_HARD, 11, 2, 1] == K.C_D
    assert t[K.K_SOFT, 18, 2, 6] == K.C_DS and t[K.K_SOFT, 18, 2, 1] == K.C_RS
    assert t[K.K_PAIR, 1, 2, 5] == K.C_P and t[K.K_PAIR, 10, 2, 6] == K.C_S
    assert t[K.K_RESCUE, 14, 3, 10] == 1 and t[K.K_RESCUE, 14, 3, 2] == 0


def test_whole_report_and_file(tmp_path) -> None:
    report = {"house_edge": {"basic": 0.005}, "strategy": {"hard": {"12": {"2": "S"}}}}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(report))
    chart = load_chart(p)
    assert strategy_table(chart)[K.K_HARD, 12, 2, 2] == K.C_S
    assert strategy_table(report)[K.K_HARD, 12, 2, 2] == K.C_S


@pytest.mark.parametrize(
    "chart,msg",
    [
        ({"hard": {"16": {"T": "X"}}}, "unknown code"),
        ({"hard": {"16": {"Z": "H"}}}, "up card"),
        ({"hard": {"sixteen": {"T": "H"}}}, "not a number"),
        ({"hard": {"16": {"T": "H; S with many cards"}}}, "bad exception"),
        ({"pair": {"Q2": {"T": "P"}}}, "pair key"),
        ({"rescue": {"14": {"T": "H"}}}, "rescue"),
    ],
)
def test_bad_charts(chart, msg) -> None:
    with pytest.raises(StrategyError, match=msg):
        strategy_table(chart)


def test_bad_files(tmp_path) -> None:
    with pytest.raises(StrategyError, match="not found"):
        load_chart(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(StrategyError, match="not valid JSON"):
        load_chart(bad)
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    with pytest.raises(StrategyError, match="no 'hard'"):
        load_chart(empty)


def test_fallback_chart_parses() -> None:
    strategy_table(fallback_chart(None))
