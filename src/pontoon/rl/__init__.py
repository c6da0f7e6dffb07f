"""Learning environments: ``pontoon/Pontoon-v0`` (Gymnasium, every casino preset) and
``pontoon.rl.british_v0`` (PettingZoo AEC, the British banker game and Shoot Pontoon).

Importing ``pontoon.rl`` registers ``pontoon/Pontoon-v0``::

    import gymnasium as gym
    import pontoon.rl  # noqa: F401
    env = gym.make("pontoon/Pontoon-v0", rules="federal", decks=6, penetration=0.75)
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

ENV_ID = "pontoon/Pontoon-v0"

if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="pontoon.rl.casino_env:PontoonEnv")

__all__ = ["ENV_ID"]
