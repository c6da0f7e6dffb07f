"""The phases of a casino round, and the internal signal that ends a step early (see ``round.py``)."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    BETTING = "betting"
    WINDOW = "window"  # insurance / surrender window, play actions also accepted (rul 8, 9)
    PLAY = "play"
    OVER = "over"


class _Stop(Exception):
    """Internal: the round ended (dealer natural at the peek) before an action could complete."""
