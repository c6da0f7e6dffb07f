from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pontoon.analysis.report import (
    CHART,
    ONE_WAGER_EXACT,
    ONE_WAGER_PLAY,
    ONE_WAGER_UNION,
    SUIT_SPLIT,
    analyze,
    approximations,
)
from pontoon.analysis.states import UPCARD_LABELS
from pontoon.rules.load import resolve_rules


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from pontoon.cli.app import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "analyze", *args], capture_output=True, text=True, timeout=300
    )


def test_json_report_shape(tmp_path: Path) -> None:
    png = tmp_path / "c.png"
    r = _run("--rules", "rws-plus", "--set", "decks=8", "--json", "--chart", str(png))
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["rules"]["preset"] == "rws-plus" and rep["rules"]["decks"] == 8
    assert set(rep["house_edge"]) == {"basic", "optimal"}
    assert list(rep["dealer"]) == list(UPCARD_LABELS)
    for d in rep["dealer"].values():
        assert set(d) == {"17", "18", "19", "20", "21", "pontoon", "bust"}
        assert sum(d.values()) == pytest.approx(1.0)
    assert set(rep["side_bets"]) == {"pair", "bonus", "insurance", "super_bonus"}
    assert set(rep["strategy"]) == {"hard", "soft", "pair", "rescue"}
    assert isinstance(rep["notation"], str) and rep["seconds"] > 0
    assert png.stat().st_size > 1000


@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "nope"],
        ["--rules", "mbs", "--set", "decks=9"],
        ["--rules", "mbs", "--set", "foo"],
        ["--rules", "mbs", "--bet", "-5"],
        ["--rules", "british", "--set", "burn=hard13", "--set", "banker_may_double=true"],
        ["--rules", "mbs", "--split-strategy", "cdq"],
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str]) -> None:
    r = _run(*args)
    assert r.returncode == 2
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1


def test_compare_side_by_side() -> None:
    r = _run("--compare", "mbs", "federal", "blackjack")
    assert r.returncode == 0, r.stderr
    for word in ("mbs", "federal", "blackjack", "house edge, basic", "pack", "max_split_hands"):
        assert word in r.stdout


def test_split_strategy_option_reaches_the_analysis() -> None:
    """--split-strategy cdz on 1 deck S17 gives Farmer's CDZ- figure (tests/analysis/test_farmer.py),
    and the report names the strategy in its method."""
    r = _run("--rules", "blackjack", "--set", "decks=1", "--split-strategy", "cdz", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert -rep["house_edge"]["optimal"] == pytest.approx(0.181934306 / 100, abs=1e-9)
    assert "CDZ-" in rep["method"]["splits"]
    # plain blackjack: only the chart is a restriction; no FED one-wager rule, no 6-7-8
    assert rep["method"]["approximations"] == [CHART]
    assert "one_wager" not in rep["method"]


@pytest.mark.parametrize(
    ("preset", "strategy", "union", "one_wager"),
    [
        ("federal", "cdp1", False, True),
        ("federal", "cdz", False, True),
        ("federal", "cdp", True, False),  # CDP's play is not hand by hand: the union stays
        ("mbs", "cdp1", False, False),
    ],
)
def test_method_names_what_stays_approximate(
    preset: str, strategy: str, union: bool, one_wager: bool
) -> None:
    rules = resolve_rules(preset)
    names = approximations(rules, strategy)
    assert (ONE_WAGER_UNION in names) is union
    assert (ONE_WAGER_PLAY in names) is rules.split_loses_one_wager
    assert SUIT_SPLIT in names and CHART in names
    if one_wager:  # the exact method is named in the report where it is used
        rep = analyze(rules, split_strategy=strategy)
        assert rep["method"]["one_wager"] == ONE_WAGER_EXACT
