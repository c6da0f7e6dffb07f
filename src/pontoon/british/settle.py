"""Settlement of a British round (003 The Banker's Turn outcomes; Shoot Pontoon settlement).

Pure money movements on the round's Ledger: a winning hand gets its stake back from the layout
and its winnings from the banker (shoot winnings from the kitty); a losing stake goes to the
banker (a losing shoot bet to the kitty). Every transfer conserves money.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Final

from pontoon.british import ranking
from pontoon.settlement import KITTY, LAYOUT

if TYPE_CHECKING:
    from pontoon.british.round import BritishHand, BritishRound

__all__ = ["KITTY", "collect", "pay", "settle", "settle_shoot"]  # KITTY: the ledger's own account (rul 32)

_ONE: Final = Decimal(1)
_ZERO: Final = Decimal(0)


def pay(rnd: BritishRound, h: BritishHand, times: Decimal, reason: str) -> None:
    rnd.ledger.give_back(h.owner, "stake", h.stake, "stake returned")
    rnd.ledger.pay(h.owner, "stake", h.stake * times, reason, source=rnd.banker)
    h.result, h.net = "win", h.stake * times


def collect(rnd: BritishRound, h: BritishHand, times: Decimal, reason: str) -> None:
    rnd.ledger.move(LAYOUT, rnd.banker, h.stake, kind="stake", player=h.owner, reason=reason)
    if times > _ONE:
        rnd.ledger.move(
            h.owner, rnd.banker, h.stake * (times - 1), kind="stake", player=h.owner, reason=reason
        )
    h.result, h.net = "lose", -h.stake * times


def settle_shoot(rnd: BritishRound, h: BritishHand, won: bool) -> None:
    if not h.shoot_open:
        return
    h.shoot_open = False
    if won:  # 003 Shoot: "paid an amount equal to their shoot bets out of the kitty"
        rnd.ledger.give_back(h.owner, "shoot", h.shoot, "shoot bet returned")
        rnd.ledger.pay(h.owner, "shoot", h.shoot, "shoot won", source=KITTY)
    else:  # 003 Shoot: "have their shoot bets added to the kitty"
        rnd.ledger.move(LAYOUT, KITTY, h.shoot, kind="shoot", player=h.owner, reason="shoot lost")


def settle(rnd: BritishRound, how: str) -> None:
    r = rnd.rules
    banker_best = ranking.best(rnd.banker_cards)
    rnd.banker_outcome = (
        "pontoon"
        if how == "pontoon"
        else "bust"
        if how == "bust"
        else "five card trick"
        if how == "five"
        else str(banker_best)
    )
    bgrade = ranking.pontoon_grade(rnd.banker_cards, r) if how == "pontoon" else (0, 0)
    beats = lose = ""  # the reasons against the banker's total, made once a round
    for h in rnd.hands:
        if not h.live:
            continue
        royal = ranking.is_royal_pontoon(h.cards, r)
        pontoon = h.status == "pontoon"
        five = h.status == "five"
        h.outcome = ranking.describe(h.cards, r, split=h.split)
        if how == "pontoon":
            # 003: the banker's Pontoon "collects double the amount staked from each of the players";
            # variations V9, V11 (rul 29): a player's Pontoon that outranks the banker's wins and is paid
            # as a Pontoon (the bank does not pass on it: see below); equal rank goes to the banker.
            # rul 30: neither payment is doubled by the banker's doubling (no ``rnd.mult`` here)
            if ranking.is_pontoon(h.cards, r, split=h.split) and ranking.pontoon_grade(h.cards, r) > bgrade:
                pay(rnd, h, r.pontoon_pays, "pontoon beats banker's pontoon")
                settle_shoot(rnd, h, True)
            else:
                collect(rnd, h, r.banker_pontoon_collects, "banker's pontoon")
                # 003 Shoot: "If the dealer has a Pontoon, all the shoot bets are added to the pot"
                settle_shoot(rnd, h, False)
            continue
        # rul 30 (V3, V4): the banker's doubling (``rnd.mult``) doubles only ordinary wins and losses;
        # Royal Pontoons, Pontoons, Five Card Tricks and the banker's Five Card Trick are paid as they are
        if royal:
            # 003 variation: Royal Pontoon "beats everything and is paid treble"
            pay(rnd, h, r.royal_pontoon_pays, "royal pontoon")
        elif how == "five":
            # 003 "The dealer makes a Five Card Trick": pays Pontoons only, double; everyone else loses
            # double (the banker's doubling does not affect it)
            if pontoon:
                pay(rnd, h, r.pontoon_pays, "pontoon beats banker's five card trick")
            else:
                collect(rnd, h, r.five_card_trick_pays, "banker's five card trick")
        elif pontoon:
            pay(rnd, h, r.pontoon_pays, "pontoon")  # 003 "Pontoons and Five Card Tricks are paid double"
        elif five:
            pay(rnd, h, r.five_card_trick_pays, "five card trick")
        elif how in ("bust", "unplayed"):
            pay(rnd, h, rnd.mult, "banker bust")  # 003 "The dealer goes bust"
        elif ranking.best(h.cards) > banker_best:
            # 003 "pays ... any player who has a higher value hand than the dealer"
            beats = beats or f"beats banker's {banker_best}"
            pay(rnd, h, rnd.mult, beats)
        else:
            # 003 "collects from those who have equal or less" (ties to the banker)
            lose = lose or f"banker's {banker_best}"
            collect(rnd, h, rnd.mult, lose)
        settle_shoot(rnd, h, h.result == "win")
    if how == "stay":
        # 003: "Everyone then exposes their cards"
        rnd.exposed_all = True
        for h in rnd.hands:
            h.up = [True] * len(h.cards)
    rnd.phase = "settled"
    # 003 The New Deal: the bank passes to the unsplit Pontoon nearest the dealer's left; never when the
    # banker had a Pontoon, even one that a player's Pontoon outranked (rul 29)
    if not rnd.banker_pontoon and any(h.status == "pontoon" for h in rnd.hands):
        for p in rnd.players:
            if any(h.owner == p and h.status == "pontoon" and not h.split for h in rnd.hands):
                rnd.next_banker = p
                break
    assert rnd.ledger.on_layout() == _ZERO
    rnd.log.add(
        "settled",
        "003 The Banker's Turn: outcomes",
        banker_outcome=rnd.banker_outcome,
        exposed=rnd.exposed_all,
        next_banker=rnd.next_banker,
        net=rnd.net_json(),
    )
