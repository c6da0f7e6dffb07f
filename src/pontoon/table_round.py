"""The table protocol's ``TableRound`` (documented in ``pontoon.protocol``, which re-exports it).

It lives in a module of its own that is never compiled with mypyc (setup.py): mypyc turns a
``typing.Protocol`` into a native trait, which ``@runtime_checkable`` cannot accept, and drivers check
``isinstance(rnd, TableRound)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pontoon.events import Event
    from pontoon.protocol import Action, Actor, Marker, Seat


@runtime_checkable
class TableRound(Protocol):
    """What every round engine offers its drivers (see the module docstring)."""

    def seats(self) -> tuple[Seat, ...]: ...

    def to_act(self) -> Seat | Marker | None: ...

    def is_over(self) -> bool: ...

    def legal_actions(self, seat: Actor) -> list[Action]: ...

    def verify(self, seat: Actor, action: Action) -> None: ...

    def can(self, seat: Actor, action: Action) -> bool: ...

    def act(self, seat: Actor, action: Action) -> tuple[Event, ...]: ...

    def view(self, seat: Actor) -> dict[str, Any]: ...

    def events(self) -> tuple[Event, ...]: ...
