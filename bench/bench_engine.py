"""Rounds per second of the reference casino round engine (issue 2).

Plays rounds from a shuffled shoe (reshuffled at the cut card), one box, a simple fixed policy
(hit below 17, otherwise stand; forced draws obeyed), for each casino preset. The baseline in the
same process is the bare cost of shuffling and dealing the same number of cards, so the ratio says
how much the rules machinery costs over just moving cards.
"""

from __future__ import annotations

import sys
import time

from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.rules import find_rules
from pontoon.shoe import Shoe, make_rng


def play(preset: str, rounds: int, seed: int = 1) -> tuple[float, int]:
    rules = find_rules(preset)
    rng = make_rng(seed)
    shoe = Shoe.shuffled(rules.decks, rng, pack=rules.pack)
    cards = 0
    t0 = time.perf_counter()
    for _ in range(rounds):
        if shoe.needs_shuffle:
            shoe = Shoe.shuffled(rules.decks, rng, pack=rules.pack)
        rnd = CasinoRound(rules, shoe, rng=rng)
        rnd.place_bet(1, "ann", "main", 10)
        rnd.close_bets()
        while not rnd.is_over():
            h = rnd.current
            assert h is not None
            total, _ = h.total()
            verb = "hit" if total < 17 and rnd.can(Action("hit", h.box)) else "stand"
            rnd.act(Action(verb, h.box))
        cards += len(rnd.cards_in_play())
    return time.perf_counter() - t0, cards


def deal_only(cards: int, seed: int = 1) -> float:
    rules = find_rules("mbs")
    rng = make_rng(seed)
    shoe = Shoe.shuffled(rules.decks, rng)
    t0 = time.perf_counter()
    for _ in range(cards):
        if shoe.needs_shuffle:
            shoe = Shoe.shuffled(rules.decks, rng)
        shoe.draw()
    return time.perf_counter() - t0


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    print(f"reference engine, {rounds} rounds per preset, one box, hit below 17")
    for preset in ("mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"):
        secs, cards = play(preset, rounds)
        base = deal_only(cards)
        print(
            f"{preset:16} {rounds / secs:10,.0f} rounds/s   {cards / rounds:.2f} cards/round   "
            f"engine/deal-only time ratio {secs / base:6.1f}x"
        )


if __name__ == "__main__":
    main()
