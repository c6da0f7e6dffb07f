"""Pontoon-v0's observations, rewards and infos for a fixed seed, hashed: the env's speed work must not
change a single value. The expected digests were computed on the env before the speed work (main at
4ade3ba, pure sources and the mypyc build alike) and are reproduced by both builds."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from pontoon.rl.casino_env import PontoonEnv


def _feed(h: Any, obs: dict[str, Any], reward: float, term: bool, trunc: bool, info: dict[str, Any]) -> None:
    for k in sorted(obs):
        v = obs[k]
        if isinstance(v, np.ndarray):
            h.update(f"{k}:{v.dtype}:{v.shape}:".encode() + v.tobytes())
        else:
            h.update(f"{k}={type(v).__name__}:{v!r};".encode())
    h.update(f"r={reward!r};t={term};u={trunc};".encode())
    for k in sorted(info):
        v = info[k]
        if isinstance(v, np.ndarray):
            h.update(f"i{k}:{v.dtype}:{v.shape}:".encode() + v.tobytes())
        else:
            h.update(f"i{k}={type(v).__name__}:{v!r};".encode())


def digest(preset: str, steps: int, seed: int, **kwargs: Any) -> str:
    """``steps`` env steps with random masked actions (and a few illegal ones), every value hashed."""
    env = PontoonEnv(preset, **kwargs)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    obs, info = env.reset(seed=seed)
    _feed(h, obs, 0.0, False, False, info)
    for i in range(steps):
        if i % 97 == 0:
            a = int(rng.integers(7))  # sometimes any action: an illegal one is refused with illegal_reward
        else:
            legal = np.flatnonzero(obs["action_mask"])
            a = int(legal[rng.integers(len(legal))])
        obs, r, term, trunc, info = env.step(a)
        _feed(h, obs, r, term, trunc, info)
        if term or trunc:
            obs, info = env.reset(seed=seed + i if i % 1000 == 999 else None)
            _feed(h, obs, 0.0, False, False, info)
    return h.hexdigest()


CASES = [
    ("mbs", 3000, 1, {}),
    ("federal", 2000, 2, {"illegal_reward": -0.5}),
    ("rws-plus", 2000, 3, {"counts": True, "side_bets": {"pair": 5, "bonus": 5}}),
    ("rws-pandemonium", 1500, 4, {"side_bets": {"pandemonium": 5}}),
    ("blackjack", 2000, 5, {"counts": True}),
]


EXPECTED: dict[str, str] = {
    "mbs": "c08f7008f20ee3cb4d2d1a3dea043643649c3503e9e5faf97af4bc42f3850516",
    "federal": "b5c435c2f8f0737d1f2ddb95b1ff17664a25524aa220b31259a2690ac76c59d9",
    "rws-plus": "c9155d1da06af028b065b389a431f0f7c3a3cc30715258d4f94d75388325e2a8",
    "rws-pandemonium": "7917aef5210d03a144e9d5f78012dfa3037f315853df933ceb9c3d4e223f9a58",
    # rulings 35: blackjack's counts=True now counts the face-down hole card as unseen (the pontoon
    # presets have no hole card: their digests, rws-plus's counts included, are unchanged)
    "blackjack": "838c6df587e55558a7c6aff8d620c61d2daa9fa2c275d1972928f9e61d22612f",
}


@pytest.mark.parametrize(("preset", "steps", "seed", "kwargs"), CASES)
def test_seeded_digest_unchanged(preset: str, steps: int, seed: int, kwargs: dict[str, Any]) -> None:
    assert digest(preset, steps, seed, **kwargs) == EXPECTED[preset]


if __name__ == "__main__":
    for preset, steps, seed, kwargs in CASES:
        print(f'    "{preset}": "{digest(preset, steps, seed, **kwargs)}",')
