"""The players' best response to the banker reading every hand (issue 27 item 3; docs/analysis.md "Several
players").

The banker is ``reading.Reader``: his exact best response to N players who play the solved heads-up
strategy, fixed (a best response to a fixed strategy does not re-optimise against a deviation). One player,
the deviator, plays any strategy of his own cards; the others play the solution. Where the joint posterior
of what the banker sees has no mass under the solution (a live hand whose face-up cards and buys the solved
player never shows, or a combination no deal of the solved players gives), his best response is any
decision: this module's banker then **stays**, the heads-up convention (``values.banker_response`` stays
where the player's flow is zero, the figure +3.783% one pack is against that banker).

``deviator_values``: the exact value of each of the deviator's terminals (his cards, what the banker sees of
them, his stake), by enumeration over the other players' solved terminals (their cards, exact card removal)
and the banker's first two cards, the banker's decisions read from his programme for everything he sees
(``Reader.tree``) and his later cards drawn from the exact pack left. His decisions then follow by backward
induction over his own states (the heads-up player tree: his states, his chance of each next card, the
others' cards unseen by him), as ``values.player_q``. Exponential in the players: meant for reduced packs
(the tests check it against every deal through the engine) and for one player (the heads-up figure).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any

import numpy as np

from pontoon.analysis.british.game import (
    ACE,
    BUST,
    FIVE,
    NCLASS,
    PONTOON,
    ROYAL,
    STUCK,
    TEN,
    Game,
    Hand,
    banker_can_twist,
    banker_outcome,
    counts_of,
    multiset_p,
)
from pontoon.analysis.british.reading import OUTCOMES, Obs, Reader, Seen
from pontoon.analysis.british.reading_fast import twists_better
from pontoon.analysis.british.values import _u, g_order_fwd, player_flow

Twists = frozenset[Hand]  # the banker hands at which he twists (every other hand he reaches: he stays)


def twists(rd: Reader, seen: Seen) -> Twists:
    """The banker's decisions reading every hand, for what he sees: the hands (from his first two cards on)
    where he twists. Where the solved players' posterior has no mass (see the module's docstring): none."""
    if not rd.observed(seen):
        return frozenset()
    try:
        t = rd.tree(seen)
    except ValueError:  # no deal of the solved players gives what he sees
        return frozenset()
    return frozenset(h for h, v in t.twist.items() if h in t.stay and twists_better(v, t.stay[h]))


def twist_plan(rd: Reader, seen: Seen) -> Twists | np.ndarray:
    """``twists`` as the kernel's flags per hand of ``reading_fast.banker_nodes(first)`` where the reader is
    ``fast`` (for ``reading_fast.outcome_chances_fast``), else the set."""
    if not rd.fast:
        return twists(rd, seen)
    if not rd.observed(seen):
        return frozenset()
    try:
        t = rd.tree(seen)
    except ValueError:  # no deal of the solved players gives what he sees
        return frozenset()
    assert t.flags is not None
    return t.flags


def twist_plan_last(rd: Reader, others: Seen, mine: Obs) -> Twists | np.ndarray:
    """``twist_plan`` of ``others`` with the live hand ``mine`` added (``Reader.tree_last``: the other hands'
    programme combined once for all of a deviator's observations)."""
    if not rd.fast:
        return twists(rd, Seen(others.banker, tuple(sorted([*others.live, mine])), others.shown))
    if mine not in rd.support or not rd.observed(others):
        return frozenset()
    try:
        t = rd.tree_last(others, mine)
    except ValueError:  # no deal of the solved players gives what he sees
        return frozenset()
    assert t.flags is not None
    return t.flags


def decide(rd: Reader, seen: Seen) -> str:
    """``twist`` or ``stick`` at his current hand (``seen.banker``), as ``twists``."""
    return "twist" if tuple(sorted(seen.banker)) in twists(rd, seen) else "stick"


def outcome_chances(first: Hand, left: np.ndarray, tw: Twists | Callable[[Hand], bool]) -> np.ndarray:
    """The chance of each banker outcome (0 bust, 1 Five Card Trick, else his total) from his first two
    cards ``first`` (sorted), the pack left ``left`` (per class: every card not dealt), twisting at the hands
    ``tw``; his next cards are drawn from the pack left (every order equally likely)."""
    out = np.zeros(OUTCOMES)
    want = tw.__contains__ if isinstance(tw, frozenset) else tw
    n = left.astype(np.int64).copy()

    def go(hand: Hand, p: float) -> None:
        if banker_can_twist(hand) and want(hand):
            total = int(n.sum())
            for c in range(NCLASS):
                if n[c] <= 0:
                    continue
                q = p * n[c] / total
                n[c] -= 1
                go(tuple(sorted((*hand, c))), q)
                n[c] += 1
            return
        out[banker_outcome(hand)] += p

    go(first, 1.0)
    return out


def outcome_chances_many(first: Hand, rooms: np.ndarray, tw: Twists) -> np.ndarray:
    """``outcome_chances`` for many packs left at once (``rooms``: [m, class]), the same decisions ``tw``."""
    m = rooms.shape[0]
    out = np.zeros((m, OUTCOMES))
    total = rooms.sum(axis=1).astype(np.float64)
    drawn = np.zeros(NCLASS, np.int64)

    def go(hand: Hand, p: np.ndarray, k: int) -> None:
        if banker_can_twist(hand) and hand in tw:
            for c in range(NCLASS):
                avail = rooms[:, c] - drawn[c]
                if not (avail > 0).any():
                    continue
                drawn[c] += 1
                go(tuple(sorted((*hand, c))), p * np.maximum(avail, 0) / (total - k), k + 1)
                drawn[c] -= 1
            return
        out[:, banker_outcome(hand)] += p

    go(first, np.ones(m), 0)
    return out


def _fall(n: int, k: int) -> float:
    out = 1.0
    for j in range(k):
        out *= n - j
    return out


def _seq_chance(n: np.ndarray, k: tuple[int, ...]) -> float:
    """The chance that a given sequence of cards with ``k`` of each class comes from the pack ``n``."""
    num = 1.0
    for c in range(NCLASS):
        num *= _fall(int(n[c]), k[c])
    return num / _fall(int(n.sum()), sum(k))


def _others(rd: Reader) -> list[tuple[tuple[int, ...], float, str, Any]]:
    """The solved player's terminals as another player's: (cards per class, his own weight summed over the
    orders of his cards, "live" with the banker's observation or "shown" with the cards he sees)."""
    g = rd.sol.game
    y = player_flow(g, rd.sol.sigma)
    out: list[tuple[tuple[int, ...], float, str, Any]] = []
    for (kind, _hidden, up, buys), i in g.term_index.items():
        if y[i] == 0.0:
            continue
        t = g.terminals[i]
        k = counts_of(t.cards)
        w = float(y[i]) / _seq_chance(g.counts, k)
        if kind in (STUCK, FIVE, ROYAL):
            out.append((k, w, "live", (up, tuple(int(b) for b in buys))))
        elif kind == BUST:
            out.append((k, w, "shown", t.cards))  # 003 "throw in your hand face up"
        else:
            assert kind == PONTOON
            out.append((k, w, "shown", (ACE, TEN)))  # 003: declared, the ace face up on the ten-value card
    return out


def deviator_values(rd: Reader, players: int) -> np.ndarray:
    """Per terminal of the heads-up game, the deviator's exact expected net (per initial stake, the banker's
    Pontoon included) at a table of ``players`` (him and ``players - 1`` solved players), the banker reading
    every hand (``twists``)."""
    g = rd.sol.game
    tb = rd.sol.tables
    n0 = g.counts.astype(np.int64)
    fp = float(g.rules.five_card_trick_pays)
    others = _others(rd) if players > 1 else []
    firsts = [h for h in g.banker if len(h) == 2]  # his non-Pontoon pairs (his Pontoon: in ``tb.fixed``)
    vals = tb.fixed.copy()
    memo: dict[Seen, Twists] = {}
    for i, t in enumerate(g.terminals):
        if t.kind not in (STUCK, FIVE):
            continue  # busts, Pontoons, Royal Pontoons: paid whatever the banker does (``tb.fixed``)
        up, buys = g.obs[t.obs]
        mine = (tuple(up), tuple(int(b) for b in buys))
        k1 = np.array(counts_of(t.cards), np.int64)
        pay = np.array([_u(t.total, o, fp) for o in range(OUTCOMES)]) * t.stake
        acc = 0.0
        for combo in product(others, repeat=players - 1):
            s = k1.copy()
            w = 1.0
            for k, wj, _, _ in combo:
                s += np.array(k, np.int64)
                w *= wj
            if (s > n0).any():
                continue
            rest = tuple(int(x) for x in s - k1)
            p_rest = w * _seq_chance(n0 - k1, rest)
            if p_rest == 0.0:
                continue
            live = tuple(sorted([mine] + [v for _, _, how, v in combo if how == "live"]))
            shown = tuple(sorted(c for _, _, how, v in combo if how == "shown" for c in v))
            used = tuple(c for c in range(NCLASS) for _ in range(int(s[c])))
            for f in firsts:
                pf = multiset_p(g.counts, used, f)
                if pf == 0.0:
                    continue
                seen = Seen(f, live, shown)
                if seen not in memo:
                    memo[seen] = twists(rd, seen)
                left = n0 - s - np.array(counts_of(f), np.int64)
                acc += p_rest * pf * float(outcome_chances(f, left, memo[seen]) @ pay)
        vals[i] += acc
    return vals


def best_response(g: Game, tv: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], float]:
    """From the deviator's terminal values ``tv``: each action's value per state, the best response (pure:
    the first best action, as ``player_q``'s argmax) and its value of the game."""
    v = np.zeros(len(g.nodes))
    q: list[np.ndarray] = [np.zeros(0)] * len(g.nodes)

    def val(child: int) -> float:
        return float(tv[-1 - child]) if child < 0 else float(v[child])

    for i in g_order_fwd(g):
        s = g.nodes[i]
        q[i] = np.array([sum(p * val(n) for _, p, n in s.children[a]) for a in s.actions])
        v[i] = q[i].max()
    pure = [np.eye(len(x))[int(np.argmax(x))] for x in q]
    return q, pure, float(sum(p * val(n) for n, p in g.roots))


def exact_response(rd: Reader, players: int) -> dict[str, Any]:
    """The deviator's exact values at a table of ``players``: playing the solution (``solved``) and his best
    response (``best``), per initial stake, the banker reading every hand; and the best response itself."""
    g = rd.sol.game
    tv = deviator_values(rd, players)
    q, pure, best = best_response(g, tv)
    return {
        "solved": float(player_flow(g, rd.sol.sigma) @ tv),
        "best": best,
        "q": q,
        "strategy": pure,
        "terminal_values": tv,
    }
