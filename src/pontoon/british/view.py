"""What one seat may see of a British round (003), as plain JSON-ready values.

A face-down card of another seat shows as ``"??"``. Under 003 a seat sees:
- all its own cards (003 "All the players except the banker may look at their card"; the banker
  looks at his own cards once the initial stakes are down: variation "the banker looks at his own
  first card", and 003 "all the players look at their two cards");
- of other seats' hands only the face-up cards: twisted cards (003 Twist "face up"), split cards
  (003 Split "face up"), the ace of a declared Pontoon (003 "the ten point card face down and the
  ace face up"), busted hands (003 "throw in your hand face up"), burned cards (003 variation
  "shown and discarded"), and every hand once the banker stays (003 "Everyone then exposes their cards");
- the banker's cards once turned up (003 The Banker's Turn) or when his Pontoon is exposed.
Bought cards stay face down (003 Buy). The pack's order is never shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from pontoon.money import fmt
from pontoon.protocol import SPECTATOR, Actor, Marker

if TYPE_CHECKING:
    from pontoon.british.round import BritishHand, BritishRound

HIDDEN: Final = "??"


def card_visible(rnd: BritishRound, seat: Actor, h: BritishHand, i: int) -> bool:
    return h.owner == seat or h.up[i]


_PUBLIC_STATUS = frozenset(("bust", "pontoon", "five"))


def banker_visible(rnd: BritishRound, seat: Actor) -> bool:
    if seat == rnd.banker:
        return rnd.banker_looked or rnd.banker_up
    return rnd.banker_up


def round_view(rnd: BritishRound, seat: Actor) -> dict[str, Any]:
    hands = []
    for h in rnd.hands:
        cards = [str(c) if card_visible(rnd, seat, h, i) else HIDDEN for i, c in enumerate(h.cards)]
        all_seen = HIDDEN not in cards
        entry: dict[str, Any] = {
            "owner": h.owner,
            "hand": rnd.hand_number(h),
            "cards": cards,
            "count": len(h.cards),
            "stake": fmt(h.stake),
            "status": h.status,
            "twisted": h.twisted,
            "split": h.split,
            "burned": [str(c) for c in h.burned],
        }
        if rnd.rules.shoot:
            entry["shoot"] = fmt(h.shoot)
        if rnd.over:
            entry["result"] = h.result
            # ruling 35: a hidden hand's outcome is shown only where the rules made it public: a bust
            # (003 Going bust: thrown in face up), a declared Pontoon (003 Declare a Pontoon), a Five
            # Card Trick (003 Five Card Trick). An undeclared Pontoon that the banker's Pontoon beat at
            # the deal (003 The Deal) is never exposed: its holder only pays.
            if all_seen or h.status in _PUBLIC_STATUS:
                entry["outcome"] = h.outcome
        hands.append(entry)
    seen = banker_visible(rnd, seat)
    out: dict[str, Any] = {
        "game": "british",
        "preset": rnd.rules.preset,
        "seat": None if isinstance(seat, Marker) else seat,
        "spectator": seat is SPECTATOR,
        "phase": rnd.phase,
        "to_act": rnd.to_act(),
        "banker": rnd.banker,
        "players": list(rnd.players),
        "hands": hands,
        "banker_cards": [str(c) if seen else HIDDEN for c in rnd.banker_cards],
        "bets_doubled": rnd.mult > 1,
    }
    cur = rnd.current_hand()
    out["current_hand"] = None if cur is None else {"owner": cur.owner, "hand": rnd.hand_number(cur)}
    if rnd.rules.shoot:
        out["kitty"] = fmt(rnd.kitty())
        out["shoot_capacity"] = fmt(rnd.shoot_capacity())
    out["legal_actions"] = [a.to_json() for a in rnd.legal_actions(seat)] if rnd.to_act() == seat else []
    if rnd.over:
        out["void_reason"] = rnd.void_reason
        out["banker_outcome"] = rnd.banker_outcome if seen or rnd.banker_outcome in ("", "pontoon") else ""
        out["net"] = rnd.net_json()
        out["next_banker"] = rnd.next_banker
    return out
