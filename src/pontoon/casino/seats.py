"""Who may take which casino action, and what each person sees (the table protocol, ``protocol.py``).

An action addressed to a box belongs to the box's seated (controlling) bettor: the first bettor with a
main wager on it (000 1.1.4 "the player seated at the box", 004 3.3). A standing bettor's own choices
are his: his insurance (000 3.12, 004 3.17), his own rescue where each bettor decides (rul 27), and
declining to follow a split, a double or a surrender (004 3.24.1, 3.25.1; 001 Surrenders), given as a
``decline`` order before the seated bettor acts: when the seated bettor splits, doubles, surrenders or
rescues, the engine applies every order registered for that box. ``TABLE`` (the scenario runner,
the dealer's inspector) may take any action, as the documents' scenario files do.

Plain functions of the round ``rnd``; ``CasinoRound`` calls them.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_DOWN
from typing import TYPE_CHECKING, Any, Final

from pontoon.casino.phase import P_BETTING, P_OVER, P_PLAY, P_WINDOW
from pontoon.money import CENT, fmt
from pontoon.protocol import BETTING, SPECTATOR, TABLE, Action, Actor, Marker

if TYPE_CHECKING:
    from pontoon.cards import Card
    from pontoon.casino.round import CasinoRound
    from pontoon.casino.state import Box, Hand

BOX_VERBS: Final = ("hit", "stand", "double", "split", "rescue", "surrender", "walk")
DECLINABLE: Final = ("split", "double", "surrender", "rescue")


def seated_of(rnd: CasinoRound, box: int | None) -> str | None:
    b = rnd.boxes.get(box or 0)
    if b is None:
        return None
    if b.hands:
        return next(iter(b.hands[0].stakes), None)
    s = b.seated
    return None if s is None else s.player


def to_act(rnd: CasinoRound) -> str | Marker | None:
    if rnd.phase is P_BETTING:
        return BETTING
    if rnd.phase is P_OVER:
        return None
    h = rnd.current
    if h is None:
        return None
    return seated_of(rnd, h.box)


def decline_allowed(rnd: CasinoRound, what: str) -> bool:
    r = rnd.rules
    if what == "split":
        return r.standing_may_decline_split
    if what == "double":
        return r.standing_may_decline_double
    if what == "surrender":
        return r.surrender != "none" and r.surrender_others_choose
    if what == "rescue":
        return r.rescue and r.rescue_each_bettor  # rul 27
    return False


def why_not_decline(rnd: CasinoRound, seat: str, a: Action) -> str:
    if a.what not in DECLINABLE:
        return f"decline takes one of {', '.join(DECLINABLE)}, not {a.what!r}"
    if not decline_allowed(rnd, a.what):
        return f"in {rnd.rules.preset} the standing bettors follow the seated player's {a.what}"
    b = rnd.boxes.get(a.box or 0)
    if b is None or not b.hands:
        return f"box {a.box} has no hand"
    if seat == seated_of(rnd, a.box):
        return "the seated bettor decides; only standing bettors decline"
    if not any(seat in h.live_bettors() for h in b.hands):
        return f"{seat} has no live wager on box {a.box}"
    if a.what in rnd.declines.get((b.number, seat), ()):
        return f"{seat} has already declined to follow a {a.what} on box {a.box}"
    return ""


def why_not_for(rnd: CasinoRound, seat: Actor, a: Action) -> str:
    """Why ``seat`` may not take ``a`` (""), before the engine's own check of the action."""
    if seat is TABLE:
        return ""
    if isinstance(seat, Marker):
        return f"{seat} takes no action"
    if a.verb == "interrupt":
        return "only the table (the dealer) declares a technical interruption (004 5.4)"
    if a.verb == "insure":
        if a.player != seat:
            return f"{seat} may insure only his own wager, not {a.player}'s"
        return ""
    if a.verb == "decline":
        if a.player is not None and a.player != seat:
            return f"{seat} may decline only for himself"
        return why_not_decline(rnd, seat, a)
    seated = seated_of(rnd, a.box)
    if seat == seated:
        return ""
    if a.verb == "rescue" and a.players == (seat,):
        return ""  # rul 27: each bettor whose wager was doubled decides for his own wager
    if seated is None:
        return f"box {a.box} has no seated bettor"
    return f"box {a.box} is played by its seated bettor {seated}, not {seat}"


def with_orders(rnd: CasinoRound, seat: Actor, a: Action) -> Action:
    """The seated bettor's split, double, surrender or rescue with the standing bettors' decline orders."""
    if a.verb == "rescue" and isinstance(seat, str) and a.box is not None and seat != seated_of(rnd, a.box):
        return replace(
            a, player=seat, players=(seat,)
        )  # rul 27: a standing bettor's own forfeit; the others still decide
    if seat is TABLE or a.verb not in DECLINABLE or a.box is None or a.decline or a.players is not None:
        return a
    if seat != seated_of(rnd, a.box):
        return a
    out = [p for (box, p), whats in rnd.declines.items() if box == a.box and a.verb in whats]
    if not out:
        return a
    if a.verb in ("split", "double"):
        return replace(a, decline=tuple(out))
    h = rnd.current
    if h is None:
        return a
    if a.verb == "rescue":
        who = [p for p in h.doubles if p in h.live_bettors() and p not in out]
    else:
        who = [p for p in h.stakes if p not in out]
    return replace(a, players=tuple(who))


def legal_for(rnd: CasinoRound, seat: Actor) -> list[Action]:
    """What ``seat`` may do now (``TABLE``: every action of every box)."""
    every = rnd.legal_actions_all()
    if seat is TABLE:
        return every
    if isinstance(seat, Marker):
        return []
    if not rnd.declines:
        owner: dict[int, str | None] = {}
        for n, b in rnd.boxes.items():
            if len(b.bettors) > 1:
                break
            owner[n] = seated_of(rnd, n)
        else:
            # nobody stands behind anyone: no decline order, no standing bettor's own choice, and the
            # seat rule (why_not_for) keeps exactly the actions this seat owns: his insurance, and the
            # actions of the boxes where he is the seated bettor
            return [a for a in every if (a.player if a.verb == "insure" else owner.get(a.box or 0)) == seat]
    # checked as this seat would take it: the standing bettors' decline orders applied (with_orders)
    out = [
        a
        for a in every
        if not why_not_for(rnd, seat, a) and (with_orders(rnd, seat, a) is a or not rnd._why_illegal(a, seat))
    ]
    if rnd.phase in (P_WINDOW, P_PLAY):
        for n in sorted(rnd.boxes):
            if len(rnd.boxes[n].bettors) < 2:
                continue  # nobody stands on this box: no standing bettor's own choice
            h = rnd.current
            # his own rescue of a doubled hand (rul 27)
            if h is not None and h.box == n and seat in h.doubles and seat != seated_of(rnd, n):
                a = Action("rescue", n, players=(seat,))
                if rnd.can(TABLE, a):
                    out.append(a)
            for what in DECLINABLE:
                d = Action("decline", n, seat, what=what)
                if not why_not_decline(rnd, seat, d):
                    out.append(d)
    return out


def _money(d: Any) -> str:
    return fmt(d)


def _hand_view(rnd: CasinoRound, h: Hand) -> dict[str, Any]:
    total, soft = h.total(rnd.rules.double_ace_counts_one)
    return {
        "hand": h.index,
        "cards": [str(c) for c in h.cards],
        "total": total,
        "soft": soft,
        "stakes": {p: _money(v) for p, v in h.stakes.items()},
        "doubles": {p: _money(v) for p, v in h.doubles.items()},
        "doubled": h.doubled,
        "from_split": h.from_split,
        "finished": h.finished,
        "outcome": dict(h.outcome),
    }


def _box_view(rnd: CasinoRound, b: Box) -> dict[str, Any]:
    return {
        "box": b.number,
        "seated": seated_of(rnd, b.number),
        "bettors": [
            {
                "player": x.player,
                "main": _money(x.main),
                "placed": _money(x.placed),
                "side": {k: _money(v) for k, v in x.side.items()},
                "insurance": _money(x.insurance),
            }
            for x in b.bettors
        ],
        "hands": [_hand_view(rnd, h) for h in b.hands],
        "jackpot_multiplier": b.jackpot_multiplier,
    }


def hole_card_hidden(rnd: CasinoRound) -> bool:
    """Blackjack's hole card stays face down until the dealer's turn (rul 4)."""
    return (
        rnd.rules.dealer_hole_card
        and rnd.phase is not P_OVER
        and rnd.current is not None
        and len(rnd.dealer) > 1
    )


def _dealer_view(rnd: CasinoRound) -> list[str]:
    """The dealer's cards, the hole card as ``??`` while it is face down."""
    cards = [str(c) for c in rnd.dealer]
    if hole_card_hidden(rnd):
        cards[1] = "??"
    return cards


def face_up_cards(rnd: CasinoRound) -> list[Card]:
    """The round's cards every seat sees (the cards its view shows): every hand's, the dealer's shown."""
    out = [c for i, c in enumerate(rnd.dealer) if not (i == 1 and hole_card_hidden(rnd))]
    for n in sorted(rnd.boxes):
        for h in rnd.boxes[n].hands:
            out.extend(h.cards)
    return out


def shown_before(rnd: CasinoRound) -> list[Card]:
    """The cards dealt from the round's shoe in its earlier rounds: each of those rounds ended with
    every card face up (rul 4: the hole card is turned over), so every seat at the table saw them."""
    return rnd.shoe.dealt_cards()[: rnd.first_dealt]


def view(rnd: CasinoRound, seat: Actor) -> dict[str, Any]:
    """Everything dealt face up is public at a casino table; the shoe's cards to come never are."""
    cur = rnd.current
    actor = to_act(rnd)
    out: dict[str, Any] = {
        "game": "casino",
        "preset": rnd.rules.preset,
        "phase": str(rnd.phase),
        "seat": None if isinstance(seat, Marker) else seat,
        "spectator": seat is SPECTATOR,
        "to_act": actor.value if isinstance(actor, Marker) else actor,
        "hand_to_act": None if cur is None else {"box": cur.box, "hand": cur.index},
        "dealer": _dealer_view(rnd),
        "boxes": [_box_view(rnd, rnd.boxes[n]) for n in sorted(rnd.boxes)],
        "void_reason": rnd.void_reason,
        "legal_actions": [] if isinstance(seat, Marker) else [a.to_json() for a in legal_for(rnd, seat)],
    }
    if rnd.phase is P_OVER:
        net = rnd.ledger.net(rnd.players())
        out["net"] = {p: {k: _money(v) for k, v in d.items()} for p, d in net.items()}
    return out


def insure_default(x_main: Any) -> Any:
    return (x_main / 2).quantize(CENT, rounding=ROUND_DOWN)
