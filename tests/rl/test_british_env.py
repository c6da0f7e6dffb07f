"""pontoon.rl.british_v0: PettingZoo's api_test, masks against the engine, own views only, bank passing."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from pontoon.errors import IllegalAction, PontoonError
from pontoon.rl import british_v0
from pontoon.rl.british_v0 import ACTIONS, FEATURES


@pytest.mark.parametrize("rules", ["british", "shoot"])
def test_api_test(rules: str) -> None:
    api_test(british_v0.env(rules=rules, seats=4, rounds=8), num_cycles=200)


@pytest.mark.parametrize(
    "rules,overrides",
    [("british", {}), ("shoot", {}), ("british", {"burn": "hard13", "banker_may_double": True})],
)
def test_masks_match_engine_and_bank_passes(rules: str, overrides: dict) -> None:
    env = british_v0.raw_env(rules=rules, seats=4, rounds=60, **overrides)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    verbs_seen: set[str] = set()
    for agent in env.agent_iter(20_000):
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        rnd = env.game.round  # type: ignore[union-attr]
        assert rnd is not None and rnd.to_act() == agent
        engine_verbs = {a.verb for a in rnd.legal_actions(agent)}
        mask = obs["action_mask"]
        mine = {ACTIONS[i] for i in np.flatnonzero(mask)}
        assert {"stake" if v == "stake_max" else v for v in mine} == engine_verbs
        for other in env.agents:  # nobody else may act now
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        verbs_seen |= mine
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert env.rounds_done == 60
    assert env.bank_passes >= 1  # 003 The New Deal: a player's Pontoon takes the bank
    assert {"stake", "twist", "stick", "buy"} <= verbs_seen


def test_observation_is_own_view_only() -> None:
    env = british_v0.raw_env(rules="british", seats=3, rounds=3)
    env.reset(seed=2)
    # play the stakes so everyone holds a hidden first card
    while env.game.round.phase == "stake":  # type: ignore[union-attr]
        env.step(5)
    rnd = env.game.round  # type: ignore[union-attr]
    i = FEATURES.index("hand_best")
    for seat in env.agents:
        f = env.observe(seat)["observation"]
        if seat == env.game.banker:  # type: ignore[union-attr]
            continue
        own = next(h for h in rnd.hands if h.owner == seat)
        from pontoon.hands import hand_total

        assert f[i] == hand_total(own.cards)[0]
        # other players' face-down cards are not visible to this seat
        assert f[FEATURES.index("others_face_up")] == 0


def test_rewards_sum_to_zero_each_round() -> None:
    env = british_v0.raw_env(rules="shoot", seats=3, rounds=20)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    total = 0.0
    for _agent in env.agent_iter(10_000):
        obs, r, term, trunc, _ = env.last()
        total += r
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    # money is conserved: what one seat wins another loses (the kitty is the banker's)
    assert abs(total) < 1e-9


def test_illegal_action_and_bad_arguments() -> None:
    env = british_v0.raw_env(rules="british", seats=3)
    env.reset(seed=1)
    with pytest.raises(IllegalAction, match="legal"):
        env.step(0)  # twist during the stakes
    for kwargs in ({"rules": "mbs"}, {"seats": 1}, {"rounds": 0}):
        with pytest.raises(PontoonError):
            british_v0.raw_env(**kwargs)
