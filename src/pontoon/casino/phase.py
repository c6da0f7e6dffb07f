"""The phases of a casino round, and the internal signal that ends a step early (see ``round.py``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    BETTING = "betting"
    WINDOW = "window"  # insurance / surrender window, play actions also accepted (rul 8, 9)
    PLAY = "play"
    OVER = "over"


class _Stop(Exception):
    """Internal: the round ended (dealer natural at the peek) before an action could complete."""


# the members as module constants: reading ``Phase.OVER`` goes through the enum's class machinery
# (about 0.1 us), and the round reads its phase a few dozen times a round
P_BETTING: Final = Phase.BETTING
P_WINDOW: Final = Phase.WINDOW
P_PLAY: Final = Phase.PLAY
P_OVER: Final = Phase.OVER
