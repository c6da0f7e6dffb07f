"""Frozen event records. Every step of a round appends one to the round's log."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
    """A round's events in order (``seq`` counts from 0).

    A table's own log is made with ``maxlen``: it keeps only the newest events in memory (the history
    store keeps them all), while ``seq`` goes on counting.
    """

    __slots__ = ("events", "_seq", "maxlen")

    def __init__(self, maxlen: int | None = None) -> None:
        self.events: list[Event] = []
        self._seq = 0
        self.maxlen = maxlen

    def add(self, event_kind: str, /, clause: str = "", **data: Any) -> Event:
        ev = Event(self._seq, event_kind, data, clause)
        self._seq += 1
        self.events.append(ev)
        if self.maxlen is not None and len(self.events) > 2 * self.maxlen:
            del self.events[: len(self.events) - self.maxlen]  # keep the newest maxlen
        return ev

    @property
    def count(self) -> int:
        """Events logged so far (also those no longer kept in memory)."""
        return self._seq

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One event of a table, handed to every subscriber as it happens (before anyone is shown it).

    ``round_no`` is the table's round number (0 for events between rounds); ``transfers`` the ledger
    transfers made since the previous record (a batch of events caused by one action carries its
    transfers on its last event); ``game`` is ``"casino"`` or ``"british"``.
    """

    game: str
    round_no: int
    event: Event
    transfers: tuple[Any, ...] = ()


Subscriber = Callable[[TableRecord], None]


class Publisher:
    """What both tables share: subscribers called synchronously with every ``TableRecord``."""

    game = ""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn`` with every record from now on; returns a function that unsubscribes."""
        self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn)

    def _publish(self, round_no: int, events: Iterable[Event], transfers: Iterable[Any] = ()) -> None:
        evs = list(events)
        moved = tuple(transfers)
        if not self._subscribers or not evs:
            return
        for i, ev in enumerate(evs):
            rec = TableRecord(self.game, round_no, ev, moved if i == len(evs) - 1 else ())
            for fn in list(self._subscribers):
                fn(rec)
