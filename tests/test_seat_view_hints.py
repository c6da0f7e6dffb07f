"""Rulings 35: a hint, a count, an observation shown to a seat depend only on what that seat can see.

Blackjack's hole card is dealt face down: two rounds identical in everything the seat sees but with
different hole cards must show the same figures (``pontoon play --hints``, ``pontoon train``, the RL
env's ``counts=True`` observation). Before the fix each was computed from the shoe's remaining cards,
which no longer held the hole card, so recomputing with each possible hole card removed matched the
real one only. The expected values here are computed independently: the full composition less the
cards the seat saw, handed to ``action_values``.
"""

from __future__ import annotations

import io
import re
from collections import Counter

import numpy as np
import pytest
from rich.console import Console

from pontoon.analysis.hints import action_values
from pontoon.cards import Card, pack_cards
from pontoon.casino.round import CasinoRound
from pontoon.rl.casino_env import PontoonEnv, casino_rules
from pontoon.shoe import Shoe

RULES = casino_rules("blackjack", {"decks": 1})  # one deck: one card's removal moves the figures most


def _shoes(seed: int) -> tuple[list[Card], list[Card]] | None:
    """A shuffled one-deck shoe and the same shoe with its hole card (4th card: box, dealer, box,
    hole) swapped with a later card of another point value: a 5 and a ten-value card, the two ranks
    whose removal moves the figures most. None when the seed's deal ends before a decision."""
    cards = list(Shoe.shuffled(1, seed, pack=RULES.pack).remaining_cards())
    p1, up, p2 = cards[0], cards[1], cards[2]
    if up.is_ace or up.is_ten_value or {p1.rank, p2.rank} & {"A"}:
        return None  # no peek, no natural: the player has a decision
    if sorted((p1.points, p2.points)) == [10, 10]:
        return None
    holes = [i for i in range(3, len(cards)) if cards[i].points in (5, 10)]
    five = next((i for i in holes if cards[i].points == 5), None)
    ten = next((i for i in holes if cards[i].points == 10), None)
    if five is None or ten is None:
        return None
    a, b = list(cards), list(cards)
    for deck, i in ((a, five), (b, ten)):
        deck[3], deck[i] = deck[i], deck[3]
    return a, b


def _pair() -> tuple[list[Card], list[Card]]:
    for seed in range(200):
        got = _shoes(seed)
        if got is not None:
            return got
    raise AssertionError("no shoe found")


def _round(cards: list[Card]) -> CasinoRound:
    rnd = CasinoRound(RULES, Shoe(cards, pack=RULES.pack, decks=RULES.decks), rng=1)
    rnd.place_bet(1, "you", "main", RULES.table_min)
    rnd.close_bets()
    assert rnd.current is not None and rnd.view("you")["dealer"][1] == "??"
    return rnd


def _seat_values(rnd: CasinoRound, seat: str = "you") -> dict[str, float]:
    """What the seat can work out itself: the deck less its hand and the up card (the hole unseen)."""
    h = rnd.current
    assert h is not None
    seen = Counter(c.rank for c in [*h.cards, rnd.dealer[0]])
    left = Counter(c.rank for c in pack_cards(RULES.pack)) - seen
    legal = [a.verb for a in rnd.legal_actions(seat) if a.box == h.box]
    return action_values(RULES, left, list(h.cards), rnd.dealer[0], legal=legal)


def _shown(rnd: CasinoRound) -> dict[str, float]:
    from pontoon.cli.play import show_hints

    out = io.StringIO()
    show_hints(Console(file=out, width=200, color_system=None), rnd, "you")
    return {v: float(x) for v, x in re.findall(r"(\w+) ([+-]\d+\.\d+)", out.getvalue())}


def test_play_hints_are_the_same_whatever_the_hole_card() -> None:
    a, b = _pair()
    ra, rb = _round(a), _round(b)
    assert ra.dealer[1].points != rb.dealer[1].points
    assert ra.view("you") == rb.view("you")  # the seat sees the same round
    sa, sb = _shown(ra), _shown(rb)
    assert sa and sa == sb
    want = _seat_values(ra)
    assert sa == {v: round(x, 4) for v, x in want.items()}
    # the old leak: the figure with the real hole card taken out of the unseen cards differs
    h = ra.current
    assert h is not None
    leak = Counter(c.rank for c in ra.shoe.remaining_cards())
    leaked = action_values(RULES, leak, list(h.cards), ra.dealer[0], legal=list(want))
    assert any(abs(leaked[v] - want[v]) > 1e-4 for v in want)


def test_train_values_are_the_same_whatever_the_hole_card() -> None:
    from pontoon.cli.train import action_values_now

    a, b = _pair()
    got = []
    for cards in (a, b):
        env = PontoonEnv(RULES)
        env.shoe = Shoe(cards, pack=RULES.pack, decks=RULES.decks)
        env.reset()
        assert env.round is not None
        got.append((action_values_now(env, env.legal_verbs()), _seat_values(env.round, "agent")))
    (va, wa), (vb, _wb) = got
    assert va == vb
    assert va == pytest.approx(wa, abs=1e-12)


def test_rl_counts_are_the_cards_the_agent_has_not_seen() -> None:
    a, b = _pair()
    obs = []
    for cards in (a, b):
        env = PontoonEnv(RULES, counts=True)
        env.shoe = Shoe(cards, pack=RULES.pack, decks=RULES.decks)
        o, _ = env.reset()
        obs.append(o["shoe"])
        rnd = env.round
        assert rnd is not None
        seen = [*rnd.boxes[1].hands[0].cards, rnd.dealer[0]]
        want = np.bincount([c.points - 1 for c in pack_cards(RULES.pack)], minlength=10)
        for c in seen:
            want[c.points - 1] -= 1
        assert o["shoe"].tolist() == want.tolist()  # the hole card counts as unseen
    assert obs[0].tolist() == obs[1].tolist()


def test_rl_counts_take_the_earlier_rounds_and_the_turned_hole_card() -> None:
    """Over a shoe the count is the composition less every card dealt face up: earlier rounds (all
    face up at their end) and this round's; the hole card once turned over is seen."""
    env = PontoonEnv(RULES, counts=True)
    o, info = env.reset(seed=5)
    whole = np.bincount([c.points - 1 for c in pack_cards(RULES.pack)], minlength=10)
    for _ in range(12):
        rnd = env.round
        assert rnd is not None and env.shoe is not None
        dealt = list(env.shoe.dealt_cards())
        if rnd.view("agent")["dealer"].count("??"):
            del dealt[rnd.first_dealt + 3]  # box, up card, box, hole: the face-down card is unseen
        counted = whole.copy()
        for c in dealt:
            counted[c.points - 1] -= 1
        assert o["shoe"].tolist() == counted.tolist()
        if env._core.over:
            o, info = env.reset()
        else:
            o, _r, _d, _t, info = env.step(1)  # stand
