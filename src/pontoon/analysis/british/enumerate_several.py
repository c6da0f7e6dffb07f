"""Every deal of a reduced pack played through the British engine with several players, for the exactness
check of the banker's best response reading every hand (issue 27 item 3; ``reading.py``).

As ``enumerate.engine_value`` but at a table of several players: each branch replays the round from the
start with a pack that deals the cards chosen so far and asks for the next one, the players decide from
their own seat's view (their mixed decisions are branched on, weighted), and at every banker decision both
stay and twist are played out, the banker afterwards playing ``banker``. Per banker information set (the
text of what ``view(banker)`` shows him) it sums the chance of reaching it (chance and the players' mixes)
and that chance times the players' total net if he stays and if he twists: the exact values of both
decisions there, for the one-shot deviation check of a best response. Meant for reduced packs that never
run out (rules ``pack_ranks``/``pack_suits``/``packs``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.cards import Card
from pontoon.rules.british import BritishRules

PlayerPolicy = Callable[[BritishRound, str], dict[str, float]]  # (round, seat) -> {action: probability}
BankerPolicy = Callable[[BritishRound], str]  # the round at his decision -> "twist" or "stick"
BANKER = "bank"


class _Need(Exception):
    pass


class _ProbePack(BritishPack):
    """Deals the cards of ``script`` in order, then asks for more."""

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
        pass  # under the pack: never reached (the packs used here hold more cards than a round deals)

    def __len__(self) -> int:
        return 10**6


def info_key(view: dict[str, Any]) -> str:
    """The banker's information set as text: his cards and every hand as his view shows it, by rank (the
    enumeration deals one card of each rank for all of that rank: their suits are placeholders, which would
    otherwise tell the hidden cards apart)."""

    def ranks(cards: list[str]) -> str:
        return " ".join(c if c == "??" else c[:-1] for c in cards)

    hands = ";".join(f"{h['status']}:{ranks(h['cards'])}@{h['stake']}" for h in view["hands"])
    return f"{ranks(view['banker_cards'])}|{hands}"


def _replay(
    rules: BritishRules,
    seats: list[str],
    cards: list[Card],
    acts: list[str],
    player: PlayerPolicy,
    counted: list[str] | None = None,
) -> tuple[str, Any]:
    """("card", None), ("act", options), ("banker", round) or ("end", the players' total net)."""
    pack = _ProbePack(cards)
    ai = 0
    try:
        rnd = BritishRound(rules, seats, BANKER, pack)
        while not rnd.is_over():
            seat = rnd.to_act()
            assert seat is not None
            if rnd.phase == "stake":
                rnd.act(seat, "stake", "1")
                continue
            if seat == BANKER:
                if not any(a.verb == "twist" for a in rnd.legal_actions()):
                    rnd.act(seat, "stick")
                    continue
                if ai >= len(acts):
                    return "banker", rnd
                rnd.act(seat, acts[ai])
                ai += 1
                continue
            dist = {a: w for a, w in player(rnd, seat).items() if w > 0}
            if len(dist) > 1:
                if ai >= len(acts):
                    return "act", dist
                a = acts[ai]
                ai += 1
            else:
                (a,) = dist
            if a.startswith("buy"):
                rnd.act(seat, "buy", a[3:])
            else:
                rnd.act(seat, a)
    except _Need:
        return "card", None
    if rnd.phase == "void":
        raise AssertionError("the pack ran out: use a pack the round cannot exhaust")
    net = rnd.net()
    return "end", float(sum(Decimal(net[s]["total"]) for s in (counted or seats)))


def banker_check(
    rules: BritishRules,
    players: int,
    player: PlayerPolicy,
    banker: BankerPolicy,
    counted: list[str] | None = None,
) -> tuple[float, dict[str, list[Any]]]:
    """The players' exact expected total net per round (stakes of 1) with ``banker`` playing, and per banker
    information set ``[reach, reach x value if he stays, reach x value if he twists, a round there]``; with
    ``counted``, the net of those seats only."""
    seats = [f"p{i}" for i in range(players)]
    pack = one_pack(rules) * rules.packs_for(players + 1)
    sets: dict[str, list[Any]] = {}

    def explore(cards: list[Card], acts: list[str], p: float) -> float:
        what, x = _replay(rules, seats, cards, acts, player, counted)
        if what == "end":
            return float(x)
        if what == "act":
            return sum(w * explore(cards, [*acts, a], p * w) for a, w in x.items())
        if what == "banker":
            stay = explore(cards, [*acts, "stick"], p)
            twist = explore(cards, [*acts, "twist"], p)
            row = sets.setdefault(info_key(x.view(BANKER)), [0.0, 0.0, 0.0, x])
            row[0] += p
            row[1] += p * stay
            row[2] += p * twist
            return twist if banker(x) == "twist" else stay
        left = Counter(pack) - Counter(cards)
        n = sum(left.values())
        by_rank: dict[str, tuple[Card, int]] = {}
        for c, k in left.items():
            r = by_rank.get(c.rank)
            by_rank[c.rank] = (c, k + (r[1] if r else 0))
        return sum(k / n * explore([*cards, c], acts, p * k / n) for c, k in by_rank.values())

    return explore([], [], 1.0), sets


def solved_player(sol: Any) -> PlayerPolicy:
    """The solved heads-up strategy ``sol`` (``strategy.Solved``) as a player policy read from the seat's own
    view and the public view (ruling 35), for a table of several players (stakes of 1)."""
    from pontoon.analysis.british.bots import hand_state
    from pontoon.protocol import SPECTATOR

    g = sol.game

    def player(rnd: BritishRound, seat: str) -> dict[str, float]:
        own, public = rnd.view(seat), rnd.view(SPECTATOR)
        i = next(i for i, h in enumerate(own["hands"]) if h["owner"] == seat and h["status"] == "playing")
        state = hand_state(own, public, i, Decimal(1))
        if state is None:
            raise ValueError(f"{seat}'s hand is off the model")
        node = g.node_index[state]
        return dict(zip(g.nodes[node].actions, (float(x) for x in sol.sigma[node]), strict=True))

    return player
