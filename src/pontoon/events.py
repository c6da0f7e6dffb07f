"""Frozen event records. Every step of a round appends one to the round's log."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened: ``kind`` names it, ``data`` carries plain values (JSON-ready)."""

    seq: int
    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    clause: str = ""  # the rule that made it happen, e.g. "004 3.25.3"

    def __str__(self) -> str:
        body = " ".join(f"{k}={v}" for k, v in self.data.items())
        return f"#{self.seq} {self.kind} {body}" + (f"  [{self.clause}]" if self.clause else "")


class EventLog:
    __slots__ = ("events",)

    def __init__(self) -> None:
        self.events: list[Event] = []

    def add(self, event_kind: str, /, clause: str = "", **data: Any) -> Event:
        ev = Event(len(self.events), event_kind, data, clause)
        self.events.append(ev)
        return ev

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)
