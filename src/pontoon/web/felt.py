"""What the felt shows beyond a round's view: hand totals, computed from that view alone (rul 35:
a card face down in the view is left out, so no total ever tells a seat more than its cards do)."""

from __future__ import annotations

import functools
from typing import Any

from pontoon.cards import Card
from pontoon.hands import hand_total

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
