"""pontoon/Pontoon-v0: Gymnasium's checker, masks against the engine, money against the scenario runner."""

from __future__ import annotations

from decimal import Decimal

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import pontoon.rl  # noqa: F401  (registers the env)
from pontoon.casino.actions import Action
from pontoon.errors import IllegalAction, PontoonError
from pontoon.protocol import TABLE
from pontoon.rl.casino_env import ACTIONS, PLAYER, PontoonEnv
from pontoon.rules.presets import CASINO_PRESETS
from pontoon.scenario_runner import run_scenario

PRESETS = sorted(CASINO_PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_check_env_every_preset(preset: str) -> None:
    check_env(PontoonEnv(preset), skip_render_check=True)


def test_check_env_with_counts_and_side_bets() -> None:
    env = PontoonEnv("rws-plus", counts=True, side_bets={"pair": 5, "bonus": 5})
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=3)
    # the counts are the cards left in the shoe: the full shoe less what is on the table
    assert obs["shoe"].sum() == 6 * 48 - len(env.round.cards_in_play())  # type: ignore[union-attr]


def test_make_with_preset_decks_and_penetration() -> None:
    env = gym.make("pontoon/Pontoon-v0", rules="federal", decks=6, penetration=0.75)
    obs, info = env.reset(seed=11)
    assert env.unwrapped.rules.preset == "federal"  # type: ignore[attr-defined]
    assert env.unwrapped.rules.penetration == 0.75  # type: ignore[attr-defined]
    assert np.array_equal(obs["action_mask"], info["action_mask"])
    assert obs["upcard"] in range(1, 11)


def test_rules_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "t.toml"
    p.write_text('preset = "rws-plus"\ndecks = 8\ntable_min = 25\n')
    env = PontoonEnv(str(p))
    env.reset(seed=1)
    assert env.rules.decks == 8 and env.bet == Decimal(25)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rules": "british"},
        {"rules": "nope"},
        {"rules": "mbs", "decks": 2},
        {"rules": "mbs", "bet": 5},
        {"rules": "mbs", "side_bets": {"bonus": 5}},
        {"rules": "mbs", "illegal": "x"},
    ],
)
def test_bad_arguments_are_one_line_errors(kwargs: dict) -> None:
    with pytest.raises(PontoonError) as e:
        PontoonEnv(**kwargs)
    assert "\n" not in str(e.value)


def _engine_verbs(env: PontoonEnv) -> set[str]:
    rnd = env.round
    assert rnd is not None
    if rnd.is_over():
        return set()
    # the table's listing of every box's actions, read independently of the env's own call
    return {a.verb for a in rnd.legal_actions(TABLE) if a.box == 1 and a.verb in ACTIONS}


def _engine_accepts(env: PontoonEnv, verb: str) -> bool:
    rnd = env.round
    assert rnd is not None
    if verb == "insure":
        bettor = rnd.boxes[1].bettor(PLAYER)
        assert bettor is not None
        return rnd.can(
            PLAYER, Action("insure", 1, PLAYER, (bettor.main / 2).quantize(Decimal("0.01"), "ROUND_DOWN"))
        )
    return rnd.can(PLAYER, Action(verb, 1))


@pytest.mark.parametrize("preset", PRESETS)
def test_masks_match_engine_over_random_play(preset: str) -> None:
    env = PontoonEnv(preset, decks=4 if preset != "blackjack" else 1, penetration=0.9)
    rng = np.random.default_rng(7)
    env.reset(seed=7)
    seen: set[str] = set()
    shuffles = 0
    for _ in range(400):
        obs, info = env.reset()
        done = False
        while not done:
            mask = obs["action_mask"]
            if info["decision"]:
                legal = {ACTIONS[i] for i in np.flatnonzero(mask)}
                assert legal == _engine_verbs(env)
                for verb in ACTIONS:  # the engine refuses every action the mask forbids
                    assert _engine_accepts(env, verb) == (verb in legal), (verb, legal)
                seen |= legal
            else:
                assert env.round is not None and env.round.is_over() and list(np.flatnonzero(mask)) == [1]
            a = int(rng.choice(np.flatnonzero(mask)))
            obs, r, done, trunc, info = env.step(a)
            assert not trunc
        assert (
            Decimal(info["net"]) / env.bet == Decimal(str(r))
            or abs(float(Decimal(info["net"]) / env.bet) - r) < 1e-12
        )
        shuffles = env.shoes_used
    assert {"hit", "stand", "double"} <= seen
    assert shuffles >= 2  # the cut card came out and a new shoe was shuffled


def test_full_action_set_appears_on_mbs() -> None:
    env = PontoonEnv("mbs", decks=4, penetration=0.9)
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    seen: set[str] = set()
    for _ in range(3000):
        obs, info = env.reset()
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            seen |= {ACTIONS[i] for i in legal} if info["decision"] else set()
            obs, _r, done, _t, info = env.step(int(rng.choice(legal)))
        if seen == set(ACTIONS):
            break
    assert seen == set(ACTIONS)


def test_illegal_action_ignored_or_raised() -> None:
    env = PontoonEnv("mbs")
    obs, info = env.reset(seed=5)
    while not info["decision"]:
        obs, info = env.reset()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.round.events()  # type: ignore[union-attr]
    obs2, r, done, _t, info2 = env.step(bad)
    assert info2["illegal_action"] and r == 0.0 and not done
    assert np.array_equal(obs2["action_mask"], obs["action_mask"])
    assert env.round.events() == before  # type: ignore[union-attr]
    strict = PontoonEnv("mbs", illegal="raise")
    obs, info = strict.reset(seed=5)
    while not info["decision"]:
        obs, info = strict.reset()
    with pytest.raises(IllegalAction, match="legal"):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


def test_seed_reproduces_episodes_and_shoe_carries_over() -> None:
    def play(seed: int) -> list[str]:
        env = PontoonEnv("federal")
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(30):
            obs, info = env.reset()
            done = False
            while not done:
                obs, _r, done, _t, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            out.append(info["net"])
        return out

    assert play(3) == play(3)
    assert play(3) != play(4)
    env = PontoonEnv("mbs")
    env.reset(seed=1)
    assert env.shoe is not None
    first = env.shoe
    dealt = first.dealt
    env.reset()
    assert env.shoe is first and first.dealt > dealt  # the same shoe, further on


def _episode_to_scenario(env: PontoonEnv, actions: list[str]) -> dict:
    rnd = env.round
    assert rnd is not None
    cards = [str(c) for c in rnd.shoe.dealt_cards()[rnd.first_dealt :]]
    box: dict = {"player": PLAYER, "main": int(env.bet)}
    box.update({k: int(v) for k, v in env.side_bets.items()})
    return {"rules": env.rules.preset, "shoe": " ".join(cards), "boxes": {"1": [box]}, "actions": actions}


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    preset=st.sampled_from(["mbs", "federal", "rws-plus", "blackjack"]),
    picks=st.lists(st.integers(0, 6), min_size=12, max_size=12),
)
def test_env_episode_matches_scenario_runner(seed: int, preset: str, picks: list[int]) -> None:
    sides = {"pair": 5} if preset in ("mbs", "rws-plus") else {}
    env = PontoonEnv(preset, side_bets=sides)
    obs, info = env.reset(seed=seed)
    actions: list[str] = []
    done = False
    i = 0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        a = int(legal[picks[i % len(picks)] % len(legal)])
        i += 1
        if info["decision"]:
            actions.append(str(env._legal[a]))
        obs, r, done, _t, info = env.step(a)
    res = run_scenario(_episode_to_scenario(env, actions))
    total = Decimal(str(res["net"][PLAYER]["total"]))
    assert str(total.normalize()) == str(Decimal(info["net"]).normalize())
    assert abs(float(total / env.bet) - r) < 1e-12


def test_vector_env_runs() -> None:
    venv = gym.make_vec("pontoon/Pontoon-v0", num_envs=4, vectorization_mode="sync", rules="mbs")
    obs, info = venv.reset(seed=2)
    assert obs["action_mask"].shape == (4, len(ACTIONS))
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(200):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, r, term, trunc, info = venv.step(acts)
        total += float(r.sum())
        assert obs["action_mask"].any(axis=1).all()  # autoreset: every env has a legal action
    venv.close()


def test_reward_is_the_exact_quotient_and_counts_are_the_shoe() -> None:
    """The reward is ``float(net / bet)`` to the last bit (the zero's sign too) with a bet that divides
    nothing evenly; ``obs["shoe"]`` is the count of the cards left in the shoe, across reshuffles."""
    env = PontoonEnv("rws-plus", bet="13.33", side_bets={"pair": 5, "bonus": "7.77"}, counts=True, decks=4)
    rng = np.random.default_rng(5)
    obs, info = env.reset(seed=5)
    rewards = set()
    for _ in range(3000):
        shoe = env.shoe
        assert shoe is not None
        left = np.zeros(10, dtype=np.int64)
        for card in shoe.remaining_cards():
            left[card.points - 1] += 1
        assert obs["shoe"].dtype == np.int64 and np.array_equal(obs["shoe"], left)
        legal = obs["action_mask"].nonzero()[0]
        obs, r, term, _t, info = env.step(int(legal[rng.integers(len(legal))]))
        if term:
            exact = float(env.net() / env.bet)
            assert repr(r) == repr(exact)
            rewards.add(r)
            obs, info = env.reset()
    assert len(rewards) > 5 and env.shoes_used > 5
