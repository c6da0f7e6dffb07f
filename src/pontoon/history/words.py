"""A round's events as the words a player uses: "ann bets 10 on box 1", "dealer shows J♣", "bob doubles
20 on box 2: 7♥", "dealer stands on 19", "banker has 18: bob loses 2".

``round_words(events, view, game=...)`` renders a round's log for one seat: a card is named only where
that seat's ``view`` shows it (ruling 35: what a seat may know). For a live round pass the seat's view
now; after settlement the seat's final view, so only what was exposed is named. A casino table deals
every card face up (casino/seats.py ``view``), so every dealt card is named there; a British round's
face-down cards (the deal, bought cards, the banker's hand until he turns it up) are "a card" unless
the view shows them. The pack's ``draw`` log is never rendered. ``event_words`` renders one event.

Cards are drawn as symbols (``10♠``); money is the exact text the log holds; names are the players'
own (data, not markup: the page writes them as text).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from pontoon.cards import parse_cards
from pontoon.hands import best_total, is_natural

SUIT_SYMBOL: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
HIDDEN: Final = "??"
# events that never become words: the pack's order, plain markers the next line says better
SILENT: Final = frozenset({"draw", "deal_second", "split_deal", "no_more_bets_marker"})
VERB_WORDS: Final = {
    "hit": "hits",
    "stand": "stands on",
    "twist": "twists",
    "stick": "sticks",
    "split": "splits",
    "surrender": "surrenders",
    "decline": "declines on",
}


def card_text(code: str) -> str:
    """``"TS"`` -> ``"10♠"``; a face-down card ``"??"`` -> ``"a face-down card"``."""
    if code == HIDDEN or len(code) != 2:
        return "a face-down card"
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUIT_SYMBOL.get(code[1], code[1])


def cards_text(codes: Iterable[str]) -> str:
    return " ".join(card_text(c) for c in codes)


class Reader:
    """What the reader's ``view`` shows: which logged cards may be named (ruling 35).

    Casino (casino/seats.py): every dealt card is face up but Blackjack's hole card (the dealer's
    second) while the view shows it as ``??``. British (british/view.py): a twist, a split, a burn, a
    declared Pontoon's ace, a bust hand and the banker's turned-up hand are face up when they happen; a
    bought card (003 Buy: face down) only to its holder, or once its hand shows no face-down card.
    ``view=None``: the operator reading a finished round, every card named."""

    def __init__(self, view: Mapping[str, Any] | None) -> None:
        self.view = view
        self.seat = None if view is None else view.get("seat")
        dealer = [] if view is None else view.get("dealer") or []
        self.dealer = [str(c) for c in dealer] if isinstance(dealer, list) else []
        self.exposed: set[tuple[str, int]] = set()
        if view is not None:
            for h in view.get("hands", ()):
                if HIDDEN not in h.get("cards", ()):
                    self.exposed.add((str(h.get("owner")), int(h.get("hand", 1))))

    def dealer_card(self, index: int) -> bool:
        return self.view is None or index >= len(self.dealer) or self.dealer[index] != HIDDEN

    def bought(self, seat: Any, hand: Any) -> bool:
        if self.view is None or (seat is not None and seat == self.seat):
            return True
        return (str(seat), int(hand or 1)) in self.exposed


def _money(v: Any) -> str:
    text = str(v)
    return text[1:] if text.startswith("-") else text


def _box(data: Mapping[str, Any]) -> str:
    box = data.get("box")
    hand = data.get("hand")
    if hand is not None and int(hand) > 1:
        return f"box {box} hand {hand}"
    return f"box {box}"


def _bhand(data: Mapping[str, Any]) -> str:
    hand = data.get("hand")
    return f" (hand {hand})" if hand is not None and int(hand) > 1 else ""


def _net_words(net: Mapping[str, Any], banker: str | None = None) -> str:
    parts = []
    for p, d in net.items():
        total = d.get("total", "0") if isinstance(d, Mapping) else d
        t = str(total)
        who = f"{p} (banker)" if p == banker else str(p)
        if t.startswith("-"):
            parts.append(f"{who} loses {t[1:]}")
        elif t.strip("0.") == "":
            parts.append(f"{who} breaks even")
        else:
            parts.append(f"{who} wins {t}")
    return ", ".join(parts)


def _name(code: Any, shown: bool = True) -> str:
    return card_text(str(code)) if shown else "a card"


def _names(codes: Iterable[Any]) -> str:
    return " ".join(card_text(str(c)) for c in codes)


def _casino(kind: str, d: Mapping[str, Any], reader: Reader, dealer_index: int) -> str | None:  # noqa: PLR0911, PLR0912
    if kind == "round_start":
        return f"round {d.get('round', '')} begins (shoe {d.get('shoe', '')})".replace(" ()", "")
    if kind == "bet":
        what = "" if d.get("kind") == "main" else f" {str(d.get('kind')).replace('_', ' ')}"
        return f"{d.get('player')} bets {d.get('amount')}{what} on box {d.get('box')}"
    if kind == "withdraw":
        what = "" if d.get("kind") == "main" else f" {str(d.get('kind')).replace('_', ' ')}"
        return f"{d.get('player')} takes back{what} {d.get('amount')} from box {d.get('box')}"
    if kind == "side_bet_returned":
        return f"{d.get('player')}'s {str(d.get('kind')).replace('_', ' ')} bet on box {d.get('box')} is returned"
    if kind == "pro_rata":
        shares = ", ".join(f"{p} {v}" for p, v in (d.get("wagers") or {}).items())
        return f"box {d.get('box')} is over its limit: wagers cut to {shares}"
    if kind == "no_more_bets":
        return "no more bets"
    if kind == "card":
        if d.get("to") == "dealer":
            verb = "shows" if dealer_index == 0 else "draws"
            return f"dealer {verb} {_name(d.get('card'), reader.dealer_card(dealer_index))}"
        return f"{_box(d)} gets {_name(d.get('card'))}"
    if kind == "window_closed":
        return "the first card after the deal: the early window closes"
    if kind == "peek":
        return "dealer checks for Pontoon"
    if kind == "dealer_pontoon":
        return "dealer has a natural 21"
    if kind == "super_bonus":
        return f"box {d.get('box')}: three sevens against the dealer's seven, super bonus"
    if kind == "jackpot":
        return f"box {d.get('box')}: Pandemonium jackpot ×{d.get('multiplier')}"
    if kind == "double":
        amounts = d.get("amounts") or {}
        who = " and ".join(f"{p} doubles {v}" for p, v in amounts.items()) or "double"
        return f"{who} on {_box(d)}"
    if kind == "split":
        return f"{_box(d)} splits into two hands"
    if kind == "surrender":
        return f"{' and '.join(map(str, d.get('players') or []))} surrender{'s' if len(d.get('players') or []) == 1 else ''} box {d.get('box')}"
    if kind == "walked_away":
        return f"box {d.get('box')} is played out by the house: its player walked away"
    if kind == "action_moot":
        parts = str(d.get("action", "")).split()
        what = f"the {parts[1]} on box {parts[0]}" if len(parts) > 1 and parts[0].isdigit() else "an action"
        return f"{what} is not played: {d.get('reason')}"
    if kind == "interrupted":
        return "the round is interrupted" + (": its outcome stands" if d.get("outcome_established") else "")
    if kind == "void":
        return f"the round is void ({d.get('reason')}): every wager returned"
    if kind == "join":
        return f"{d.get('player')} sits down with {d.get('balance')}"
    if kind == "leave":
        return f"{d.get('player')} leaves with {d.get('balance')}"
    return None


def _casino_action(d: Mapping[str, Any]) -> str | None:
    act = d.get("act") or {}
    verb = str(act.get("verb", ""))
    who = "the house" if d.get("authority") == "table" else str(d.get("seat", "someone"))
    box = act.get("box")
    if verb in ("double", "split", "surrender"):  # the next event says it with the amounts
        return None
    if verb == "insure":
        return f"{act.get('player') or who} insures box {box} for {act.get('amount')}"
    if verb == "interrupt":
        return None
    if verb == "rescue":  # 000 3.11.4, 004 3.25.3
        return f"{who} rescues box {box}: takes back the double, forfeits the first wager"
    if verb == "decline":
        return f"{act.get('player') or who} declines to follow the {act.get('what')} on box {box}"
    words = VERB_WORDS.get(verb, verb.replace("_", " ") + "s")
    return f"{who} {words} box {box}"


def _british(kind: str, d: Mapping[str, Any], reader: Reader) -> str | None:  # noqa: PLR0911, PLR0912
    seat = d.get("seat")
    if kind == "round_start":
        return (
            f"new deal: {d.get('banker')} holds the bank; {', '.join(map(str, d.get('players') or []))} play"
        )
    if kind == "deal_first":
        return "one card each, face down"
    if kind == "stake":
        return f"{seat} stakes {d.get('amount')}"
    if kind == "sit_out":
        return f"{seat} sits this round out (the bank cannot cover more)"
    if kind == "banker_double":
        return f"{seat} (banker) doubles the bets"
    if kind == "banker_no_double":
        return f"{seat} (banker) keeps the bets"
    if kind == "shoot":
        return f"{seat} shoots {d.get('amount')}{_bhand(d)}"
    if kind == "no_shoot":
        return f"{seat} does not shoot"
    if kind == "buy":
        return f"{seat} buys {_name(d.get('card'), reader.bought(seat, d.get('hand')))} for {d.get('amount')}{_bhand(d)}"
    if kind == "twist":
        return f"{seat} twists: {_name(d.get('card'))}{_bhand(d)}"
    if kind == "stick":
        return f"{seat} sticks{_bhand(d)}"
    if kind == "split":
        return f"{seat} splits {_names(d.get('cards') or [])}"
    if kind == "burn":
        return f"{seat} burns {_names(d.get('burned') or [])}: two new cards"
    if kind == "pontoon":
        return f"{seat} declares Pontoon{_bhand(d)}: {_name(d.get('ace'))} up"
    if kind == "five_card_trick":
        return f"{seat} has a five card trick{_bhand(d)}"
    if kind == "bust":
        return f"{seat} busts{_bhand(d)}: {_names(d.get('cards') or [])}"
    if kind == "banker_pontoon":
        return f"banker has Pontoon: {_names(d.get('cards') or [])}"
    if kind == "banker_turn":
        return f"banker turns up {_names(d.get('cards') or [])}"
    if kind == "banker_twist":
        return f"banker twists: {_name(d.get('card'))}"
    if kind == "banker_stick":
        return "banker stays"
    if kind == "settled":
        return _british_settled(d, reader.view)
    if kind == "void":
        return f"the round is void ({d.get('reason')}): every stake returned"
    if kind == "kitty":
        return f"{seat} puts {d.get('amount')} in the kitty"
    if kind == "kitty_top_up":
        return f"{seat} adds {d.get('amount')} to the kitty"
    if kind == "kitty_retrieved":
        return f"{seat} takes back the kitty, {d.get('amount')}"
    if kind == "bank_passes":
        return f"the bank passes from {d.get('old')} to {d.get('new')}"
    if kind == "seat_joins":
        return f"{seat} sits down"
    if kind == "seat_leaves":
        net = str(d.get("net", "0"))
        return f"{seat} leaves, " + (f"down {net[1:]}" if net.startswith("-") else f"up {net}")
    return None


def _british_settled(d: Mapping[str, Any], view: Mapping[str, Any] | None) -> str:
    outcome = str(d.get("banker_outcome", ""))
    if view is not None and outcome not in ("", "pontoon") and not view.get("banker_outcome"):
        outcome = ""  # the banker's hand was never turned up to this seat (ruling 35)
    head = {
        "": "settled",
        "bust": "banker busts",
        "pontoon": "banker's Pontoon",
        "five card trick": "banker's five card trick",
    }.get(outcome, f"banker has {outcome}")
    net = d.get("net") or {}
    banker = view.get("banker") if view is not None else None
    line = f"{head}: {_net_words(net, banker)}" if net else head
    nxt = d.get("next_banker")
    if nxt and banker and nxt != banker:
        line += f"; the bank passes to {nxt}"
    return line


def _shoe(kind: str, d: Mapping[str, Any]) -> str | None:
    if kind == "new_shoe":
        n = d.get("cards")
        return f"a new shoe is shuffled{f' ({n} cards)' if n else ''}" + (
            " and committed (provably fair)" if d.get("commitment") else ""
        )
    if kind == "shoe_retired":
        return "the shoe is retired" + (": its seed is revealed" if d.get("server_seed") else "")
    return None


def event_words(
    kind: str,
    data: Mapping[str, Any],
    *,
    game: str,
    reader: Reader | None = None,
    dealer_index: int = 0,
) -> str | None:
    """One event in words, or None where it adds nothing (the pack's order, a bare marker).

    ``reader``: what the reader's view shows (None: the operator, every card named);
    ``dealer_index``: for a casino dealer's card, which of his cards it is (0 for the first)."""
    if kind in SILENT:
        return None
    rd = reader if reader is not None else Reader(None)
    shoe = _shoe(kind, data)
    if shoe is not None:
        return shoe
    if game == "british":
        if kind == "action":
            return None  # the move's own event follows it, with what the seat may see
        return _british(kind, data, rd) or fallback(kind)
    if kind == "action":
        return _casino_action(data)
    if kind == "round_over":
        return None  # round_words ends the round with the dealer's total and the result
    return _casino(kind, data, rd, dealer_index) or fallback(kind)


def fallback(kind: str) -> str:
    """The words of a step this module has no words for (a kind added later): its name, plainly."""
    return "step: " + kind.replace("_", " ")[:40]


def _as_pair(e: Any) -> tuple[str, Mapping[str, Any]]:
    if isinstance(e, Mapping):
        return str(e.get("kind", "")), e.get("data") or {}
    return str(e.kind), e.data


def _dealer_end(codes: list[str]) -> str:
    """The dealer's hand at the end: "dealer stands on 19", "dealer busts with 24"."""
    try:
        cards = parse_cards(codes)
    except ValueError:
        return "dealer's hand is done"
    if len(cards) == 2 and is_natural(cards):
        return "dealer has a natural 21"
    total = best_total(cards)
    if total > 21:
        return f"dealer busts with {total}"
    if total < 17:  # 000 3.19, rul 7: the dealer draws below 17, so he stopped: no hand left to play
        return f"dealer has {total}: no hand left to play against"
    return f"dealer stands on {total}"


def round_words(
    events: Iterable[Any],
    view: Mapping[str, Any] | None,
    *,
    game: str,
    net: Mapping[str, Any] | None = None,
) -> list[str]:
    """A round's events as lines of words for the reader whose ``view`` is given (see the module doc).

    A casino hit or double and the card it draws make one line ("ann hits box 1: 7♥"); a casino
    round ends with the dealer's total and, given ``net`` (each person's totals), the result."""
    reader = Reader(view)
    out: list[str] = []
    pending: tuple[int, Any] | None = None  # (line index, box) of a hit/double awaiting its card
    dealer: list[str] = []
    over = natural = False
    for e in events:
        kind, data = _as_pair(e)
        index = len(dealer)
        if game != "british" and kind == "card":
            if data.get("to") == "dealer":
                dealer.append(str(data.get("card")) if reader.dealer_card(index) else HIDDEN)
            elif pending is not None and data.get("box") == pending[1]:
                i = pending[0]
                out[i] = f"{out[i]}: {_name(data.get('card'))}"
                pending = None
                continue
        over = over or kind == "round_over"
        natural = natural or kind == "dealer_pontoon"
        line = event_words(kind, data, game=game, reader=reader, dealer_index=index)
        pending = None
        if line is None:
            continue
        out.append(line)
        act = (data.get("act") or {}) if kind == "action" else {}
        if game != "british" and (act.get("verb") == "hit" or kind == "double"):
            pending = (len(out) - 1, act.get("box", data.get("box")))
    if game != "british" and over:
        if natural:
            pass  # said at the peek
        elif len(dealer) > 1 and HIDDEN not in dealer:
            out.append(_dealer_end(dealer))
        elif dealer:
            out.append("dealer does not draw: no hand left to play against")
        if net:
            out.append("result: " + _net_words(net))
    return out


def stored_round_words(store: Any, round_id: int, seat: str | None = None) -> dict[str, Any]:
    """A stored round in words as ``seat`` (default: a spectator) saw it: the round is replayed
    through the engine (pontoon.replay) and its view after the last event decides which cards are
    named (ruling 35: after settlement only what was exposed; a round still open, what shows now)."""
    from pontoon.errors import PontoonError
    from pontoon.history.audit import round_detail
    from pontoon.history.recover import rules_of
    from pontoon.protocol import SPECTATOR
    from pontoon.replay import replay
    from pontoon.rules.british import BritishRules

    d = round_detail(store, round_id)
    rules = rules_of(store.table(int(d["table"])))
    events = [{k: e[k] for k in ("seq", "kind", "data", "clause")} for e in d["events"]]
    rnd = replay(rules, events)
    game = "british" if isinstance(rules, BritishRules) else "casino"
    if seat is not None and seat not in rnd.seats():
        shown = seat if len(seat) <= 40 else seat[:40] + "..."
        raise PontoonError(
            f"--as {shown!r}: not a seat of round {round_id}; its seats: {', '.join(rnd.seats()) or 'none'}"
        )
    view = rnd.view(seat if seat is not None else SPECTATOR)
    net = (d.get("result") or {}).get("net") if game == "casino" else None
    return {
        "id": round_id,
        "table": d["table"],
        "round": d["round"],
        "preset": d["preset"],
        "status": d["status"],
        "seat": seat,
        "words": round_words(events, view, game=game, net=net),
    }
