"""The British round's action bodies, verb by verb (003): each is called by ``BritishRound.act`` only
after ``verify`` has passed, and returns the event it logged. Plain functions of the round ``rnd``."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Final

from pontoon.british import ranking
from pontoon.british.state import CARD_TEXT, BritishHand
from pontoon.events import Event
from pontoon.money import fmt

if TYPE_CHECKING:
    from pontoon.british.round import BritishRound

TWO: Final = Decimal(2)


def do_stake(rnd: BritishRound, seat: str, amount: Decimal) -> Event:
    h = rnd.hands[rnd.idx]  # the stakes go round the players in seat order, one hand each (to_act)
    rnd.ledger.stake(seat, "stake", amount)  # 003 "place their initial bets in front of them"
    h.stake = h.initial = amount
    ev = rnd.log.add("stake", "003 The Deal and Initial Stakes", seat=seat, amount=fmt(amount))
    _next_staker(rnd)
    return ev


def sit_out(rnd: BritishRound, seat: str) -> Event:
    """rul 33: no stake is covered (the bank's or his own balance): he sits this round out, his card
    goes to the bottom of the pack (as a bust hand's does)."""
    h = next(x for x in rnd.hands if x.owner == seat)
    h.status, h.outcome = "out", "sat out"
    rnd.pack.to_bottom(h.cards)
    h.returned = True
    ev = rnd.log.add("sit_out", "rulings 33: bank cover", seat=seat)
    _next_staker(rnd)
    return ev


def _next_staker(rnd: BritishRound) -> None:
    rnd.idx += 1
    if rnd.idx == len(rnd.players):
        rnd.banker_looked = True  # the banker's first card was dealt face down; he now may look
        if rnd._banker_may_double:
            rnd.phase = "double"  # 003 variation: "the banker looks at his own first card"
        else:
            rnd._open_shoot()


def do_double(rnd: BritishRound, seat: str) -> Event:
    rnd.mult = TWO  # 003 variation: "the final payments are doubled"
    ev = rnd.log.add("banker_double", "003 variation: banker doubles the bets", seat=seat)
    rnd._open_shoot()
    return ev


def do_pass(rnd: BritishRound, seat: str) -> Event:
    if rnd.phase == "stake":
        return sit_out(rnd, seat)
    if rnd.phase == "double":
        ev = rnd.log.add("banker_no_double", "003 variation: banker doubles the bets", seat=seat)
        rnd._open_shoot()
    elif rnd.phase == "shoot":
        ev = rnd.log.add("no_shoot", "003 Shoot: never forced to make a shoot bet", seat=seat)
        rnd._next_shooter()
    else:  # split_shoot
        ev = rnd.log.add("no_shoot", "003 Shoot: new shoot bet on the other hand", seat=seat)
        finish_split(rnd)
    return ev


def do_shoot(rnd: BritishRound, seat: str, amount: Decimal) -> Event:
    if rnd.phase == "shoot":
        h = next(x for x in rnd.hands if x.owner == seat)
        clause = "003 Shoot: shoot bet before the second card"
    elif rnd.phase == "split_shoot":
        h = rnd.hands[rnd.pending_split]
        clause = "003 Shoot: new shoot bet on the other hand after a split"
    else:
        h = rnd.hands[rnd.cur]
        h.shot_fourth = True
        h.must_draw = True  # the bet is placed "before receiving the card"; rul 31: it commits him to take it
        clause = "003 Shoot: The fourth card"
    rnd.ledger.stake(seat, "shoot", amount, reason="shoot bet")
    h.shoot += amount
    h.shoot_open = True
    ev = rnd.log.add("shoot", clause, seat=seat, hand=rnd.hand_number(h), amount=fmt(amount))
    if rnd.phase == "shoot":
        rnd._next_shooter()
    elif rnd.phase == "split_shoot":
        finish_split(rnd)
    return ev


def do_buy(rnd: BritishRound, seat: str, amount: Decimal) -> Event:
    h = rnd.hands[rnd.cur]
    rnd.ledger.stake(seat, "stake", amount, reason="buy")  # 003 Buy: "increase your stake"
    h.stake += amount
    h.last_buy = amount
    h.must_draw = False
    c = rnd._deal(h, up=False)  # 003 Buy: "deals you another card face down"
    ev = rnd.log.add(
        "buy",
        "003 Buy a card",
        seat=seat,
        hand=rnd.hand_number(h),
        amount=fmt(amount),
        card=CARD_TEXT[c.code],
    )
    rnd._after_card(h)
    return ev


def do_twist(rnd: BritishRound, seat: str) -> Event:
    if rnd.phase == "banker":
        c = rnd._draw()
        rnd.banker_cards.append(c)  # 003 Banker's Turn: "dealing them face up one at a time"
        ev = rnd.log.add("banker_twist", "003 The Banker's Turn", seat=seat, card=CARD_TEXT[c.code])
        if ranking.is_bust(rnd.banker_cards):
            rnd._settle("bust")  # 003 "The dealer goes bust"
        elif len(rnd.banker_cards) == 5:
            rnd._settle("five")  # 003 "The dealer makes a Five Card Trick"
        return ev
    h = rnd.hands[rnd.cur]
    h.twisted = True
    h.must_draw = False
    c = rnd._deal(h, up=True)  # 003 Twist: "deals you one card face up"
    ev = rnd.log.add("twist", "003 Twist", seat=seat, hand=rnd.hand_number(h), card=CARD_TEXT[c.code])
    rnd._after_card(h)
    return ev


def do_stick(rnd: BritishRound, seat: str) -> Event:
    if rnd.phase == "banker":
        ev = rnd.log.add("banker_stick", "003 The Banker's Turn: stay", seat=seat)
        rnd._settle("stay")
        return ev
    h = rnd.hands[rnd.cur]
    h.status = "stuck"
    ev = rnd.log.add("stick", "003 Stick", seat=seat, hand=rnd.hand_number(h))
    rnd._next_hand()
    return ev


def do_split(rnd: BritishRound, seat: str) -> Event:
    h = rnd.hands[rnd.cur]
    c1, c2 = h.cards
    # 003 Split: "putting them face up on the table and placing another bet equal to your initial bet"
    rnd.ledger.stake(seat, "stake", h.initial, reason="split")
    new = BritishHand(owner=seat, cards=[c2], up=[True], stake=h.initial, initial=h.initial, split=True)
    h.cards, h.up, h.split = [c1], [True], True
    rnd.hands.insert(rnd.cur + 1, new)
    ev = rnd.log.add(
        "split", "003 Split your cards", seat=seat, hand=rnd.hand_number(h), cards=[str(c1), str(c2)]
    )
    rnd.pending_split = rnd.cur + 1
    # 003 Shoot: "the player has the option to place a new shoot bet ... on the other hand"; rul 31: the
    # window opens before the new cards are dealt (finish_split deals them)
    if rnd.rules.shoot and rnd.shoot_capacity() >= rnd.rules.shoot_min:
        rnd.phase = "split_shoot"
    else:
        finish_split(rnd)
    return ev


def finish_split(rnd: BritishRound) -> None:
    rnd.phase = "play"
    # 003 Split: "The banker immediately deals another card face down to each of your hands"
    a, b = rnd.hands[rnd.cur], rnd.hands[rnd.pending_split]
    rnd.pending_split = -1
    rnd._deal(a, up=False)
    rnd._deal(b, up=False)
    rnd.log.add("split_deal", "003 Split your cards", seat=a.owner)


def do_burn(rnd: BritishRound, seat: str) -> Event:
    h = rnd.hands[rnd.cur]
    old = list(h.cards)
    # 003 variation: "These two cards are shown and discarded, and two new cards dealt"
    h.burned.extend(old)
    h.cards, h.up = [], []
    rnd.pack.to_bottom(old)
    rnd._deal(h, up=False)
    rnd._deal(h, up=False)
    ev = rnd.log.add(
        "burn",
        "003 variation: burn a hard 13 (14)",
        seat=seat,
        hand=rnd.hand_number(h),
        burned=[str(c) for c in old],
    )
    if not h.split and ranking.is_pontoon(h.cards, rnd.rules):
        rnd._declare(h)
        rnd._next_hand()
    return ev


DOERS: Final[dict[str, Callable[..., Event]]] = {
    "stake": do_stake,
    "double": do_double,
    "pass": do_pass,
    "shoot": do_shoot,
    "buy": do_buy,
    "twist": do_twist,
    "stick": do_stick,
    "split": do_split,
    "burn": do_burn,
}
