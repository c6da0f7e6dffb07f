"""``pontoon play --count SYSTEM``: a running and true count of the cards this seat has seen.

Ruling 35: every figure comes from the seat's own view: the cards dealt face up in the rounds it
watched (every box's hands and the dealer's cards; a card burned face down is not seen, so it is
not counted) and the rules' number of decks. Decks left are estimated as a counter does, from the
cards seen since the shuffle, not read from the shoe. The count starts at the system's IRC when the
seat sees a new shoe shuffled.
"""

from __future__ import annotations

from typing import Any

from pontoon.analysis.counts import CountSystem, find_system
from pontoon.analysis.states import shoe_counts, value_index
from pontoon.rules.model import CasinoRules


class CountReadout:
    def __init__(self, rules: CasinoRules, system: str | CountSystem) -> None:
        self.rules = rules
        self.system = find_system(system) if isinstance(system, str) else system
        self.deck = int(shoe_counts(rules.pack, 1).sum())
        self.total = self.deck * rules.decks
        self.shoe: int | None = None
        self.reset()

    def reset(self) -> None:
        self.running = self.system.irc(self.rules.pack, self.rules.decks)
        self.seen = 0

    def add(self, cards: list[Any]) -> None:
        for c in cards:
            self.running += self.system.tags[value_index(c.rank)]
            self.seen += 1

    @property
    def true_count(self) -> float:
        left = max(self.total - self.seen, 1)
        return self.running / (left / self.deck)

    def line(self) -> str:
        left = (self.total - self.seen) / self.deck
        return (
            f"count ({self.system.name}): running {self.running:+g}, true {self.true_count:+.1f} "
            f"({self.seen} cards seen, about {left:.1f} decks left)"
        )

    def after_round(self, console: Any, rnd: Any, shoes_used: int) -> None:
        """Count the cards the round showed (every hand and the dealer's), then print the readout;
        ``shoes_used`` (the table's shoe number) tells when a new shoe was shuffled in."""
        if self.shoe is not None and shoes_used != self.shoe:
            self.reset()
        self.shoe = shoes_used
        cards = [c for h in rnd.all_hands() for c in h.cards] + list(rnd.dealer)
        self.add(cards)
        console.print(f"[cyan]{self.line()}[/cyan]")
