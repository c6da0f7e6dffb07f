"""A split as the player's deviation from the heads-up solution (issue 27; 003 Split your cards).

The solved game does not offer splits. Here the value of splitting a pair once is computed exactly, the two
hands then played best, against the banker the table's bots give: facing a split hand the solved banker is off
his model (a split hand shows its first card face up, which no state of the solved game does), and the level
bots then play the documented simple banker (``pontoon.british.bots``: stays on 17 or more, twists below, and
twists four cards of hard 11 or less for a sure Five Card Trick), a play that reads his own cards only.

Exact by enumeration over the pack, composition-dependent: the pair's two hands each get a card at once (003
"The banker immediately deals another card face down to each of your hands"), so the player knows both hands'
second cards when he plays the first; each hand is played to its end (stick, twist, buy within 003's limits on
its own initial stake), the first hand's result and cards known when the second is played; the banker's
outcome distribution is that of the simple banker from the cards left (his two cards are exchangeable draws,
his Pontoon a payment of the initial stake before the split: 003 "immediately exposed"). Two ten-value cards
split only where they are "actually equal" (003): the split's value is that of the class (cards by points), and the
deviation weights it by the chance that the pair is of one rank (``split_fast.same_rank_share``). Not offered: a
second split of a split hand (003 allows up to four hands), so the value is a lower bound on what splitting is
worth. A split
hand's two-card 21 is not a Pontoon (003 New Deal "without splitting"; rul 21 in the engine).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from pontoon.analysis.british.game import (
    BUST,
    NCLASS,
    Game,
    best,
    hard,
    is_pontoon,
    multiset_p,
)
from pontoon.analysis.british.split_fast import same_rank_share, split_values_fast, splittable
from pontoon.analysis.british.values import Tables, _u, player_q
from pontoon.rules.british import BritishRules

SIMPLE_STAND_ON = 17  # pontoon.british.bots.BankerPolicy.stand_on


def simple_banker(
    counts: tuple[int, ...], pontoon: tuple[int, ...], twists: Callable[[tuple[int, ...]], bool] | None = None
) -> Callable[[tuple[int, ...]], Any]:
    """The simple banker's outcome distribution, cached by the cards out of the pack: ``f(removed)`` gives
    (outcome, joint chance) pairs, 0 bust, 1 five, else his total, his first two cards not a Pontoon;
    ``twists(hand)``: another pure play reading his own cards (where he may twist: hard total under 21)."""
    n_total = sum(counts)

    @cache
    def banker_dist(removed: tuple[int, ...]) -> tuple[tuple[int, float], ...]:
        left = [counts[i] - removed[i] for i in range(NCLASS)]
        out: dict[int, float] = {}

        def play(hand: tuple[int, ...], p: float, left_n: int) -> None:
            h = hard(hand)
            if h > 21:
                out[0] = out.get(0, 0.0) + p
                return
            if len(hand) == 5:
                out[1] = out.get(1, 0.0) + p
                return
            if twists is not None:
                twist = h < 21 and twists(hand)
            else:
                twist = h < 21 and (best(hand) < SIMPLE_STAND_ON or (len(hand) == 4 and h <= 11))
            if not twist:
                out[best(hand)] = out.get(best(hand), 0.0) + p
                return
            for c in range(NCLASS):
                k = left[c] - hand.count(c)
                if k > 0:
                    play(tuple(sorted((*hand, c))), p * k / left_n, left_n - 1)

        n = n_total - sum(removed)
        for a in range(NCLASS):
            for b in range(a, NCLASS):
                pair = (a, b)
                if is_pontoon(pair, pontoon):
                    continue
                ka = left[a]
                kb = left[b] - (a == b)
                if ka <= 0 or kb <= 0:
                    continue
                p = (ka * kb * (1 if a == b else 2)) / (n * (n - 1))
                play(pair, p, n - 2)
        return tuple(sorted(out.items()))

    return banker_dist


def split_values(rules: BritishRules, g: Game) -> dict[int, float]:
    """Per splittable class ``x``: the exact value of splitting the pair x-x (both hands played best against the
    simple banker), the banker's Pontoon included, per initial stake, as the root value of ``player_q``: the
    compiled passes of ``split_fast`` (seconds on 52 or 104 cards), equal to ``split_values_enumerated``."""
    return split_values_fast(rules, g)


def split_values_enumerated(
    rules: BritishRules, g: Game, twists: Callable[[tuple[int, ...]], bool] | None = None
) -> dict[int, float]:
    """``split_values`` by the enumeration of ``split_model`` (reduced packs: more than 10 minutes on 52 cards);
    ``twists``: the banker's pure play facing the split (his own cards; default the simple banker)."""
    return split_model(rules, g, twists)[0]


def split_model(
    rules: BritishRules, g: Game, twists: Callable[[tuple[int, ...]], bool] | None = None
) -> tuple[dict[int, float], Callable[..., dict[str, float]]]:
    """``split_values`` and the function giving each decision's value at a split hand: ``options(removed,
    hand, stake, last_buy, twisted, done, rest)`` (cards as class counts and sorted classes)."""
    counts = tuple(int(x) for x in g.counts)
    n_total = sum(counts)
    r = rules
    fp = float(r.five_card_trick_pays)
    collects = float(r.banker_pontoon_collects)
    pontoon = g.pontoon

    banker_dist = simple_banker(counts, pontoon, twists)

    def settle(removed: tuple[int, ...], results: tuple[tuple[str, int, float], ...]) -> float:
        """The value of the finished hands ``(kind, total, stake)`` against the banker, his Pontoon included."""
        used = tuple(i for i in range(NCLASS) for _ in range(removed[i]))
        value = -collects * multiset_p(g.counts, used, pontoon)  # on the initial stake, before the split
        fixed = sum(
            -s if k == BUST else float(r.royal_pontoon_pays) * s if k == "royal" else 0.0
            for k, _, s in results
        )
        for out, p in banker_dist(removed):
            pay = fixed
            for k, t, s in results:
                if k in ("stuck", "five"):
                    pay += s * _u(t, out, fp)
            value += p * pay
        return value

    @cache
    def _hand(
        removed: tuple[int, ...],
        hand: tuple[int, ...],
        stake: float,
        last: float,
        twisted: bool,
        done: tuple[tuple[str, int, float], ...],
        rest: tuple[tuple[int, ...], ...],
    ) -> float:
        """The best value from this hand on: ``done`` the finished hands, ``rest`` the hands still to play."""
        opts = options(removed, hand, stake, last, twisted, done, rest)
        return max(opts.values())

    def options(
        removed: tuple[int, ...],
        hand: tuple[int, ...],
        stake: float,
        last: float,
        twisted: bool,
        done: tuple[tuple[str, int, float], ...],
        rest: tuple[tuple[int, ...], ...],
    ) -> dict[str, float]:
        """Each decision's value at a hand (``end`` where the hand is over), the later ones played best."""
        h, n = hard(hand), len(hand)

        def finish(res: tuple[str, int, float], rem: tuple[int, ...]) -> float:
            allres = (*done, res)
            if rest:
                return _hand(rem, rest[0], 1.0, 2.0, False, allres, rest[1:])
            return settle(rem, allres)

        if h > 21:
            return {"end": finish((BUST, 0, stake), removed)}  # 003 "you are bust"
        if n == 5:
            return {"end": finish(("five", 22, stake), removed)}  # 003 Five Card Trick
        opts: dict[str, float] = {}
        if r.stick_minimum <= best(hand) <= 21:
            royal = r.royal_pontoon and hand == (6, 6, 6)  # 003 variation: three sevens
            opts["stick"] = finish(("royal", 0, stake) if royal else ("stuck", best(hand), stake), removed)
        if h < 21:
            left_n = n_total - sum(removed)
            draws = [(c, (counts[c] - removed[c]) / left_n) for c in range(NCLASS) if counts[c] > removed[c]]

            def after(extra: float, now_twisted: bool, new_last: float) -> float:
                acc = 0.0
                for c, p in draws:
                    rem = tuple(removed[i] + (i == c) for i in range(NCLASS))
                    acc += p * _hand(
                        rem, tuple(sorted((*hand, c))), stake + extra, new_last, now_twisted, done, rest
                    )
                return acc

            opts["twist"] = after(0.0, True, last)  # 003 Twist
            buy_ok = not twisted and not (r.no_buy_fifth_at_11_or_less and n == 4 and h <= 11)
            if buy_ok:
                for amount in (
                    1.0,
                    2.0,
                ):  # 003 Buy: between the initial stake and the previous buy (or twice)
                    if amount <= last:
                        opts[f"buy{amount:g}"] = after(amount, False, amount)
        return opts

    out: dict[int, float] = {}
    n = n_total
    for x in splittable(r, g.counts):
        value = 0.0
        for c1 in range(NCLASS):
            for c2 in range(NCLASS):
                rem0 = [0] * NCLASS
                rem0[x] += 2
                k1 = counts[c1] - rem0[c1]
                if k1 <= 0:
                    continue
                rem0[c1] += 1
                k2 = counts[c2] - rem0[c2]
                if k2 <= 0:
                    continue
                rem0[c2] += 1
                p = k1 / (n - 2) * k2 / (n - 3)
                value += p * _hand(
                    tuple(rem0), tuple(sorted((x, c1))), 1.0, 2.0, False, (), (tuple(sorted((x, c2))),)
                )
        out[x] = value
    return out, options


def split_deviation(g: Game, tb: Tables, tw: np.ndarray) -> dict[str, Any]:
    """The player's best response to the solved banker ``tw`` with a split as a further option at his pairs (the
    banker facing a split playing the simple banker), and what each split is worth against not splitting."""
    from pontoon.analysis.british.game import NAMES

    _, v, base = player_q(g, tb, tw)
    splits = split_values(g.rules, g)
    total = 0.0
    per_pair: dict[str, dict[str, float]] = {}
    for n, p in g.roots:
        cards = g.terminals[-1 - n].cards if n < 0 else g.nodes[n].cards
        keep = float(tb.fixed[-1 - n]) if n < 0 else float(v[n])
        if n >= 0 and cards[0] == cards[1] and cards[0] in splits:
            x = cards[0]
            share = same_rank_share(g.rules, x)  # 003: ten-value cards only "actually equal"
            per_pair[NAMES[x] * 2] = {"split": splits[x], "no_split": keep, "splittable_share": share}
            keep = share * max(keep, splits[x]) + (1.0 - share) * keep
        total += p * keep
    return {"player_best_response_with_splits": total, "without_splits": float(base), "pairs": per_pair}
