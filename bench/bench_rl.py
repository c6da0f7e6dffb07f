"""Environment steps per second (``python bench/bench_rl.py [STEPS]``).

pontoon/Pontoon-v0 on mbs with random masked actions, beside Gymnasium's Blackjack-v1 with random
actions, in the same process and the same way (raw env, no wrappers, reset counted as part of the
loop); then the vectorised env (gymnasium.vector.SyncVectorEnv, 8 envs) in env steps per second;
then a profile of where one Pontoon episode's time goes (engine vs env).

The loops (``pontoon_steps``, ``blackjack_steps``): each step picks an action with a numpy Generator
seeded like the env. Pontoon-v0: the indices of the legal actions read off the observation's mask
(``obs["action_mask"].nonzero()[0]``, the mask as the env returned it, no copy) and one of them drawn
with ``rng.integers``; an episode's end resets the env (the reset is timed with the steps).
Blackjack-v1 (two actions, no mask): ``rng.integers(2)``. The vector loop draws each env's action
with ``rng.choice`` over its mask's legal indices.
"""

from __future__ import annotations

import cProfile
import pstats
import sys
import time

import gymnasium as gym
import numpy as np

import pontoon.rl  # noqa: F401
from pontoon.compiled import engine_build
from pontoon.rl.casino_env import PontoonEnv

# how cProfile names the methods of compiled classes ("<method 'step' of 'CasinoCore' objects>")
COMPILED_NAMES = (
    "'CasinoCore'",
    "'CasinoRound'",
    "'CasinoTable'",
    "'Shoe'",
    "'Ledger'",
    "'EventLog'",
    "shuffled",
)


def pontoon_steps(n: int, seed: int = 0) -> float:
    env = PontoonEnv("mbs")
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(n):
        legal = obs["action_mask"].nonzero()[0]  # the legal actions' indices
        obs, _r, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
        if term or trunc:
            obs, info = env.reset()
    return n / (time.perf_counter() - t0)


def blackjack_steps(n: int, seed: int = 0) -> float:
    env = gym.make("Blackjack-v1").unwrapped
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(n):
        _o, _r, term, trunc, _i = env.step(int(rng.integers(2)))
        if term or trunc:
            env.reset()
    return n / (time.perf_counter() - t0)


def vector_steps(n: int, num_envs: int = 8, seed: int = 0) -> float:
    venv = gym.make_vec("pontoon/Pontoon-v0", num_envs=num_envs, vectorization_mode="sync", rules="mbs")
    rng = np.random.default_rng(seed)
    obs, _info = venv.reset(seed=seed)
    calls = max(n // num_envs, 1)
    t0 = time.perf_counter()
    for _ in range(calls):
        masks = obs["action_mask"]
        acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        obs, _r, _t, _tr, _i = venv.step(acts)
    secs = time.perf_counter() - t0
    venv.close()
    return calls * num_envs / secs


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    pontoon_steps(min(n, 2000))
    blackjack_steps(min(n, 2000))
    bj = blackjack_steps(n)
    po = pontoon_steps(n)
    ve = vector_steps(n)
    print(f"engine: {engine_build()}")
    print(f"Blackjack-v1 (gymnasium)    {bj:10.0f} steps/s")
    print(f"pontoon/Pontoon-v0 mbs      {po:10.0f} steps/s   ratio pontoon/blackjack {po / bj:.2f}")
    print(f"vector env, 8 x Pontoon-v0  {ve:10.0f} env steps/s (SyncVectorEnv)")
    prof = cProfile.Profile()
    prof.enable()
    pontoon_steps(min(n, 20_000))
    prof.disable()
    st = pstats.Stats(prof)
    total = sum(v[2] for v in st.stats.values())  # type: ignore[attr-defined]
    by_area: dict[str, float] = {}
    for (fname, _line, fn), v in st.stats.items():  # type: ignore[attr-defined]
        if fname == "~" and any(k in fn for k in COMPILED_NAMES):
            # a compiled call is one opaque entry: the engine and the env's core together
            area = "compiled (mypyc): engine and env core (rl/_core.py)"
        elif "/pontoon/" in fname and "/rl/" not in fname:
            area = "engine (casino/, settlement, events, shoe, hands)"
        else:
            area = "env (pontoon/rl)" if "/pontoon/rl/" in fname else "numpy, python, bench loop"
        by_area[area] = by_area.get(area, 0.0) + v[2]
    for area, t in sorted(by_area.items(), key=lambda kv: -kv[1]):
        if not t:
            continue  # e.g. no engine module runs from its .py when the engine is compiled
        print(f"  time in {area:52s} {100 * t / total:5.1f}%")


if __name__ == "__main__":
    main()
