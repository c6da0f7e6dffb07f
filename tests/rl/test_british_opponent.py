"""Issue 27 item 6: an agent plays against the solved banker in british_v0 (``opponent=``), and
``pontoon rl evaluate --rules british`` grades a player policy with its exact exploitability."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

from pontoon.errors import PontoonError, RulesError
from pontoon.rl import british_v0
from pontoon.rl.british_eval import evaluate_british
from pontoon.rules.british import BRITISH


@pytest.mark.parametrize("rules", ["british", pytest.param("shoot", marks=pytest.mark.slow)])
def test_api_test_against_solved_bots(rules: str) -> None:
    env = british_v0.env(rules=rules, seats=3, rounds=6, opponent="solved")
    api_test(env, num_cycles=100)


def test_agent_plays_the_solved_banker_until_the_episode_ends() -> None:
    env = british_v0.raw_env("british", seats=2, rounds=40, opponent="solved")
    env.reset(seed=3)
    assert env.agents == ["seat_0"] and env.game is not None and env.game.banker == "seat_1"
    rng = np.random.default_rng(3)
    total = 0.0
    steps = 0
    for agent in env.agent_iter(10_000):
        obs, r, term, trunc, _ = env.last()
        total += r
        if term or trunc:
            env.step(None)
            continue
        assert agent == "seat_0"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert env.rounds_done == 40 and steps >= 40
    assert total != 0.0  # forty rounds of random play against the banker: some money moved
    with pytest.raises(RulesError, match="accepted None, simple, house, solved"):
        british_v0.raw_env("british", opponent="expert")


def test_evaluate_reports_the_exact_exploitability(tmp_path: Path) -> None:
    solved = evaluate_british(BRITISH, "solved", 50, 1)
    e = solved["exact"]
    assert 0 <= e["exploitability"] <= 1e-3 and e["value_vs_solved_banker"] == pytest.approx(
        e["solution_value"]
    )
    simple = evaluate_british(BRITISH, "simple", 50, 1)["exact"]
    assert simple["exploitability"] > 0.05  # the rule of thumb gives the banker a lot
    assert simple["value_vs_banker_best_response"] <= simple["value_vs_solved_banker"]
    # a strategy file: the solution except always sticking on a hard 15 of 7-8 (never twisting)
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"player": {"6,7||": {"stick": 1}}}))
    mine = evaluate_british(BRITISH, str(f), 10, 1)["exact"]
    assert mine["exploitability"] > e["exploitability"] - 1e-9
    f.write_text(json.dumps({"player": {"9,9,9||": {"stick": 1}}}))
    with pytest.raises(PontoonError, match="not a player state"):
        evaluate_british(BRITISH, str(f), 10, 1)


@pytest.mark.slow
def test_rl_evaluate_command_line() -> None:
    code = "from pontoon.cli.app import main; main()"
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "rl",
            "evaluate",
            "simple",
            "--rules",
            "british",
            "--rounds",
            "200",
            "--seed",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "against the solved banker" in r.stdout and "exploitability" in r.stdout


@pytest.mark.parametrize("seed", [105, 188, 202])
def test_the_selection_is_always_the_agent_against_bots(seed: int) -> None:
    """Seeds where the episode ended in a round the agent did not act in: the selection was left on a bot's
    seat (pettingzoo's api_test then met a KeyError in ``infos``, in CI)."""
    env = british_v0.raw_env("british", seats=3, rounds=6, opponent="solved")
    env.reset(seed=seed)
    env.bots.rng = np.random.default_rng(seed)
    rng = np.random.default_rng(1000 + seed)
    for agent in env.agent_iter(2000):
        assert agent in env.agents, f"{agent} selected, agents {env.agents}"
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not env.agents
