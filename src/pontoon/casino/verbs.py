"""The player actions of a casino round, verb by verb.

Each verb of ``actions.VERBS`` has a check, which returns why the action is illegal now ("" when it is
legal), and a doer, which takes it (``CasinoRound.act`` calls it once the check has passed); ``CHECKS`` and
``DOERS`` map each verb to them. Plain functions of the round ``rnd``. Clause references as in ``round.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING, Final

from pontoon.casino import irregular, settle
from pontoon.casino.actions import Action, box_actions
from pontoon.casino.phase import P_WINDOW
from pontoon.casino.state import Hand
from pontoon.money import CENT, fmt

if TYPE_CHECKING:
    from pontoon.casino.round import CasinoRound


# per-verb checks return a reason string when illegal ------------------------------------
def hand_to_act(rnd: CasinoRound, a: Action) -> tuple[Hand | None, str]:
    h = rnd.current
    if h is None:
        return None, "no hand is waiting for a decision"
    if a.box != h.box:
        return None, f"box {a.box} is not the box to act"
    return h, ""


def check_insure(rnd: CasinoRound, a: Action) -> str:
    r = rnd.rules
    if not r.insurance:
        return f"{r.preset} offers no insurance"
    if rnd.phase is not P_WINDOW or not rnd.dealer[0].is_ace:
        return "insurance is only offered when the dealer's first card is an Ace, before any additional card (rul 8)"
    b = rnd.boxes.get(a.box or 0)
    x = b.bettor(a.player or "") if b else None
    if x is None or x.main <= 0:
        return f"{a.player} has no main wager on box {a.box}"
    if x.insurance > 0:
        return f"{a.player} has already insured box {a.box}"
    if a.amount is None or a.amount <= 0 or a.amount > x.main / 2:
        return f"insurance must be positive and at most half the wager: up to {fmt(x.main / 2)} (000 3.12, 004 3.17.1)"
    return ""


def check_surrender(rnd: CasinoRound, a: Action) -> str:
    r = rnd.rules
    if r.surrender == "none":
        return f"{r.preset} offers no surrender"
    b = rnd.boxes.get(a.box or 0)
    if b is None or not b.hands:
        return f"box {a.box} has no hand"
    h = b.hands[0]
    if r.surrender == "early":
        up = rnd.dealer[0]
        if rnd.phase is not P_WINDOW or not (up.is_ace or up.is_picture):
            return "surrender is only allowed when the dealer's first card is an Ace or a picture, before any additional card (rul 9)"
    elif rnd.current is not h:
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


def check_hit(rnd: CasinoRound, a: Action) -> str:
    h, why = hand_to_act(rnd, a)
    if h is None:
        return why
    if h.awaiting_rescue:
        return "after a double the choice is rescue or stand"
    if h.doubled:
        return "a doubled hand takes exactly one card (000 3.11.3)"
    if h.split_aces and not rnd.rules.hit_split_aces:
        return "split Aces take one card each (000 3.9.1)"
    return ""


def check_stand(rnd: CasinoRound, a: Action) -> str:
    h, why = hand_to_act(rnd, a)
    if h is None:
        return why
    r = rnd.rules
    if not h.awaiting_rescue and not h.doubled and r.forced_draw_below:
        total, _ = h.total(r.double_ace_counts_one)
        if total < r.forced_draw_below:
            return f"a hand below {r.forced_draw_below} must draw (rul 14; 002 3.17, 004 3.22, 001)"
    return ""


def double_increments(rnd: CasinoRound, h: Hand, a: Action) -> tuple[dict[str, Decimal], str]:
    r = rnd.rules
    if len(h.stakes) == 1 and a.amount is None and not a.decline:
        # one bettor doubling by his whole wager: the general case below comes to this
        ((seated, base),) = h.stakes.items()
        if base <= 0:
            return {}, f"the double must be positive and at most the original wager {fmt(base)} (000 1.1.1)"
        if r.double_min_table_min and base < r.table_min:
            return {}, f"the double must not be less than the table minimum {fmt(r.table_min)} (000 1.1.1)"
        return {seated: base}, ""
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


def check_double(rnd: CasinoRound, a: Action) -> str:
    h, why = hand_to_act(rnd, a)
    if h is None:
        return why
    r = rnd.rules
    if h.awaiting_rescue or h.doubled:
        return "the hand is already doubled"
    if h.split_aces and not r.double_split_aces:
        return "split Aces cannot be doubled (000 3.11.2)"
    if h.from_split and not r.double_after_split:
        return "no double after a split"
    if r.double_on == "two_cards" and len(h.cards) != 2:
        return "a double is only allowed on the first two cards (000 3.11.1, 004 3.25)"
    _, why = double_increments(rnd, h, a)
    return why


def check_split(rnd: CasinoRound, a: Action) -> str:
    h, why = hand_to_act(rnd, a)
    if h is None:
        return why
    r = rnd.rules
    if h.awaiting_rescue or h.doubled:
        return "a doubled hand cannot split"
    if len(h.cards) != 2:
        return "only the first two cards of a hand may split"
    c1, c2 = h.cards
    same = c1.rank == c2.rank if r.split_by == "rank" else c1.points == c2.points
    if not same:
        return f"{c1} and {c2} are not of the same {'rank' if r.split_by == 'rank' else 'value'} (000 1.1.12, rul 10)"
    if len(rnd.boxes[h.box].hands) >= r.max_split_hands:
        return f"at most {r.max_split_hands} hands per box (rul 11)"
    if c1.is_ace and h.split_aces and not r.resplit_aces:
        return "Aces may be split once only (000 3.9.1)"
    for p in a.decline:
        if p not in h.stakes or p == next(iter(h.stakes)):
            return "only standing bettors on the hand may decline"
    if a.decline and not r.standing_may_decline_split:
        return f"in {r.preset} the standing bettors follow the split"
    return ""


def check_rescue(rnd: CasinoRound, a: Action) -> str:
    h, why = hand_to_act(rnd, a)
    if h is None:
        return why
    if not h.awaiting_rescue:
        return "rescue is only possible right after the double card, below 21 (000 3.11.4, 004 3.25.3)"
    # rul 27 (000 3.11.4.1, 001 Forfeits, 002 3.14, 004 3.25.3): in every casino game each bettor whose
    # wager was doubled decides for his own wager; a bettor who did not follow the double (004 3.25.1)
    # has nothing to forfeit and plays on. ``rescue_each_bettor=False`` (not a document's rule) makes the
    # seated player decide for the whole hand.
    doubled = [p for p in h.doubles if p in h.live_bettors()]
    if a.player is not None:
        # a bettor's own decision (rul 27): only for his own doubled wager
        if a.player not in doubled or a.players not in (None, (a.player,)):
            return f"{a.player} has no doubled wager to forfeit on box {a.box}: bettors who doubled: {', '.join(doubled)} (rul 27: one who did not follow the double plays on)"
        return ""
    if a.players is not None:
        bad = [p for p in a.players if p not in doubled]
        if bad or not a.players:
            return f"players must be bettors who doubled: {', '.join(doubled)} (rul 27: one who did not follow the double plays on)"
        if set(a.players) != set(doubled) and not rnd.rules.rescue_each_bettor:
            return "with rescue_each_bettor=false the seated player decides the rescue for the box (rul 27 is off)"
    return ""


def check_walk(rnd: CasinoRound, a: Action) -> str:
    h, why = hand_to_act(rnd, a)
    if h is None:
        return why
    # 004 5.3: the only Player betting (main wager) on the box
    if sum(1 for x in rnd.boxes[h.box].bettors if x.main > 0) != 1:
        return "the House plays for a player who walks away only when he is the box's only bettor (004 5.3)"
    if h.awaiting_rescue:
        return "the hand is waiting for a rescue decision"
    return ""


def check_interrupt(rnd: CasinoRound, a: Action) -> str:
    return ""


def legal_play(rnd: CasinoRound, h: Hand, window: bool) -> list[Action]:
    """The plain play actions (``Action(verb, box)``, in ``PLAY_VERBS`` order) that the checks above
    accept for the hand to act ``h``, worked out in one pass over the state (the listing's fast way;
    ``tests/test_legal_listing.py`` proves it equal to trying each action through its check). In the
    early-surrender window the surrender is listed with the window's actions instead."""
    r = rnd.rules
    acts = box_actions(h.box)  # hit, stand, double, split, rescue, surrender
    out: list[Action] = []
    held = h.awaiting_rescue or h.doubled
    if not held and not (h.split_aces and not r.hit_split_aces):  # check_hit: 000 3.11.3, 3.9.1
        out.append(acts[0])
    if held or not r.forced_draw_below or h.total(r.double_ace_counts_one)[0] >= r.forced_draw_below:
        out.append(acts[1])  # check_stand: rul 14
    cards = h.cards
    if (
        not held
        and not (h.split_aces and not r.double_split_aces)  # 000 3.11.2
        and not (h.from_split and not r.double_after_split)
        and not (r.double_on == "two_cards" and len(cards) != 2)  # 000 3.11.1, 004 3.25
        and not double_increments(rnd, h, acts[2])[1]  # 000 1.1.1
    ):
        out.append(acts[2])
    if not held and len(cards) == 2:  # check_split
        c1, c2 = cards
        if (
            (c1.rank == c2.rank if r.split_by == "rank" else c1.points == c2.points)  # 000 1.1.12, rul 10
            and len(rnd.boxes[h.box].hands) < r.max_split_hands  # rul 11
            and not (c1.is_ace and h.split_aces and not r.resplit_aces)  # 000 3.9.1
        ):
            out.append(acts[3])
    if h.awaiting_rescue:  # check_rescue: 000 3.11.4, 004 3.25.3
        out.append(acts[4])
    if not window and r.surrender == "late":  # check_surrender (early surrender only in the window: rul 9)
        hands = rnd.boxes[h.box].hands
        if hands[0] is h and len(hands) == 1 and len(cards) == 2 and not h.finished and not h.acted:
            out.append(acts[5])  # 000 3.10.2
    return out


# per-verb doers ---------------------------------------------------------------------------
def do_insure(rnd: CasinoRound, a: Action) -> None:
    b = rnd.boxes[a.box or 0]
    x = b.bettor(a.player or "")
    assert x is not None and a.amount is not None
    x.insurance = a.amount
    rnd.ledger.stake(x.player, "insurance", a.amount)


def do_surrender(rnd: CasinoRound, a: Action) -> None:
    h = rnd.boxes[a.box or 0].hands[0]
    who = set(a.players) if a.players is not None else set(h.stakes)
    h.surrendered |= who
    h.acted = True
    h.finished = True
    if who != set(h.stakes):
        h.no_more_cards = True  # 001 Surrenders: those playing on get no more cards
    rnd.log.add("surrender", clause="000 3.10, 001, 004 3.18", box=h.box, players=sorted(who))

    def go() -> None:
        settle.maybe_peek(rnd)
        if rnd.rules.surrender == "late":  # blackjack: settled at once, after the peek
            for p in who:
                settle.settle_surrender(rnd, h, p, dealer_pontoon=False)
        rnd._advance()

    irregular.run_step(rnd, go)


def do_hit(rnd: CasinoRound, a: Action) -> None:
    h = rnd.current
    assert h is not None
    h.acted = True

    def go() -> None:
        settle.maybe_peek(rnd)
        rnd._deal_subsequent(h)
        rnd._advance()

    irregular.run_step(rnd, go)


def do_stand(rnd: CasinoRound, a: Action) -> None:
    h = rnd.current
    assert h is not None
    h.acted = True
    h.finished = True
    h.awaiting_rescue = False

    def go() -> None:
        settle.maybe_peek(rnd)
        rnd._advance()

    irregular.run_step(rnd, go)


def do_double(rnd: CasinoRound, a: Action) -> None:
    h = rnd.current
    assert h is not None
    inc, _ = double_increments(rnd, h, a)
    h.acted = True
    h.doubled = True
    for p, v in inc.items():
        h.doubles[p] = v
        rnd.ledger.stake(p, "main", v, "double")
    rnd.log.add(
        "double", clause="000 3.11", box=h.box, hand=h.index, amounts={p: fmt(v) for p, v in inc.items()}
    )

    def go() -> None:
        settle.maybe_peek(rnd)
        rnd._deal_subsequent(h)
        if not h.awaiting_rescue:
            h.finished = True
        rnd._advance()

    irregular.run_step(rnd, go)


def do_split(rnd: CasinoRound, a: Action) -> None:
    h = rnd.current
    assert h is not None
    r = rnd.rules
    box = rnd.boxes[h.box]
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
        rnd.ledger.stake(p, "main", s, "split")
    rnd.log.add("split", clause="000 3.8, 004 3.24", box=h.box, hand=h.index, declined=list(a.decline))

    def go() -> None:
        settle.maybe_peek(rnd)
        rnd._deal_subsequent(h)  # 004 3.24.2: the first split hand gets its second card at once
        if h.split_aces and not r.hit_split_aces:
            if not rnd.can_split(h.box):
                h.finished = True
        rnd._advance()

    irregular.run_step(rnd, go)


def do_rescue(rnd: CasinoRound, a: Action) -> None:
    h = rnd.current
    assert h is not None
    # rul 27: only the bettors named (default: every bettor whose wager was doubled) forfeit; the others
    # keep the doubled hand, and a bettor who did not follow the double plays on with his original wager.
    # ``a.player`` set: one bettor's own decision for his own wager; the others still decide (the seated
    # bettor's rescue or stand then finishes the hand). Otherwise (the seated bettor, the table) the
    # decision is made for the box and the hand is finished.
    own = a.player is not None
    if a.player is not None:
        who = [a.player]
    else:
        who = list(a.players) if a.players is not None else [p for p in h.doubles if p in h.live_bettors()]
    for p in who:
        # 000 3.11.4: withdraw the doubled portion, the dealer collects the original wager
        rnd.ledger.give_back(p, "main", h.doubles[p], "double withdrawn (000 3.11.4)")
        rnd.ledger.collect(p, "main", h.stakes[p], "original wager forfeited (000 3.11.4)")
        h.outcome[p] = "forfeit"
        h.rescued.add(p)
    if own and any(p in h.live_bettors() for p in h.doubles):
        return  # the other bettors whose wager was doubled still decide (rul 27)
    h.awaiting_rescue = False
    h.finished = True
    irregular.run_step(rnd, rnd._advance)


def do_walk(rnd: CasinoRound, a: Action) -> None:
    h = rnd.current
    assert h is not None
    h.walked = True
    rnd.log.add("walked_away", clause="004 5.3", box=h.box)

    def go() -> None:
        r = rnd.rules
        while not h.finished and h.total(r.double_ace_counts_one)[0] < r.walk_away_draw_to:
            rnd._deal_subsequent(h)
        h.finished = True
        rnd._advance()

    irregular.run_step(rnd, go)


def do_interrupt(rnd: CasinoRound, a: Action) -> None:
    rnd._interrupt()


CHECKS: Final[dict[str, Callable[[CasinoRound, Action], str]]] = {
    "insure": check_insure,
    "surrender": check_surrender,
    "hit": check_hit,
    "stand": check_stand,
    "split": check_split,
    "double": check_double,
    "rescue": check_rescue,
    "walk": check_walk,
    "interrupt": check_interrupt,
}

DOERS: Final[dict[str, Callable[[CasinoRound, Action], None]]] = {
    "insure": do_insure,
    "surrender": do_surrender,
    "hit": do_hit,
    "stand": do_stand,
    "split": do_split,
    "double": do_double,
    "rescue": do_rescue,
    "walk": do_walk,
    "interrupt": do_interrupt,
}
