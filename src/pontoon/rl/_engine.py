"""The few engine calls the environments make, in one place.

The casino engine takes the table protocol's seat-addressed calls (``legal_actions(seat)``,
``act(seat, action)``: src/pontoon/protocol.py) once they exist, else its older one-argument calls
(which mean the table's authority; with one bettor on one box they are the same actions).
"""

from __future__ import annotations

import inspect
from typing import Any

from pontoon.casino.round import CasinoRound


def _takes_seat(fn: Any) -> bool:
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    return len(params) >= 1 and params[0].default is inspect.Parameter.empty


_PROTOCOL_LEGAL = _takes_seat(CasinoRound.legal_actions)
_PROTOCOL_ACT = len([p for p in inspect.signature(CasinoRound.act).parameters if p != "self"]) >= 2


def legal(rnd: CasinoRound, seat: str) -> list[Any]:
    if _PROTOCOL_LEGAL:
        return list(rnd.legal_actions(seat))  # type: ignore[call-arg]
    return list(rnd.legal_actions())


def act(rnd: CasinoRound, seat: str, action: Any) -> None:
    if _PROTOCOL_ACT:
        rnd.act(seat, action)  # type: ignore[call-arg,arg-type]
    else:
        rnd.act(action)


def is_over(rnd: CasinoRound) -> bool:
    v = rnd.is_over
    return bool(v() if callable(v) else v)


# ---------------------------------------------------------------------------------------------
# the British engine (src/pontoon/british/round.py)
def _british_protocol() -> bool:
    from pontoon.british.round import BritishRound

    names = [p for p in inspect.signature(BritishRound.act).parameters if p != "self"]
    return len(names) == 2 and names[1] == "action"


_BRITISH_PROTOCOL = _british_protocol()


def b_over(rnd: Any) -> bool:
    v = getattr(rnd, "is_over", None)
    if callable(v):
        return bool(v())
    return bool(rnd.over)


def b_legal(rnd: Any, seat: str) -> list[Any]:
    """What ``seat`` may do now: records with ``verb``, ``low`` and ``high``."""
    if rnd.to_act() != seat:
        return []
    if _BRITISH_PROTOCOL:
        return list(rnd.legal_actions(seat))
    return [a for a in rnd.legal_actions() if a.seat == seat]


def b_act(rnd: Any, seat: str, legal_action: Any, amount: Any = None) -> None:
    if _BRITISH_PROTOCOL:
        a = legal_action.with_amount(amount) if amount is not None else legal_action
        rnd.act(seat, a)
    else:
        rnd.act(seat, legal_action.verb, amount)
