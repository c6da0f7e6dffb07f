"""Frozen event records. Every step of a round appends one to the round's log."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

try:  # mypyc reads this decorator when it compiles the module (setup.py); without mypy_extensions it does nothing
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover  (an install without mypy: the pure-Python engine)

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[type], type]:  # type: ignore[misc]
        return lambda cls: cls


@mypyc_attr(native_class=False)  # a tuple subclass: mypyc keeps it a Python class
class Event(tuple):  # type: ignore[type-arg]
    """One thing that happened: ``kind`` names it, ``data`` carries plain values (JSON-ready).

    A frozen record (``Event(seq, kind, data, clause)``), built as a tuple because a round makes a
    dozen of them: equal only to another ``Event`` with the same fields, like the dataclass it was.
    """

    __slots__ = ()
    __match_args__ = ("seq", "kind", "data", "clause")

    def __new__(cls, seq: int, kind: str, data: dict[str, Any] | None = None, clause: str = "") -> Event:
        return _tuple_new(cls, (seq, kind, {} if data is None else data, clause))

    @property
    def seq(self) -> int:
        return self[0]  # type: ignore[no-any-return]

    @property
    def kind(self) -> str:
        return self[1]  # type: ignore[no-any-return]

    @property
    def data(self) -> dict[str, Any]:
        return self[2]  # type: ignore[no-any-return]

    @property
    def clause(self) -> str:
        """The rule that made it happen, e.g. "004 3.25.3"."""
        return self[3]  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        return type(other) is Event and _tuple_eq(self, other)

    def __ne__(self, other: object) -> bool:
        return not (type(other) is Event and _tuple_eq(self, other))

    __hash__ = tuple.__hash__  # as the frozen dataclass: a hash of the fields (data is a dict: unhashable)

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"Event(seq={self[0]!r}, kind={self[1]!r}, data={self[2]!r}, clause={self[3]!r})"

    def __str__(self) -> str:
        body = " ".join(f"{k}={v}" for k, v in self.data.items())
        return f"#{self.seq} {self.kind} {body}" + (f"  [{self.clause}]" if self.clause else "")


_tuple_new: Final = tuple.__new__
_tuple_eq: Final = tuple.__eq__


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
        ev = _tuple_new(Event, (self._seq, event_kind, data, clause))
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


@dataclass(frozen=True, slots=True, init=False)  # __init__ written out: mypyc compiles it
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

    def __init__(self, game: str, round_no: int, event: Event, transfers: tuple[Any, ...] = ()) -> None:
        object.__setattr__(self, "game", game)  # as a frozen dataclass sets its fields
        object.__setattr__(self, "round_no", round_no)
        object.__setattr__(self, "event", event)
        object.__setattr__(self, "transfers", transfers)


Subscriber = Callable[[TableRecord], None]
BatchSubscriber = Callable[[list[TableRecord]], None]


class Publisher:
    """What both tables share: subscribers called synchronously with every ``TableRecord``.

    A batch subscriber (the history recorder) gets the records of one table call together, before any
    record subscriber gets the first of them: it can commit them in one transaction, and still nobody is
    shown an event that is not committed."""

    game = ""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._batch_subscribers: list[BatchSubscriber] = []

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn`` with every record from now on; returns a function that unsubscribes."""
        self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn)

    def subscribe_batch(self, fn: BatchSubscriber) -> Callable[[], None]:
        """Call ``fn`` with the records of each table call (one list per call), before the record
        subscribers; returns a function that unsubscribes."""
        self._batch_subscribers.append(fn)
        return lambda: self._batch_subscribers.remove(fn)

    @property
    def watched(self) -> bool:
        """Whether anybody subscribes (a table with no subscriber skips building the records)."""
        return bool(self._subscribers or self._batch_subscribers)

    def _publish(self, round_no: int, events: Iterable[Event], transfers: Iterable[Any] = ()) -> None:
        evs = list(events)
        moved = tuple(transfers)
        if not self.watched or not evs:
            return
        last = len(evs) - 1
        recs = [TableRecord(self.game, round_no, ev, moved if i == last else ()) for i, ev in enumerate(evs)]
        for batch_fn in list(self._batch_subscribers):
            batch_fn(recs)
        for rec in recs:
            for fn in list(self._subscribers):
                fn(rec)
