"""What the felt shows beyond a round's view: hand totals, computed from that view alone (rul 35:
a card face down in the view is left out, so no total ever tells a seat more than its cards do)."""

from __future__ import annotations

import functools
from typing import Any

from pontoon.cards import Card
from pontoon.hands import hand_total
from pontoon.protocol import SPECTATOR

HIDDEN = "??"


def dealer_total(view: dict[str, Any] | None) -> str | None:
    """The dealer's total of the cards face up in a view (a face-down card is left out: rul 35)."""
    if not view:
        return None
    return _dealer_total(tuple(view.get("dealer", ())))


@functools.lru_cache(maxsize=4096)  # (every state frame of a casino table asks: a few hundred hands recur)
def _dealer_total(codes: tuple[str, ...]) -> str | None:
    cards = [Card.parse(c) for c in codes if c != HIDDEN]
    if not cards:
        return None
    total, soft = hand_total(cards)
    return f"{'soft ' if soft else ''}{total}" + (" showing" if HIDDEN in codes else "")


def with_totals(view: dict[str, Any]) -> dict[str, Any]:
    """A British view with each hand's total where every card of it is face up in that view (a
    seat's own hand, an exposed one, the banker's): from the view alone (rul 35)."""

    def total(codes: list[str]) -> int | None:
        if not codes or any(c == HIDDEN for c in codes):
            return None
        return hand_total([Card.parse(c) for c in codes])[0]

    for h in view.get("hands", ()):
        h["total"] = total(list(h.get("cards", ())))
    view["banker_total"] = total(list(view.get("banker_cards", ())))
    return view


class Kept:
    """A casino table's public round view and its state's ``shoe`` (web/casino_host.py
    ``_shared_state``), each the object made at the last change while what it is made from is the
    same, so that the frames' ``diff`` passes it by at once (``is``) and nothing is built again. Never
    changed in place once made (a seat's round view is a copy: ``CasinoHost.state_for``)."""

    def __init__(self, shoe_size: int) -> None:
        self.shoe_size = shoe_size
        self._round: tuple[Any, int, Any, dict[str, Any]] | None = None
        self._shoe: tuple[tuple[Any, ...], dict[str, Any]] | None = None

    def round(self, rnd: Any) -> dict[str, Any]:
        """``rnd.view(SPECTATOR)``, kept while the round is the same object with the same log count and
        phase (every change of a round logs an event: the engine's own version, ``CasinoRound._listing``):
        the wagers between rounds, the booked round's words."""
        v, phase, last = rnd.log.count, rnd.phase, self._round
        if last is not None and last[0] is rnd and last[1] == v and last[2] == phase:
            return last[3]
        spec: dict[str, Any] = rnd.view(SPECTATOR)
        self._round = (rnd, v, phase, spec)
        return spec

    def shoe(self, number: int, left: int | None, shuffle: bool) -> dict[str, Any]:
        """The undealt cards (public: how deep the shoe is dealt; none yet before round 1)."""
        key = (number, left, shuffle)
        last = self._shoe
        if last is not None and last[0] == key:
            return last[1]
        shown = {"number": number, "cards_left": left, "size": self.shoe_size, "needs_shuffle": shuffle}
        self._shoe = (key, shown)
        return shown
