"""Hints for play: the expectation of each legal verb for the hand in front of the player.

``action_values`` answers for any shoe composition in a few tens of milliseconds (numba kernels,
dealer distributions only for the hands that can follow this one).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.player import Params, UpcardSolver
from pontoon.analysis.split_suits import SuitShoe, split_suits
from pontoon.analysis.states import card_index, counts_from_cards, counts_from_ranks, state_space
from pontoon.analysis.suits import BONUS_COMPLETION, completion_classes
from pontoon.cards import Card
from pontoon.errors import PontoonError
from pontoon.hands import hand_total
from pontoon.rules.model import CasinoRules

VERBS = ("hit", "stand", "double", "split", "surrender", "rescue")


@lru_cache(maxsize=16)
def _params(key: str) -> Params:
    return Params.of(CasinoRules.model_validate_json(key))


def action_values(
    rules: CasinoRules,
    remaining: Counter[str],
    hand: list[Card],
    upcard: Card,
    *,
    legal: list[str],
    split_hands_so_far: int = 1,
    is_split_hand: bool = False,
    doubled: bool = False,
    remaining_cards: Sequence[Card] | None = None,
) -> dict[str, float]:
    """Expectation (per unit of the hand's original wager) of each legal verb among
    hit, stand, double, split, surrender, rescue.

    ``remaining``: cards left in the shoe by rank (the hand and the upcard already out).
    ``doubled``: the hand has doubled and holds its doubling card (verbs: stand = keep, rescue).
    For a hole-card game with a peek the values are those after the peek (no dealer natural).
    A split's value is exact (FED's one-wager loss too) wherever it is at least the best other
    verb asked for; below it, FED's one-wager loss may be the union approximation, which keeps
    it below (``UpcardSolver.split_value``'s ``beat``).

    ``remaining_cards``: the same cards with their suits (``Shoe.remaining_cards()``). Given, the
    first split of a pair of 6s, 7s or 8s is valued by the suits of the pair and the up card and
    of the 6s, 7s and 8s left (``split_suits``: a 6-7-8 or 7-7-7 inside a split hand pays by
    suit); without them, or for a resplit, the split's value is its average over the suits.
    """
    wanted = [v for v in legal if v in VERBS]
    if not wanted:
        return {}
    if not hand:
        raise PontoonError("action_values needs the hand's cards")
    pr = _params(rules.model_dump_json())
    sp = state_space()
    hand_c = counts_from_cards(hand)
    base = counts_from_ranks(remaining) + hand_c
    up = card_index(upcard)
    s = sp.find(hand_c)
    if s < 0:
        return {v: -1.0 for v in wanted}  # bust: nothing left to decide
    active = np.all(sp.counts >= hand_c[None, :], axis=1)
    solver = UpcardSolver(rules, pr, base, up, active=active)
    q = solver.q_nat(s)
    cond = 1.0 / (1.0 - q) if (pr.peek and q < 1.0) else 1.0
    out: dict[str, float] = {}
    aces_first_two = sum(1 for c in hand[:2] if c.rank == "A")
    if doubled:
        dt, _soft = hand_total(hand, 2 if pr.ace_one else 0)
        if dt > 21:
            keep = -2.0
        elif dt == 21 and pr.p21wins:
            keep = 2.0
        else:
            keep = K.stand_value(solver.dist[s], dt, 2.0, pr.nat_loss_dbl, pr.peek) * cond
        for v in wanted:
            if v == "stand":
                out[v] = float(keep)
            elif v == "rescue":
                out[v] = -1.0  # 000 3.11.4: the original wager is forfeited, the double returned
        return out
    # 001 Splits: against a dealer Pontoon the box loses one wager in all
    loss = 1.0 / split_hands_so_far if (is_split_hand and pr.split_one_wager) else 1.0
    loss_d = loss if (is_split_hand and pr.split_one_wager) else pr.nat_loss_dbl
    o = solver.run(a2=aces_first_two, nat_loss=loss, nat_loss_dbl=loss_d, dbl2=(not is_split_hand) or pr.das)
    for v in sorted(wanted, key=lambda x: x == "split"):  # the split last: its beat is the others' best
        if v == "stand":
            out[v] = float(o.st[s]) * cond
        elif v == "hit":
            h = float(o.hit[s])
            ij = tuple(sorted(card_index(c) for c in hand))
            if len(hand) == 2 and not is_split_hand and ij in BONUS_COMPLETION and pr.p21wins:
                i, j = ij
                c = BONUS_COMPLETION[(i, j)]
                left = int(base.sum()) - 2
                qc = (int(base[c]) - int(hand_c[c])) / left if left > 0 else 0.0
                known = [(card_index(x), x.suit) for x in hand] + [(up, upcard.suit)]
                ((_, m),) = completion_classes(rules, i, j, up, pr.sb_units, known=known)
                s3 = sp.trans[s, c]
                nn = 1.0 - solver.q_nat(s3) if pr.peek else 1.0  # peek: no dealer natural (as the 21)
                h += qc * nn * (m - float(pr.pay21[s3]))
            out[v] = h * cond
        elif v == "double":
            if len(hand) == 2 or pr.dbl_any:
                out[v] = float(o.dbl[s]) * cond
            else:
                out[v] = float("nan")
        elif v == "surrender":
            # after a peek (or late surrender without one) half the wager; early: all of it if
            # the dealer then makes Pontoon (rulings 9)
            out[v] = -0.5 if (pr.peek or pr.surrender == "late") else -0.5 * (1 - q) - q
        elif v == "split":
            p = card_index(hand[0])
            if len(hand) != 2 or card_index(hand[1]) != p:
                out[v] = float("nan")
            else:
                m = pr.max_hands - split_hands_so_far + 1
                others = [x for x in out.values() if x == x]
                beat = max(others) / cond if others else None
                out[v] = _split(solver, hand, upcard, max(m, 2), beat, remaining_cards, is_split_hand) * cond
        elif v == "rescue":
            out[v] = -1.0
    return out


def _split(
    solver: UpcardSolver,
    hand: list[Card],
    upcard: Card,
    max_hands: int,
    beat: float | None,
    remaining_cards: Sequence[Card] | None,
    is_split_hand: bool,
) -> float:
    """The split's value: by the suits in play where they are known and can matter (see
    ``action_values``), else averaged over the suits."""
    p = card_index(hand[0])
    sc = solver.split_chains(p, max_hands=max_hands)
    if sc is None:
        return float("nan")
    ss = None
    if remaining_cards is not None and not is_split_hand:
        # rulings 16 (000 4.1, 004 4.1.1): a 6-7-8 or 7-7-7 inside a split hand pays by its suits
        ss = split_suits(solver, p, sc, SuitShoe.of_cards([*remaining_cards, *hand, upcard]))
    if ss is None:
        return float(solver.split_combine(p, sc, beat))
    adj = ss.adjustment(hand[0].suit, hand[1].suit, upcard.suit)
    return float(solver.split_combine(p, sc, None if beat is None else beat - adj)) + adj


def best_action(values: dict[str, float]) -> str | None:
    finite = {k: v for k, v in values.items() if v == v}
    return max(finite, key=lambda k: finite[k]) if finite else None


def _cards(text: Sequence[str]) -> list[Card]:
    return [Card.parse(t) for t in text]
