"""The engine-side policy driver: plays the real round engine with the same strategy table the
kernel reads, so the two can be compared round by round on stacked shoes (tests/sim).

It decides from the table and asks the engine what is legal (``can``), never re-deriving the
rules itself: a code the engine refuses falls back the way the chart codes say (D -> hit,
Ds -> stand, R -> hit, Rs -> stand, P -> play the total) and a refused stand becomes a hit
(forced draws, rulings 14).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_DOWN, Decimal
from typing import Any

import numpy as np

from pontoon.cards import Card
from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound, Phase
from pontoon.hands import hand_total
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe
from pontoon.sim import _kernels as K

KINDS = ("main", "insurance", "pair", "bonus", "pandemonium", "super_bonus")  # kernel K_MAIN .. K_SUPER
CENT = Decimal("0.01")


def _comp_code(comp: np.ndarray | None, cards: Sequence[Card], up: Card, from_split: bool) -> int:
    """The composition table's code for this hand (-1: none): the kernel's lookup (its state by
    the hand's card values, its kind by split pair or the two first cards' suits)."""
    if comp is None or comp.shape[0] < 2:
        return -1
    from pontoon.analysis.states import state_space

    counts = [0] * 10
    for c in cards:
        counts[c.points - 1] += 1
    s = state_space().find(counts)
    if s < 0:
        return -1
    if from_split:
        kind = K.COMP_KIND_SPLIT + cards[0].points - 1
    elif len(cards) == 2:
        kind = 1 if cards[0].suit == cards[1].suit else 0
    else:
        kind = 2
    if comp.shape[1] > K.COMP_KINDS:  # a2 blocks (FED): the Aces among the first two cards
        kind += K.COMP_KINDS * sum(c.points == 1 for c in cards[:2])
    return int(comp[up.points, kind, s])


NAMES = {K.C_H: "hit", K.C_S: "stand", K.C_D: "double", K.C_DS: "ds", K.C_R: "surrender", K.C_RS: "rs"}


def _code(strat: np.ndarray, cards: Sequence[Card], up: Card, oc: int) -> int:
    """The play code other than a split: the composition table's where it has one, else the chart's."""
    if oc >= 0:
        return oc & 7
    tot, soft = hand_total(cards, 0)
    return int(strat[K.K_SOFT if soft else K.K_HARD, tot, min(len(cards), K.NC_MAX), up.points])


def _plan(
    rules: CasinoRules,
    strat: np.ndarray,
    cards: Sequence[Card],
    up: Card,
    comp: np.ndarray | None = None,
    from_split: bool = False,
) -> str:
    """The verb for a hand that is not doubled: split, stand, hit, double, ds, surrender, rs.

    ``comp``: the composition table (``--strategy optimal``), consulted for every hand; the chart
    where it has no entry."""
    oc = _comp_code(comp, cards, up, from_split)
    if len(cards) == 2:
        a, b = cards
        same = a.rank == b.rank if rules.split_by == "rank" else a.points == b.points
        nci = min(len(cards), K.NC_MAX)
        want = (oc & K.COMP_SPLIT) != 0 if oc >= 0 else strat[K.K_PAIR, a.points, nci, up.points] == K.C_P
        if same and want:
            return "split"
        pcode = int(strat[K.K_PAIRPLAY, a.points, nci, up.points])
        if same and oc < 0 and pcode != K.C_NONE:
            return NAMES[pcode]  # an unsplit pair's own play (the counter's pair index rows)
    return NAMES[_code(strat, cards, up, oc)]


def play_engine_round(
    rules: CasinoRules,
    cards: Sequence[Card],
    strat: np.ndarray,
    *,
    boxes: int = 1,
    bet: Decimal = Decimal(10),
    side_bet: Decimal = Decimal(5),
    side_bets: Sequence[str] = (),
    insurance: bool = False,
    jackpot: Sequence[int] = (),
    comp: np.ndarray | None = None,
    keep: list[CasinoRound] | None = None,
) -> tuple[str, dict[int, dict[str, Decimal]]]:
    """Play one round of the engine from a stacked shoe; returns (status, {box: {kind: net}}).
    ``keep``: the played round is appended to it (its events, for tests that count cases)."""
    # synthetic: the differential tests' biased shoes may hold more of a card than the decks (rul 38)
    shoe = Shoe.stacked_from(list(cards), pack=rules.pack, synthetic=True)
    rnd = CasinoRound(rules, shoe, jackpot=list(jackpot))
    if keep is not None:
        keep.append(rnd)
    for b in range(1, boxes + 1):
        rnd.place_bet(b, f"p{b}", "main", bet)
        for kind in side_bets:
            rnd.place_bet(b, f"p{b}", kind, side_bet)
    rnd.close_bets()
    window_done = False
    while not rnd.is_over():
        up = rnd.dealer_cards[0]
        if rnd.phase is Phase.WINDOW and not window_done:
            window_done = True
            if insurance:
                for b in range(1, boxes + 1):
                    a = Action("insure", b, f"p{b}", (bet / 2).quantize(CENT, rounding=ROUND_DOWN))
                    if rnd.can(a):
                        rnd.act(a)
            for b in range(1, boxes + 1):
                h0 = rnd.boxes[b].hands[0]
                if len(h0.cards) == 2 and not h0.finished:
                    plan = _plan(rules, strat, h0.cards, up, comp, h0.from_split)
                    if plan in ("surrender", "rs") and rnd.can(Action("surrender", b)):
                        rnd.act(Action("surrender", b))
                        if rnd.is_over():
                            break
            continue
        h = rnd.current_hand()
        if h is None:  # pragma: no cover - the engine finishes rounds by itself
            raise RuntimeError("engine round is not over but no hand is to act")
        box = h.box
        if h.awaiting_rescue:
            fixed = 2 if rules.double_ace_counts_one else 0
            total, soft = hand_total(h.cards, fixed)
            want = strat[K.K_RESCUE, total, 3, up.points] == 1
            oc = _comp_code(comp, h.cards, up, h.from_split)  # the table's rescue, as the kernel
            if oc >= 0 and oc & K.COMP_RESCUE:
                want = bool(oc & (K.COMP_RESCUE_SOFT if soft else K.COMP_RESCUE_HARD))
            verbs = ["rescue", "stand"] if want else ["stand"]
        else:
            plan = _plan(rules, strat, h.cards, up, comp, h.from_split)
            if plan == "split":
                if rnd.can(Action("split", box)):
                    rnd.act(Action("split", box))
                    continue
                plan = NAMES[_code(strat, h.cards, up, _comp_code(comp, h.cards, up, h.from_split))]
            verbs = {
                "hit": ["hit", "stand"],
                "stand": ["stand", "hit"],
                "double": ["double", "hit", "stand"],
                "ds": ["double", "stand", "hit"],
                "surrender": ["surrender", "hit", "stand"],
                "rs": ["surrender", "stand", "hit"],
            }[plan]
        for v in verbs:
            a = Action(v, box)
            if rnd.can(a):
                rnd.act(a)
                break
        else:  # pragma: no cover
            raise RuntimeError(f"no legal action among {verbs}: {rnd.legal_actions()}")
    res = rnd.result()
    out: dict[int, dict[str, Decimal]] = {}
    for b in range(1, boxes + 1):
        net: dict[str, Any] = res.net.get(f"p{b}", {})
        out[b] = {k: Decimal(net.get(k, 0)) for k in KINDS}
    return res.status, out
