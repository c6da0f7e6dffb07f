"""The heads-up British game (003) as the exact analysis sees it: card classes, the player's states, the
banker's observations and hands, and the exact card probabilities of the pack.

Abstractions, each exact (docs/analysis.md "British Pontoon"):
- cards by point value (A, 2 .. 9, ten-value): no rule modelled here looks at a suit, and which ten-value card
  it is matters only to the Pontoon rank variations: with ``ace_ten_not_pontoon`` the ten-value cards are two
  classes (``T`` the tens, ``P`` the pictures), since A-10 is then an ordinary 21 for either side and the
  chance of the banker's Pontoon depends on the pictures left; the grades of ``ace_picture_beats_ace_ten``
  and ``natural_beats_plain`` only change what a player's Pontoon (a terminal dealt at once) wins against the
  banker's, an exact expectation over the ranks of the two ten-value cards (rul 29);
- a player's state is the multiset of his face-down cards (two dealt, then bought), his face-up (twisted)
  cards in order, and his buys: the order of his face-down cards changes neither the pack left nor what the
  banker sees, so every history with the same state has the same future (a perfect-recall refinement with
  identical continuations);
- the banker's observation ``o`` is what view(banker) shows of the player: the face-up cards in order, the
  number of cards and the stake (with buys on the grid {1, 2} x the initial stake, non-increasing, the stake
  and the count give the buys in order); his hand is the multiset of his cards (every order of his cards is
  equally likely whatever the player holds, so his posterior depends on the multiset only);
- the banker's and player's cards are exchangeable draws from the pack: the banker's two cards are treated
  as drawn after the player's, and his Pontoon (003 "immediately exposed") as a payment fixed before play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from typing import Any, Final

import numpy as np

from pontoon.errors import RulesError
from pontoon.rules.british import BritishRules

ACE: Final = 0  # class i counts min(i + 1, 10) points (ace 1 or 11 at the holder's choice: 003)
TEN: Final = 9  # every ten-value card, or only the tens where the pictures are a class of their own
PIC: Final = (
    10  # the pictures J Q K, a class only with ace_ten_not_pontoon (003 variation "A-10 is not a pontoon")
)
NCLASS: Final = 11
NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "P")
TENS: Final = "TJQK"
BUY_GRID: Final = (1, 2)  # 003 Buy: "at least equal to and not more than twice your initial stake"

Hand = tuple[int, ...]  # sorted classes (a multiset)


def points(c: int) -> int:
    return min(c + 1, 10)  # 003: "picture cards count 10"


def hard(cards: Hand) -> int:
    return sum(min(c + 1, 10) for c in cards)


def best(cards: Hand) -> int:
    """003: "ace is worth 1 or 11 at the holder's choice": the best total not over 21 where possible."""
    h = hard(cards)
    return h + 10 if ACE in cards and h + 10 <= 21 else h


def pontoon_pair(rules: BritishRules) -> Hand:
    """003: "21 points in two cards ... ace plus a picture card or ten" (rul 21); variation "A-10 is not a
    pontoon at all, but just an ordinary 21": then only an ace and a picture."""
    return (ACE, PIC) if rules.ace_ten_not_pontoon else (ACE, TEN)


def is_pontoon(cards: Hand, pair: Hand = (ACE, TEN)) -> bool:
    """Whether the sorted two cards ``cards`` are the Pontoon ``pair`` (``pontoon_pair(rules)``)."""
    return cards == pair


def class_of(rank: str, rules: BritishRules) -> int:
    """The class of a rank: its points - 1, the pictures a class of their own with ace_ten_not_pontoon."""
    if rank in "JQK" and rules.ace_ten_not_pontoon:
        return PIC
    return 0 if rank == "A" else TEN if rank in TENS else int(rank) - 1


def pontoon_grade(rank: str, rules: BritishRules) -> tuple[int, int]:
    """The engine's order among Pontoons by the ten-value card's rank (pontoon.british.ranking): 003 variations
    "A-K or A-Q is a natural pontoon, which beats a plain pontoon of A-J or A-10" and "a Pontoon consisting of an
    ace and a picture beats a Pontoon which is an ace and a ten"; equal grades go to the banker (rul 29)."""
    return int(rules.natural_beats_plain and rank in "KQ"), int(
        rules.ace_picture_beats_ace_ten and rank in "JQK"
    )


def check(rules: BritishRules, double: bool = False) -> None:
    """Refuse the variations the exact analysis does not model, naming them (exit 2 on the command line);
    ``double``: the banker's double is modelled (``double.py``)."""
    bad = []
    if rules.banker_may_double and not double:
        bad.append("banker_may_double")
    others = (
        rules.shoot or rules.banker_may_double or rules.natural_beats_plain or rules.ace_picture_beats_ace_ten
    )
    if rules.burn != "none" and others:
        bad.append(f"burn={rules.burn} with shoot, banker_may_double or the Pontoon grades")
    if bad:
        raise RulesError(
            "the British analysis does not model "
            + ", ".join(bad)
            + "; it covers the british and shoot presets and the variations stick_minimum, payouts, "
            "no_buy_fifth_at_11_or_less, royal_pontoon, packs, ace_ten_not_pontoon, ace_picture_beats_ace_ten, "
            "natural_beats_plain, banker_may_double and burn (one burn a round)"
        )


def check_seats(rules: BritishRules) -> None:
    """As ``check``, for the users of the solution at a table (bots, hints, drills, the RL evaluation), which
    read cards by point value: they also refuse ace_ten_not_pontoon (its pictures are a class of their own)."""
    check(rules)
    for name, on in (
        ("ace_ten_not_pontoon", rules.ace_ten_not_pontoon),
        (f"burn={rules.burn}", rules.burn != "none"),
    ):
        if on:
            raise RulesError(
                f"the British bots, hints and drills do not cover {name} (the analysis does: "
                f"pontoon analyze --rules british --set {name if '=' in name else name + '=true'})"
            )


def pack_counts(rules: BritishRules, people: int = 2) -> np.ndarray:
    """Cards per class in the pack (003 one pack, or two for 8 or more: rul 28; a reduced pack)."""
    n = np.zeros(NCLASS, dtype=np.int64)
    for r in rules.pack_ranks:
        n[class_of(r, rules)] += rules.pack_suits
    return n * rules.packs_for(people)  # rul 28: the banker counts among the people


def counts_of(cards: Hand) -> tuple[int, ...]:
    c = [0] * NCLASS
    for x in cards:
        c[x] += 1
    return tuple(c)


@dataclass
class PlayerState:
    hidden: Hand  # face-down cards (the two dealt, then bought), sorted
    up: tuple[int, ...]  # twisted cards, in order (003 Twist "face up")
    buys: tuple[float, ...]  # buy amounts in units of the initial stake (003 Buy)
    actions: list[str] = field(default_factory=list)  # "stick", "twist", "buy1", "buy2", "burn"
    children: dict[str, list[tuple[int, float, int]]] = field(default_factory=dict)  # a -> (class, p, node)
    burned: Hand = ()  # the two cards burned (003 variation; at most one burn in the model), sorted

    @property
    def cards(self) -> Hand:
        return tuple(sorted(self.hidden + self.up))

    @property
    def stake(self) -> float:
        return 1 + sum(self.buys)


# terminal kinds of the player's hand
BUST, PONTOON, ROYAL, FIVE, STUCK = "bust", "pontoon", "royal", "five", "stuck"


@dataclass
class Terminal:
    kind: str
    cards: Hand  # every card of the player (for the pack left)
    stake: float
    obs: int = -1  # index of the banker's observation (five and stuck only)
    total: int = 0  # the stuck total (five: 22)


@dataclass
class Game:
    """The analysed heads-up game for ``rules``: player nodes (a DAG), terminals, observations, banker hands."""

    rules: BritishRules
    counts: np.ndarray
    nodes: list[PlayerState]
    node_index: dict[tuple[Hand, tuple[int, ...], tuple[float, ...]], int]
    roots: list[tuple[int, float]]  # (node or -1 - terminal, probability of the first two cards)
    terminals: list[Terminal]
    term_index: dict[tuple[str, Hand, tuple[int, ...], tuple[float, ...]], int]
    obs: list[tuple[tuple[int, ...], tuple[float, ...]]]  # (face-up cards in order, buys)
    banker: list[Hand]  # banker hands, by size then order (pairs first)
    banker_index: dict[Hand, int]
    pontoon: Hand = (ACE, TEN)  # the Pontoon pair of classes (``pontoon_pair``)

    @property
    def total_cards(self) -> int:
        return int(self.counts.sum())


def draw_p(counts: np.ndarray, used: Hand, c: int) -> float:
    """Exact chance that the next card is of class ``c``, the cards ``used`` being out of the pack."""
    left = int(counts[c]) - used.count(c)
    return left / (int(counts.sum()) - len(used)) if left > 0 else 0.0


def multiset_p(counts: np.ndarray, used: Hand, hand: Hand) -> float:
    """Exact chance that the next ``len(hand)`` cards form the multiset ``hand`` (hypergeometric)."""
    num = 1
    cu, ch = counts_of(used), counts_of(hand)
    for i in range(NCLASS):
        if ch[i]:
            num *= comb(int(counts[i]) - cu[i], ch[i])
    return num / comb(int(counts.sum()) - len(used), len(hand))


def build(rules: BritishRules, buy_grid: tuple[float, ...] = BUY_GRID, double: bool = False) -> Game:
    """Every player state and terminal reachable heads-up, the banker's observations and hands; buys on
    ``buy_grid`` (multiples of the initial stake from 1 to 2: 003 Buy)."""
    check(rules, double)
    counts = pack_counts(rules)
    g = Game(rules, counts, [], {}, [], [], {}, [], [], {}, pontoon_pair(rules))
    obs_index: dict[tuple[tuple[int, ...], tuple[float, ...]], int] = {}

    def terminal(
        kind: str, hidden: Hand, up: tuple[int, ...], buys: tuple[float, ...], burned: Hand = ()
    ) -> int:
        key: tuple[Any, ...] = (kind, hidden, up, buys) + ((burned,) if burned else ())
        if key in g.term_index:
            return -1 - g.term_index[key]
        cards = tuple(sorted(hidden + up))
        t = Terminal(
            kind, tuple(sorted(cards + burned)), 1 + sum(buys)
        )  # the burned cards are out of the pack
        if kind in (FIVE, STUCK):
            o: tuple[Any, ...] = (up, buys) + ((burned,) if burned else ())  # 003: burned cards "are shown"
            if o not in obs_index:
                obs_index[o] = len(g.obs)
                g.obs.append(o)  # type: ignore[arg-type]
            t.obs = obs_index[o]
            t.total = 22 if kind == FIVE else best(cards)
        g.term_index[key] = len(g.terminals)
        g.terminals.append(t)
        return -1 - g.term_index[key]

    def node(hidden: Hand, up: tuple[int, ...], buys: tuple[float, ...], burned: Hand = ()) -> int:
        cards = tuple(sorted(hidden + up))
        if hard(cards) > 21:
            return terminal(BUST, hidden, up, buys, burned)  # 003 "you are bust"
        if len(cards) == 5:
            return terminal(
                FIVE, hidden, up, buys, burned
            )  # 003 Five Card Trick: "not allowed any more cards"
        key: tuple[Any, ...] = (hidden, up, buys) + ((burned,) if burned else ())
        if key in g.node_index:
            return g.node_index[key]
        i = len(g.nodes)
        s = PlayerState(hidden, up, buys, burned=burned)
        g.nodes.append(s)
        g.node_index[key] = i  # type: ignore[index]
        r = rules
        h, n = hard(cards), len(cards)
        out = tuple(sorted(cards + burned))  # every card out of the pack
        if r.stick_minimum <= best(cards) <= 21:  # 003 Stick "at least 15"; variation 16
            s.actions.append("stick")
            royal = r.royal_pontoon and cards == (6, 6, 6)  # 003 variation: three sevens, Royal Pontoon
            s.children["stick"] = [(-1, 1.0, terminal(ROYAL if royal else STUCK, hidden, up, buys, burned))]
        if r.burn_total and not burned and n == 2 and ACE not in cards and h == r.burn_total:
            # 003 variation: a "hard" 13 (14) "shown and discarded, and two new cards dealt"; the bet stays;
            # the model allows one burn a round (003: "possible to burn after burning": not modelled)
            s.actions.append("burn")
            kids = []
            for c1 in range(NCLASS):
                for c2 in range(c1, NCLASS):
                    p = multiset_p(counts, cards, (c1, c2))
                    if p == 0.0:
                        continue
                    if is_pontoon((c1, c2), g.pontoon):  # declared at once (the engine's do_burn)
                        kids.append((-1, p, terminal(PONTOON, (c1, c2), (), (), cards)))
                    else:
                        kids.append((-1, p, node((c1, c2), (), (), cards)))
            s.children["burn"] = kids
        if h < 21 and n < 5:  # 003 Buy/Twist: "If the total value of your cards is less than 21"
            # 003 Buy: "once you have asked for a card to be twisted you can no longer buy cards"; variation:
            # "4 cards totaling 11 or less ... you cannot buy a fifth card, only twist one"
            buy_ok = not up and not (r.no_buy_fifth_at_11_or_less and n == 4 and h <= 11)
            if buy_ok:
                top = 2 if not buys else buys[-1]  # 003 Buy: "between your initial stake and ... previously"
                for amt in buy_grid:
                    if 1 <= amt <= top:
                        s.actions.append(f"buy{amt:g}")
            s.actions.append("twist")
            for a in s.actions:
                if a in ("stick", "burn"):
                    continue
                kids = []
                for c in range(NCLASS):
                    p = draw_p(counts, out, c)
                    if p == 0.0:
                        continue
                    if a == "twist":  # 003 Twist: "one card face up"
                        kids.append((c, p, node(hidden, (*up, c), buys, burned)))
                    else:  # 003 Buy: "another card face down"
                        amount = float(a[3:]) if "." in a else int(a[3:])
                        kids.append((c, p, node(tuple(sorted((*hidden, c))), up, (*buys, amount), burned)))
                s.children[a] = kids
        return i

    for a in range(NCLASS):
        for b in range(a, NCLASS):
            pair = (a, b)
            p = multiset_p(counts, (), pair)
            if p == 0.0:
                continue
            if is_pontoon(pair, g.pontoon):  # 003 Declare a Pontoon (declared at once: scenario-format)
                g.roots.append((terminal(PONTOON, pair, (), ()), p))
            else:
                g.roots.append((node(pair, (), ()), p))
    _banker_hands(g)
    return g


def _banker_hands(g: Game) -> None:
    """The banker's hands: non-Pontoon pairs, then each hand he may twist to (003 The Banker's Turn)."""
    layer: list[Hand] = [
        (a, b) for a in range(NCLASS) for b in range(a, NCLASS) if not is_pontoon((a, b), g.pontoon)
    ]
    layer = [h for h in layer if multiset_p(g.counts, (), h) > 0]
    while layer:
        for h in layer:
            g.banker_index[h] = len(g.banker)
            g.banker.append(h)
        nxt: set[Hand] = set()
        for h in layer:
            if banker_can_twist(h):
                for c in range(NCLASS):
                    d = tuple(sorted((*h, c)))
                    if counts_of(d)[c] <= int(g.counts[c]):
                        nxt.add(d)
        layer = sorted(nxt)


def banker_can_twist(h: Hand) -> bool:
    """003 The Banker's Turn: he may add cards while under 21 (engine: hard total), up to five."""
    return hard(h) < 21 and len(h) < 5


def banker_outcome(h: Hand) -> int:
    """0 bust, 1 five card trick, else his total (a stay)."""
    if hard(h) > 21:
        return 0  # 003 "The dealer goes bust"
    if len(h) == 5:
        return 1  # 003 "The dealer makes a Five Card Trick"
    return best(h)
