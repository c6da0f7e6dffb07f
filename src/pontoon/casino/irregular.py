"""Void rounds and technical interruptions of a casino round (000 5, 002 5, 004 5.4-5.5, 5.17; rul 1-2).

A step of the round runs under ``run_step``: a ``_Void`` raised anywhere in it (a foreign card, the shoe
running out) voids the round, and ``_Stop`` (the round ended at the dealer's peek) ends the step quietly.
Plain functions of the round ``rnd``; ``CasinoRound`` calls them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pontoon.casino.phase import P_OVER, _Stop
from pontoon.settlement import HOUSE, LAYOUT

if TYPE_CHECKING:
    from pontoon.casino.round import CasinoRound


class _Void(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


def run_step(rnd: CasinoRound, fn: Callable[[], object]) -> None:
    try:
        fn()
    except _Stop:
        pass
    except _Void as v:
        void(rnd, v.reason)


def void(rnd: CasinoRound, reason: str) -> None:
    """Every wager of the round is returned, interim payments included (rul 1, 004 5.17)."""
    paid = [t for t in rnd.ledger.transfers]
    for t in reversed(paid):
        if t.source != LAYOUT and t.dest != LAYOUT:
            rnd.ledger.move(
                t.dest, t.source, t.amount, kind=t.kind, player=t.player, reason=f"void: {t.reason} reversed"
            )
        elif t.source == LAYOUT:
            rnd.ledger.move(
                t.dest, LAYOUT, t.amount, kind=t.kind, player=t.player, reason=f"void: {t.reason} reversed"
            )
    for t in paid:
        if t.dest == LAYOUT:
            rnd.ledger.give_back(t.player, t.kind, t.amount, "void: wager returned (004 5.17)")
    rnd.void_reason = reason
    rnd.phase = P_OVER
    rnd.log.add("void", clause="rul 1-2, 004 5.5, 5.17", reason=reason)


def interrupt(rnd: CasinoRound) -> str:
    """A technical interruption (004 5.4): void unless some wager has already won or lost.

    Returns ``"void"`` or ``"continue"`` (the round stays open and is concluded later).
    """
    if rnd.phase is P_OVER:
        return "over"
    # an outcome is established once any wager has been paid or collected (004 5.4.1)
    decided = any(HOUSE in (t.source, t.dest) for t in rnd.ledger.transfers)
    rnd.log.add("interrupted", clause="004 5.4", outcome_established=decided)
    if decided:
        return "continue"  # 004 5.4.1
    void(rnd, "technical interruption before any outcome (004 5.4.2)")
    return "void"
