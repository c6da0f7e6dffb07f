"""The felt's dealer total (web/felt.py ``dealer_total``, made once per hand of cards and kept): the
same text as computed afresh from the view's face-up cards, for any hand, face-down cards left out
(ruling 35), and asked again with the same cards after other hands."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.cards import Card, pack_cards
from pontoon.hands import hand_total
from pontoon.web.felt import HIDDEN, dealer_total

CODES = [str(c) for c in pack_cards("standard52")] + [HIDDEN]


def _afresh(codes: list[str]) -> str | None:
    cards = [Card.parse(c) for c in codes if c != HIDDEN]
    if not cards:
        return None
    total, soft = hand_total(cards)
    return f"{'soft ' if soft else ''}{total}" + (" showing" if HIDDEN in codes else "")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(CODES), max_size=6), min_size=1, max_size=4))
def test_the_dealer_total_is_the_face_up_cards_total(hands: list[list[str]]) -> None:
    for codes in hands + hands:  # (each hand asked twice, other hands between)
        assert dealer_total({"dealer": codes}) == _afresh(codes)


def test_no_view_no_cards_no_total() -> None:
    assert dealer_total(None) is None
    assert dealer_total({}) is None
    assert dealer_total({"dealer": [HIDDEN]}) is None
    assert dealer_total({"dealer": ["AS", HIDDEN]}) == "soft 11 showing"
