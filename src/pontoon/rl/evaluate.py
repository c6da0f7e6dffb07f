"""Grade a policy: play it in ``PontoonEnv`` for N rounds and, for a chart, give its exact EV."""

from __future__ import annotations

import math
import time
from decimal import Decimal
from typing import Any

import numpy as np

from pontoon.errors import PontoonError
from pontoon.money import fmt
from pontoon.rl.casino_env import PontoonEnv
from pontoon.rl.charts import Policy, chart_ev, load_policy
from pontoon.rules import CasinoRules


def play_policy(env: PontoonEnv, policy: Policy, rounds: int, seed: int | None) -> dict[str, Any]:
    """Play ``rounds`` rounds; exact money (Decimal) summed, the mean per unit wager and its 95% CI."""
    if rounds < 1:
        raise PontoonError(f"rounds must be at least 1, got {rounds}")
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    net = Decimal(0)
    s1 = s2 = 0.0
    t0 = time.perf_counter()
    steps = 0
    for _ in range(rounds):
        obs, info = env.reset()
        done = False
        while not done:
            obs, r, done, _t, info = env.step(policy.act(obs, rng))
            steps += 1
        net += Decimal(info["net"])
        s1 += r
        s2 += r * r
    secs = time.perf_counter() - t0
    mean = s1 / rounds
    sd = math.sqrt(max(s2 / rounds - mean * mean, 0.0) * rounds / max(rounds - 1, 1))
    return {
        "rounds": rounds,
        "net": fmt(net),
        "wagered": fmt(env.bet * rounds),
        "mean": float(net / (env.bet * rounds)),
        "sd": sd,
        "ci95": 1.96 * sd / math.sqrt(rounds),
        "steps": steps,
        "seconds": secs,
    }


def evaluate(
    rules: CasinoRules,
    policy_spec: str,
    rounds: int,
    seed: int | None = None,
    *,
    exact: bool = True,
) -> dict[str, Any]:
    """Play the policy and, where it is a chart, its exact EV beside the analyser's basic and optimal."""
    policy, chart = load_policy(policy_spec, rules)
    env = PontoonEnv(rules)
    out: dict[str, Any] = {
        "rules": rules.preset,
        "decks": rules.decks,
        "penetration": rules.penetration,
        "policy": policy.name,
        "seed": seed,
        "played": play_policy(env, policy, rounds, seed),
    }
    if chart is not None and exact:
        from pontoon.analysis.strategy import solve

        sol = solve(rules)
        ev = chart_ev(rules, chart)
        out["exact"] = {
            "ev": ev,
            "ev_basic": sol.ev_basic,
            "ev_optimal": sol.ev_optimal,
            "cost_vs_basic": sol.ev_basic - ev,
            "note": "analyser (analysis/strategy.py): one box, full shoe, per unit of the main wager",
        }
    return out
