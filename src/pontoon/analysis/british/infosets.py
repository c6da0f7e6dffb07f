"""Information sets of the heads-up British game, read from the engine's seat views (ruling 35).

As OpenSpiel's ``information_state_string``: a seat's information set is built from what
``BritishRound.view(seat)`` shows it, plus what every seat can see (``view(SPECTATOR)``: which of a hand's
cards are face up). The analysis's player states and banker observations are keyed the same way, so a
strategy table read at the engine's table is read from the seat's own view only.
"""

from __future__ import annotations

from typing import Any

from pontoon.analysis.british.game import BUY_GRID, PIC, Hand

_POINTS = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in "A23456789TJQK"}
HIDDEN = "??"


def card_class(text: str, pictures: bool = False) -> int:
    """The class (points - 1) of a card shown as ``"7S"``; ``pictures``: J Q K are the class ``PIC`` (the
    model of ace_ten_not_pontoon, game.class_of)."""
    if pictures and text[0] in "JQK":
        return PIC
    return _POINTS[text[0]] - 1


def buys_of(stake_units: int, bought: int) -> tuple[int, ...]:
    """The buys, in order, that make ``stake_units`` with ``bought`` buys on the grid: non-increasing
    (003 Buy: a later buy is "between your initial stake and the amount you added previously"), so unique."""
    extra = stake_units - 1 - bought * BUY_GRID[0]
    twos = extra // (BUY_GRID[1] - BUY_GRID[0])
    if extra < 0 or twos > bought or extra % (BUY_GRID[1] - BUY_GRID[0]):
        raise ValueError(f"a stake of {stake_units} with {bought} buys is not on the buy grid {BUY_GRID}")
    return (BUY_GRID[1],) * twos + (BUY_GRID[0],) * (bought - twos)


def _units(view_hand: dict[str, Any], initial: str) -> int:
    from decimal import Decimal

    ratio = Decimal(view_hand["stake"]) / Decimal(initial)
    if ratio != ratio.to_integral_value():
        raise ValueError(f"stake {view_hand['stake']} is not a whole number of initial stakes {initial}")
    return int(ratio)


def player_state(
    own: dict[str, Any], public: dict[str, Any], initial: str, pictures: bool = False
) -> tuple[Hand, tuple[int, ...], tuple[int, ...]]:
    """The player's state (face-down cards, face-up cards in order, buys) from his own view ``own`` and the
    public view ``public`` (which of his cards are face up), for his single hand."""
    mine, shown = own["hands"][0], public["hands"][0]
    cards = [card_class(c, pictures) for c in mine["cards"]]
    up = [c != HIDDEN for c in shown["cards"]]
    hidden = tuple(sorted(c for c, u in zip(cards, up, strict=True) if not u))
    face_up = tuple(c for c, u in zip(cards, up, strict=True) if u)
    state = (hidden, face_up, buys_of(_units(mine, initial), len(hidden) - 2))
    return (*state, _burned(mine, pictures)) if mine.get("burned") else state  # type: ignore[return-value]


def _burned(hand: dict[str, Any], pictures: bool) -> Hand:
    """003 variation: the burned cards, "shown and discarded" (seen by every seat), as a multiset."""
    return tuple(sorted(card_class(c, pictures) for c in hand["burned"]))


def banker_observation(
    view: dict[str, Any], initial: str, pictures: bool = False
) -> tuple[Hand, tuple[tuple[int, ...], tuple[int, ...]] | None]:
    """The banker's hand and his observation of the player (face-up cards in order, buys) from
    ``view(banker)`` at his turn: 003 "The other players' cards will not be visible at this point, except
    where they have split, twisted, declared pontoons or gone bust"."""
    hand = tuple(sorted(card_class(c, pictures) for c in view["banker_cards"]))
    h = view["hands"][0]
    if h["status"] == "pontoon":
        return hand, None  # a declared Pontoon is paid whatever the banker does (003)
    face_up = tuple(card_class(c, pictures) for c in h["cards"] if c != HIDDEN)
    hidden = sum(1 for c in h["cards"] if c == HIDDEN)
    seen = (face_up, buys_of(_units(h, initial), hidden - 2))
    return hand, (*seen, _burned(h, pictures)) if h.get("burned") else seen  # type: ignore[return-value]


def information_state_string(seat: str, view: dict[str, Any]) -> str:
    """A seat's information set as text (OpenSpiel's convention): its own cards, every hand as the seat
    sees it (hidden cards as ``??``), the stakes and the phase."""
    hands = ";".join(f"{h['owner']}:{' '.join(h['cards'])}@{h['stake']}" for h in view["hands"])
    return f"{seat}|{view['phase']}|banker:{' '.join(view['banker_cards'])}|{hands}"
