"""What a seat can know, as the hints and counts read it: a seat's view and the cards it has not seen.

Rulings 35: every figure shown to a seat (a hint, a count, an observation) uses only what that seat
can see; a card it cannot see (blackjack's face-down hole card, the undealt shoe) counts as unseen,
wherever it really lies. So nothing here reads a round or a shoe: the inputs are the seat's
``view(seat)`` (``casino/seats.py``) and the cards the seat saw dealt face up in the earlier rounds
of the same shoe (each round ends with every card face up: rul 4, the hole card is turned over).

The unseen cards are the shoe's nominal composition (``decks`` packs of ``pack``) less every card
seen. A seen card the composition does not hold (a foreign card that voided a round) takes nothing
away.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from pontoon.cards import Card, pack_cards
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules

HIDDEN = "??"  # a face-down card in a view
HINT_VERBS = ("hit", "stand", "double", "split", "surrender", "rescue")


def view_cards(view: Mapping[str, Any]) -> list[Card]:
    """Every card face up in a casino round's view: the dealer's shown cards and every hand's cards."""
    out = [Card.parse(t) for t in view.get("dealer", ()) if t != HIDDEN]
    for box in view.get("boxes", ()):
        for hand in box.get("hands", ()):
            out.extend(Card.parse(t) for t in hand.get("cards", ()) if t != HIDDEN)
    return out


def unseen_cards(pack: str, decks: int, seen: Iterable[Card]) -> list[Card]:
    """The shoe's composition (``decks`` packs of ``pack``) less the cards seen, in pack order."""
    left = Counter({c: decks for c in pack_cards(pack)})
    for c in seen:
        if left[c] > 0:
            left[c] -= 1
    return [c for c in pack_cards(pack) for _ in range(left[c])]


def unseen_for(rules: CasinoRules, view: Mapping[str, Any], seen_before: Iterable[Card] = ()) -> list[Card]:
    """The cards ``view``'s seat has not seen: the composition less ``seen_before`` (earlier rounds of
    this shoe, all face up) and the cards face up in the view (rul 35)."""
    return unseen_cards(rules.pack, rules.decks, [*seen_before, *view_cards(view)])


def hint_inputs(
    rules: CasinoRules, view: Mapping[str, Any], seen_before: Iterable[Card] = ()
) -> dict[str, Any]:
    """The keyword arguments of ``hints.action_values`` for the hand to act in ``view``, taken from
    the seat's view only (its legal verbs for that hand, its cards, the up card, the unseen cards).

    Raises PontoonError when the view has no hand to act with a verb of the seat's own.
    """
    at = view.get("hand_to_act")
    if not at or not view.get("dealer"):
        raise PontoonError("hints: there is no hand to act")
    box = next((b for b in view.get("boxes", ()) if b.get("box") == at["box"]), None)
    hand = None if box is None else next((h for h in box["hands"] if h.get("hand") == at["hand"]), None)
    if box is None or hand is None:
        raise PontoonError("hints: the hand to act is not in the view")
    legal = [
        a["verb"]
        for a in view.get("legal_actions", ())
        if a.get("box") == at["box"] and a.get("verb") in HINT_VERBS
    ]
    unseen = unseen_for(rules, view, seen_before)
    return {
        "rules": rules,
        "remaining": Counter(c.rank for c in unseen),
        "hand": [Card.parse(t) for t in hand["cards"]],
        "upcard": Card.parse(view["dealer"][0]),
        "legal": legal,
        "split_hands_so_far": len(box["hands"]),
        "is_split_hand": bool(hand.get("from_split")),
        "doubled": bool(hand.get("doubled")),
        "remaining_cards": unseen,
    }


def view_hint(
    rules: CasinoRules, view: Mapping[str, Any], seen_before: Iterable[Card] = ()
) -> dict[str, float]:
    """The exact expectation of each of the seat's legal verbs for the hand to act, from its view."""
    from pontoon.analysis.hints import action_values

    return action_values(**hint_inputs(rules, view, seen_before))
