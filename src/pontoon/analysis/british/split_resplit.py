"""Resplits in the player's best split (issue 27; 003 Split: "If either of the new cards dealt is equal to the
first two you may choose to split again, creating three or even (theoretically) four separate hands").

The split passes (``split_fast``) play two hands against the banker's play facing a split (his own cards and, of
each split hand, a bust or its number of cards: ``split_banker``). Here a split hand of the pair's rank may be
split again, as the engine offers it (``pontoon.british.round``: a hand of two cards of one rank, while the
player holds fewer than ``max_split_hands``): the hand keeps one card, the new hand takes the other and goes
right after it, each gets a card at once, and play goes on hand by hand. The banker facing three or four hands
plays the house banker (twists below 17; ``bots``: the level bots' banker there, the split hands being off his
tables), a play that reads his own cards only.

**Each hand settled when it ends.** Against a banker whose play reads his own cards only, the player's value is
the sum over his hands of each hand's value against the banker drawing from the pack left **when that hand
ended**: every order of the pack is equally likely, so the chance of the banker's outcome given the cards dealt
so far, ``P(o | pack left)``, is a martingale as further cards are dealt from the top, and stays one at the
(bounded) stopping times at which later hands stop (optional stopping). So a state of the player after a hand
ends is the cards out of the pack and the hands still to play (no record of the ended hands' totals and stakes),
which is what ``OwnWorld`` keys its values by. The same holds for his Pontoon (collecting on the initial stake):
the chance given the pack left. This needs a pack that cannot run out (at least five cards a hand and five for
the banker: 25 cards with four hands; on a smaller pack a deal that runs out has no banker outcome, which is not
a martingale). Checked against settling all the hands at the end and against the passes
(``tests/analysis/test_british_resplits.py``, 1e-12 on reduced packs).

The player's best split with resplits (``split_with_resplits``): the passes against the banker's play facing two
hands, with a resplit of the first hand at its start (its second card of the pair's rank) and of the second
hand at its start (its second card of the rank, the first hand ended as it did) each valued by ``OwnWorld``
(three hands, a fourth where the rules allow), the player taking the better. Exact for the pack; ``OwnWorld`` is the
Python recursion over every state, ``split_resplit_fast.FastWorld`` the same compiled (the default; 13x to 23x
faster): still hours a pair on a full pack, where three hands reach millions of (cards out, hands to play) states
(docs/analysis.md "Resplits"); ``resplit_profile`` puts them in the report (``pontoon analyze --resplits
--resplits-exact``); ``split_resplit_bound`` bounds them rigorously in minutes (``--resplits``).

Ten-value pairs are not resplit here (their resplit needs the rank of a ten-value card, which the classes do not
keep); their split is not in the player's best response on 52 or 104 cards.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from pontoon.analysis.british.game import (
    NCLASS,
    Game,
    banker_can_twist,
    best,
    hard,
)
from pontoon.analysis.british.split_fast import (
    SplitModel,
    SplitRun,
    _k_banker_all,
    banker_ends,
    can_resplit,
)
from pontoon.analysis.british.values import _u

HOUSE_STAYS_ON = 17  # report.HOUSE_STAYS_ON: the house banker, the bots' banker facing three or four hands


def house_play(g: Game) -> np.ndarray:
    """The house banker as a twist chance per banker hand: twists below 17 (his best total)."""
    return np.array([float(banker_can_twist(h) and best(h) < HOUSE_STAYS_ON) for h in g.banker])


class OwnWorld:
    """The player's best play of split hands against a banker who reads his own cards only (``twist``: his chance
    of twisting per banker hand), each hand settled when it ends (module docstring). ``rest(out, hands, nh)``:
    the value of the hands ``hands`` (each its two first cards) still to play, ``out`` the cards out of the pack
    (class counts: every card dealt to the player, the hands to play included), ``nh`` the hands he holds."""

    def __init__(self, model: SplitModel, x: int, twist: np.ndarray) -> None:
        g, r = model.g, model.rules
        self.x, self.counts, self.total = x, tuple(int(c) for c in model.counts), model.total
        self.max_hands = int(r.max_split_hands)
        self.resplit = can_resplit(model, x)
        self.stick_minimum, self.royal = int(r.stick_minimum), bool(r.royal_pontoon)
        self.no_buy_fifth = bool(r.no_buy_fifth_at_11_or_less)
        self.royal_pays, self.collects = float(r.royal_pontoon_pays), float(r.banker_pontoon_collects)
        self.be = banker_ends(g, lambda h: twist[g.banker_index[h]])
        fp = float(r.five_card_trick_pays)
        self.pay = np.array([[_u(t, int(o), fp) for o in self.be.outs] for t in range(23)], np.float64)
        self.model = model
        self._dist: dict[tuple[int, ...], tuple[np.ndarray, float, float]] = {}
        self.hand = cache(self._hand)

    def dist(self, out: tuple[int, ...]) -> tuple[np.ndarray, float, float]:
        """The banker's outcome chances (his Pontoon apart), their sum and his Pontoon's chance, the cards
        ``out`` out of the pack."""
        if out not in self._dist:
            m, be = self.model, self.be
            rcs = np.array([out], np.int64)
            pb, pn, pp = np.zeros((1, len(be.outs))), np.zeros(1), np.zeros(1)
            _k_banker_all(
                rcs, m.counts, m.total, be.cls, be.mul, be.size, be.w, be.out, m.binom, m.p0, m.p1, pb, pn, pp
            )
            self._dist[out] = (pb[0], float(pn[0]), float(pp[0]))
        return self._dist[out]

    def pontoon(self, out: tuple[int, ...]) -> float:
        """003: the banker's Pontoon collects the initial stake (the chance given the pack left)."""
        return -self.collects * self.dist(out)[2]

    def ended(self, out: tuple[int, ...], cards: tuple[int, ...], stake: float) -> float:
        """An ended hand's value against the banker drawing from the pack left (unless he has a Pontoon)."""
        pb, pn, _ = self.dist(out)
        if hard(cards) > 21:
            return -stake * pn  # 003 "you are bust"
        if len(cards) == 5:
            return stake * float(pb @ self.pay[22])  # 003 Five Card Trick
        if self.royal and cards == (6, 6, 6):
            return self.royal_pays * stake * pn  # 003 variation: three sevens
        return stake * float(pb @ self.pay[best(cards)])

    def rest(self, out: tuple[int, ...], hands: tuple[tuple[int, ...], ...], nh: int) -> float:
        if not hands:
            return 0.0
        return self.hand(out, hands[0], 1.0, 2.0, False, hands[1:], nh)

    def split_again(self, out: tuple[int, ...], hands: tuple[tuple[int, ...], ...], nh: int) -> float:
        """The current hand x-x split again (``hands`` the ones after it): each new hand gets a card at once
        (003 "The banker immediately deals another card face down to each of your hands")."""
        x, counts = self.x, self.counts
        left = self.total - sum(out)
        acc = 0.0
        for a in range(NCLASS):
            ka = counts[a] - out[a]
            if ka <= 0:
                continue
            o1 = tuple(v + (i == a) for i, v in enumerate(out))
            for b in range(NCLASS):
                kb = counts[b] - o1[b]
                if kb <= 0:
                    continue
                o2 = tuple(v + (i == b) for i, v in enumerate(o1))
                pair = (tuple(sorted((x, a))), tuple(sorted((x, b))))
                acc += ka / left * kb / (left - 1) * self.rest(o2, (*pair, *hands), nh + 1)
        return acc

    def _hand(
        self,
        out: tuple[int, ...],
        cards: tuple[int, ...],
        stake: float,
        last: float,
        twisted: bool,
        hands: tuple[tuple[int, ...], ...],
        nh: int,
    ) -> float:
        """The best value from a hand on (its cards ``cards``, in ``out``), the hands ``hands`` after it."""
        h, n = hard(cards), len(cards)
        if h > 21 or n == 5:  # 003 bust; Five Card Trick: "not allowed any more cards"
            return self.ended(out, cards, stake) + self.rest(out, hands, nh)
        bestv = -np.inf
        if self.stick_minimum <= best(cards) <= 21:  # 003 Stick
            bestv = self.ended(out, cards, stake) + self.rest(out, hands, nh)
        if n == 2 and cards == (self.x, self.x) and self.resplit and nh < self.max_hands:
            bestv = max(bestv, self.split_again(out, hands, nh))  # 003 Split: "split again"
        if h < 21:
            left = self.total - sum(out)
            moves = [(0.0, True, last)]  # 003 Twist
            if not twisted and not (self.no_buy_fifth and n == 4 and h <= 11):
                # 003 Buy: between the initial stake and the previous buy (or twice)
                moves += [(amt, False, amt) for amt in (1.0, 2.0) if amt <= last]
            for extra, tw, new_last in moves:
                acc = 0.0
                for c in range(NCLASS):
                    k = self.counts[c] - out[c]
                    if k > 0:
                        o = tuple(v + (i == c) for i, v in enumerate(out))
                        acc += (
                            k
                            / left
                            * self.hand(o, tuple(sorted((*cards, c))), stake + extra, new_last, tw, hands, nh)
                        )
                bestv = max(bestv, acc)
        return float(bestv)


def _out(*cards: int) -> tuple[int, ...]:
    o = [0] * NCLASS
    for c in cards:
        o[c] += 1
    return tuple(o)


def resplit_values(model: SplitModel, x: int, world: OwnWorld) -> tuple[np.ndarray, np.ndarray]:
    """For the split of x-x: ``ra[c2]`` the value of splitting the first hand x-x again at its start (the second
    hand's second card ``c2``), and ``rb[e]`` that of splitting the second hand x-x again at its start, the
    first hand ended as ``e`` (an end of ``split_fast.hand_graph``); each everything from there on, the banker's
    Pontoon included (-inf where the cards cannot be)."""
    hg = model.graph(x)[0]
    counts = world.counts
    ra = np.full(NCLASS, -np.inf)
    for c2 in range(NCLASS):
        out = _out(x, x, x, c2)
        if all(out[c] <= counts[c] for c in range(NCLASS)):
            ra[c2] = world.pontoon(out) + world.split_again(out, ((x, c2),), 2)
    rb = np.full(len(hg.e_mset), -np.inf)
    for e in range(len(hg.e_mset)):
        m1 = hg.mcnt[hg.e_mset[e]]
        out = tuple(int(v) for v in m1 + np.array(_out(x, x)))  # the first hand's cards, the second's x-x
        if any(out[c] > counts[c] for c in range(NCLASS)):
            continue
        cards = tuple(c for c in range(NCLASS) for _ in range(int(m1[c])))
        first = world.ended(out, cards, float(hg.e_stake[e]))
        rb[e] = world.pontoon(out) + first + world.split_again(out, (), 2)
    return ra, rb


def split_with_resplits(
    model: SplitModel, x: int, be: Any, nphi: int, twist_three: np.ndarray, compiled: bool = True
) -> tuple[SplitRun, SplitRun]:
    """The player's best split of x-x against the banker's play facing two hands ``be`` (as ``SplitModel.run``)
    and, facing three or four, ``twist_three`` (his own cards): the run without resplits and the run with them
    (the same passes, a resplit taken at a hand's start where it is worth more); the resplits valued by the
    compiled world (``split_resplit_fast.FastWorld``) or, ``compiled`` False, by ``OwnWorld``."""
    plain = model.run(x, be, nphi)
    if not can_resplit(model, x):
        return plain, plain
    if compiled:
        from pontoon.analysis.british.split_resplit_fast import FastWorld

        ra, rb = FastWorld(model, x, twist_three).resplit_values()
    else:
        ra, rb = resplit_values(model, x, OwnWorld(model, x, twist_three))
    return plain, model.run(x, be, nphi, resplit=(ra, rb))


class PairOffer(NamedTuple):
    """A pair the profile's player may split (``pair_offers``): its rank ``x`` and name (``"88"``), the banker's
    ends facing the split (``split_banker.class_ends`` of the profile's play), the chance per round of being dealt
    it with the split offered, and its value unsplit."""

    x: int
    name: str
    ends: Any
    chance: float
    keep: float


def pair_offers(
    g: Game, model: SplitModel, dev: dict[str, Any], twists: dict[int, np.ndarray]
) -> Iterator[PairOffer]:
    """The pairs of the profile's split deviation ``dev`` that the rules let split, each with the banker's ends under
    his play facing the split (``twists[x]``, ``with_split_banker``; the simple banker for the pairs absent): the
    loop that ``resplit_profile`` and ``split_resplit_bound.bound_profile`` share."""
    from pontoon.analysis.british.game import NAMES
    from pontoon.analysis.british.split_banker import class_ends, simple_play
    from pontoon.analysis.british.split_fast import SPLIT_CLASSES, splittable

    n = g.total_cards
    for x in splittable(g.rules, model.counts):
        name = NAMES[x] * 2
        pair = dev["pairs"].get(name)
        if pair is None:
            continue
        play = twists.get(x)
        if play is None:  # the simple banker, whatever he sees of the split hands
            play = np.tile(simple_play(g), (SPLIT_CLASSES * SPLIT_CLASSES, 1))
        k = int(g.counts[x])
        p = (k / n) * ((k - 1) / (n - 1)) * pair.get("splittable_share", 1.0)  # 003: tens only of one rank
        yield PairOffer(x, name, class_ends(g, play), p, float(pair["no_split"]))


def resplit_profile(
    g: Game, dev: dict[str, Any], twists: dict[int, np.ndarray], banker_br: float
) -> dict[str, Any]:
    """The profile's exploitability with resplits (issue 27): the player's best response with splits and resplits
    against the profile's banker facing a split (``twists[x]``, his play per class of what he sees of two hands,
    ``with_split_banker``; the simple banker for the pairs absent) and facing three or four hands (the house
    banker), each pair's split valued with resplits exactly (``split_with_resplits``, compiled); the banker's best
    response unchanged (the profile never splits). Per pair: the split without and with resplits and the pair
    unsplit; ``player_best_response_without_resplits`` is ``with_split_banker``'s figure again, by this route;
    ``three_or_four_bound`` the most that any other play of the banker facing three or four hands (his exact best
    response included) could lower the exploitability with resplits: the resplits' whole gain."""
    import time

    from pontoon.analysis.british.split_fast import SPLIT_CLASSES

    t0 = time.perf_counter()
    model = SplitModel(g.rules, g)
    house = house_play(g)
    plain_br = resplit_br = float(dev["without_splits"])
    pairs: dict[str, dict[str, Any]] = {}
    for x, name, ends, p, keep in pair_offers(g, model, dev, twists):
        t = time.perf_counter()
        plain, withr = split_with_resplits(model, x, ends, SPLIT_CLASSES, house)
        plain_br += p * max(0.0, plain.value - keep)
        resplit_br += p * max(0.0, withr.value - keep)
        pairs[name] = {
            "no_split": keep,
            "split": plain.value,
            "split_with_resplits": withr.value,
            "resplit_valued": can_resplit(model, x),
            "seconds": time.perf_counter() - t,
        }
    return {
        "player_best_response_without_resplits": plain_br,
        "player_best_response_with_resplits": resplit_br,
        "exploitability_with_resplits": resplit_br - banker_br,
        "banker_facing_three_or_four": f"the house banker (twists below {HOUSE_STAYS_ON})",
        # no play of the banker facing three or four hands lowers the player's best response below the one without
        # resplits (he may always decline them; without them that banker is never met): what it could gain at most
        "three_or_four_bound": resplit_br - plain_br,
        "pairs": pairs,
        "seconds": time.perf_counter() - t0,
    }
