"""Charts graded exactly, the evaluate and train commands, a learning agent, the bench script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pontoon.analysis.strategy import basic_strategy, solve
from pontoon.rl.casino_env import ACTIONS, PontoonEnv
from pontoon.rl.charts import ChartPolicy, RandomPolicy, chart_ev
from pontoon.rl.evaluate import play_policy
from pontoon.rl.tabular import MCControlAgent, compare_charts
from pontoon.rules import find_rules

ROOT = Path(__file__).resolve().parents[2]


def pontoon(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("preset", ["mbs", "federal", "blackjack"])
def test_chart_ev_of_basic_is_the_analysers_ev(preset: str) -> None:
    rules = find_rules(preset)
    sol = solve(rules)
    assert chart_ev(rules, sol.strategy) == pytest.approx(sol.ev_basic, abs=1e-12)


def test_worse_chart_costs_exactly_more() -> None:
    rules = find_rules("mbs")
    basic = basic_strategy(rules)
    never_hit_12 = json.loads(json.dumps(basic))
    for t in range(12, 17):
        never_hit_12["hard"][str(t)] = {u: "S" for u in never_hit_12["hard"][str(t)]}
    stand_all = {
        "hard": {str(t): {u: "S" for u in basic["hard"]["12"]} for t in range(4, 21)},
        "soft": {str(t): {u: "S" for u in basic["hard"]["12"]} for t in range(12, 21)},
    }
    e_basic, e_12, e_stand = (chart_ev(rules, c) for c in (basic, never_hit_12, stand_all))
    assert e_basic > e_12 > e_stand
    assert compare_charts(basic, basic)["differ"] == 0
    assert compare_charts(never_hit_12, basic)["differ"] > 0


def test_chart_policy_plays_the_chart() -> None:
    rules = find_rules("mbs")
    chart = basic_strategy(rules)
    pol = ChartPolicy(chart)
    env = PontoonEnv(rules)
    obs, info = env.reset(seed=4)
    checked = 0
    for _ in range(300):
        obs, info = env.reset()
        if not info["decision"] or obs["num_cards"] != 2 or obs["pair"] or obs["doubled"]:
            continue
        up = {1: "A", 10: "T"}.get(int(obs["upcard"]), str(int(obs["upcard"])))
        row = chart["soft" if obs["soft"] else "hard"].get(str(int(obs["total"])))
        if row is None:
            continue
        code = row[up].split(";")[0]
        a = ACTIONS[pol.act(obs)]
        want = {"H": "hit", "S": "stand", "D": "double", "Ds": "double", "R": "surrender", "Rs": "surrender"}[
            code
        ]
        if want in env.legal_verbs():
            assert a == want, (obs, code, a)
            checked += 1
    assert checked > 100


def test_basic_beats_random_in_play() -> None:
    env = PontoonEnv("mbs")
    b = play_policy(env, ChartPolicy(basic_strategy(env.rules)), 3000, seed=1)
    r = play_policy(PontoonEnv("mbs"), RandomPolicy(), 3000, seed=1)
    assert b["mean"] - r["mean"] > 0.2  # random play loses about half a wager a round


def test_evaluate_command_with_a_chart_file(tmp_path: Path) -> None:
    chart = tmp_path / "c.json"
    chart.write_text(json.dumps(basic_strategy(find_rules("federal"))))
    p = pontoon(
        "rl", "evaluate", str(chart), "--rules", "federal", "--rounds", "300", "--seed", "2", "--json"
    )
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert rep["played"]["rounds"] == 300
    assert rep["exact"]["cost_vs_basic"] == pytest.approx(0.0, abs=1e-12)
    p = pontoon("rl", "evaluate", "random", "--rounds", "200", "--seed", "2")
    assert p.returncode == 0 and "per unit wager" in p.stdout and "exact EV" not in p.stdout


@pytest.mark.parametrize(
    "args,needle",
    [
        (["nope.json"], "not 'basic'"),
        (["basic", "--rules", "british"], "accepted simple, house, solved, random"),  # British policies
        (["basic", "--rounds", "0"], "--rounds"),
    ],
)
def test_evaluate_bad_input(args: list[str], needle: str) -> None:
    p = pontoon("rl", "evaluate", *args)
    assert p.returncode == 2 and needle in p.stderr and "Traceback" not in p.stderr


def test_train_piped_input_ends_cleanly_with_summary() -> None:
    p = pontoon("train", "--rules", "mbs", "--seed", "3", stdin="h\ns\nd\ns\nh\nx\n")
    assert p.returncode == 0, p.stderr
    assert "mistake: best is stand" in p.stdout  # K-K v 4 hit: the drill names the best action and cost
    assert "is not a choice here" in p.stdout
    assert "session:" in p.stdout and "per 100 hands" in p.stdout


@pytest.mark.parametrize("only", ["soft", "pairs", "rescue"])
def test_train_only_spots(only: str) -> None:
    p = pontoon("train", "--rules", "mbs", "--only", only, "--hands", "3", "--seed", "1", stdin="s\ns\ns\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("hand ") >= 3
    assert "3 hands, 3 decisions" in p.stdout


def test_train_bad_only() -> None:
    p = pontoon("train", "--rules", "mbs", "--only", "forced")
    assert p.returncode == 2 and "no forced draw" in p.stderr
    p = pontoon("train", "--only", "sideways")
    assert p.returncode == 2 and "accepted" in p.stderr


def test_trained_agent_beats_random_small() -> None:
    env = PontoonEnv("mbs")
    agent = MCControlAgent(seed=1)
    agent.train(env, 8000, seed=1)
    learned = agent.chart(env)
    rules = env.rules
    assert chart_ev(rules, learned) > -0.25  # random play: about -0.5 a round
    ev_random = play_policy(PontoonEnv("mbs"), RandomPolicy(), 2000, seed=3)["mean"]
    assert play_policy(PontoonEnv("mbs"), agent, 2000, seed=3)["mean"] > ev_random + 0.2


@pytest.mark.slow
def test_trained_agent_nears_basic_strategy() -> None:
    env = PontoonEnv("mbs")
    agent = MCControlAgent(seed=2)
    agent.train(env, 300_000, seed=2)
    rules = env.rules
    cost = solve(rules).ev_basic - chart_ev(rules, agent.chart(env))
    assert 0 <= cost < 0.03


def test_bench_rl_runs() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_rl.py"), "400"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Blackjack-v1" in out.stdout and "steps/s" in out.stdout


def test_example_script_runs_tiny(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "train_tabular_mbs.py"),
            "--episodes",
            "2000",
            "--out",
            str(tmp_path / "c.json"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "cells differing" in out.stdout and (tmp_path / "c.json").exists()
    assert np.isfinite(chart_ev(find_rules("mbs"), json.loads((tmp_path / "c.json").read_text())))
