"""Bank cover (rulings 33): no action is accepted that a seat could not pay, so no balance goes below 0.

003 is silent; chemin de fer's rule that the stakes against a bank cannot exceed the bank is the
precedent. A round given ``funds`` (what each seat holds at the table when the round starts) checks,
before a stake, a buy, a split or a shoot bet is accepted:

- the bank: its worst case, every live stake paid at the highest multiple the rules pay a player
  (double under 003's main text: Pontoons and Five Card Tricks; treble for a Royal Pontoon where that
  variation is on; the banker's doubling doubles ordinary wins), must fit in what the banker holds now.
  Shoot bets are the kitty's (003 Shoot: "the total of all the shoot bets is not more than what is in
  the kitty"), which the banker put up out of his balance: ``shoot_capacity`` keeps them covered;
- the player: his worst case, every one of his live stakes lost at the highest multiple the banker
  collects (a banker's Pontoon or Five Card Trick, the banker's doubling) and his shoot bets lost,
  must fit in what he holds.

A round without ``funds`` keeps only net results (play money: a simulation, a scenario) and checks
nothing here. The amounts are the largest accepted, rounded down to the cent.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING

from pontoon.british.state import ZERO
from pontoon.money import CENT, fmt

if TYPE_CHECKING:
    from pontoon.british.round import BritishRound
    from pontoon.rules.british import BritishRules

BANK_CLAUSE = "rulings 33: bank cover"


def bank_pays_most(r: BritishRules) -> Decimal:
    """The highest multiple of a stake the bank may pay a player (003 and the variations on)."""
    most = max(r.pontoon_pays, r.five_card_trick_pays, Decimal(2) if r.banker_may_double else Decimal(1))
    if r.royal_pontoon:
        most = max(most, r.royal_pontoon_pays)  # 003 variation: Royal Pontoon "paid treble"
    return most


def player_loses_most(r: BritishRules) -> Decimal:
    """The highest multiple of a stake a player may lose (003: the banker's Pontoon "collects double")."""
    return max(
        r.banker_pontoon_collects, r.five_card_trick_pays, Decimal(2) if r.banker_may_double else Decimal(1)
    )


def holding(rnd: BritishRound, seat: str) -> Decimal:
    """What ``seat`` holds now: its funds at the round's start plus its money moved in this round
    (stakes on the layout count as gone)."""
    assert rnd.funds is not None
    return rnd.funds.get(seat, ZERO) + rnd.ledger.balances[seat]


def _down(x: Decimal) -> Decimal:
    return max(ZERO, x.quantize(CENT, rounding=ROUND_DOWN))


def bank_room(rnd: BritishRound) -> Decimal | None:
    """The largest further stake the bank still covers (None: no funds given, no limit)."""
    if rnd.funds is None:
        return None
    live = sum((h.stake for h in rnd.hands if h.live and not h.result), ZERO)
    return _down(holding(rnd, rnd.banker) / bank_pays_most(rnd.rules) - live)


def player_room(rnd: BritishRound, seat: str, *, stake: bool) -> Decimal | None:
    """The largest further stake (``stake``) or shoot bet ``seat`` could still lose and pay."""
    if rnd.funds is None:
        return None
    w = player_loses_most(rnd.rules)
    live = sum((h.stake for h in rnd.hands if h.owner == seat and h.live and not h.result), ZERO)
    free = holding(rnd, seat) - live * (w - 1)  # a live stake may still take (w - 1) times more
    return _down(free / w) if stake else _down(free)


def room(rnd: BritishRound, seat: str, *, stake: bool) -> tuple[Decimal | None, str]:
    """The largest amount ``seat`` may add now (a stake, a buy, a split's stake; or a shoot bet when
    ``stake`` is false) and the sentence naming the limit that binds ("" when none)."""
    mine = player_room(rnd, seat, stake=stake)
    bank = bank_room(rnd) if stake else None
    if mine is None and bank is None:
        return None, ""
    if bank is not None and (mine is None or bank <= mine):
        return bank, f"the bank ({rnd.banker}) covers only {fmt(bank)} more ({BANK_CLAUSE})"
    assert mine is not None
    return mine, f"{seat}'s balance covers only {fmt(mine)} more ({BANK_CLAUSE})"


def covered(
    rnd: BritishRound, seat: str, verb: str, low: Decimal, high: Decimal, *, stake: bool
) -> Decimal | None:
    """``high`` cut to what the bank and ``seat`` cover, noting why in the round's ``_cover_notes`` for
    ``verify``'s refusal; None when even ``low`` is not covered."""
    if rnd.funds is None:  # net results only: nothing to cover (``room`` gives no limit)
        return high if high >= low else None
    most, why = room(rnd, seat, stake=stake)
    if most is not None and most < high:
        rnd._cover_notes[verb] = why
        high = most
    return high if high >= low else None
