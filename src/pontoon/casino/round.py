"""The casino round engine: one phase machine for every casino preset (and plain blackjack).

A round goes BETTING -> (deal, interim settlement) -> WINDOW/PLAY -> dealer -> OVER. Players'
decisions are ``Action`` records; each verb has a ``verify_x`` (raises IllegalAction naming what is
accepted), a ``can_x`` (bool) and the doing method ``x``; ``legal_actions()`` lists what may be done
now and ``act()`` takes any of them. The engine does the chores itself (dealing, forced cards on
split hands, paying 21s at once, the dealer's play, settlement). Every step appends a frozen event to
``log``; every movement of money is a transfer in ``ledger`` (money is conserved by construction).

Clause references: 000 = MBS, 001 = Federal, 002 = Pandemonium, 004 = Pontoon Plus; "rul N" = rulings.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from enum import StrEnum
from typing import Any

import numpy as np

from pontoon.cards import Card, in_pack
from pontoon.casino.actions import Action
from pontoon.casino.state import Bettor, Box, Hand
from pontoon.errors import BetError, IllegalAction, ScenarioError, ShoeExhausted
from pontoon.events import EventLog
from pontoon.hands import hand_total, is_natural, three_card_class
from pontoon.money import CENT, fmt, to_money
from pontoon.rules.model import CasinoRules
from pontoon.settlement import HOUSE, LAYOUT, Ledger
from pontoon.shoe import Shoe, make_rng

ZERO = Decimal(0)
SIDE_KINDS = ("pair", "bonus", "pandemonium")


class Phase(StrEnum):
    BETTING = "betting"
    WINDOW = "window"  # insurance / surrender window, play actions also accepted (rul 8, 9)
    PLAY = "play"
    OVER = "over"


class _Void(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


@dataclass(frozen=True, slots=True)
class HandResult:
    box: int
    hand: int
    cards: tuple[str, ...]
    result: str


@dataclass(frozen=True, slots=True)
class RoundResult:
    status: str  # settled | void
    void_reason: str | None
    dealer: tuple[str, ...]
    hands: tuple[HandResult, ...]
    net: dict[str, dict[str, Decimal]]
    house: Decimal


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
        self.phase = Phase.BETTING
        self.void_reason: str | None = None
        self.dealer_natural = False
        self.first_dealt = shoe.dealt
        self._peek_pending = False
        self._natural_pending: list[Hand] = []
        self.foreign_cards: list[Card] = []  # drawn but not part of the pack: they void the round
        if jackpot is None:
            gen = make_rng(rng)
            probs = rules.pandemonium_probabilities()
            mults = [m for m, _ in probs]
            ps = [p for _, p in probs]
            self._jackpot: Callable[[], int] = lambda: int(gen.choice(mults, p=ps))
        elif callable(jackpot):
            self._jackpot = jackpot
        else:
            it = iter(jackpot)

            def _next() -> int:
                try:
                    return int(next(it))
                except StopIteration:
                    raise ScenarioError("jackpot: a Pandemonium button was pressed but no multiplier is left") from None

            self._jackpot = _next

    # ---------------------------------------------------------------------------- bets
    def verify_place_bet(self, box: int, player: str, kind: str, amount: object) -> Decimal:
        r = self.rules
        if self.phase is not Phase.BETTING:
            raise BetError("no more bets: the deal has started (000 5.3, 004 5.8)")
        if not isinstance(box, int) or not 1 <= box <= r.max_boxes:
            raise BetError(f"box {box!r} does not exist: boxes are 1 to {r.max_boxes}")
        if not isinstance(player, str) or not player.strip():
            raise BetError("a bet needs a player name")
        kinds = ("main", *r.side_bets)
        if kind not in kinds:
            raise BetError(f"wager kind {kind!r} is not offered in {r.preset}: accepted kinds are {', '.join(kinds)}")
        amt = to_money(amount, f"{kind} wager")
        if amt <= 0:
            raise BetError(f"{kind} wager {fmt(amt)} by {player} on box {box} must be positive")
        b = self.boxes.get(box)
        bettor = b.bettor(player) if b else None
        if kind == "main":
            if bettor and bettor.placed > 0:
                raise BetError(f"{player} already has a main wager on box {box}")
            n = len(b.bettors) if b else 0
            if bettor is None and n >= r.max_bettors_per_box:
                raise BetError(f"box {box} already has {n} bettors: at most {r.max_bettors_per_box} per box in {r.preset}")
            total = (b.main_total if b else ZERO) + amt
            if total > r.table_max and r.over_limit == "reject":
                room = r.table_max - (b.main_total if b else ZERO)
                raise BetError(
                    f"main wagers on box {box} would total {fmt(total)}, over the table maximum {fmt(r.table_max)}: "
                    f"at most {fmt(max(room, ZERO))} more accepted (004 5.1)"
                )
        else:
            if b is None or not b.has_main:
                raise BetError(
                    f"{kind} wager on box {box} needs a main wager on that box first (000 3.5.2, 004 3.9, 5.15)"
                )
            if bettor and kind in bettor.side:
                raise BetError(f"{player} already has a {kind} wager on box {box}")
            if not r.side_min <= amt <= r.side_max:
                raise BetError(
                    f"{kind} wager {fmt(amt)} is outside the limits {fmt(r.side_min)} to {fmt(r.side_max)}"
                )
        return amt

    def can_place_bet(self, box: int, player: str, kind: str, amount: object) -> bool:
        try:
            self.verify_place_bet(box, player, kind, amount)
            return True
        except IllegalAction:
            return False

    def place_bet(self, box: int, player: str, kind: str, amount: object) -> None:
        amt = self.verify_place_bet(box, player, kind, amount)
        b = self.boxes.setdefault(box, Box(box))
        bettor = b.bettor(player)
        if bettor is None:
            bettor = Bettor(player)
            b.bettors.append(bettor)
        if kind == "main":
            bettor.main = bettor.placed = amt
        else:
            bettor.side[kind] = amt
        self.ledger.stake(player, kind, amt)
        self.log.add("bet", box=box, player=player, kind=kind, amount=fmt(amt))

    def withdraw_bet(self, box: int, player: str, kind: str) -> None:
        """Take a wager back before the deal (000 5.4: not after 'no more bets')."""
        if self.phase is not Phase.BETTING:
            raise BetError("no more bets: a wager cannot be withdrawn after the deal has started (000 5.4, 004 5.8)")
        b = self.boxes.get(box)
        bettor = b.bettor(player) if b else None
        if bettor is None or (kind == "main" and bettor.placed == 0) or (kind != "main" and kind not in bettor.side):
            raise BetError(f"{player} has no {kind} wager on box {box}")
        amt = bettor.placed if kind == "main" else bettor.side.pop(kind)
        if kind == "main":
            bettor.main = bettor.placed = ZERO
        self.ledger.give_back(player, kind, amt, "withdrawn before the deal")
        self.log.add("withdraw", box=box, player=player, kind=kind, amount=fmt(amt))

    # ---------------------------------------------------------------------------- the deal
    def verify_close_bets(self) -> None:
        r = self.rules
        if self.phase is not Phase.BETTING:
            raise IllegalAction("bets are already closed")
        if not any(b.has_main for b in self.boxes.values()):
            raise BetError("no box has a main wager: place at least one main wager")
        for b in self.boxes.values():
            if b.has_main and b.main_total < r.table_min:
                # 004 5.2: the bettor must increase or withdraw before the deal
                raise BetError(
                    f"main wagers on box {b.number} total {fmt(b.main_total)}, below the table minimum "
                    f"{fmt(r.table_min)}: increase or withdraw (004 5.2)"
                )

    def close_bets(self) -> None:
        """'No more bets': deal the initial cards and make the interim settlement."""
        self.verify_close_bets()
        self.log.add("no_more_bets")
        for b in sorted(self.boxes.values(), key=lambda x: x.number):
            if not b.has_main:
                # 004 5.15: side bets on a box without a main wager are removed and returned
                for bettor in b.bettors:
                    for kind, amt in list(bettor.side.items()):
                        self.ledger.give_back(bettor.player, kind, amt, "returned: no main wager (004 5.15)")
                        self.log.add("side_bet_returned", clause="004 5.15", box=b.number, player=bettor.player, kind=kind)
                    bettor.side.clear()
                continue
            self._apply_pro_rata(b)
        self.phase = Phase.PLAY
        self._run(self._initial_deal)

    def _apply_pro_rata(self, b: Box) -> None:
        r = self.rules
        total = b.main_total
        if total <= r.table_max:
            return
        bettors = [x for x in b.bettors if x.placed > 0]
        if any(x.placed < r.table_min for x in bettors):
            self.log.add("pro_rata_not_applied", clause="004 5.1.2", box=b.number)
            return  # 004 5.1.2: a bettor under the minimum: no pro rata
        for x in bettors:
            share = (x.placed * r.table_max / total).quantize(CENT, rounding=ROUND_DOWN)
            share = max(share, r.table_min)  # 004 5.1.1: never below the minimum
            excess = x.placed - share
            x.main = share
            if excess > 0:
                self.ledger.give_back(x.player, "main", excess, "excess over box maximum returned (004 5.1.1)")
        self.log.add("pro_rata", clause="004 5.1.1", box=b.number, wagers={x.player: fmt(x.main) for x in bettors})

    def _draw(self) -> Card:
        try:
            card = self.shoe.draw()
        except ShoeExhausted:
            raise _Void("insufficient cards") from None  # rul 2, 004 5.5.3
        if not in_pack(card, self.rules.pack):
            self.foreign_cards.append(card)
            raise _Void(f"foreign card {card}")  # rul 1, 000 5.1, 002 5.1.1, 004 5.5.1
        return card

    def _deal_to(self, hand: Hand) -> Card:
        card = self._draw()
        hand.cards.append(card)
        self.log.add("card", box=hand.box, hand=hand.index, card=str(card))
        return card

    def _deal_dealer(self) -> Card:
        card = self._draw()
        self.dealer.append(card)
        self.log.add("card", to="dealer", card=str(card))
        return card

    def _initial_deal(self) -> None:
        r = self.rules
        boxes = [b for b in sorted(self.boxes.values(), key=lambda x: x.number) if b.has_main]
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
        self._interim(boxes)
        up = self.dealer[0]
        if r.dealer_hole_card and r.dealer_peeks and (up.is_ace or up.is_ten_value):
            self._peek_pending = True
        window = self._window_offered()
        if self._peek_pending and not (window and up.is_ace):
            self._peek()
        elif window:
            self.phase = Phase.WINDOW
        self._advance()

    def _interim(self, boxes: list[Box]) -> None:
        """Interim settlement: side bets and Pontoons (000 3.7, 002 3.7-3.8, 004 3.13-3.16)."""
        r = self.rules
        up = self.dealer[0]
        for b in boxes:
            h = b.hands[0]
            c1, c2 = h.cards
            for bettor in b.bettors:
                for kind, amt in bettor.side.items():
                    if kind == "pair":
                        # rul 18, 10: same rank; 000 3.5.1 wins even if the dealer later has Pontoon
                        if c1.rank == c2.rank:
                            self._side_win(bettor.player, kind, amt, r.pair_pays, "pair 11:1 (000 4.1, 004 4.1.1)")
                        else:
                            self.ledger.collect(bettor.player, kind, amt, "no pair")
                    elif kind == "bonus":
                        odds = self._bonus_odds(c1, c2)  # rul 19, 004 4.1.3
                        if odds is None:
                            self.ledger.collect(bettor.player, kind, amt, "no bonus")
                        else:
                            self._side_win(bettor.player, kind, amt, odds, f"bonus {fmt(odds)}:1 (004 4.1.3)")
            if is_natural(h.cards):
                h.finished = True
                if r.natural_vs_dealer_natural == "win" or not (up.is_ace or up.is_ten_value):
                    for p in h.stakes:  # rul 5: Pontoon paid 3:2 at once, can no longer lose
                        self._win(h, p, r.pontoon_pays, "pontoon 3:2 (000 3.7, 4.1; 004 3.16)")
                else:
                    self._natural_pending.append(h)
            # rul 20, 002 3.8.1: one jackpot press per box with a winning Pandemonium wager
            pan = [x for x in b.bettors if "pandemonium" in x.side]
            if pan:
                if is_natural(h.cards):
                    mult = self._jackpot()
                    if mult not in r.pandemonium_multipliers:
                        raise ScenarioError(
                            f"jackpot multiplier {mult} is not on the meter: accepted {list(r.pandemonium_multipliers)}"
                        )
                    b.jackpot_multiplier = mult
                    self.log.add("jackpot", clause="002 3.8.1", box=b.number, multiplier=mult)
                    for x in pan:
                        self._side_win(x.player, "pandemonium", x.side["pandemonium"], Decimal(mult), f"pandemonium {mult}:1")
                else:
                    for x in pan:
                        self.ledger.collect(x.player, "pandemonium", x.side["pandemonium"], "no pontoon")

    def _bonus_odds(self, a: Card, b: Card) -> Decimal | None:
        t = self.rules.bonus_pays
        if a.is_ace and b.is_ace:
            return t.suited_aces if a.suit == b.suit else t.aces
        if a.rank == b.rank and a.is_picture:
            return t.high_pair
        if a.is_ace or b.is_ace:
            other = b if a.is_ace else a
            return t.ace_picture if other.is_picture else (t.ace_low if other.points < 10 else None)
        if a.rank == b.rank:
            return t.low_pair
        return None

    def _window_offered(self) -> bool:
        r = self.rules
        up = self.dealer[0]
        ins = r.insurance and up.is_ace  # rul 8
        sur = r.surrender == "early" and (up.is_ace or up.is_picture)  # rul 9
        return (ins or sur) and self.to_act is not None

    def _peek(self) -> None:
        """Blackjack: the dealer checks the hole card for a natural."""
        self._peek_pending = False
        self.log.add("peek")
        if is_natural(self.dealer[:2]):
            self.dealer_natural = True
            self._finish_dealer_natural()
            self._end()

    # ---------------------------------------------------------------------------- whose turn
    @property
    def current(self) -> Hand | None:
        if self.phase in (Phase.BETTING, Phase.OVER):
            return None
        for n in sorted(self.boxes):
            for h in self.boxes[n].hands:
                if not h.finished:
                    return h
        return None

    @property
    def to_act(self) -> tuple[int, int] | None:
        h = self.current
        return None if h is None else (h.box, h.index)

    def current_hand(self) -> Hand | None:
        return self.current

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def dealer_cards(self) -> list[Card]:
        return list(self.dealer)

    def _advance(self) -> None:
        """Do the chores until a decision is needed or the round ends."""
        r = self.rules
        while self.phase is not Phase.OVER:
            h = self.current
            if h is None:
                self._dealer_turn()
                return
            if len(h.cards) == 1:
                self._deal_subsequent(h)  # 004 3.24.2: the next split hand gets its second card now
                continue
            total, _ = h.total(r.double_ace_counts_one)
            if total >= 21 or h.no_more_cards:
                h.finished = True
                continue
            if h.split_aces and not r.hit_split_aces and not self.can_split(h.box):
                h.finished = True  # 000 3.9.1: one card on each split Ace
                continue
            return

    def _deal_subsequent(self, h: Hand) -> Card:
        if self.phase is Phase.WINDOW:
            self.phase = Phase.PLAY  # rul 8: the window closes with the first additional card
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
                self._lose(h, p, "bust (000 3.16)")
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
                odds, why = self._odds_21(h)
                for p in h.live_bettors():
                    self._win(h, p, odds, why)
            return
        if h.doubled:
            h.awaiting_rescue = r.rescue  # 000 3.11.4, 004 3.25.3
            if not r.rescue:
                h.finished = True

    def _odds_21(self, h: Hand) -> tuple[Decimal, str]:
        r = self.rules
        if h.doubled:
            return r.regular_pays, "doubled 21 pays 1:1 (000 4.1.1.4, 004 3.25.5)"
        cls = three_card_class(h.cards)
        if cls is not None:
            kind, suits = cls
            odds = getattr(r, f"pays_{kind}_{suits}")
            return odds, f"{kind} {suits} (000 4.1, 004 4.1.1)"
        n = len(h.cards)
        if n >= 7:
            return r.pays_7_card_21, "7+ card 21 (000 4.1)"
        if n == 6:
            return r.pays_6_card_21, "6 card 21 (000 4.1)"
        if n == 5:
            return r.pays_5_card_21, "5 card 21 (000 4.1)"
        return r.regular_pays, "21 (000 3.15, 4.2.1)"

    # ---------------------------------------------------------------------------- money moves
    def _side_win(self, player: str, kind: str, amt: Decimal, odds: Decimal, why: str) -> None:
        self.ledger.give_back(player, kind, amt, why)
        self.ledger.pay(player, kind, amt * odds, why)

    def _stake_of(self, h: Hand, p: str) -> Decimal:
        return h.stakes[p] + h.doubles.get(p, ZERO)

    def _win(self, h: Hand, p: str, odds: Decimal, why: str) -> None:
        s = self._stake_of(h, p)
        self.ledger.give_back(p, "main", s, why)
        self.ledger.pay(p, "main", s * odds, why)
        h.outcome[p] = "win"

    def _lose(self, h: Hand, p: str, why: str, word: str = "lose") -> None:
        self.ledger.collect(p, "main", self._stake_of(h, p), why)
        h.outcome[p] = word

    def _push(self, h: Hand, p: str, why: str) -> None:
        self.ledger.give_back(p, "main", self._stake_of(h, p), why)
        h.outcome[p] = "push"

    # ---------------------------------------------------------------------------- actions
    def legal_actions(self) -> list[Action]:
        """Every action that may be taken now (defaults: full double, every bettor)."""
        if self.phase in (Phase.BETTING, Phase.OVER):
            return []
        out: list[Action] = []
        if self.phase is Phase.WINDOW:
            for n in sorted(self.boxes):
                b = self.boxes[n]
                for x in b.bettors:
                    a = Action("insure", n, x.player, (x.main / 2).quantize(CENT, rounding=ROUND_DOWN))
                    if x.main > 0 and self.can(a):
                        out.append(a)
                a = Action("surrender", n)
                if self.can(a):
                    out.append(a)
        h = self.current
        if h is not None:
            for verb in ("hit", "stand", "double", "split", "rescue", "surrender"):
                a = Action(verb, h.box)
                if verb == "surrender" and self.phase is Phase.WINDOW:
                    continue  # listed above
                if self.can(a):
                    out.append(a)
        return out

    def can(self, action: Action) -> bool:
        return not self._why_illegal(action)

    def _why_illegal(self, action: Action) -> str:
        if self.phase is Phase.OVER:
            return "the round is over"
        if self.phase is Phase.BETTING:
            return "bets are still open (close_bets first)"
        check = getattr(self, f"_check_{action.verb}", None)
        if check is None:
            return f"unknown verb {action.verb!r}"
        why: str = check(action)
        return why

    def _illegal(self, action: Action, why: str) -> IllegalAction:
        where = "no hand is to act" if self.to_act is None else "box {} hand {} is to act".format(*self.to_act)
        legal = ", ".join(str(a) for a in self.legal_actions()) or "none"
        return IllegalAction(f"illegal action '{action}': {why}; {where}; legal: {legal}")

    def verify(self, action: Action) -> None:
        """Raise IllegalAction (naming the action, who is to act and what is legal) unless legal now."""
        why = self._why_illegal(action)
        if why:
            if self.phase in (Phase.OVER, Phase.BETTING):
                raise IllegalAction(f"illegal action '{action}': {why}")
            raise self._illegal(action, why)

    def act(self, action: Action | str | dict[str, Any]) -> None:
        """Take an action (an Action, or its scenario text / object form)."""
        if not isinstance(action, Action):
            action = Action.parse(action)
        self.verify(action)
        self.log.add("action", action=str(action))
        if self._peek_pending and action.verb not in ("insure", "interrupt"):
            # blackjack: insurance is over; the dealer peeks before any play decision takes effect
            self.phase = Phase.PLAY
            self._peek()
            if self.phase is Phase.OVER:
                self.log.add("action_moot", action=str(action), reason="dealer natural at the peek")
                return
        getattr(self, f"_do_{action.verb}")(action)

    # per-verb checks return a reason string when illegal ------------------------------------
    def _hand_to_act(self, a: Action) -> tuple[Hand | None, str]:
        h = self.current
        if h is None:
            return None, "no hand is waiting for a decision"
        if a.box != h.box:
            return None, f"box {a.box} is not the box to act"
        return h, ""

    def _check_insure(self, a: Action) -> str:
        r = self.rules
        if not r.insurance:
            return f"{r.preset} offers no insurance"
        if self.phase is not Phase.WINDOW or not self.dealer[0].is_ace:
            return "insurance is only offered when the dealer's first card is an Ace, before any additional card (rul 8)"
        b = self.boxes.get(a.box or 0)
        x = b.bettor(a.player or "") if b else None
        if x is None or x.main <= 0:
            return f"{a.player} has no main wager on box {a.box}"
        if x.insurance > 0:
            return f"{a.player} has already insured box {a.box}"
        if a.amount is None or a.amount <= 0 or a.amount > x.main / 2:
            return f"insurance must be positive and at most half the wager: up to {fmt(x.main / 2)} (000 3.12, 004 3.17.1)"
        return ""

    def _check_surrender(self, a: Action) -> str:
        r = self.rules
        if r.surrender == "none":
            return f"{r.preset} offers no surrender"
        b = self.boxes.get(a.box or 0)
        if b is None or not b.hands:
            return f"box {a.box} has no hand"
        h = b.hands[0]
        if r.surrender == "early":
            up = self.dealer[0]
            if self.phase is not Phase.WINDOW or not (up.is_ace or up.is_picture):
                return "surrender is only allowed when the dealer's first card is an Ace or a picture, before any additional card (rul 9)"
        elif self.current is not h:
            return "late surrender is a decision of the hand to act"
        if len(b.hands) != 1 or len(h.cards) != 2 or h.finished or h.acted:
            return "only an unsplit two-card hand that has not acted may surrender (000 3.10.2)"
        if a.players is not None:
            unknown = [p for p in a.players if p not in h.stakes]
            if unknown or not a.players:
                return f"players must be bettors on box {a.box}: {', '.join(h.stakes)}"
            if set(a.players) != set(h.stakes) and not r.surrender_others_choose:
                return f"in {r.preset} the standing bettors follow the seated player's surrender (rul 9)"
            seated = next(iter(h.stakes))
            if seated not in a.players:
                return "the seated player decides the surrender; the others choose to follow (001 Surrenders)"
        return ""

    def _check_hit(self, a: Action) -> str:
        h, why = self._hand_to_act(a)
        if h is None:
            return why
        if h.awaiting_rescue:
            return "after a double the choice is rescue or stand"
        if h.doubled:
            return "a doubled hand takes exactly one card (000 3.11.3)"
        if h.split_aces and not self.rules.hit_split_aces:
            return "split Aces take one card each (000 3.9.1)"
        return ""

    def _check_stand(self, a: Action) -> str:
        h, why = self._hand_to_act(a)
        if h is None:
            return why
        r = self.rules
        if not h.awaiting_rescue and not h.doubled and r.forced_draw_below:
            total, _ = h.total(r.double_ace_counts_one)
            if total < r.forced_draw_below:
                return f"a hand below {r.forced_draw_below} must draw (rul 14; 002 3.17, 004 3.22, 001)"
        return ""

    def _double_increments(self, h: Hand, a: Action) -> tuple[dict[str, Decimal], str]:
        r = self.rules
        players = list(h.stakes)
        seated = players[0]
        base = h.stakes[seated]
        amt = base if a.amount is None else a.amount
        if amt <= 0 or amt > base:
            return {}, f"the double must be positive and at most the original wager {fmt(base)} (000 1.1.1)"
        for p in a.decline:
            if p not in h.stakes or p == seated:
                return {}, f"only standing bettors on the hand may decline: {', '.join(players[1:]) or 'none'}"
        if a.decline and not r.standing_may_decline_double:
            return {}, f"in {r.preset} the standing bettors follow the double"
        inc = {seated: amt}
        for p in players[1:]:
            if p not in a.decline:
                inc[p] = (h.stakes[p] * amt / base).quantize(CENT, rounding=ROUND_DOWN)
        inc = {p: v for p, v in inc.items() if v > 0}
        if r.double_min_table_min and sum(inc.values()) < min(r.table_min, sum(h.stakes.values())):
            return {}, f"the double must not be less than the table minimum {fmt(r.table_min)} (000 1.1.1)"
        return inc, ""

    def _check_double(self, a: Action) -> str:
        h, why = self._hand_to_act(a)
        if h is None:
            return why
        r = self.rules
        if h.awaiting_rescue or h.doubled:
            return "the hand is already doubled"
        if h.split_aces and not r.double_split_aces:
            return "split Aces cannot be doubled (000 3.11.2)"
        if h.from_split and not r.double_after_split:
            return "no double after a split"
        if r.double_on == "two_cards" and len(h.cards) != 2:
            return "a double is only allowed on the first two cards (000 3.11.1, 004 3.25)"
        _, why = self._double_increments(h, a)
        return why

    def _check_split(self, a: Action) -> str:
        h, why = self._hand_to_act(a)
        if h is None:
            return why
        r = self.rules
        if h.awaiting_rescue or h.doubled:
            return "a doubled hand cannot split"
        if len(h.cards) != 2:
            return "only the first two cards of a hand may split"
        c1, c2 = h.cards
        same = c1.rank == c2.rank if r.split_by == "rank" else c1.points == c2.points
        if not same:
            return f"{c1} and {c2} are not of the same {'rank' if r.split_by == 'rank' else 'value'} (000 1.1.12, rul 10)"
        if len(self.boxes[h.box].hands) >= r.max_split_hands:
            return f"at most {r.max_split_hands} hands per box (rul 11)"
        if c1.is_ace and h.split_aces and not r.resplit_aces:
            return "Aces may be split once only (000 3.9.1)"
        for p in a.decline:
            if p not in h.stakes or p == next(iter(h.stakes)):
                return "only standing bettors on the hand may decline"
        if a.decline and not r.standing_may_decline_split:
            return f"in {r.preset} the standing bettors follow the split"
        return ""

    def _check_rescue(self, a: Action) -> str:
        h, why = self._hand_to_act(a)
        if h is None:
            return why
        if not h.awaiting_rescue:
            return "rescue is only possible right after the double card, below 21 (000 3.11.4, 004 3.25.3)"
        doubled = [p for p in h.doubles if p in h.live_bettors()]
        if a.players is not None:
            bad = [p for p in a.players if p not in doubled]
            if bad or not a.players:
                return f"players must be bettors who doubled: {', '.join(doubled)}"
            if set(a.players) != set(doubled) and not self.rules.rescue_each_bettor:
                return f"in {self.rules.preset} the seated player decides the rescue for the box"
        return ""

    def _check_walk(self, a: Action) -> str:
        h, why = self._hand_to_act(a)
        if h is None:
            return why
        if sum(1 for x in self.boxes[h.box].bettors if x.main > 0) != 1:  # 004 5.3: the only Player betting (main wager) on the box
            return "the House plays for a player who walks away only when he is the box's only bettor (004 5.3)"
        if h.awaiting_rescue:
            return "the hand is waiting for a rescue decision"
        return ""

    def _check_interrupt(self, a: Action) -> str:
        return ""

    # per-verb doers ---------------------------------------------------------------------------
    def _do_insure(self, a: Action) -> None:
        b = self.boxes[a.box or 0]
        x = b.bettor(a.player or "")
        assert x is not None and a.amount is not None
        x.insurance = a.amount
        self.ledger.stake(x.player, "insurance", a.amount)

    def _do_surrender(self, a: Action) -> None:
        h = self.boxes[a.box or 0].hands[0]
        who = set(a.players) if a.players is not None else set(h.stakes)
        h.surrendered |= who
        h.acted = True
        h.finished = True
        if who != set(h.stakes):
            h.no_more_cards = True  # 001 Surrenders: those playing on get no more cards
        self.log.add("surrender", clause="000 3.10, 001, 004 3.18", box=h.box, players=sorted(who))

        def go() -> None:
            self._maybe_peek()
            if self.rules.surrender == "late":  # blackjack: settled at once, after the peek
                for p in who:
                    self._settle_surrender(h, p, dealer_pontoon=False)
            self._advance()

        self._run(go)

    def _do_hit(self, a: Action) -> None:
        h = self.current
        assert h is not None
        h.acted = True

        def go() -> None:
            self._maybe_peek()
            self._deal_subsequent(h)
            self._advance()

        self._run(go)

    def _do_stand(self, a: Action) -> None:
        h = self.current
        assert h is not None
        h.acted = True
        h.finished = True
        h.awaiting_rescue = False

        def go() -> None:
            self._maybe_peek()
            self._advance()

        self._run(go)

    def _do_double(self, a: Action) -> None:
        h = self.current
        assert h is not None
        inc, _ = self._double_increments(h, a)
        h.acted = True
        h.doubled = True
        for p, v in inc.items():
            h.doubles[p] = v
            self.ledger.stake(p, "main", v, "double")
        self.log.add("double", clause="000 3.11", box=h.box, hand=h.index, amounts={p: fmt(v) for p, v in inc.items()})

        def go() -> None:
            self._maybe_peek()
            self._deal_subsequent(h)
            if not h.awaiting_rescue:
                h.finished = True
            self._advance()

        self._run(go)

    def _do_split(self, a: Action) -> None:
        h = self.current
        assert h is not None
        r = self.rules
        box = self.boxes[h.box]
        h.acted = True
        second = h.cards.pop()
        followers = {p: s for p, s in h.stakes.items() if p not in a.decline}
        new = Hand(h.box, 0, [second], dict(followers), from_split=True, split_aces=second.is_ace)
        h.from_split = True
        h.split_aces = second.is_ace
        pos = box.hands.index(h)
        box.hands.insert(pos + 1, new)
        for i, hh in enumerate(box.hands):
            hh.index = i + 1
        for p, s in followers.items():
            self.ledger.stake(p, "main", s, "split")
        self.log.add("split", clause="000 3.8, 004 3.24", box=h.box, hand=h.index, declined=list(a.decline))

        def go() -> None:
            self._maybe_peek()
            self._deal_subsequent(h)  # 004 3.24.2: the first split hand gets its second card at once
            if h.split_aces and not r.hit_split_aces:
                if not self.can_split(h.box):
                    h.finished = True
            self._advance()

        self._run(go)

    def _do_rescue(self, a: Action) -> None:
        h = self.current
        assert h is not None
        who = list(a.players) if a.players is not None else [p for p in h.doubles if p in h.live_bettors()]
        for p in who:
            # 000 3.11.4: withdraw the doubled portion, the dealer collects the original wager
            self.ledger.give_back(p, "main", h.doubles[p], "double withdrawn (000 3.11.4)")
            self.ledger.collect(p, "main", h.stakes[p], "original wager forfeited (000 3.11.4)")
            h.outcome[p] = "forfeit"
            h.rescued.add(p)
        h.awaiting_rescue = False
        h.finished = True
        self._run(self._advance)

    def _do_walk(self, a: Action) -> None:
        h = self.current
        assert h is not None
        h.walked = True
        self.log.add("walked_away", clause="004 5.3", box=h.box)

        def go() -> None:
            r = self.rules
            while not h.finished and h.total(r.double_ace_counts_one)[0] < r.walk_away_draw_to:
                self._deal_subsequent(h)
            h.finished = True
            self._advance()

        self._run(go)

    def _do_interrupt(self, a: Action) -> None:
        self.interrupt()

    def interrupt(self) -> str:
        """A technical interruption (004 5.4): void unless some wager has already won or lost.

        Returns ``"void"`` or ``"continue"`` (the round stays open and is concluded later).
        """
        if self.phase is Phase.OVER:
            return "over"
        # an outcome is established once any wager has been paid or collected (004 5.4.1)
        decided = any(HOUSE in (t.source, t.dest) for t in self.ledger.transfers)
        self.log.add("interrupted", clause="004 5.4", outcome_established=decided)
        if decided:
            return "continue"  # 004 5.4.1
        self._void("technical interruption before any outcome (004 5.4.2)")
        return "void"

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
        self.verify(Action("double", box, amount=None if amount is None else to_money(amount), decline=tuple(decline)))

    def can_double(self, box: int, amount: object = None, decline: Iterable[str] = ()) -> bool:
        try:
            self.verify_double(box, amount, decline)
            return True
        except IllegalAction:
            return False

    def double(self, box: int, amount: object = None, decline: Iterable[str] = ()) -> None:
        self.act(Action("double", box, amount=None if amount is None else to_money(amount), decline=tuple(decline)))

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

    # ---------------------------------------------------------------------------- dealer
    def _maybe_peek(self) -> None:
        if self._peek_pending:
            if self.phase is Phase.WINDOW:
                self.phase = Phase.PLAY
            self._peek()
            if self.phase is Phase.OVER:
                raise _Stop()

    def _dealer_turn(self) -> None:
        r = self.rules
        if self.phase is Phase.WINDOW:
            self.phase = Phase.PLAY
        if self._peek_pending:
            self._peek()
            if self.phase is Phase.OVER:
                return
        hands = [h for b in self.boxes.values() for h in b.hands]
        live = [h for h in hands if h.live_bettors() and not (set(h.live_bettors()) <= h.surrendered)]
        needs = (
            bool(live)
            or any(h.surrendered for h in hands)
            or any(x.insurance > 0 for b in self.boxes.values() for x in b.bettors)
            or bool(self._natural_pending)  # a natural waiting to see whether the dealer has one too
        )
        if needs and len(self.dealer) < 2:
            self._deal_dealer()  # rul 4: the dealer's second card after all players have acted
        if len(self.dealer) >= 2 and is_natural(self.dealer[:2]):
            self.dealer_natural = True
            self._finish_dealer_natural()
            self._end()
            return
        # insurance loses, surrenders lose half (rul 8, 9)
        for b in self.boxes.values():
            for x in b.bettors:
                if x.insurance > 0:
                    self.ledger.collect(x.player, "insurance", x.insurance, "insurance loses: no dealer Pontoon")
        for h in hands:
            for p in list(h.surrendered):
                if p not in h.outcome:
                    self._settle_surrender(h, p, dealer_pontoon=False)
        for h in self._natural_pending:
            for p in h.live_bettors():
                self._win(h, p, r.pontoon_pays, "natural 3:2")
        live = [h for h in hands if [p for p in h.live_bettors() if p not in h.surrendered]]
        if live:
            # 000 3.19, rul 7: draw to hard 16 and soft 17
            while True:
                total, soft = hand_total(self.dealer)
                if total < 17 or (total == 17 and soft and r.dealer_hits_soft_17):
                    self._deal_dealer()
                    continue
                break
        dtotal, _ = hand_total(self.dealer)
        for h in live:
            total, _ = h.total(r.double_ace_counts_one)
            for p in h.live_bettors():
                if p in h.surrendered:
                    continue
                if dtotal > 21:
                    self._win(h, p, r.regular_pays, "dealer bust (000 4.2.3)")
                elif total > dtotal:
                    self._win(h, p, r.regular_pays, "higher total (000 4.2.2)")
                elif total < dtotal:
                    self._lose(h, p, "lower total (000 4.3.1)")
                else:
                    self._push(h, p, "stand-off (000 4.5.1)")
        self._end()

    def _settle_surrender(self, h: Hand, p: str, dealer_pontoon: bool) -> None:
        s = h.stakes[p]
        if dealer_pontoon:
            self.ledger.collect(p, "main", s, "surrender void: dealer Pontoon (000 3.10.1)")
        else:
            half = (s / 2).quantize(CENT, rounding=ROUND_DOWN)
            self.ledger.give_back(p, "main", s - half, "half returned on surrender (000 1.1.16)")
            self.ledger.collect(p, "main", half, "surrender (000 3.10)")
        h.outcome[p] = "surrender"

    def _finish_dealer_natural(self) -> None:
        """Settle everything against a dealer Pontoon / natural (rul 6, 8, 9)."""
        r = self.rules
        self.log.add("dealer_pontoon", clause="000 4.3.3")
        for b in self.boxes.values():
            for x in b.bettors:
                if x.insurance > 0:
                    self.ledger.give_back(x.player, "insurance", x.insurance, "insurance wins")
                    self.ledger.pay(x.player, "insurance", x.insurance * r.insurance_pays, "insurance 2:1 (000 4.1)")
        for h in self._natural_pending:
            for p in h.live_bettors():
                self._push(h, p, "natural against dealer natural")
        for b in self.boxes.values():
            charged: set[str] = set()
            split_box = len(b.hands) > 1
            for h in b.hands:
                for p in h.live_bettors():
                    if p in h.surrendered:
                        self._settle_surrender(h, p, dealer_pontoon=True)
                    elif split_box and r.split_loses_one_wager:
                        # 001 Splits: only one bet removed; the other live wagers are returned
                        if p in charged:
                            self._push(h, p, "returned: only one split wager lost (001 Splits)")
                        else:
                            charged.add(p)
                            self.ledger.collect(p, "main", h.stakes[p], "dealer Pontoon (001 Splits)")
                            if h.doubles.get(p):
                                self.ledger.give_back(p, "main", h.doubles[p], "double returned (001 Doubles)")
                            h.outcome[p] = "lose"
                    elif h.doubled and r.double_loses_original_only and h.doubles.get(p):
                        # 000 4.4.1, 004 3.25.4: a doubled hand loses only the original wager
                        self.ledger.collect(p, "main", h.stakes[p], "dealer Pontoon: original wager (000 4.4.1)")
                        self.ledger.give_back(p, "main", h.doubles[p], "doubled portion returned (000 4.4.1)")
                        h.outcome[p] = "lose"
                    else:
                        self._lose(h, p, "dealer Pontoon (000 4.3.3, 004 3.24.5)")

    def _end(self) -> None:
        self._super_bonus_payments()
        self.phase = Phase.OVER
        self.log.add("round_over", status="settled")

    def _super_bonus_payments(self) -> None:
        r = self.rules
        sb_hands = [h for b in self.boxes.values() for h in b.hands if h.super_bonus]
        if not sb_hands:
            return
        sb_boxes = {h.box for h in sb_hands}
        other = r.super_bonus_other_payment
        for h in sb_hands:
            for i, p in enumerate(h.stakes):
                amount = r.super_bonus_amount(h.stakes[p])
                if r.super_bonus_controlling_only and i > 0:
                    amount = ZERO  # rul 17: FED pays the fixed amount to the controlling wager only
                why = "Super Bonus (000 4.1.1.1, 001, 004 4.1.2)"
                if amount == 0:
                    if r.super_bonus_other_scope == "seated_per_box":
                        # rul 17, 002 4.2, 004 4.1.2: no Super Bonus below 10, and the 50 goes only to the
                        # seated player of each *other* betting circle, so a small wager here gets nothing
                        continue
                    if not (r.super_bonus_controlling_only and i > 0):
                        # rul 17, 000 4.1.1.1-4.1.1.2: in MBS a wager on the Super Bonus hand itself is no
                        # "other" wager; below 10 it gets no Super Bonus and no 50 (only FED pays the 50 to
                        # the other bettors on the Super Bonus box)
                        continue
                    amount, why = other, "Super Bonus round: other wager (000 4.1.1.2, 001)"
                self.ledger.pay(p, "super_bonus", amount, why)
        for n, b in self.boxes.items():
            if n in sb_boxes or not b.has_main:
                continue
            if r.super_bonus_other_scope == "seated_per_box":
                seated = b.seated
                if seated is not None:  # 002 4.2, 004 4.1.2: once per betting circle, seated player
                    self.ledger.pay(seated.player, "super_bonus", other, "Super Bonus round: seated player (004 4.1.2)")
            else:
                for x in b.bettors:
                    if x.main > 0:  # 000 4.1.1.2: every other original wager
                        self.ledger.pay(x.player, "super_bonus", other, "Super Bonus round: other wager (000 4.1.1.2)")

    # ---------------------------------------------------------------------------- void
    def _run(self, fn: Callable[[], object]) -> None:
        try:
            fn()
        except _Stop:
            pass
        except _Void as v:
            self._void(v.reason)

    def _void(self, reason: str) -> None:
        """Every wager of the round is returned, interim payments included (rul 1, 004 5.17)."""
        paid = [t for t in self.ledger.transfers]
        for t in reversed(paid):
            if t.source != LAYOUT and t.dest != LAYOUT:
                self.ledger.move(t.dest, t.source, t.amount, kind=t.kind, player=t.player, reason=f"void: {t.reason} reversed")
            elif t.source == LAYOUT:
                self.ledger.move(t.dest, LAYOUT, t.amount, kind=t.kind, player=t.player, reason=f"void: {t.reason} reversed")
        for t in paid:
            if t.dest == LAYOUT:
                self.ledger.give_back(t.player, t.kind, t.amount, "void: wager returned (004 5.17)")
        self.void_reason = reason
        self.phase = Phase.OVER
        self.log.add("void", clause="rul 1-2, 004 5.5, 5.17", reason=reason)

    # ---------------------------------------------------------------------------- results
    def all_hands(self) -> list[Hand]:
        return [h for n in sorted(self.boxes) for h in self.boxes[n].hands]

    def players(self) -> list[str]:
        seen: dict[str, None] = {}
        for n in sorted(self.boxes):
            for x in self.boxes[n].bettors:
                seen.setdefault(x.player, None)
        return list(seen)

    def result(self) -> RoundResult:
        if self.phase is not Phase.OVER:
            raise IllegalAction("the round is not over yet")
        net = self.ledger.net(self.players())
        house = -sum((d["total"] for d in net.values()), ZERO)
        hands = tuple(
            HandResult(h.box, h.index, tuple(str(c) for c in h.cards), "void" if self.void_reason else h.result_word())
            for h in self.all_hands()
        )
        return RoundResult(
            "void" if self.void_reason else "settled",
            self.void_reason,
            tuple(str(c) for c in self.dealer),
            hands,
            net,
            house,
        )

    def cards_in_play(self) -> list[Card]:
        """Every card dealt this round (dealer and hands), for accounting checks."""
        return list(self.dealer) + [c for h in self.all_hands() for c in h.cards] + self.foreign_cards


class _Stop(Exception):
    """Internal: the round ended (dealer natural at the peek) before an action could complete."""
