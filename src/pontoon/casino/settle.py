"""Settlement of a casino round: the money moves, the interim settlement (side bets, Pontoons, the
Pandemonium jackpot), the odds of a 21, the dealer's peek and turn, and the final settlement (dealer
Pontoon, insurance, surrenders, comparison of totals, Super Bonus and its 50 payments).

Plain functions of the round ``rnd``; ``CasinoRound`` calls them. Clause references as in ``round.py``.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING, Final

from pontoon.cards import Card
from pontoon.casino.phase import P_OVER, P_PLAY, P_WINDOW, _Stop
from pontoon.casino.state import Box, Hand
from pontoon.errors import ScenarioError
from pontoon.hands import hand_total, is_natural, three_card_class
from pontoon.money import CENT, fmt

if TYPE_CHECKING:
    from pontoon.casino.round import CasinoRound

ZERO: Final = Decimal(0)


# money moves ---------------------------------------------------------------------------
def side_win(rnd: CasinoRound, player: str, kind: str, amt: Decimal, odds: Decimal, why: str) -> None:
    rnd.ledger.give_back(player, kind, amt, why)
    rnd.ledger.pay(player, kind, amt * odds, why)


def stake_of(h: Hand, p: str) -> Decimal:
    return h.stakes[p] + h.doubles.get(p, ZERO)


def win(rnd: CasinoRound, h: Hand, p: str, odds: Decimal, why: str) -> None:
    s = stake_of(h, p)
    rnd.ledger.give_back(p, "main", s, why)
    rnd.ledger.pay(p, "main", s * odds, why)
    h.outcome[p] = "win"


def lose(rnd: CasinoRound, h: Hand, p: str, why: str, word: str = "lose") -> None:
    rnd.ledger.collect(p, "main", stake_of(h, p), why)
    h.outcome[p] = word


def push(rnd: CasinoRound, h: Hand, p: str, why: str) -> None:
    rnd.ledger.give_back(p, "main", stake_of(h, p), why)
    h.outcome[p] = "push"


# interim settlement; the odds of a 21 paid at once ----------------------------------------
def interim(rnd: CasinoRound, boxes: list[Box]) -> None:
    """Interim settlement: side bets and Pontoons (000 3.7, 002 3.7-3.8, 004 3.13-3.16)."""
    r = rnd.rules
    up = rnd.dealer[0]
    for b in boxes:
        h = b.hands[0]
        c1, c2 = h.cards
        for bettor in b.bettors:
            for kind, amt in bettor.side.items():
                if kind == "pair":
                    # rul 18, 10: same rank; 000 3.5.1 wins even if the dealer later has Pontoon
                    if c1.rank == c2.rank:
                        side_win(rnd, bettor.player, kind, amt, r.pair_pays, "pair 11:1 (000 4.1, 004 4.1.1)")
                    else:
                        rnd.ledger.collect(bettor.player, kind, amt, "no pair")
                elif kind == "bonus":
                    odds = bonus_odds(rnd, c1, c2)  # rul 19, 004 4.1.3
                    if odds is None:
                        rnd.ledger.collect(bettor.player, kind, amt, "no bonus")
                    else:
                        side_win(rnd, bettor.player, kind, amt, odds, f"bonus {fmt(odds)}:1 (004 4.1.3)")
        if is_natural(h.cards):
            h.finished = True
            if r.natural_vs_dealer_natural == "win" or not (up.is_ace or up.is_ten_value):
                for p in h.stakes:  # rul 5: Pontoon paid 3:2 at once, can no longer lose
                    win(rnd, h, p, r.pontoon_pays, "pontoon 3:2 (000 3.7, 4.1; 004 3.16)")
            else:
                rnd._natural_pending.append(h)
        # rul 20, 002 3.8.1: one jackpot press per box with a winning Pandemonium wager
        pan = [x for x in b.bettors if "pandemonium" in x.side]
        if pan:
            if is_natural(h.cards):
                mult = rnd._jackpot()
                if mult not in r.pandemonium_multipliers:
                    raise ScenarioError(
                        f"jackpot multiplier {mult} is not on the meter: accepted {list(r.pandemonium_multipliers)}"
                    )
                b.jackpot_multiplier = mult
                rnd.log.add("jackpot", clause="002 3.8.1", box=b.number, multiplier=mult)
                for x in pan:
                    side_win(
                        rnd,
                        x.player,
                        "pandemonium",
                        x.side["pandemonium"],
                        Decimal(mult),
                        f"pandemonium {mult}:1",
                    )
            else:
                for x in pan:
                    rnd.ledger.collect(x.player, "pandemonium", x.side["pandemonium"], "no pontoon")


def bonus_odds(rnd: CasinoRound, a: Card, b: Card) -> Decimal | None:
    t = rnd.rules.bonus_pays
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


def odds_21(rnd: CasinoRound, h: Hand) -> tuple[Decimal, str]:
    r = rnd.rules
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


# the dealer -------------------------------------------------------------------------------
def peek(rnd: CasinoRound) -> None:
    """Blackjack: the dealer checks the hole card for a natural."""
    rnd._peek_pending = False
    rnd.log.add("peek")
    if is_natural(rnd.dealer[:2]):
        rnd.dealer_natural = True
        finish_dealer_natural(rnd)
        end_round(rnd)


def maybe_peek(rnd: CasinoRound) -> None:
    if rnd._peek_pending:
        if rnd.phase is P_WINDOW:
            rnd.phase = P_PLAY
        peek(rnd)
        if rnd.phase is P_OVER:
            raise _Stop()


def dealer_turn(rnd: CasinoRound) -> None:
    r = rnd.rules
    if rnd.phase is P_WINDOW:
        rnd.phase = P_PLAY
    if rnd._peek_pending:
        peek(rnd)
        if rnd.phase is P_OVER:
            return
    boxes = list(rnd.boxes.values())
    hands = [h for b in boxes for h in b.hands]
    insured = [x for b in boxes for x in b.bettors if x.insurance > 0]
    # the dealer needs a second card when a wager still waits on it: a live hand (some bettor neither
    # settled nor surrendered), a surrender, insurance, or a natural waiting on the dealer's
    needs = bool(insured) or bool(rnd._natural_pending)
    for h in hands:
        if h.surrendered or any(p not in h.outcome for p in h.stakes):
            needs = True
            break
    if needs and len(rnd.dealer) < 2:
        rnd._deal_dealer()  # rul 4: the dealer's second card after all players have acted
    if len(rnd.dealer) >= 2 and is_natural(rnd.dealer[:2]):
        rnd.dealer_natural = True
        finish_dealer_natural(rnd)
        end_round(rnd)
        return
    # insurance loses, surrenders lose half (rul 8, 9)
    for x in insured:
        rnd.ledger.collect(x.player, "insurance", x.insurance, "insurance loses: no dealer Pontoon")
    for h in hands:
        if h.surrendered:
            for p in [q for q in h.stakes if q in h.surrendered]:  # box order, not a set's (hash-seed) order
                if p not in h.outcome:
                    settle_surrender(rnd, h, p, dealer_pontoon=False)
    for h in rnd._natural_pending:
        for p in h.live_bettors():
            win(rnd, h, p, r.pontoon_pays, "natural 3:2")
    # the hands with a bettor still to settle against the dealer's total
    live = [
        (h, ps)
        for h in hands
        if (ps := [p for p in h.stakes if p not in h.outcome and p not in h.surrendered])
    ]
    if live:
        # 000 3.19, rul 7: draw to hard 16 and soft 17
        while True:
            total, soft = hand_total(rnd.dealer)
            if total < 17 or (total == 17 and soft and r.dealer_hits_soft_17):
                rnd._deal_dealer()
                continue
            break
    dtotal, _ = hand_total(rnd.dealer)
    for h, ps in live:
        total, _ = h.total(r.double_ace_counts_one)
        for p in ps:
            if dtotal > 21:
                win(rnd, h, p, r.regular_pays, "dealer bust (000 4.2.3)")
            elif total > dtotal:
                win(rnd, h, p, r.regular_pays, "higher total (000 4.2.2)")
            elif total < dtotal:
                lose(rnd, h, p, "lower total (000 4.3.1)")
            else:
                push(rnd, h, p, "stand-off (000 4.5.1)")
    end_round(rnd)


def settle_surrender(rnd: CasinoRound, h: Hand, p: str, dealer_pontoon: bool) -> None:
    s = h.stakes[p]
    if dealer_pontoon:
        rnd.ledger.collect(p, "main", s, "surrender void: dealer Pontoon (000 3.10.1)")
    else:
        half = (s / 2).quantize(CENT, rounding=ROUND_DOWN)
        rnd.ledger.give_back(p, "main", s - half, "half returned on surrender (000 1.1.16)")
        rnd.ledger.collect(p, "main", half, "surrender (000 3.10)")
    h.outcome[p] = "surrender"


def finish_dealer_natural(rnd: CasinoRound) -> None:
    """Settle everything against a dealer Pontoon / natural (rul 6, 8, 9)."""
    r = rnd.rules
    rnd.log.add("dealer_pontoon", clause="000 4.3.3")
    for b in rnd.boxes.values():
        for x in b.bettors:
            if x.insurance > 0:
                rnd.ledger.give_back(x.player, "insurance", x.insurance, "insurance wins")
                rnd.ledger.pay(
                    x.player, "insurance", x.insurance * r.insurance_pays, "insurance 2:1 (000 4.1)"
                )
    for h in rnd._natural_pending:
        for p in h.live_bettors():
            push(rnd, h, p, "natural against dealer natural")
    for b in rnd.boxes.values():
        charged: set[str] = set()
        split_box = len(b.hands) > 1
        for h in b.hands:
            for p in h.live_bettors():
                if p in h.surrendered:
                    settle_surrender(rnd, h, p, dealer_pontoon=True)
                elif split_box and r.split_loses_one_wager:
                    # 001 Splits: only one bet removed; the other live wagers are returned. rul 26: a
                    # split hand that busted before the dealer's Pontoon is settled already (it is not
                    # among the live bettors here), stays lost and is not the "one bet": the one
                    # original wager is taken from the first live hand of each bettor
                    if p in charged:
                        push(rnd, h, p, "returned: only one split wager lost (001 Splits)")
                    else:
                        charged.add(p)
                        rnd.ledger.collect(p, "main", h.stakes[p], "dealer Pontoon (001 Splits)")
                        if h.doubles.get(p):
                            rnd.ledger.give_back(p, "main", h.doubles[p], "double returned (001 Doubles)")
                        h.outcome[p] = "lose"
                elif h.doubled and r.double_loses_original_only and h.doubles.get(p):
                    # 000 4.4.1, 004 3.25.4: a doubled hand loses only the original wager
                    rnd.ledger.collect(p, "main", h.stakes[p], "dealer Pontoon: original wager (000 4.4.1)")
                    rnd.ledger.give_back(p, "main", h.doubles[p], "doubled portion returned (000 4.4.1)")
                    h.outcome[p] = "lose"
                else:
                    lose(rnd, h, p, "dealer Pontoon (000 4.3.3, 004 3.24.5)")


def end_round(rnd: CasinoRound) -> None:
    super_bonus_payments(rnd)
    rnd.phase = P_OVER
    rnd.log.add("round_over", status="settled")


def super_bonus_payments(rnd: CasinoRound) -> None:
    r = rnd.rules
    sb_hands = [h for b in rnd.boxes.values() for h in b.hands if h.super_bonus]
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
                # rul 25: a main wager under 10 on the Super Bonus hand itself (MBS, PAN, PLUS) gets its
                # 7-7-7 payout only (paid with the 21): no Super Bonus and no 50
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
            rnd.ledger.pay(p, "super_bonus", amount, why)
    for n, b in rnd.boxes.items():
        if n in sb_boxes or not b.has_main:
            continue
        if r.super_bonus_other_scope == "seated_per_box":
            seated = b.seated
            if seated is not None:  # 002 4.2, 004 4.1.2: once per betting circle, seated player
                rnd.ledger.pay(
                    seated.player, "super_bonus", other, "Super Bonus round: seated player (004 4.1.2)"
                )
        else:
            for x in b.bettors:
                if x.main > 0:  # 000 4.1.1.2: every other original wager
                    rnd.ledger.pay(
                        x.player, "super_bonus", other, "Super Bonus round: other wager (000 4.1.1.2)"
                    )
