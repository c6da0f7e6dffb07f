"""Casino actions: the protocol's ``Action`` record, which round-trips through the scenario text form ``"1 hit"``;
and the plain play actions of each box, made once and shared (the legal-action listings hand them out).
"""

from __future__ import annotations

from typing import Any, Final

from pontoon.protocol import CASINO_VERBS as VERBS
from pontoon.protocol import Action

__all__ = ["PLAY_VERBS", "VERBS", "Action", "action_text", "box_action", "box_actions"]

PLAY_VERBS: Final = ("hit", "stand", "double", "split", "rescue", "surrender")
_BOX_ACTIONS: Final[dict[int, tuple[Action, ...]]] = {}  # the plain play actions of each box, made once
_BOX_TEXT: Final[dict[int, tuple[str, dict[str, Any]]]] = {}  # id of a shared box action -> its text and JSON


def box_actions(box: int) -> tuple[Action, ...]:
    """``Action(verb, box)`` for each play verb, in listing order (frozen records, shared; kept for
    the life of the process, so their ids are never reused)."""
    got = _BOX_ACTIONS.get(box)
    if got is None:
        # setdefault: of two threads making them at once, one set wins and only it is ever handed
        # out or given a text (a losing set is dropped unregistered, so no id of it can be reused)
        got = _BOX_ACTIONS.setdefault(box, tuple(Action(v, box) for v in PLAY_VERBS))
        for a in got:
            _BOX_TEXT[id(a)] = (str(a), a.to_json())
    return got


def box_action(verb: str, box: int) -> Action:
    return box_actions(box)[PLAY_VERBS.index(verb)]


def action_text(action: Action) -> tuple[str, dict[str, Any]]:
    """``str(action)`` and a fresh ``action.to_json()`` (worked out once for the shared box actions)."""
    got = _BOX_TEXT.get(id(action))
    if got is None:
        return str(action), action.to_json()
    return got[0], dict(got[1])
