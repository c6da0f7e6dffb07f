"""One British Pontoon round (003): the phase machine, legal actions, events and money.

The round deals by itself (the chores of 003 The Deal) and stops whenever a seat must decide.
``to_act()`` names that seat, ``legal_actions()`` lists what it may do, and every action is a triad
``verify_x`` (raises IllegalAction naming what is accepted), ``can_x`` (bool) and ``x`` (acts and
returns the frozen Event it logged). A refused action leaves the round unchanged.

Phases: ``stake`` -> (``double``: banker_may_double) -> (``shoot``: Shoot Pontoon) -> second card ->
``play`` (with ``split_shoot`` windows in Shoot Pontoon) -> ``banker`` -> ``settled``; or ``void``
when the pack runs out (rulings 2).

Money: every movement is a Ledger transfer between the players' accounts, the banker's account,
the layout (stakes on the table) and, in Shoot Pontoon, the ``kitty`` account (the banker's money).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Final

from pontoon.british import cover, moves, ranking, settle
from pontoon.british.pack import BritishPack
from pontoon.british.settle import KITTY
from pontoon.british.state import CARD_TEXT, ZERO, BritishHand
from pontoon.cards import Card
from pontoon.errors import BetError, IllegalAction, ShoeExhausted
from pontoon.events import Event, EventLog
from pontoon.hands import hard_total
from pontoon.money import fmt, to_money
from pontoon.protocol import BRITISH_VERBS, SPECTATOR, Action, Actor, Marker
from pontoon.rules.british import BritishRules
from pontoon.settlement import LAYOUT, Account, Ledger, System

PHASES: Final = ("stake", "double", "shoot", "play", "split_shoot", "banker", "settled", "void")


LegalAction = (
    Action  # one thing the seat to act may do: ``low``/``high`` bound its amount (the protocol's record)
)

_CARD_TEXT: Final = CARD_TEXT  # each card's text, by its code (made once)

# the actions without an amount, shared frozen records (a listing makes one per decision otherwise)
PASS: Final = Action("pass")
DOUBLE: Final = Action("double")
TWIST: Final = Action("twist")
STICK: Final = Action("stick")
SPLIT: Final = Action("split")
BURN: Final = Action("burn")

ONE: Final = Decimal(1)  # the bets' multiplier until the banker doubles (003 variation)
# what ``to_money`` names in its message for each verb's amount (made once, not per action)
_AMOUNT_OF: Final = {v: f"{v} amount" for v in BRITISH_VERBS}


class _HotRules:
    """The rules' fields read at every decision, as plain attributes (a rules model's field is a dictionary
    lookup each time); made once per rules object (``_hot_rules``)."""

    def __init__(self, rules: BritishRules) -> None:
        self.rules = rules
        self.shoot: bool = rules.shoot
        self.banker_may_double: bool = rules.banker_may_double
        self.stick_minimum: int = rules.stick_minimum
        self.no_buy_fifth: bool = rules.no_buy_fifth_at_11_or_less
        self.burn: bool = rules.burn != "none"
        self.max_split_hands: int = rules.max_split_hands
        self.split_only_aces: bool = rules.split_only_aces
        # the stake listing without funds (net results only: nothing is cut), shared by every round
        self.stake_action: Action | None = (
            Action("stake", low=rules.stake_min, high=rules.stake_max)  # 003 initial bets
            if rules.stake_max >= rules.stake_min
            else None
        )


_last_hot: _HotRules | None = (
    None  # the rules of the latest round (a table plays the same rules round after round)
)


def _hot_rules(rules: BritishRules) -> _HotRules:
    global _last_hot
    hot = _last_hot
    if hot is None or hot.rules is not rules:  # the rules object itself (it holds it: no reused id)
        hot = _last_hot = _HotRules(rules)
    return hot


class BritishRound:
    """One round at a British table; players are listed from the banker's left."""

    def __init__(
        self,
        rules: BritishRules,
        players: Sequence[str],
        banker: str,
        pack: BritishPack,
        *,
        kitty: Decimal | int = ZERO,
        log: EventLog | None = None,
        funds: dict[str, Decimal] | None = None,
    ) -> None:
        """``funds``: what each seat holds at the table as the round starts; given, no action is
        accepted that a seat could not pay (rul 33, ``cover.py``); None: net results only, unchecked."""
        if not players:
            raise IllegalAction(
                "a British round needs at least one player besides the banker (003: two or more)"
            )
        if len(set(players)) != len(players) or banker in players:
            raise IllegalAction(f"seat names must be distinct: players {list(players)}, banker {banker!r}")
        # an empty kitty (the table's between rounds outside Shoot Pontoon) is the 0 that to_money makes of it
        kitty_start = ZERO if type(kitty) is Decimal and kitty.is_zero() else to_money(kitty, "kitty")
        hot = _hot_rules(rules)
        if hot.shoot and kitty_start <= 0:
            raise BetError("Shoot Pontoon needs a kitty above 0 before the deal (003 Shoot Pontoon)")
        self.rules = rules
        self._shoot = hot.shoot
        self._banker_may_double = hot.banker_may_double
        self._stick_minimum = hot.stick_minimum
        self._no_buy_fifth = hot.no_buy_fifth
        self._burn = hot.burn
        self._max_split_hands = hot.max_split_hands
        self._split_only_aces = hot.split_only_aces
        self._stake_action = hot.stake_action if funds is None else None  # with funds: cut by cover
        self.players: list[str] = list(players)
        self.banker = banker
        self.pack = pack
        self.ledger = Ledger()
        self.log = log if log is not None else EventLog()
        self._log_start = len(self.log)
        self.kitty_start = kitty_start
        self.funds = None if funds is None else {s: to_money(v, f"funds of {s}") for s, v in funds.items()}
        self._cover_notes: dict[str, str] = {}  # verb -> why its amounts are cut by cover (rul 33)
        # the listing of the seat to act, kept for the round's version ``_legal_v`` (the log's count:
        # every change logs an event), so that ``act`` does not work it out again
        self._legal: list[Action] = []
        self._legal_v = -1
        self._net: dict[str, dict[str, Decimal]] | None = None  # net(), kept once the round is over
        self.phase = "stake"
        self.idx = 0  # seat index in the stake and shoot phases
        self.hands: list[BritishHand] = []
        self.cur = -1  # hand to act in the play phase
        self.pending_split = -1  # new hand waiting for its shoot window
        self.banker_cards: list[Card] = []
        self.banker_up = False
        self.banker_looked = False
        self.banker_pontoon = False
        self.banker_outcome = ""
        self.mult = ONE  # 003 variation: the banker doubles the bets
        self.exposed_all = False
        self.void_reason: str | None = None
        self.next_banker = banker
        if self.funds is None:
            self.log.add(
                "round_start",
                "003 The Deal",
                players=list(players),
                banker=banker,
                kitty=fmt(self.kitty_start),
            )
        else:
            funds_json = {s: fmt(v) for s, v in self.funds.items()}
            self.log.add(
                "round_start",
                "003 The Deal",
                players=list(players),
                banker=banker,
                kitty=fmt(self.kitty_start),
                funds=funds_json,
            )
        try:
            # 003 The Deal: "one card face down to each player, starting with the player to dealer's
            # left ... and ending with the dealer"
            for p in self.players:
                h = BritishHand(owner=p, cards=[], up=[])
                self.hands.append(h)
                self._deal(h, up=False)
            self.banker_cards.append(self._draw())
            self.log.add("deal_first", "003 The Deal")
        except ShoeExhausted:
            self._void("insufficient cards")

    # ---------------------------------------------------------------------------------------
    # queries
    def to_act(self) -> str | None:
        """The seat that must decide now, or None when the round is over."""
        if self.phase == "play":  # the most frequent phase first
            return self.hands[self.cur].owner
        if self.phase in ("stake", "shoot"):
            return self.players[self.idx]
        if self.phase in ("double", "banker"):
            return self.banker
        if self.phase == "split_shoot":
            return self.hands[self.pending_split].owner
        return None

    @property
    def over(self) -> bool:
        return self.phase in ("settled", "void")

    # ---------------------------------------------------------------------------- the table protocol
    def is_over(self) -> bool:
        return self.phase in ("settled", "void")

    def seats(self) -> tuple[str, ...]:
        """The players from the banker's left, then the banker."""
        return (*self.players, self.banker)

    def events(self) -> tuple[Event, ...]:
        """This round's events (from its ``round_start``)."""
        return tuple(self.log.events[self._log_start :])

    def _split_action(self, action: Action | str, amount: object) -> tuple[str, object]:
        if isinstance(action, Action):
            if amount is not None:
                raise IllegalAction("give the amount inside the Action")
            return action.verb, action.amount
        if not isinstance(action, str):
            raise IllegalAction(f"an action is an Action or a verb, not {type(action).__name__}")
        return action, amount

    def current_hand(self) -> BritishHand | None:
        if self.phase == "play":
            return self.hands[self.cur]
        if self.phase == "split_shoot":
            return self.hands[self.pending_split]
        return None

    def hand_number(self, h: BritishHand) -> int:
        """1-based number of ``h`` among its owner's hands."""
        n = 0
        for x in self.hands:  # as ``[x for x in hands if x.owner == h.owner].index(h) + 1`` (equality)
            if x.owner == h.owner:
                n += 1
                if x is h or x == h:
                    return n
        raise ValueError(f"{h!r} is not a hand of this round")

    def kitty(self) -> Decimal:
        """What is in the kitty now (bets on the layout not included)."""
        return self.kitty_start + self.ledger.balances[KITTY]

    def shoot_outstanding(self) -> Decimal:
        return sum((h.shoot for h in self.hands if h.shoot_open), ZERO)

    def shoot_capacity(self) -> Decimal:
        """003 Shoot: "the total of all the shoot bets is not more than what is in the kitty"."""
        return max(ZERO, self.kitty() - self.shoot_outstanding())

    def _where(self) -> str:
        who = self.to_act()
        if who is None:
            return f"the round is over ({self.phase})"
        h = self.current_hand()
        if h is not None:
            return f"{who} is to act on hand {self.hand_number(h)} ({self.phase})"
        return f"{who} is to act ({self.phase})"

    def legal_actions(self, seat: Actor | None = None) -> list[Action]:
        """Everything ``seat`` (default: the seat to act) may do now; empty when it is not his turn.

        The listing is kept until the round changes (every change logs an event, so the log's count
        is the round's version); each call returns a new list of the shared frozen records."""
        who = self.to_act()
        if who is None or (seat is not None and seat != who):
            return []
        return list(self._listing(who))

    def _listing(self, who: str) -> list[Action]:
        """The legal actions of ``who`` (the seat to act), kept per version of the round."""
        v = self.log._seq
        if v != self._legal_v:
            if self._cover_notes:  # filled only by cover.covered (with funds)
                self._cover_notes = {}
            self._legal = self._list_actions(who)
            self._legal_v = v
        return self._legal

    def _list_actions(self, who: str) -> list[Action]:
        r = self.rules
        out: list[LegalAction] = []
        if self.phase == "stake":
            if self._stake_action is not None:
                out.append(self._stake_action)  # 003 initial bets (as below, made once a round)
                return out
            high = self._covered(who, "stake", r.stake_min, r.stake_max, stake=True)
            if high is not None:
                out.append(Action("stake", low=r.stake_min, high=high))  # 003 initial bets
            else:
                out.append(PASS)  # rul 33: no stake the bank (or he) covers: he sits this round out
        elif self.phase == "double":
            out += [DOUBLE, PASS]  # 003 variation: banker doubles
        elif self.phase in ("shoot", "split_shoot"):
            cap = self._covered(who, "shoot", r.shoot_min, self.shoot_capacity(), stake=False)
            if cap is not None:
                out.append(Action("shoot", low=r.shoot_min, high=cap))
            out.append(PASS)  # 003 Shoot "You are never forced to make a shoot bet"
        elif self.phase == "play":
            h = self.hands[self.cur]
            out += self._hand_actions(h)
        elif self.phase == "banker":
            cards = self.banker_cards
            if hard_total(cards) < 21 and len(cards) < 5:
                out.append(TWIST)  # 003 Banker's Turn: adds cards face up
            out.append(STICK)  # 003 "when satisfied with the hand the banker can stay"
        return out

    def _covered(self, who: str, verb: str, low: Decimal, high: Decimal, *, stake: bool) -> Decimal | None:
        """``cover.covered`` (rul 33); without ``funds`` (net results only) nothing is cut."""
        if self.funds is None:
            return high if high >= low else None
        return cover.covered(self, who, verb, low, high, stake=stake)

    def _owned(self, who: str) -> int:
        """How many hands ``who`` holds."""
        n = 0
        for x in self.hands:
            if x.owner == who:
                n += 1
        return n

    def _hand_actions(self, h: BritishHand) -> list[LegalAction]:
        r = self.rules
        who = h.owner
        n = len(h.cards)
        hard = hard_total(h.cards)
        best = ranking.best(h.cards)
        out: list[LegalAction] = []
        can_draw = hard < 21 and n < 5  # 003 "If the total value of your cards is less than 21"
        if can_draw:
            # 003 Buy: "once you have asked for a card to be twisted you can no longer buy cards"
            buy_ok = not h.twisted
            # 003 variation: "4 cards totaling 11 or less ... you cannot buy a fifth card, only twist one"
            if self._no_buy_fifth and n == 4 and hard <= 11:
                buy_ok = False
            if buy_ok:
                # 003 Buy: "at least equal to and not more than twice your initial stake"; then "between
                # your initial stake and the amount you added previously"
                most = h.initial + h.initial if h.last_buy is None else h.last_buy  # twice it, exactly
                high = self._covered(who, "buy", h.initial, most, stake=True)
                if high is not None:
                    out.append(Action("buy", low=h.initial, high=high))
            out.append(TWIST)  # 003 Twist
        # 003 Stick: "at least 15 and not more than 21"; variation 16
        if self._stick_minimum <= best <= 21 and not h.must_draw:
            out.append(STICK)
        if n == 2 and not h.must_draw:
            a, b = h.cards
            # 003 Split: "equal in rank"; "three or even (theoretically) four"; variation: only aces
            if (
                a.rank == b.rank
                and self._owned(who) < self._max_split_hands
                and (not self._split_only_aces or a.is_ace)
            ):
                if self._covered(who, "split", h.initial, h.initial, stake=True) is not None:
                    out.append(SPLIT)  # 003 Split: "another bet equal to your initial bet" (rul 33)
            if self._burn and ranking.can_burn(h.cards, r):  # 003 variation: burn a hard 13 (or 14)
                out.append(BURN)
        # 003 Shoot "The fourth card": a shoot bet before the fourth card of a three card hand below 21
        if self._shoot and n == 3 and hard < 21 and not h.shot_fourth:
            cap = self._covered(who, "shoot", r.shoot_min, self.shoot_capacity(), stake=False)
            if cap is not None:
                out.append(Action("shoot", low=r.shoot_min, high=cap))
        return out

    # ---------------------------------------------------------------------------------------
    # the generic checked path
    def verify(self, seat: Actor, action: Action | str, amount: object = None) -> Decimal | None:
        """Raise IllegalAction (or BetError for a bad amount) unless ``seat`` may take ``action`` (an
        ``Action``, or a verb and an amount) now; returns the parsed amount for verbs that take one."""
        verb, amount = self._split_action(action, amount)
        return self._verify(seat, verb, amount)

    def _verify(self, seat: Actor, verb: str, amount: object) -> Decimal | None:
        """``verify`` of a verb and an amount (``_split_action`` done)."""
        if type(seat) is not str and (isinstance(seat, Marker) or not isinstance(seat, str)):
            raise IllegalAction(f"{seat} {verb}: only a seated person acts in the British game")
        who = self.to_act()
        if who is None:
            raise IllegalAction(f"{seat} {verb}: no action is legal, the round is over ({self.phase})")
        legal = self._listing(who)  # the verbs of a listing are distinct
        if seat != who:
            raise IllegalAction(
                f"{seat} {verb}: not {seat}'s turn; {self._where()}"
            )  # never ``who``'s legal actions: they tell his face-down cards (a pair, a total; rul 35)
        la: Action | None = None
        for x in legal:
            if x.verb == verb:
                la = x
                break
        if la is None:
            if verb in self._cover_notes:
                raise IllegalAction(f"{seat} {verb} refused: {self._cover_notes[verb]}")
            raise IllegalAction(
                f"{seat} {verb} is not legal now; {self._where()}; legal actions: {_names(legal)}"
            )
        if la.low is None:
            if amount is not None:
                raise IllegalAction(f"{seat} {verb} takes no amount; legal actions: {_names(legal)}")
            return None
        if amount is None:
            raise BetError(f"{seat} {verb} needs an amount from {fmt(la.low)} to {fmt(la.high or la.low)}")
        amt = to_money(amount, _AMOUNT_OF[verb])  # a listed verb: one of BRITISH_VERBS
        assert la.high is not None
        if verb in self._cover_notes and amt > la.high:
            raise IllegalAction(f"{seat} {verb} {fmt(amt)} refused: {self._cover_notes[verb]}")
        if not la.low <= amt <= la.high:
            raise BetError(
                f"{seat} {verb} {fmt(amt)} is out of range: accepted {fmt(la.low)} to {fmt(la.high)} ({self._where()})"
            )
        return amt

    def can(self, seat: Actor, action: Action | str, amount: object = None) -> bool:
        try:
            self.verify(seat, action, amount)
        except IllegalAction:
            return False
        return True

    def act(self, seat: Actor, action: Action | str, amount: object = None) -> tuple[Event, ...]:
        """Take ``action`` for ``seat`` (checked); returns the events it logged."""
        events = self.log.events
        start = len(events)
        self._act_one(seat, action, amount)
        return tuple(events[start:])

    def _act_one(self, seat: Actor, action: Action | str, amount: object = None) -> Event:
        verb, amount = self._split_action(action, amount)
        amt = self._verify(seat, verb, amount)
        assert isinstance(seat, str)
        # the action as Action(verb, amount=amt).to_json() writes it
        self.log.add(
            "action", seat=seat, act={"verb": verb} if amt is None else {"verb": verb, "amount": fmt(amt)}
        )
        try:
            ev = _do(self, seat, verb, amt)
        except ShoeExhausted:
            ev = self._void("insufficient cards")
        return ev

    # the named triads (thin wrappers over the generic path) ---------------------------------
    def verify_stake(self, seat: str, amount: object) -> None:
        self.verify(seat, "stake", amount)

    def can_stake(self, seat: str, amount: object) -> bool:
        return self.can(seat, "stake", amount)

    def stake(self, seat: str, amount: object) -> Event:
        return self._act_one(seat, "stake", amount)

    def verify_double(self, seat: str) -> None:
        self.verify(seat, "double")

    def can_double(self, seat: str) -> bool:
        return self.can(seat, "double")

    def double(self, seat: str) -> Event:
        return self._act_one(seat, "double")

    def verify_pass(self, seat: str) -> None:
        self.verify(seat, "pass")

    def can_pass(self, seat: str) -> bool:
        return self.can(seat, "pass")

    def pass_(self, seat: str) -> Event:
        return self._act_one(seat, "pass")

    def verify_shoot(self, seat: str, amount: object) -> None:
        self.verify(seat, "shoot", amount)

    def can_shoot(self, seat: str, amount: object) -> bool:
        return self.can(seat, "shoot", amount)

    def shoot(self, seat: str, amount: object) -> Event:
        return self._act_one(seat, "shoot", amount)

    def verify_buy(self, seat: str, amount: object) -> None:
        self.verify(seat, "buy", amount)

    def can_buy(self, seat: str, amount: object) -> bool:
        return self.can(seat, "buy", amount)

    def buy(self, seat: str, amount: object) -> Event:
        return self._act_one(seat, "buy", amount)

    def verify_twist(self, seat: str) -> None:
        self.verify(seat, "twist")

    def can_twist(self, seat: str) -> bool:
        return self.can(seat, "twist")

    def twist(self, seat: str) -> Event:
        return self._act_one(seat, "twist")

    def verify_stick(self, seat: str) -> None:
        self.verify(seat, "stick")

    def can_stick(self, seat: str) -> bool:
        return self.can(seat, "stick")

    def stick(self, seat: str) -> Event:
        return self._act_one(seat, "stick")

    def verify_split(self, seat: str) -> None:
        self.verify(seat, "split")

    def can_split(self, seat: str) -> bool:
        return self.can(seat, "split")

    def split(self, seat: str) -> Event:
        return self._act_one(seat, "split")

    def verify_burn(self, seat: str) -> None:
        self.verify(seat, "burn")

    def can_burn(self, seat: str) -> bool:
        return self.can(seat, "burn")

    def burn(self, seat: str) -> Event:
        return self._act_one(seat, "burn")

    # ---------------------------------------------------------------------------------------
    # dealing
    def _draw(self) -> Card:
        c = self.pack.draw()
        # every card drawn, for replay (the log is never a view); its text shared (``str(c)``, made once)
        self.log.add("draw", card=_CARD_TEXT[c.code])
        return c

    def _deal(self, h: BritishHand, *, up: bool) -> Card:
        c = self._draw()
        h.cards.append(c)
        h.up.append(up)
        return c

    # ---------------------------------------------------------------------------------------
    # flow
    def _open_shoot(self) -> None:
        if self._shoot:
            self.phase = "shoot"  # 003 Shoot: "they each have a turn to make a shoot bet"
            self.idx = -1
            self._next_shooter()
        else:
            self._second_cards()

    def _next_shooter(self) -> None:
        self.idx += 1
        while self.idx < len(self.players) and self.hands[self.idx].status == "out":
            self.idx += 1  # rul 33: sat out, no shoot bet
        if self.idx >= len(self.players) or self.shoot_capacity() < self.rules.shoot_min:
            self._second_cards()

    def _second_cards(self) -> None:
        # 003: "The dealer now deals a second card face down to each player"
        self.phase = "play"
        for h in self.hands:
            if h.status != "out":  # rul 33: a player who sat the round out gets no second card
                self._deal(h, up=False)
        self.banker_cards.append(self._draw())
        self.log.add("deal_second", "003 The Deal and Initial Stakes")
        if ranking.is_pontoon(self.banker_cards, self.rules):
            # 003: "If the banker has a Pontoon this is immediately exposed"
            self.banker_pontoon = True
            self.banker_up = True
            self.log.add(
                "banker_pontoon", "003 The Deal: banker's Pontoon", cards=[str(c) for c in self.banker_cards]
            )
            self._settle("pontoon")
            return
        self.cur = -1
        self._next_hand()

    def _declare(self, h: BritishHand) -> None:
        # 003 Declare a Pontoon: "the ten point card face down and the ace face up on top of it"
        h.status = "pontoon"
        ace = next(i for i, c in enumerate(h.cards) if c.is_ace)
        h.up[ace] = True
        self.log.add(
            "pontoon", "003 Declare a Pontoon", seat=h.owner, hand=self.hand_number(h), ace=str(h.cards[ace])
        )

    def _next_hand(self) -> None:
        self.phase = "play"
        while True:
            self.cur += 1
            if self.cur >= len(self.hands):
                self._banker_turn()
                return
            h = self.hands[self.cur]
            if h.status != "waiting":
                continue
            if not h.split and ranking.is_pontoon(h.cards, self.rules):
                self._declare(h)  # scenario-format: "A Pontoon is declared automatically"
                continue
            h.status = "playing"
            return

    def _after_card(self, h: BritishHand) -> None:
        if ranking.is_bust(h.cards):
            self._bust(h)
            self._next_hand()
        elif len(h.cards) == 5:
            # 003: "When your hand reaches five cards without going over 21 ... not allowed any more cards"
            h.status = "five"
            self.log.add("five_card_trick", "003 Five Card Trick", seat=h.owner, hand=self.hand_number(h))
            self._next_hand()

    def _bust(self, h: BritishHand) -> None:
        # 003: "throw in your hand face up, and the banker takes your stake and adds your cards to the
        # bottom of the pack"
        h.status = "bust"
        h.up = [True] * len(h.cards)
        h.result, h.outcome = "lose", "bust"
        self._collect(h, self.mult, "bust")  # 003 variation: doubled bets lose double (rul 30: a bust too)
        if h.shoot_open:
            # 003 Shoot "Going bust": "that hand's shoot bet ... is immediately added to the kitty"
            self.ledger.move(LAYOUT, KITTY, h.shoot, kind="shoot", player=h.owner, reason="bust")
            h.shoot_open = False
        self.pack.to_bottom(h.cards)
        h.returned = True
        self.log.add(
            "bust",
            "003 Going bust",
            seat=h.owner,
            hand=self.hand_number(h),
            cards=[_CARD_TEXT[c.code] for c in h.cards],
        )

    def _banker_turn(self) -> None:
        if not any(h.live for h in self.hands):
            # every hand has gone bust and been paid: nothing is left for the banker to play for
            self._settle("unplayed")
            return
        self.phase = "banker"
        self.banker_up = True  # 003: "the banker's two cards are turned face up"
        self.log.add(
            "banker_turn", "003 The Banker's Turn", cards=[_CARD_TEXT[c.code] for c in self.banker_cards]
        )

    # ---------------------------------------------------------------------------------------
    # money (settle.py)
    def _collect(self, h: BritishHand, times: Decimal, reason: str) -> None:
        settle.collect(self, h, times, reason)

    def _settle(self, how: str) -> None:
        settle.settle(self, how)

    def abandon(self, reason: str) -> Event:
        """End an unfinished round as void (a player left, the table closed): every wager returned."""
        if self.is_over():
            raise IllegalAction(f"abandon: the round is already over ({self.phase})")
        return self._void(reason)

    def _void(self, reason: str) -> Event:
        # rulings 2: running out of cards voids the round; every wager returned
        for t in reversed(list(self.ledger.transfers)):
            self.ledger.move(
                t.dest, t.source, t.amount, kind=t.kind, player=t.player, reason="returned (void)"
            )
        for h in self.hands:
            h.shoot_open = False
            h.result, h.net = "void", ZERO
        self.phase = "void"
        self.void_reason = reason
        self.next_banker = self.banker
        return self.log.add("void", "rulings 2", reason=reason)

    # ---------------------------------------------------------------------------------------
    # results
    @property
    def had_pontoon(self) -> bool:
        """003 The New Deal: "If there was a Pontoon, the cards are shuffled"."""
        if self.phase != "settled":
            return False
        return self.banker_pontoon or any(h.status == "pontoon" for h in self.hands)

    def owner_of(self, account: Account) -> str | None:
        """The seat an account belongs to: the kitty is the banker's money (scenario-format); the
        layout is nobody's. System accounts are told apart by type, never by name (rul 32)."""
        if account is KITTY:
            return self.banker
        if isinstance(account, System):
            return None
        return account

    def net(self) -> dict[str, dict[str, Decimal]]:
        """Each seat's net result per kind (``stake``, ``shoot``) and ``total``; the banker included.

        Worked out once the round is over (its ledger no longer changes) and kept; each call returns
        its own copy."""
        got = self._net
        if got is None:
            got = self._work_out_net()
            if self.phase == "settled" or self.phase == "void":
                self._net = got
        return {s: dict(d) for s, d in got.items()}

    def _work_out_net(self) -> dict[str, dict[str, Decimal]]:
        shoot = self._shoot
        banker = self.banker
        out: dict[str, dict[str, Decimal]] = {}
        if not shoot:
            # every transfer of a round without a kitty is a ``stake`` one between the seats and the
            # layout, so each seat's running balance is its net: the same sum (exact, in another order)
            balances = self.ledger.balances
            for s in (*self.players, banker):
                b = balances[s] if s in balances else ZERO  # not .get: a defaultdict's is a method call
                out[s] = {"stake": b, "total": b}
            return out
        for s in (*self.players, banker):
            out[s] = {"stake": ZERO, "shoot": ZERO}
        for source, dest, amount, kind, _player, _reason in self.ledger.transfers:
            # the kitty is the banker's money; the layout is nobody's (owner_of, rul 32)
            who = banker if source is KITTY else None if isinstance(source, System) else source
            if who is not None:
                d = out.get(who)
                if d is None:
                    d = out[who] = {"stake": ZERO, "shoot": ZERO} if shoot else {"stake": ZERO}
                d[kind] = d.get(kind, ZERO) - amount
            who = banker if dest is KITTY else None if isinstance(dest, System) else dest
            if who is not None:
                d = out.get(who)
                if d is None:
                    d = out[who] = {"stake": ZERO, "shoot": ZERO} if shoot else {"stake": ZERO}
                d[kind] = d.get(kind, ZERO) + amount
        for d in out.values():
            d["total"] = sum((v for k, v in d.items() if k != "total"), ZERO)
        return out

    def net_json(self) -> dict[str, dict[str, str]]:
        if not self._shoot:
            # as below, from the seats' running balances (``_work_out_net``): one text per seat
            balances = self.ledger.balances
            texts: dict[str, dict[str, str]] = {}
            for s in (*self.players, self.banker):
                t = fmt(balances[s] if s in balances else ZERO)  # not .get: a defaultdict's is a method call
                texts[s] = {"stake": t, "total": t}
            return texts
        got = self._net
        if got is None:
            got = self._work_out_net()
            if self.phase == "settled" or self.phase == "void":
                self._net = got
        return {s: {k: fmt(v) for k, v in d.items()} for s, d in got.items()}

    def in_play_cards(self) -> list[Card]:
        """Cards on the table that are not back in the pack: players' hands (seat order) then the banker's."""
        out: list[Card] = []
        for h in self.hands:
            if not h.returned:
                out.extend(h.cards)
        out.extend(self.banker_cards)
        return out

    def initial_stakes(self) -> Decimal:
        """The players' initial stakes, split stakes included (the units the banker's edge is measured in)."""
        return sum((h.initial for h in self.hands), ZERO)

    def view(self, seat: Actor) -> dict[str, Any]:
        """What ``seat`` may see (``SPECTATOR``: only what is face up), as JSON-ready data."""
        from pontoon.british.view import round_view

        if isinstance(seat, Marker) and seat is not SPECTATOR:
            raise IllegalAction(f"no view for {seat}; a seat name or SPECTATOR")
        return round_view(self, seat)


def _do(rnd: BritishRound, seat: str, verb: str, amt: Decimal | None) -> Event:
    """The verb's body (``moves.DOERS``), called directly (a compiled call, no lookup): ``verify`` passed,
    so the verbs that take an amount have one."""
    if verb == "twist":
        return moves.do_twist(rnd, seat)
    if verb == "stick":
        return moves.do_stick(rnd, seat)
    if verb == "pass":
        return moves.do_pass(rnd, seat)
    if amt is not None:
        if verb == "stake":
            return moves.do_stake(rnd, seat, amt)
        if verb == "buy":
            return moves.do_buy(rnd, seat, amt)
        if verb == "shoot":
            return moves.do_shoot(rnd, seat, amt)
    if verb == "double":
        return moves.do_double(rnd, seat)
    if verb == "split":
        return moves.do_split(rnd, seat)
    if verb == "burn":
        return moves.do_burn(rnd, seat)
    handler = moves.DOERS[verb]  # not reached: verify lists only these verbs
    return handler(rnd, seat, amt) if amt is not None else handler(rnd, seat)


def _names(legal: list[Action]) -> str:
    """The legal actions as an error message lists them (worked out only when refusing)."""
    return ", ".join(str(a) for a in legal)
