"""The casino round engine: one phase machine for every casino preset (and plain blackjack).

A round goes BETTING -> (deal, interim settlement) -> WINDOW/PLAY -> dealer -> OVER. Players'
decisions are ``Action`` records; each verb has a ``verify_x`` (raises IllegalAction naming what is
accepted), a ``can_x`` (bool) and the doing method ``x``; ``legal_actions()`` lists what may be done
now and ``act()`` takes any of them. The engine does the chores itself (dealing, forced cards on
split hands, paying 21s at once, the dealer's play, settlement). Every step appends a frozen event to
``log``; every movement of money is a transfer in ``ledger`` (money is conserved by construction).

``CasinoRound`` keeps the state, the phase machine (deal, turn order, action dispatch) and the public API;
the rest are plain functions of the round in sibling modules: ``bets.py`` (placing, withdrawing and closing
wagers, pro rata), ``verbs.py`` (the check and the doer of each action verb), ``settle.py`` (money moves,
interim settlement, the odds of a 21, the dealer's peek and turn, final settlement, Super Bonus) and
``irregular.py`` (void rounds, technical interruption). ``Phase`` lives in ``phase.py``.

Clause references: 000 = MBS, 001 = Federal, 002 = Pandemonium, 004 = Pontoon Plus; "rul N" = rulings.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import ROUND_DOWN, Decimal
from typing import Any, Final

import numpy as np

from pontoon.cards import Card
from pontoon.casino import bets, irregular, seats, settle, verbs
from pontoon.casino.actions import Action, action_text, box_action, box_actions
from pontoon.casino.irregular import _Void
from pontoon.casino.phase import P_BETTING, P_OVER, P_PLAY, P_WINDOW, Phase  # noqa: F401  (Phase: imported from here by others)
from pontoon.casino.state import Box, Hand, HandResult, RoundResult
from pontoon.errors import IllegalAction, PontoonError, ScenarioError, ShoeExhausted
from pontoon.events import Event, EventLog
from pontoon.hands import hand_total
from pontoon.money import CENT, to_money
from pontoon.protocol import TABLE, Actor, Marker
from pontoon.rules.model import CasinoRules
from pontoon.settlement import Ledger
from pontoon.shoe import Shoe, make_rng

ZERO: Final = Decimal(0)
_TEXT: Final = [str(Card.from_code(i)) for i in range(52)]  # each card's text by its code
SIDE_KINDS: Final = ("pair", "bonus", "pandemonium")


class CasinoRound:
    """One round at a casino table. See the module docstring for the flow."""

    def __init__(
        self,
        rules: CasinoRules,
        shoe: Shoe,
        *,
        jackpot: Iterable[int] | Callable[[], int] | None = None,
        rng: np.random.Generator | int | None = None,
    ) -> None:
        self.rules = rules
        self.shoe = shoe
        self.boxes: dict[int, Box] = {}
        self.dealer: list[Card] = []
        self.ledger = Ledger()
        self.log = EventLog()
        self.phase = P_BETTING
        self.void_reason: str | None = None
        self.dealer_natural = False
        self.first_dealt = shoe.dealt
        self._peek_pending = False
        self._natural_pending: list[Hand] = []
        self.foreign_cards: list[Card] = []  # drawn but not part of the pack: they void the round
        self.declines: dict[tuple[int, str], set[str]] = {}  # standing bettors' decline orders (seats.py)
        self._order: list[Box] | None = None  # boxes in number order (turn order), made once the deal is on
        self._legal: dict[Actor, list[Action]] = {}  # listings for the round's version _legal_v
        self._legal_v = -1
        self._all: list[Action] | None = None
        self._pinned: Hand | None = None  # the hand to act, fixed while a listing is computed
        self._bet_ok: tuple[int, int, str, str, Decimal] | None = None  # the wager verify_place_bet passed
        self._no_tens = rules.pack == "pontoon48"  # a ten is foreign to a 48-card pack (cards.in_pack)
        if jackpot is None:
            gen = make_rng(rng)

            def _press() -> int:  # the meter's odds are worked out only when a button is pressed
                probs = rules.pandemonium_probabilities()
                return int(gen.choice([m for m, _ in probs], p=[p for _, p in probs]))

            self._jackpot: Callable[[], int] = _press
        elif callable(jackpot):
            self._jackpot = jackpot
        else:
            it = iter(jackpot)

            def _next() -> int:
                try:
                    return int(next(it))
                except StopIteration:
                    raise ScenarioError(
                        "jackpot: a Pandemonium button was pressed but no multiplier is left"
                    ) from None

            self._jackpot = _next

    # ---------------------------------------------------------------------------- bets (bets.py)
    def verify_place_bet(self, box: object, player: object, kind: object, amount: object) -> Decimal:
        """Raise BetError unless the wager may be placed now; return its amount."""
        amt = bets.verify_place_bet(self, box, player, kind, amount)
        assert isinstance(box, int) and isinstance(player, str) and isinstance(kind, str)  # checked just now
        self._bet_ok = (self.log._seq, box, player, kind, amt)  # place_bet need not check it again
        return amt

    def can_place_bet(self, box: object, player: object, kind: object, amount: object) -> bool:
        try:
            self.verify_place_bet(box, player, kind, amount)
            return True
        except IllegalAction:
            return False

    def place_bet(self, box: object, player: object, kind: object, amount: object) -> None:
        ok = self._bet_ok
        self._bet_ok = None
        if (
            ok is not None
            and type(amount) is Decimal
            and ok[0] == self.log._seq
            and ok[1] == box
            and ok[2] == player
            and ok[3] == kind
            and ok[4] is amount
        ):
            bets.place_checked_bet(
                self, ok[1], ok[2], ok[3], amount
            )  # verified just now, nothing changed since
        else:
            bets.place_bet(self, box, player, kind, amount)

    def withdraw_bet(self, box: int, player: str, kind: str) -> None:
        """Take a wager back before the deal (000 5.4: not after 'no more bets')."""
        bets.withdraw_bet(self, box, player, kind)

    # ---------------------------------------------------------------------------- the deal
    def verify_close_bets(self) -> None:
        bets.verify_close_bets(self)

    def close_bets(self) -> None:
        """'No more bets': deal the initial cards and make the interim settlement."""
        self.verify_close_bets()
        # rul 38: a stacked shoe holding more of a card than its decks can (a shuffled one never does)
        shoe = self.shoe
        excess = shoe.excess(self.rules.decks) if shoe.stacked and not shoe.synthetic else []
        if excess and not self.rules.excess_cards_void:
            raise ScenarioError(
                f"the shoe holds {', '.join(excess)}: more than {self.rules.decks} decks of the "
                f"{self.rules.pack} pack hold; a shoe the decks could not hold is refused (rulings 38)"
            )
        self.log.add("no_more_bets")
        bets.close_wagers(self)
        self.phase = P_PLAY
        if excess:  # 004 5.5.2: "any shortage or excess of cards in the deck" voids the round (5.17)
            irregular.void(self, f"excess of cards in the deck: {', '.join(excess)} (004 5.5.2)")
            return
        irregular.run_step(self, self._initial_deal)

    def _draw(self) -> Card:
        try:
            card = self.shoe.draw()
        except ShoeExhausted:
            raise _Void("insufficient cards") from None  # rul 2, 004 5.5.3
        if self._no_tens and card.rank == "T":  # in_pack
            self.foreign_cards.append(card)
            raise _Void(f"foreign card {card}")  # rul 1, 000 5.1, 002 5.1.1, 004 5.5.1
        return card

    def _deal_to(self, hand: Hand) -> Card:
        card = self._draw()
        hand.cards.append(card)
        self.log.add("card", box=hand.box, hand=hand.index, card=_TEXT[card.code])
        return card

    def _deal_dealer(self) -> Card:
        card = self._draw()
        self.dealer.append(card)
        self.log.add("card", to="dealer", card=_TEXT[card.code])
        return card

    def _initial_deal(self) -> None:
        r = self.rules
        boxes = [
            b for b in [self.boxes[n] for n in sorted(self.boxes)] if b.has_main
        ]  # a box's number is its key
        for b in boxes:
            stakes = {x.player: x.main for x in b.bettors if x.main > 0}
            b.hands.append(Hand(b.number, 1, [], stakes))
        # 000 3.6, 002 3.6, 004 3.11: one card to each box, one to the dealer, a second to each box
        for b in boxes:
            self._deal_to(b.hands[0])
        self._deal_dealer()
        for b in boxes:
            self._deal_to(b.hands[0])
        if r.dealer_hole_card:
            self._deal_dealer()  # blackjack only: rul 4 says Pontoon has no hole card
        settle.interim(self, boxes)
        up = self.dealer[0]
        if r.dealer_hole_card and r.dealer_peeks and (up.is_ace or up.is_ten_value):
            self._peek_pending = True
        window = self._window_offered()
        if self._peek_pending and not (window and up.is_ace):
            settle.peek(self)
        elif window:
            self.phase = P_WINDOW
        self._advance()

    def _window_offered(self) -> bool:
        r = self.rules
        up = self.dealer[0]
        ins = r.insurance and up.is_ace  # rul 8
        sur = r.surrender == "early" and (up.is_ace or up.is_picture)  # rul 9
        return (ins or sur) and self.hand_to_act is not None

    # ---------------------------------------------------------------------------- whose turn
    @property
    def current(self) -> Hand | None:
        pinned = self._pinned
        if pinned is not None:
            return pinned
        if self.phase is P_BETTING or self.phase is P_OVER:
            return None
        order = self._order
        if order is None or len(order) != len(self.boxes):
            order = self._order = [self.boxes[n] for n in sorted(self.boxes)]
        for b in order:
            for h in b.hands:
                if not h.finished:
                    return h
        return None

    @property
    def hand_to_act(self) -> tuple[int, int] | None:
        """(box, hand) of the hand waiting for a decision, or None."""
        h = self.current
        return None if h is None else (h.box, h.index)

    # ---------------------------------------------------------------------------- the table protocol
    def seats(self) -> tuple[str, ...]:
        """Every bettor at the round, in box and seat order."""
        return tuple(self.players())

    def to_act(self) -> str | Marker | None:
        """The seated bettor of the hand to act; BETTING while wagers are open; None once over."""
        return seats.to_act(self)

    def view(self, seat: Actor) -> dict[str, Any]:
        """What ``seat`` sees (JSON-ready): everything dealt face up, never the cards to come."""
        return seats.view(self, seat)

    def events(self) -> tuple[Event, ...]:
        return tuple(self.log.events)

    def current_hand(self) -> Hand | None:
        return self.current

    def is_over(self) -> bool:
        return self.phase is P_OVER

    @property
    def dealer_cards(self) -> list[Card]:
        return list(self.dealer)

    def _advance(self) -> None:
        """Do the chores until a decision is needed or the round ends."""
        r = self.rules
        while self.phase is not P_OVER:
            h = self.current
            if h is None:
                settle.dealer_turn(self)
                return
            if len(h.cards) == 1:
                self._deal_subsequent(h)  # 004 3.24.2: the next split hand gets its second card now
                continue
            total = hand_total(h.cards, 2 if (h.doubled and r.double_ace_counts_one) else 0)[0]  # h.total
            if total >= 21 or h.no_more_cards:
                h.finished = True
                continue
            if h.split_aces and not r.hit_split_aces and not self.can_split(h.box):
                h.finished = True  # 000 3.9.1: one card on each split Ace
                continue
            return

    def _deal_subsequent(self, h: Hand) -> Card:
        if self.phase is P_WINDOW:
            self.phase = P_PLAY  # rul 8: the window closes with the first additional card
            self.log.add("window_closed")
        card = self._deal_to(h)
        self._after_card(h)
        return card

    def _after_card(self, h: Hand) -> None:
        r = self.rules
        total, _ = h.total(r.double_ace_counts_one)
        if total > 21:
            h.finished = True
            h.awaiting_rescue = False
            for p in h.live_bettors():  # 000 3.16: a bust hand loses at once
                settle.lose(self, h, p, "bust (000 3.16)")
            return
        if (
            r.super_bonus
            and len(h.cards) == 3
            and not h.from_split
            and not h.doubled
            and self.dealer[0].rank == "7"
            and all(c.rank == "7" for c in h.cards)
            and len({c.suit for c in h.cards}) == 1
        ):
            h.super_bonus = True  # rul 17, 000 1.1.15, 4.1.1
            self.log.add("super_bonus", clause="000 4.1.1", box=h.box)
        if total == 21:
            h.finished = True
            h.awaiting_rescue = False
            if r.player_21_wins:  # rul 5: a 21 is paid at once and can no longer lose
                odds, why = settle.odds_21(self, h)
                for p in h.live_bettors():
                    settle.win(self, h, p, odds, why)
            return
        if h.doubled:
            h.awaiting_rescue = r.rescue  # 000 3.11.4, 004 3.25.3
            if not r.rescue:
                h.finished = True

    # ---------------------------------------------------------------------------- actions (verbs.py)
    def legal_actions(self, seat: Actor = TABLE) -> list[Action]:
        """What ``seat`` may do now; ``TABLE`` (the default): every action of every box.

        Listings are kept until the round changes (every change logs an event, so the log's count is
        the round's version); a listed action taken as listed is not checked twice."""
        return list(self._listing(seat))

    def _listing(self, seat: Actor) -> list[Action]:
        v = self.log._seq  # the round's version: every change logs an event
        if v != self._legal_v:
            self._legal = {}
            self._all = None
            self._legal_v = v
        got = self._legal.get(seat)
        if got is None:
            got = self._legal[seat] = seats.legal_for(self, seat)
        return got

    def legal_actions_all(self) -> list[Action]:
        """Every action that may be taken now (defaults: full double, every bettor)."""
        if self._legal_v == self.log._seq and self._all is not None:
            return self._all
        out = self._legal_actions_all()
        self._all = out if self._legal_v == self.log._seq else None
        return out

    def _legal_actions_all(self, by_checks: bool = False) -> list[Action]:
        """Every action of every box, for TABLE. The hand's play actions come from ``verbs.legal_play``
        (one pass over the state); ``by_checks=True`` tries each candidate through its verb's check
        instead (which is what ``_why_illegal`` does for TABLE once the phase allows actions: no seat
        rule applies and no decline order is added) -- the reference the tests compare with."""
        if self.phase is P_BETTING or self.phase is P_OVER:
            return []
        out: list[Action] = []
        checks = verbs.CHECKS
        window = self.phase is P_WINDOW
        if window:
            check_insure, check_surrender = checks["insure"], checks["surrender"]
            for n in sorted(self.boxes):
                b = self.boxes[n]
                for x in b.bettors:
                    if x.main > 0:
                        half = (x.main / 2).quantize(CENT, rounding=ROUND_DOWN)
                        if not check_insure(self, Action("insure", n, x.player, half)):
                            out.append(Action("insure", n, x.player, half, low=CENT, high=half))
                a = box_action("surrender", n)
                if not check_surrender(self, a):
                    out.append(a)
        h = self.current
        if h is not None:
            self._pinned = h  # the checks below ask for the hand to act: it cannot change while they run
            try:
                if not by_checks:
                    out += verbs.legal_play(self, h, window)
                else:
                    for a in box_actions(h.box):
                        if window and a.verb == "surrender":
                            continue  # listed above
                        if not checks[a.verb](self, a):
                            out.append(a)
            finally:
                self._pinned = None
        return out

    def _actor_args(self, args: tuple[Any, ...]) -> tuple[Actor, Action]:
        if len(args) == 1:
            seat: Any = TABLE
            action = args[0]
        elif len(args) == 2:
            seat, action = args
        else:
            raise TypeError("expected (seat, action) or (action)")
        if not isinstance(seat, str | Marker):
            raise IllegalAction(f"a seat is a player name, not {type(seat).__name__}")
        if not isinstance(action, Action):
            action = Action.parse(action)
        return seat, action

    def can(self, *args: Any) -> bool:
        """``can(seat, action)`` (or ``can(action)`` for the table): would ``verify`` pass?"""
        try:
            seat, action = self._actor_args(args)
        except PontoonError:
            return False
        return not self._why_illegal(action, seat)

    def _why_illegal(self, action: Action, seat: Actor = TABLE) -> str:
        if self.phase is P_OVER:
            return "the round is over"
        if self.phase is P_BETTING:
            return "bets are still open (close_bets first)"
        if action.verb == "decline":
            who = action.player if action.player is not None else seat
            if not isinstance(who, str):
                return "decline names the standing bettor who declines"
            if seat is not TABLE and who != seat:
                return f"{seat} may decline only for himself"
            return seats.why_not_decline(self, who, action)
        why = seats.why_not_for(self, seat, action)
        if why:
            return why
        check = verbs.CHECKS.get(action.verb)
        if check is None:
            return f"unknown verb {action.verb!r}"
        return check(self, seats.with_orders(self, seat, action))

    def _illegal(self, action: Action, why: str) -> IllegalAction:
        where = (
            "no hand is to act"
            if self.hand_to_act is None
            else "box {} hand {} is to act".format(*self.hand_to_act)
        )
        legal = ", ".join(str(a) for a in self.legal_actions_all()) or "none"
        return IllegalAction(f"illegal action '{action}': {why}; {where}; legal: {legal}")

    def verify(self, *args: Any) -> None:
        """``verify(seat, action)`` (or ``verify(action)`` for the table): raise IllegalAction naming the
        action, who is to act and what is legal, unless ``seat`` may take ``action`` now."""
        seat, action = self._actor_args(args)
        why = self._why_illegal(action, seat)
        if why:
            if self.phase in (P_OVER, P_BETTING):
                raise IllegalAction(f"illegal action '{action}': {why}")
            raise self._illegal(action, why)

    def act(self, *args: Any) -> tuple[Event, ...]:
        """``act(seat, action)`` (or ``act(action)`` for the table; an Action or its scenario text or
        object form): take it and return the events it logged."""
        if len(args) == 2 and type(args[1]) is Action and (type(args[0]) is str or args[0] is TABLE):
            seat, action = args
        else:
            seat, action = self._actor_args(args)
        log = self.log
        listed = False
        if self._legal_v == log._seq:
            listing = self._legal.get(seat, ())
            for x in listing:  # the listed record itself (no field-by-field comparison)
                if x is action:
                    listed = True
                    break
            else:
                listed = action in listing  # an equal record: listed as well
        if not listed:
            self.verify(seat, action)
        start = len(log.events)
        text, obj = action_text(action)
        if seat is TABLE:
            log.add("action", action=text, act=obj, authority="table")
        else:
            log.add("action", action=text, act=obj, seat=seat)
        if action.verb == "decline":  # a standing bettor's order (seats.py)
            who_declines = action.player if action.player is not None else seat
            assert action.box is not None and action.what is not None and isinstance(who_declines, str)
            self.declines.setdefault((action.box, who_declines), set()).add(action.what)
            return tuple(log.events[start:])
        if self.declines or action.verb == "rescue":  # otherwise with_orders returns the action itself
            action = seats.with_orders(self, seat, action)
        self._do(action)
        return tuple(log.events[start:])

    def _do(self, action: Action) -> None:
        if self._peek_pending and action.verb not in ("insure", "interrupt"):
            # blackjack: insurance is over; the dealer peeks before any play decision takes effect
            self.phase = P_PLAY
            settle.peek(self)
            if self.phase is P_OVER:
                self.log.add("action_moot", action=str(action), reason="dealer natural at the peek")
                return
        verbs.DOERS[action.verb](self, action)

    def interrupt(self) -> str:
        """A technical interruption (004 5.4): void unless some wager has already won or lost.

        Returns ``"void"`` or ``"continue"`` (the round stays open and is concluded later). Called
        directly (the table declares it) it is logged as the table's action, as ``act`` logs it.
        """
        if self.phase is P_OVER:
            return "over"
        self.verify(TABLE, Action("interrupt"))
        self.log.add("action", action="interrupt", act={"verb": "interrupt"}, authority="table")
        return self._interrupt()

    def _interrupt(self) -> str:
        return irregular.interrupt(self)

    # named triads (python-chess/pokerkit style) -------------------------------------------------
    def verify_hit(self, box: int) -> None:
        self.verify(Action("hit", box))

    def can_hit(self, box: int) -> bool:
        return self.can(Action("hit", box))

    def hit(self, box: int) -> None:
        self.act(Action("hit", box))

    def verify_stand(self, box: int) -> None:
        self.verify(Action("stand", box))

    def can_stand(self, box: int) -> bool:
        return self.can(Action("stand", box))

    def stand(self, box: int) -> None:
        self.act(Action("stand", box))

    def verify_double(self, box: int, amount: object = None, decline: Iterable[str] = ()) -> None:
        self.verify(
            Action("double", box, amount=None if amount is None else to_money(amount), decline=tuple(decline))
        )

    def can_double(self, box: int, amount: object = None, decline: Iterable[str] = ()) -> bool:
        try:
            self.verify_double(box, amount, decline)
            return True
        except IllegalAction:
            return False

    def double(self, box: int, amount: object = None, decline: Iterable[str] = ()) -> None:
        self.act(
            Action("double", box, amount=None if amount is None else to_money(amount), decline=tuple(decline))
        )

    def verify_split(self, box: int, decline: Iterable[str] = ()) -> None:
        self.verify(Action("split", box, decline=tuple(decline)))

    def can_split(self, box: int, decline: Iterable[str] = ()) -> bool:
        return self.can(Action("split", box, decline=tuple(decline)))

    def split(self, box: int, decline: Iterable[str] = ()) -> None:
        self.act(Action("split", box, decline=tuple(decline)))

    def verify_rescue(self, box: int, players: Iterable[str] | None = None) -> None:
        self.verify(Action("rescue", box, players=None if players is None else tuple(players)))

    def can_rescue(self, box: int, players: Iterable[str] | None = None) -> bool:
        return self.can(Action("rescue", box, players=None if players is None else tuple(players)))

    def rescue(self, box: int, players: Iterable[str] | None = None) -> None:
        self.act(Action("rescue", box, players=None if players is None else tuple(players)))

    def verify_surrender(self, box: int, players: Iterable[str] | None = None) -> None:
        self.verify(Action("surrender", box, players=None if players is None else tuple(players)))

    def can_surrender(self, box: int, players: Iterable[str] | None = None) -> bool:
        return self.can(Action("surrender", box, players=None if players is None else tuple(players)))

    def surrender(self, box: int, players: Iterable[str] | None = None) -> None:
        self.act(Action("surrender", box, players=None if players is None else tuple(players)))

    def verify_insure(self, box: int, player: str, amount: object) -> None:
        self.verify(Action("insure", box, player, to_money(amount)))

    def can_insure(self, box: int, player: str, amount: object) -> bool:
        try:
            self.verify_insure(box, player, amount)
            return True
        except IllegalAction:
            return False

    def insure(self, box: int, player: str, amount: object) -> None:
        self.act(Action("insure", box, player, to_money(amount)))

    def walk_away(self, box: int) -> None:
        self.act(Action("walk", box))

    # ---------------------------------------------------------------------------- results
    def all_hands(self) -> list[Hand]:
        return [h for n in sorted(self.boxes) for h in self.boxes[n].hands]

    def players(self) -> list[str]:
        boxes = self.boxes
        return list(dict.fromkeys([x.player for n in sorted(boxes) for x in boxes[n].bettors]))

    def result(self) -> RoundResult:
        if self.phase is not P_OVER:
            raise IllegalAction("the round is not over yet")
        net = self.ledger.net(self.players())
        house = -sum((d["total"] for d in net.values()), ZERO)
        void = self.void_reason
        hands = tuple(
            [
                HandResult(
                    h.box,
                    h.index,
                    tuple([_TEXT[c.code] for c in h.cards]),
                    "void" if void else h.result_word(),
                )
                for h in self.all_hands()
            ]
        )
        return RoundResult(
            "void" if void else "settled",
            void,
            tuple([_TEXT[c.code] for c in self.dealer]),
            hands,
            net,
            house,
        )

    def cards_in_play(self) -> list[Card]:
        """Every card dealt this round (dealer and hands), for accounting checks."""
        return list(self.dealer) + [c for h in self.all_hands() for c in h.cards] + self.foreign_cards
