"""The few engine calls the environments make, in one place: the table protocol
(src/pontoon/protocol.py): ``legal_actions(seat)``, ``act(seat, action)``, ``is_over()``,
``to_act()``, ``view(seat)``. The agent is a person at the table, never ``TABLE``.
"""

from __future__ import annotations

from typing import Any

from pontoon.protocol import Action


def legal(rnd: Any, seat: str) -> list[Action]:
    return list(rnd.legal_actions(seat))


def act(rnd: Any, seat: str, action: Action) -> None:
    rnd.act(seat, action)


def is_over(rnd: Any) -> bool:
    return bool(rnd.is_over())


# the British engine (src/pontoon/british/round.py)
def b_over(rnd: Any) -> bool:
    return bool(rnd.is_over())


def b_legal(rnd: Any, seat: str) -> list[Action]:
    """What ``seat`` may do now: records with ``verb``, ``low`` and ``high``."""
    if rnd.to_act() != seat:
        return []
    return list(rnd.legal_actions(seat))


def b_act(rnd: Any, seat: str, legal_action: Action, amount: Any = None) -> None:
    rnd.act(seat, legal_action.with_amount(amount) if amount is not None else legal_action)
