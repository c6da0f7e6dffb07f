"""Every deal of a pack played through the British engine, for the exactness check (issue 27).

``engine_value`` plays heads-up rounds of ``BritishRound`` with strategy tables read from the seats' views
(``infosets``) and sums the player's net over every order of the pack that the round can reach, weighted by
its exact chance (``Fraction``). Each branch replays the round from the start with a pack that deals the
cards chosen so far and asks for the next one: the engine alone decides what is dealt, when and to whom.
Meant for reduced packs (rules ``pack_ranks``/``pack_suits``): the work grows with the pack's variety.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from pontoon.analysis.british.infosets import banker_observation, card_class, player_state
from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.cards import Card
from pontoon.protocol import SPECTATOR
from pontoon.rules.british import BritishRules

PlayerPolicy = Callable[[tuple[Any, ...]], dict[str, float]]  # state -> {action: probability}
BankerPolicy = Callable[[tuple[Any, ...], tuple[Any, ...] | None], float]  # (hand, observation) -> P(twist)
StakePolicy = Callable[[int], dict[str, float]]  # first card class -> {stake in money: probability}
DoublePolicy = Callable[[int], float]  # the banker's first card class -> his chance of doubling
SplitPolicies = tuple[Callable[[Any, Any], dict[str, float]], Callable[[Any, Any], float]]


class _Need(Exception):
    pass


class _ProbePack(BritishPack):
    """Deals the cards of ``script`` in order, then asks for more (the engine's pack, whose running
    out the round would take for an exhausted pack: hence its own exception)."""

    def __init__(self, cards: list[Card]) -> None:
        super().__init__((), stacked=True)
        self.script = cards
        self.i = 0

    def draw(self) -> Card:
        if self.i >= len(self.script):
            raise _Need
        self.i += 1
        return self.script[self.i - 1]

    def to_bottom(self, cards: Iterable[Card]) -> None:
        pass  # a busted hand heads-up ends the round: its cards are never dealt again

    def __len__(self) -> int:
        return 10**6


def _play(
    rules: BritishRules,
    cards: list[Card],
    acts: list[str],
    player: PlayerPolicy,
    banker: BankerPolicy,
    kind: str = "total",
    stake: StakePolicy | None = None,
    double: DoublePolicy | None = None,
    split: SplitPolicies | None = None,
) -> tuple[str, Any]:
    """Replay; return ("card", None), ("act", options) or ("end", net of ``kind``: total, stake or shoot).
    In Shoot Pontoon the player shoots one stake before his second card (003 Shoot) and never later.
    With ``stake`` the player's initial stake is his choice at his first card, and both policies are called
    with it (``((s, *state))`` and ``(hand, (s, observation))``, ``s`` the stake in money); else it is 1.
    With ``double`` (banker_may_double) the banker doubles with its chance at his first card, and both
    policies are called with the multiplier the same way (``(m, *state)``, ``(hand, (m, observation))``).
    With ``split`` (a pair of policies) the player may answer ``split``; once he has, his decisions are the
    first policy's (his own view and the public view) and the banker's the second's (his view, the legal
    actions)."""
    pack = _ProbePack(cards)
    ai = 0
    initial = "1"
    try:
        rnd = BritishRound(rules, ["p"], "b", pack, kitty=100 if rules.shoot else 0)
        while not rnd.is_over():
            seat = rnd.to_act()
            assert seat is not None
            if rnd.phase == "stake" and stake is None:
                rnd.act("p", "stake", "1")
                continue
            if rnd.phase == "shoot":
                rnd.act("p", "shoot", "1")
                continue
            pictures = rules.ace_ten_not_pontoon
            pre = (Decimal(initial),) if stake is not None else (rnd.mult,) if double is not None else ()
            if rnd.phase == "double":
                assert double is not None  # 003 variation: "looks at his own first card"
                d = double(card_class(rnd.view("b")["banker_cards"][0], pictures))
                dist = {a: w for a, w in (("double", d), ("pass", 1 - d)) if w > 0}
            elif rnd.phase == "stake":
                assert stake is not None  # 003: he stakes after looking at his first card
                first = card_class(rnd.view("p")["hands"][0]["cards"][0], pictures)
                dist = {a: w for a, w in stake(first).items() if w > 0}
            elif (
                split is not None
                and len(rnd.view("p")["hands"]) > 1
                and (seat == "p" or rnd.phase == "banker")
            ):
                if seat == "p":
                    dist = {a: w for a, w in split[0](rnd.view("p"), rnd.view(SPECTATOR)).items() if w > 0}
                else:
                    tw = split[1](rnd.view("b"), rnd.legal_actions("b"))
                    dist = {a: w for a, w in (("twist", tw), ("stick", 1 - tw)) if w > 0}
            elif seat == "p":
                st = player_state(rnd.view("p"), rnd.view(SPECTATOR), initial, pictures)
                dist = {a: w for a, w in player((*pre, *st) if pre else st).items() if w > 0}
            else:
                hand, obs = banker_observation(rnd.view("b"), initial, pictures)
                seen = (*pre, obs) if pre and obs is not None else obs
                tw = banker(hand, seen)
                dist = {a: w for a, w in (("twist", tw), ("stick", 1 - tw)) if w > 0}
            if len(dist) > 1:
                if ai >= len(acts):
                    return "act", dist
                a = acts[ai]
                ai += 1
            else:
                (a,) = dist
            if rnd.phase == "stake":
                initial = a  # the stake the banker sees placed (003: "in front of them")
                rnd.act("p", "stake", a)
            elif a.startswith("buy"):
                rnd.act(seat, "buy", str(Decimal(a[3:]) * Decimal(initial)))  # buys in initial stakes
            else:
                rnd.act(seat, a)
    except _Need:
        return "card", None
    if rnd.phase == "void":
        raise AssertionError("the pack ran out: use a pack of at least ten cards heads-up")
    return "end", Fraction(rnd.net()["p"][kind])


def engine_sample(
    rules: BritishRules, player: PlayerPolicy, banker: BankerPolicy, rounds: int, rng: np.random.Generator
) -> tuple[float, float]:
    """The player's mean net per round (stake 1) and its standard error over ``rounds`` rounds of the engine,
    each from a freshly shuffled pack, mixed strategies sampled with ``rng``: a check of the exact values on
    packs too large to enumerate."""
    total = total2 = 0.0
    for _ in range(rounds):
        rnd = BritishRound(rules, ["p"], "b", BritishPack.shuffled(rules.packs_for(2), rng, one_pack(rules)))
        while not rnd.is_over():
            seat = rnd.to_act()
            assert seat is not None
            if rnd.phase == "stake":
                rnd.act("p", "stake", "1")
                continue
            if seat == "p":
                dist = player(
                    player_state(rnd.view("p"), rnd.view(SPECTATOR), "1", rules.ace_ten_not_pontoon)
                )
            else:
                hand, obs = banker_observation(rnd.view("b"), "1", rules.ace_ten_not_pontoon)
                tw = banker(hand, obs)
                dist = {"twist": tw, "stick": 1 - tw}
            names = list(dist)
            a = names[int(rng.choice(len(names), p=np.array([dist[n] for n in names]) / sum(dist.values())))]
            if a.startswith("buy"):
                rnd.act(seat, "buy", a[3:])
            else:
                rnd.act(seat, a)
        x = float(rnd.net()["p"]["total"])
        total += x
        total2 += x * x
    mean = total / rounds
    return mean, float(np.sqrt(max(total2 / rounds - mean * mean, 0.0) / rounds))


def engine_value(
    rules: BritishRules,
    player: PlayerPolicy,
    banker: BankerPolicy,
    kind: str = "total",
    stake: StakePolicy | None = None,
    double: DoublePolicy | None = None,
    split: SplitPolicies | None = None,
) -> Fraction:
    """The player's exact expected net per round (stake 1, or ``stake``'s choice: see ``_play``) over every
    deal of ``rules``' pack heads-up (``kind``: ``total``, or ``shoot``: a one-stake shoot bet before the second
    card, Shoot Pontoon)."""
    pack = one_pack(rules) * rules.packs_for(2)
    total = Fraction(0)
    stack: list[tuple[list[Card], list[str], Fraction]] = [([], [], Fraction(1))]
    while stack:
        cards, acts, p = stack.pop()
        what, x = _play(rules, cards, acts, player, banker, kind, stake, double, split)
        if what == "end":
            total += p * x
        elif what == "act":
            for a, w in x.items():
                stack.append((cards, [*acts, a], p * Fraction(w)))
        else:
            left = Counter(pack) - Counter(cards)
            n = sum(left.values())
            if n == 0:  # the engine would deal the cards put under the pack: not what the model assumes
                raise AssertionError("the pack ran out: use a larger reduced pack")
            by_rank: dict[str, tuple[Card, int]] = {}
            for c, k in left.items():
                r = by_rank.get(c.rank)
                by_rank[c.rank] = (c, k + (r[1] if r else 0))
            for c, k in by_rank.values():
                stack.append(([*cards, c], acts, p * Fraction(k, n)))
    return total
