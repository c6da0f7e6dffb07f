"""The wagers of a casino round before the deal: placing and withdrawing them, the checks at "no more bets",
and what closing does to them (orphaned side bets returned, pro rata of an over-limit box).

Plain functions of the round ``rnd``; ``CasinoRound`` calls them. Clause references as in ``round.py``.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING, Final

from pontoon.casino.phase import P_BETTING
from pontoon.casino.state import Bettor, Box
from pontoon.errors import BetError, IllegalAction
from pontoon.money import CENT, fmt, to_money

if TYPE_CHECKING:
    from pontoon.casino.round import CasinoRound

ZERO: Final = Decimal(0)


def verify_place_bet(rnd: CasinoRound, box: object, player: object, kind: object, amount: object) -> Decimal:
    # box, player and kind typed object: checked here (a compiled build would refuse another type with a
    # TypeError before these checks could name it)
    r = rnd.rules
    if rnd.phase is not P_BETTING:
        raise BetError("no more bets: the deal has started (000 5.3, 004 5.8)")
    if not isinstance(box, int) or not 1 <= box <= r.max_boxes:
        raise BetError(f"box {box!r} does not exist: boxes are 1 to {r.max_boxes}")
    if not isinstance(player, str) or not player.strip():
        raise BetError("a bet needs a player name")
    if not isinstance(kind, str) or (kind != "main" and kind not in r.side_bets):
        kinds = ("main", *r.side_bets)
        raise BetError(
            f"wager kind {kind!r} is not offered in {r.preset}: accepted kinds are {', '.join(kinds)}"
        )
    amt = to_money(amount, "main wager" if kind == "main" else f"{kind} wager")
    if amt <= 0:
        raise BetError(f"{kind} wager {fmt(amt)} by {player} on box {box} must be positive")
    b = rnd.boxes.get(box)
    bettor = b.bettor(player) if b else None
    if kind == "main":
        if bettor and bettor.placed > 0:
            raise BetError(f"{player} already has a main wager on box {box}")
        n = len(b.bettors) if b else 0
        if bettor is None and n >= r.max_bettors_per_box:
            raise BetError(
                f"box {box} already has {n} bettors: at most {r.max_bettors_per_box} per box in {r.preset}"
            )
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
        if r.side_bet_needs_own_main and (bettor is None or bettor.placed <= 0):
            raise BetError(
                f"{kind} wager on box {box} needs {player}'s own main wager on that box first "
                f"(002 3.3, rulings 37: in {r.preset} a player places side wagers only where he plays)"
            )
        if bettor and kind in bettor.side:
            raise BetError(f"{player} already has a {kind} wager on box {box}")
        if not r.side_min <= amt <= r.side_max:
            raise BetError(
                f"{kind} wager {fmt(amt)} is outside the limits {fmt(r.side_min)} to {fmt(r.side_max)}"
            )
    return amt


def place_bet(rnd: CasinoRound, box: object, player: object, kind: object, amount: object) -> None:
    amt = verify_place_bet(rnd, box, player, kind, amount)
    assert isinstance(box, int) and isinstance(player, str) and isinstance(kind, str)  # checked just now
    place_checked_bet(rnd, box, player, kind, amt)


def place_checked_bet(rnd: CasinoRound, box: int, player: str, kind: str, amt: Decimal) -> None:
    """Place a wager that ``verify_place_bet`` has just accepted (amount as it returned it)."""
    b = rnd.boxes.get(box)
    if b is None:
        b = rnd.boxes[box] = Box(box)
    bettor = b.bettor(player)
    if bettor is None:
        bettor = Bettor(player)
        b.bettors.append(bettor)
    if kind == "main":
        bettor.main = bettor.placed = amt
    else:
        bettor.side[kind] = amt
    rnd.ledger.stake(player, kind, amt)
    rnd.log.add("bet", box=box, player=player, kind=kind, amount=fmt(amt))


def withdraw_bet(rnd: CasinoRound, box: int, player: str, kind: str) -> None:
    """Take a wager back before the deal (000 5.4: not after 'no more bets')."""
    if rnd.phase is not P_BETTING:
        raise BetError(
            "no more bets: a wager cannot be withdrawn after the deal has started (000 5.4, 004 5.8)"
        )
    b = rnd.boxes.get(box)
    bettor = b.bettor(player) if b else None
    if (
        bettor is None
        or (kind == "main" and bettor.placed == 0)
        or (kind != "main" and kind not in bettor.side)
    ):
        raise BetError(f"{player} has no {kind} wager on box {box}")
    amt = bettor.placed if kind == "main" else bettor.side.pop(kind)
    if kind == "main":
        bettor.main = bettor.placed = ZERO
    rnd.ledger.give_back(player, kind, amt, "withdrawn before the deal")
    rnd.log.add("withdraw", box=box, player=player, kind=kind, amount=fmt(amt))


def verify_close_bets(rnd: CasinoRound) -> None:
    r = rnd.rules
    if rnd.phase is not P_BETTING:
        raise IllegalAction("bets are already closed")
    mains = [b for b in rnd.boxes.values() if b.has_main]
    if not mains:
        raise BetError("no box has a main wager: place at least one main wager")
    for b in mains:
        if b.main_total < r.table_min:
            # 004 5.2: the bettor must increase or withdraw before the deal
            raise BetError(
                f"main wagers on box {b.number} total {fmt(b.main_total)}, below the table minimum "
                f"{fmt(r.table_min)}: increase or withdraw (004 5.2)"
            )


def close_wagers(rnd: CasinoRound) -> None:
    """At 'no more bets': return the side bets of boxes without a main wager, apply pro rata to the others."""
    boxes = rnd.boxes
    for b in [boxes[n] for n in sorted(boxes)]:  # a box's number is its key
        if not b.has_main or rnd.rules.side_bet_needs_own_main:
            # 004 5.15: side bets on a box without a main wager are removed and returned; 002 3.3 (rul 37):
            # in PAN those of a bettor without his own main wager (withdrawn) too
            for bettor in b.bettors:
                if b.has_main and bettor.placed > 0:
                    continue
                for kind, amt in list(bettor.side.items()):
                    rnd.ledger.give_back(bettor.player, kind, amt, "returned: no main wager (004 5.15)")
                    rnd.log.add(
                        "side_bet_returned", clause="004 5.15", box=b.number, player=bettor.player, kind=kind
                    )
                bettor.side.clear()
            if not b.has_main:
                continue
        apply_pro_rata(rnd, b)


def apply_pro_rata(rnd: CasinoRound, b: Box) -> None:
    """004 5.1.1, 5.1.2 as rul 24 reads them (MBS and PAN likewise, option ``over_limit="pro_rata"``).

    Each bettor's share of a box over its maximum is his wager times maximum over the box total,
    rounded down to the cent; a share below the minimum is raised to the minimum, so the box may
    settle slightly above its maximum (004 5.1.1 second sentence). A bettor whose own wager is below
    the minimum is settled on his whole wager (004 5.1.2); the others keep their pro rata shares.
    The excess of each wager over its share is returned before the deal.
    """
    r = rnd.rules
    total = b.main_total
    if total <= r.table_max:
        return
    bettors = [x for x in b.bettors if x.placed > 0]
    whole = [x.player for x in bettors if x.placed < r.table_min]
    for x in bettors:
        if x.placed < r.table_min:
            continue  # rul 24, 004 5.1.2: under the minimum: no pro rata, his whole wager plays
        share = (x.placed * r.table_max / total).quantize(
            CENT, rounding=ROUND_DOWN
        )  # rul 24: down to the cent
        share = max(share, r.table_min)  # rul 24, 004 5.1.1: never a share below the minimum
        excess = x.placed - share
        x.main = share
        if excess > 0:
            rnd.ledger.give_back(
                x.player, "main", excess, "excess over box maximum returned (004 5.1.1, rul 24)"
            )
    rnd.log.add(
        "pro_rata",
        clause="004 5.1.1, 5.1.2, rul 24",
        box=b.number,
        wagers={x.player: fmt(x.main) for x in bettors},
        whole_wager=whole,
    )
