"""Issue 27 item 3: ``pontoon analyze --rules british|shoot`` prints the solved game (a reduced pack keeps the
process short; the full pack is the same code, timed in docs/analysis.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pontoon.analysis.british.report import COLUMNS, analyze_british, player_chart
from pontoon.rules.british import BRITISH, SHOOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from pontoon.cli.app import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "analyze", *args], capture_output=True, text=True, timeout=600
    )


def test_shoot_json_and_chart(tmp_path: Path) -> None:
    png = tmp_path / "british.png"
    r = _run("--rules", "shoot", "--set", "pack_ranks=A5T", "--json", "--chart", str(png))
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert (
        rep["game"] == "british" and rep["rules"]["preset"] == "shoot" and rep["rules"]["pack_ranks"] == "A5T"
    )
    sol = rep["solution"]
    assert sol["solver"] == "CFR+" and 0 <= sol["exploitability"] <= 1e-3
    assert sol["banker_best_response"] <= sol["player_value"] <= sol["player_best_response"]
    assert rep["banker_edge"]["solution"] == pytest.approx(-sol["player_value"])
    # the house banker is a fixed strategy: the player's best response to it does at least as well as the
    # solved player does against it
    assert rep["banker_edge"]["house_banker"] <= rep["banker_edge"]["house_banker_vs_solved_player"]
    assert set(rep["strategy"]) == {"player", "banker"}
    assert all(set(row) <= set(COLUMNS) for row in rep["strategy"]["banker"].values())
    assert set(rep["shoot"]["first_card"]) == {"A", "5", "T"}
    assert set(rep["shoot"]["fourth_card"]) == {"hard", "soft"} and rep["shoot"]["fourth_card"]["hard"]
    # every first decision's exact value, for the same totals as the chart, with the actions 003 allows
    for kind in ("hard", "soft"):
        assert set(rep["decision_values"][kind]) == set(rep["strategy"]["player"][kind])
    assert set(rep["decision_values"]["hard"]["20"]) == {"stick", "twist", "buy1", "buy2"}
    assert set(rep["decision_values"]["hard"]["10"]) == {"twist", "buy1", "buy2"}  # 003: no stick below 15
    assert png.stat().st_size > 1000


def test_terminal_report() -> None:
    r = _run("--rules", "british", "--set", "pack_ranks=A5T")
    assert r.returncode == 0, r.stderr
    for words in ("banker's edge at the solution", "exploitability", "house banker", "first decision"):
        assert words in r.stdout


def test_player_chart_on_the_full_pack_reads_the_first_decision() -> None:
    """The chart's rows are the two-card totals (pairs of ten-value cards: hard 20, A-A: soft 12)."""
    from pontoon.analysis.british.game import build

    g = build(BRITISH)
    sigma = [
        [1.0 if a == "stick" else 0.0 for a in s.actions]
        if "stick" in s.actions
        else [1.0] + [0.0] * (len(s.actions) - 1)
        for s in g.nodes
    ]
    chart = player_chart(g, [__import__("numpy").array(x) for x in sigma])
    assert list(chart["hard"]) == [str(t) for t in range(4, 21)]
    assert list(chart["soft"]) == [str(t) for t in range(12, 21)]
    assert chart["hard"]["20"] == "S" and chart["hard"]["15"] == "S"


@pytest.mark.parametrize(
    "args",
    [
        ["--set", "burn=hard13", "--set", "natural_beats_plain=true"],
        ["--set", "banker_may_double=true", "--stake-grid", "1,2"],
        ["--set", "pack_ranks=AX"],
        ["--bet", "5"],
        ["--stake-grid", "1,101"],  # above stake_max
        ["--stake-grid", "1,2.555"],
        ["--stake-grid", "1,,2"],
        ["--stake-grid", "1,2,3,4,5,6,7"],
        ["--set", "pack_ranks=A5T", "--split-reading"],  # a full pack only
        ["--set", "max_split_hands=1", "--split-reading"],
        ["--set", "pack_ranks=A5T", "--resplits"],  # a full pack only (a reduced one can run out)
        ["--set", "max_split_hands=2", "--resplits"],  # no resplit to value
        ["--set", "pack_ranks=A5T", "--resplits-exact"],  # implies --resplits
        ["--set", "banker_may_double=true", "--resplits-exact"],  # no splits there
    ],
)
def test_bad_input_is_exit_2(args: list[str]) -> None:
    r = _run("--rules", "shoot", *args)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr


def test_report_in_process_names_the_model() -> None:
    rep = analyze_british(SHOOT.with_(pack_ranks="A5T"))
    assert rep["model"]["splits"].startswith("never in the solution") and rep["model"]["buy_grid"] == [1, 2]
    dev = rep["split_deviation"]  # the pairs of the pack, and the banker's own play facing a split
    assert set(dev["pairs"]) == {"AA", "55", "TT"}  # two tens: the pack's one ten-value rank (003)
    sb = dev["with_split_banker"]
    assert (
        dev["without_splits"]
        <= sb["player_best_response_with_splits"]
        <= dev["player_best_response_with_splits"]
    )
    assert sb["exploitability_with_splits"] >= rep["solution"]["exploitability"] - 1e-12
    assert "number of cards" in sb["banker_reads"]  # the banker facing a split reads busts and card counts
    rs = dev["resplits"]  # resplits are not analysed: how often the best response would be offered one
    assert rs["pairs"] and 0 < rs["per_round"] == pytest.approx(sum(rs["pairs"].values()))
    assert "bound" not in rs and "exact" not in rs  # neither without --resplits
    assert "--resplits bounds" in rep["model"]["not_modelled"]


def test_stake_signal_pools_only_help_the_banker_at_equal_stakes() -> None:
    """At one stake for every first card, the banker who sees the pool (ace or not) does at least as well as
    his best response to the whole solved player; with a spread, the player's edge per unit grows."""
    from pontoon.analysis.british.report import stake_signal
    from pontoon.analysis.british.solve import solve

    sol = solve(BRITISH.with_(pack_ranks="A257T", pack_suits=2), target=1e-3, check_every=25)
    flat = stake_signal(sol.game, sol.tables, sol, 1.0)
    assert flat["player_per_round"] <= sol.banker_br + 1e-12
    assert flat["player_per_round"] == pytest.approx(flat["player_per_unit_staked"])
    spread = stake_signal(sol.game, sol.tables, sol, 10.0)
    assert spread["ace_first_card_per_stake"] == flat["ace_first_card_per_stake"]
    if flat["ace_first_card_per_stake"] > flat["other_first_card_per_stake"]:
        assert spread["player_per_unit_staked"] > flat["player_per_unit_staked"]


def test_stake_grid_json() -> None:
    """``--stake-grid``: the stake game's figures under ``stake_game`` (the grid as exact money text)."""
    r = _run(
        "--rules",
        "british",
        "--set",
        "pack_ranks=A5T",
        "--set",
        "stake_min=2",
        "--stake-grid",
        "2,6",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)["stake_game"]
    assert rep["grid"] == ["2", "6"] and rep["grid_in_minimum_stakes"] == [1.0, 3.0]
    assert rep["banker_best_response"] <= rep["player_per_round"] <= rep["player_best_response"]
    assert 0 <= rep["exploitability"] <= 1e-3 * rep["mean_stake"]
    assert rep["player_per_unit_staked"] == pytest.approx(rep["player_per_round"] / rep["mean_stake"])
    assert set(rep["stake_by_first_card"]) == {"A", "5", "T"} and rep["stake_by_first_card"]["A"] == "3: 100%"
    casino = _run("--rules", "mbs", "--stake-grid", "1,2")
    assert casino.returncode == 2 and "--stake-grid" in casino.stderr


def test_banker_double_json() -> None:
    """banker_may_double (003 variation, rul 30), once refused: the solved game with the double."""
    r = _run("--rules", "british", "--set", "pack_ranks=A5T", "--set", "banker_may_double=true", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    sol = rep["solution"]
    assert 0 <= sol["exploitability"] <= 1e-3
    assert sol["banker_best_response"] <= sol["player_value"] <= sol["player_best_response"]
    assert set(rep["banker_double"]) == {"A", "5", "T"} and all(
        0 <= p <= 1 for p in rep["banker_double"].values()
    )
    assert "double" in rep["model"] and set(rep["strategy"]) == {"player_passed", "player_doubled"}


def test_split_reading_profile_in_process() -> None:
    """The profile splitting where the split holds against a banker reading the split hands: its exploitability
    is the player's best response with splits less the banker's best response (reading the split hands), and the
    profile's is at most that of the profile that never splits (equal where it splits nothing)."""
    rep = analyze_british(SHOOT.with_(pack_ranks="A5T"), split_reading=True)
    dev = rep["split_deviation"]
    rp = dev["reading_profile"]
    assert (
        rp["player_best_response_with_splits"] == dev["with_split_banker"]["player_best_response_with_splits"]
    )
    assert (
        abs(
            rp["exploitability_with_splits"]
            - (rp["player_best_response_with_splits"] - rp["banker_best_response"])
        )
        < 1e-15
    )
    assert rp["pairs"] and all(d["guaranteed"] <= d["split_value"] + 1e-12 for d in rp["pairs"].values())
    # the full view (split_reading.full_view_gap): his gain against the player's best split, and the bound
    fv = rp["full_view"]
    splits = [d for d in rp["pairs"].values() if d["split_by_best_response"]]
    assert abs(fv["gain"] - sum(d["chance"] * (d["split_value"] - d["guaranteed"]) for d in splits)) < 1e-15
    assert 0.0 <= fv["bound"] <= fv["gain"] + 1e-15
    # the profile takes the best set of pairs to split, the empty set (never splitting) among them
    assert rp["exploitability_with_splits"] <= dev["with_split_banker"]["exploitability_with_splits"] + 1e-12
    if not any(d["split_in_profile"] for d in rp["pairs"].values()):
        assert abs(rp["banker_best_response"] - rep["solution"]["banker_best_response"]) < 1e-12


def test_resplits_in_process() -> None:
    """``resplits=True`` (``pontoon analyze --resplits``) puts each pair's split with resplits and the
    exploitability with resplits under split_deviation.resplits.exact: without resplits the same best response
    as with_split_banker's, with them never less, the exploitability the best response less the banker's (the
    wiring, on a 12-card pack: the values themselves are checked in tests/analysis/test_british_resplits.py)."""
    rep = analyze_british(SHOOT.with_(pack_ranks="A5T"), resplits=True)
    dev = rep["split_deviation"]
    ex = dev["resplits"]["exact"]
    sb = dev["with_split_banker"]
    assert abs(ex["player_best_response_without_resplits"] - sb["player_best_response_with_splits"]) < 1e-12
    assert ex["player_best_response_with_resplits"] >= ex["player_best_response_without_resplits"] - 1e-12
    br = rep["solution"]["banker_best_response"]
    assert abs(ex["exploitability_with_resplits"] - (ex["player_best_response_with_resplits"] - br)) < 1e-15
    assert set(ex["pairs"]) == set(dev["pairs"]) and ex["pairs"]["AA"]["resplit_valued"]
    assert not ex["pairs"]["TT"]["resplit_valued"]  # ten-value pairs are never resplit here


def test_the_resplit_bound_asks_a_tighter_solve() -> None:
    """With ``--resplits`` on a full pack (the rigorous bound, split_resplit_bound.py) the game without splits is
    solved to a tenth of the target (its exploitability is most of the exploitability with splits, to which the
    bound on what resplits add is summed: docs/analysis.md "Resplits"); without, to half of it (splits) or the
    target itself (no splits, reduced packs: the bound is not computed there)."""
    from pontoon.analysis.british.report import solve_target

    assert solve_target(BRITISH, 1e-3, True) == pytest.approx(1e-4)
    assert solve_target(BRITISH.with_(packs=2), 1e-3, True) == pytest.approx(1e-4)
    assert solve_target(BRITISH, 1e-3, False) == pytest.approx(5e-4)
    assert solve_target(BRITISH.with_(max_split_hands=2), 1e-3, True) == pytest.approx(5e-4)  # no resplit
    assert solve_target(BRITISH.with_(max_split_hands=1), 1e-3, False) == pytest.approx(1e-3)
    assert solve_target(SHOOT.with_(pack_ranks="A5T"), 1e-3, True) == pytest.approx(1e-3)
