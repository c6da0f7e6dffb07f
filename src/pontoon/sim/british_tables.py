"""Table strategies for the fast British simulator (issue 27 item 7): the player's and the banker's play
as arrays the kernel (``_british_kernel.py``) reads.

The player's hand walks a graph of states, the same states as the exact analysis
(``pontoon.analysis.british.game``): the multiset of his face-down cards (the two dealt, then bought),
his face-up (twisted) cards in order and his buys in units of the initial stake (1 or 2: 003 Buy), cards
by point class (A, 2 .. 9, ten-value). Per state: the best total, whether sticking makes a Royal Pontoon,
the banker's observation index of a stick there, the child state of each draw action (twist, buy 1,
buy 2) and card class (``BUST`` or a Five Card Trick with its observation otherwise), and the chance of
each action (stick, twist, buy 1, buy 2). Split hands start from the pair states too; the pair A + ten,
a Pontoon only unsplit (003 New Deal, rulings 21), has its own split-only states.

Strategies:
- ``bot_player`` / ``bot_banker``: the documented bot policies of ``pontoon.british.bots`` evaluated at
  every state by those very functions (``player_decision`` / ``banker_decision`` on the state's view),
  so the tables play exactly as the bots do;
- ``analysis_player`` / ``analysis_banker``: a player strategy of the analysis (``sigma``, per analysis
  node, e.g. a ``Solution``'s) and a banker strategy (``tw``: his chance of twisting per observation and
  hand) copied onto the kernel's states (the heads-up solution, best responses, the house banker).

With several players the banker sees no single observation: his row ``nobs`` (the last) is used, and a
banker table from the analysis is refused there unless it ignores the observation (the house banker).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

import numpy as np

from pontoon.errors import RulesError
from pontoon.rules.british import BritishRules

RANKS: Final = "A23456789TJQK"
CLASS_OF_RANK: Final = np.array([min(i, 9) for i in range(13)], np.int64)  # rank index -> point class
CLASS_NAMES: Final = "A23456789T"
STICK, TWIST, BUY1, BUY2 = 0, 1, 2, 3
ACTIONS: Final = ("stick", "twist", "buy1", "buy2")
BUST: Final = -1  # child code of a draw that busts; a Five Card Trick is -2 - its observation
NO_NODE: Final = -9  # a child that cannot occur (the pack has no such card left)
MAX_PLAYERS: Final = 12

Key = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]  # (hidden sorted, up in order, buys)


def hard(cards: tuple[int, ...]) -> int:
    return sum(c + 1 for c in cards)


def best(cards: tuple[int, ...]) -> int:
    """003: "ace is worth 1 or 11 at the holder's choice"."""
    h = hard(cards)
    return h + 10 if 0 in cards and h + 10 <= 21 else h


def check_rules(rules: BritishRules) -> None:
    """The kernel plays every rules field of 003 and its house variations (the Pontoon rank variations,
    burn and Shoot Pontoon's bets included since issue 27); a field added later that it does not play is
    refused here, by name, pointing to --engine (the British engine)."""
    del rules


def pack_class_counts(rules: BritishRules, packs: int) -> np.ndarray:
    n = np.zeros(10, np.int64)
    for r in rules.pack_ranks:
        n[min(RANKS.index(r), 9)] += rules.pack_suits
    return n * packs


def pack_ranks(rules: BritishRules, packs: int) -> np.ndarray:
    """The pack as rank indices (0 = A .. 12 = K), one card per entry (suits do not matter to any rule here)."""
    one = [RANKS.index(r) for r in RANKS if r in rules.pack_ranks for _ in range(rules.pack_suits)]
    return np.array(one * packs, np.int64)


@dataclass
class PlayerGraph:
    """The player's states and their children (see the module's text)."""

    keys: list[Key] = field(default_factory=list)
    index: dict[Key, int] = field(default_factory=dict)
    legal: list[tuple[int, ...]] = field(default_factory=list)  # per state: legal actions
    kid: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 10), np.int64))
    best: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    royal: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    obs: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # stick's observation
    root: np.ndarray = field(default_factory=lambda: np.zeros((10, 10), np.int64))  # unsplit pairs
    split_root: np.ndarray = field(default_factory=lambda: np.zeros((10, 10), np.int64))
    obs_list: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)


def player_graph(rules: BritishRules, counts: np.ndarray, obs_list: list[Any] | None = None) -> PlayerGraph:
    """Every state a player's hand can reach (unsplit and split), with the pack ``counts`` per class;
    observations numbered as in ``obs_list`` (the analysis's ``Game.obs``), new ones appended after."""
    g = PlayerGraph()
    obs_index: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    for o in obs_list or []:
        up, buys = o
        obs_index[(tuple(up), tuple(int(b) for b in buys))] = len(g.obs_list)
        g.obs_list.append((tuple(up), tuple(int(b) for b in buys)))
    kids: list[list[list[int]]] = []
    bests: list[int] = []
    royals: list[int] = []
    obss: list[int] = []

    def ob(up: tuple[int, ...], buys: tuple[int, ...]) -> int:
        k = (up, buys)
        if k not in obs_index:
            obs_index[k] = len(g.obs_list)
            g.obs_list.append(k)
        return obs_index[k]

    def node(hidden: tuple[int, ...], up: tuple[int, ...], buys: tuple[int, ...]) -> int:
        key = (hidden, up, buys)
        if key in g.index:
            return g.index[key]
        cards = tuple(sorted(hidden + up))
        i = len(g.keys)
        g.keys.append(key)
        g.index[key] = i
        h, n, b = hard(cards), len(cards), best(cards)
        row = [[NO_NODE] * 10 for _ in range(3)]
        kids.append(row)
        bests.append(b)
        royals.append(1 if rules.royal_pontoon and cards == (6, 6, 6) else 0)  # 003 variation: three sevens
        obss.append(ob(up, buys))
        acts: list[int] = []
        if rules.stick_minimum <= b <= 21:  # 003 Stick "at least 15"; variation 16
            acts.append(STICK)
        if h < 21 and n < 5:  # 003 Buy/Twist: "less than 21"; Five Card Trick: no sixth card
            acts.append(TWIST)
            # 003 Buy: not after a twist; variation: no buying a fifth card at 11 or less
            if not up and not (rules.no_buy_fifth_at_11_or_less and n == 4 and h <= 11):
                top = 2 if not buys else buys[-1]  # 003 Buy: "between your initial stake and ... previously"
                acts += [a for a, amt in ((BUY1, 1), (BUY2, 2)) if amt <= top]
        g.legal.append(tuple(acts))
        for a in acts:
            if a == STICK:
                continue
            for c in range(10):
                if cards.count(c) >= counts[c]:
                    continue
                nh, nu, nb = hidden, up, buys
                if a == TWIST:
                    nu = (*up, c)  # 003 Twist: face up
                else:
                    nh, nb = tuple(sorted((*hidden, c))), (*buys, 1 if a == BUY1 else 2)  # 003 Buy: face down
                after = tuple(sorted(nh + nu))
                if hard(after) > 21:
                    code = BUST  # 003 "you are bust"
                elif len(after) == 5:
                    code = -2 - ob(nu, nb)  # 003 Five Card Trick
                else:
                    code = node(nh, nu, nb)
                kids[i][a - 1][c] = code
        return i

    g.root[:] = NO_NODE
    g.split_root[:] = NO_NODE
    for a in range(10):
        for b in range(a, 10):
            if counts[a] < 1 or counts[b] < 1 or (a == b and counts[a] < 2):
                continue
            i = node((a, b), (), ())
            g.split_root[a, b] = g.split_root[b, a] = i
            # 003: an unsplit ace and ten-value is a Pontoon, declared at once (the kernel does so before it
            # reads ``root``); variation ``ace_ten_not_pontoon``: A-10 is "just an ordinary 21", played
            if not (a == 0 and b == 9) or rules.ace_ten_not_pontoon:
                g.root[a, b] = g.root[b, a] = i
    g.kid = np.array(kids, np.int64).reshape(-1, 3, 10)
    g.best = np.array(bests, np.int64)
    g.royal = np.array(royals, np.int64)
    g.obs = np.array(obss, np.int64)
    return g


@dataclass
class BankerGraph:
    hands: list[tuple[int, ...]]
    index: dict[tuple[int, ...], int]
    pair: np.ndarray  # [class, class] -> hand (-1: a Pontoon, handled apart)
    kid: np.ndarray  # [hand, class] -> hand after that card (-1 none)
    twistable: np.ndarray
    out: np.ndarray  # 0 bust, 1 five card trick, else the total he stays on


def banker_graph(counts: np.ndarray, ace_ten_plays: bool = False) -> BankerGraph:
    """The banker's hands (multisets of classes): non-Pontoon pairs and every hand he may twist to.
    ``ace_ten_plays`` (variation ``ace_ten_not_pontoon``: A-10 is "just an ordinary 21"): the pair of an
    ace and a ten-value class is a hand he plays too (the kernel tells A-10 from A-J/Q/K by rank)."""
    hands: list[tuple[int, ...]] = []
    index: dict[tuple[int, ...], int] = {}
    layer: list[tuple[int, ...]] = sorted(
        (a, b)
        for a in range(10)
        for b in range(a, 10)
        if (ace_ten_plays or not (a == 0 and b == 9)) and counts[a] >= 1 and counts[b] >= (2 if a == b else 1)
    )
    while layer:
        for h in layer:
            index[h] = len(hands)
            hands.append(h)
        nxt: set[tuple[int, ...]] = set()
        for h in layer:
            if hard(h) < 21 and len(h) < 5:  # 003 The Banker's Turn
                for c in range(10):
                    if h.count(c) < counts[c]:
                        nxt.add(tuple(sorted((*h, c))))
        layer = sorted(nxt)
    nb = len(hands)
    pair = np.full((10, 10), -1, np.int64)
    kid = np.full((nb, 10), -1, np.int64)
    twistable = np.zeros(nb, np.int64)
    out = np.zeros(nb, np.int64)
    for k, h in enumerate(hands):
        if len(h) == 2:
            pair[h[0], h[1]] = pair[h[1], h[0]] = k
        if hard(h) < 21 and len(h) < 5:
            twistable[k] = 1
            for c in range(10):
                kid[k, c] = index.get(tuple(sorted((*h, c))), -1)
        out[k] = 0 if hard(h) > 21 else 1 if len(h) == 5 else best(h)  # 003 bust / Five Card Trick / stay
    return BankerGraph(hands, index, pair, kid, twistable, out)


# ---------------------------------------------------------------------------------------------
# strategies


@dataclass
class PlayerTable:
    probs: np.ndarray  # [state, 4]: chance of stick, twist, buy 1, buy 2
    split: np.ndarray  # [rank]: 1 splits a pair of this rank (where the rules allow)
    stake: np.ndarray  # [rank of the first card]: the initial stake in money quanta
    name: str
    # Shoot Pontoon, [state]: (the draw taken when a shoot bet commits the hand to a card, -1 none; 1 where
    # the table shoots before the fourth card); None: never shoots
    shx: np.ndarray | None = None


@dataclass
class BankerTable:
    twist: np.ndarray  # [observation row (nobs + 1), hand]: chance he twists
    double: np.ndarray  # [rank of his first card]: 1 doubles (variation banker_may_double)
    name: str
    uses_obs: bool


def _card_str(c: int) -> str:
    return CLASS_NAMES[c] + "S"


def bot_player(rules: BritishRules, g: PlayerGraph, policy: Any, quantum: Decimal) -> PlayerTable:
    """The bots' ``PlayerPolicy`` as tables: its own ``player_decision`` at every state."""
    from pontoon.british.bots import player_decision
    from pontoon.cards import Card
    from pontoon.protocol import Action

    def decide(i: int, acts: tuple[int, ...]) -> int:
        hidden, up, buys = g.keys[i]
        cards = [_card_str(c) for c in (*hidden, *up)]
        legal = []
        for la in acts:
            if la == STICK:
                legal.append(Action("stick"))
            elif la == TWIST:
                legal.append(Action("twist"))
        top = 2 if not buys else buys[-1]
        if BUY1 in acts:
            legal.insert(0, Action("buy", low=Decimal(1), high=Decimal(top)))
        view = {"seat": "p", "phase": "play", "current_hand": None, "hands": [{"owner": "p", "cards": cards}]}
        verb, amt = player_decision(view, legal, rules, policy)
        act: int | None = {"stick": STICK, "twist": TWIST}.get(verb)
        if verb == "buy":
            act = BUY1 if amt == 1 else BUY2 if amt == 2 else None
        if act is None or act not in acts:
            raise RulesError(f"the bot's decision {verb} {amt} at {cards} has no table entry")
        return act

    probs = np.zeros((len(g.keys), 4))
    shx = np.zeros((len(g.keys), 2), np.int64)
    shx[:, 0] = -1
    for i, (hidden, up, _buys) in enumerate(g.keys):
        probs[i, decide(i, g.legal[i])] = 1.0
        cards = (*hidden, *up)
        # 003 Shoot "The fourth card": the bot shoots before the fourth card of a three-card hand whose hard
        # total is at most ``shoot_fourth_up_to`` (below 21); the bet commits him to the card (rul 31), so
        # he then takes the draw he would choose without stick
        if rules.shoot and len(cards) == 3 and hard(cards) < 21 and hard(cards) <= policy.shoot_fourth_up_to:
            shx[i] = decide(i, tuple(a for a in g.legal[i] if a != STICK)), 1
    split = np.array([1 if RANKS[r] in policy.split_ranks else 0 for r in range(13)], np.int64)
    stake = np.zeros(13, np.int64)
    for r in range(13):
        base = policy.stake if policy.stake is not None else rules.stake_min
        c = Card(RANKS[r], "S")
        if c.is_ace or c.is_ten_value:
            base = base * policy.stake_ace_ten
        stake[r] = quanta(min(max(base, rules.stake_min), rules.stake_max), quantum)
    return PlayerTable(probs, split, stake, "bots", shx)


def bot_banker(rules: BritishRules, b: BankerGraph, nobs: int, policy: Any) -> BankerTable:
    """The bots' ``BankerPolicy`` as tables (its ``banker_decision`` on each hand)."""
    from pontoon.british.bots import banker_decision
    from pontoon.cards import Card
    from pontoon.protocol import Action

    if policy.stand_early:
        raise RulesError("the fast British simulator does not play the banker's stand_early; use --engine")
    row = np.zeros(len(b.hands))
    for k, h in enumerate(b.hands):
        if not b.twistable[k]:
            continue
        view = {"banker_cards": [_card_str(c) for c in h], "hands": []}
        verb, _ = banker_decision(view, [Action("twist"), Action("stick")], rules, policy)
        row[k] = 1.0 if verb == "twist" else 0.0
    double = np.zeros(13, np.int64)
    if rules.banker_may_double:
        for r in range(13):
            view = {"banker_cards": [RANKS[r] + "S"], "hands": []}
            verb, _ = banker_decision(view, [Action("double"), Action("pass")], rules, policy)
            double[r] = 1 if verb == "double" else 0
    _ = Card
    return BankerTable(np.tile(row, (nobs + 1, 1)), double, "bots", False)


def analysis_player(
    g: PlayerGraph, game: Any, sigma: list[np.ndarray], stake: np.ndarray, name: str
) -> PlayerTable:
    """A player strategy of the analysis (per node of ``game``, aligned with its ``actions``) on these
    states; no splits (the analysis has none). States the analysis lacks (split-only) stick where they
    may, else twist."""
    probs = np.zeros((len(g.keys), 4))
    for i, key in enumerate(g.keys):
        j = game.node_index.get(key)
        if j is None:
            probs[i, STICK if STICK in g.legal[i] else TWIST] = 1.0
            continue
        for a, w in zip(game.nodes[j].actions, sigma[j], strict=True):
            probs[i, ACTIONS.index(a)] += float(w)
        probs[i] /= probs[i].sum()
    return PlayerTable(probs, np.zeros(13, np.int64), stake, name)


def analysis_banker(b: BankerGraph, game: Any, tw: np.ndarray, name: str) -> BankerTable:
    """A banker strategy of the analysis (``tw[observation, analysis hand]``) on these hands; the last row
    (several players, or an observation the analysis lacks) is the observation-free row where ``tw``
    ignores the observation, else stays on 17 (the house banker)."""
    nobs = tw.shape[0]
    out = np.zeros((nobs + 1, len(b.hands)))
    for k, h in enumerate(b.hands):
        j = game.banker_index.get(h)
        if j is not None:
            out[:nobs, k] = tw[:, j]
        out[nobs, k] = 1.0 if b.twistable[k] and best(h) < 17 else 0.0
    uses = bool(np.any(tw != tw[:1]))
    if not uses:
        out[nobs] = out[0]
    return BankerTable(out, np.zeros(13, np.int64), name, uses)


# ---------------------------------------------------------------------------------------------
# money: integer quanta, pay multiples as integers over a common denominator


def quanta(amount: Decimal, quantum: Decimal) -> int:
    q = amount / quantum
    if q != q.to_integral_value():
        raise RulesError(f"amount {amount} is not a whole number of {quantum}")
    return int(q)


def pay_scale(rules: BritishRules) -> tuple[int, dict[str, int]]:
    """(denominator D, each pay multiple times D as an integer)."""
    pays = {
        "pontoon": rules.pontoon_pays,
        "collects": rules.banker_pontoon_collects,
        "five": rules.five_card_trick_pays,
        "royal": rules.royal_pontoon_pays,
    }
    den = 1
    for v in pays.values():
        den = den * Fraction(v).denominator // _gcd(den, Fraction(v).denominator)
    return den, {k: int(Fraction(v) * den) for k, v in pays.items()}


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a
