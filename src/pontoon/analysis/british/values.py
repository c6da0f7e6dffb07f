"""Exact values of the heads-up British game against given strategies (issue 27 item 1).

- ``player_q``: for a banker strategy (the chance he twists at each observation and hand), the exact
  expectation of every player decision (stick, twist, buy 1 or 2 stakes) at every player state, by
  enumeration over the cards left in the pack (composition-dependent), and the player's best response;
- ``banker_response``: for a player strategy, the banker's exact best response at each of his decisions
  (stay or twist), from the exact posterior over the player's face-down cards given what he saw.

All figures are the player's net per initial stake (the banker's edge is minus it). Probabilities are
floats built from exact integer counts; the engine check (tests/analysis/test_british_exact.py) holds them
to 1e-12 against every deal of a reduced pack played through the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np

from pontoon.analysis.british.game import (
    BUST,
    FIVE,
    NCLASS,
    PONTOON,
    ROYAL,
    STUCK,
    TENS,
    Game,
    banker_can_twist,
    banker_outcome,
    class_of,
    counts_of,
    multiset_p,
    pontoon_grade,
)

Strategy = list[np.ndarray]  # per player node: probabilities aligned with node.actions


@dataclass
class Tables:
    """The arrays the kernels read, built once per game."""

    f_kind: np.ndarray  # per terminal: 0 fixed payment, 1 against the banker's play
    f_obs: np.ndarray
    f_pset: np.ndarray  # index of the terminal's card multiset in ``prob``
    f_total: np.ndarray  # stuck total, 22 for a five card trick
    f_stake: np.ndarray
    fixed: np.ndarray  # per terminal: the value of the deals where the banker does not play (his Pontoon...)
    prob: np.ndarray  # [card multiset, banker hand]: chance his first cards form that hand
    out: np.ndarray  # per banker hand: 0 bust, 1 five, else the total he stays on
    twistable: np.ndarray
    kids: list[list[tuple[int, float]]]  # per banker hand: (hand after the card, rho)
    order: list[int]  # player nodes, most cards first


def tables(g: Game) -> Tables:
    r = g.rules
    nt = len(g.terminals)
    f_kind = np.zeros(nt, np.int64)
    f_obs = np.full(nt, -1, np.int64)
    f_pset = np.full(nt, -1, np.int64)
    f_total = np.zeros(nt, np.int64)
    f_stake = np.zeros(nt, np.float64)
    fixed = np.zeros(nt, np.float64)
    psets: dict[tuple[int, ...], int] = {}
    collects = float(r.banker_pontoon_collects)
    for i, t in enumerate(g.terminals):
        f_stake[i] = t.stake
        bp = multiset_p(g.counts, t.cards, g.pontoon)  # 003: the banker's Pontoon, shown at once
        # 003: his Pontoon "collects double the amount staked" (the initial stake: nothing was bought yet)
        fixed[i] = -collects * bp
        if t.kind == BUST:
            fixed[i] += -t.stake * (1 - bp)  # 003 "the banker takes your stake"
        elif t.kind == PONTOON and (r.natural_beats_plain or r.ace_picture_beats_ace_ten):
            fixed[i] = pontoon_against_pontoon(g)  # rul 29: a higher Pontoon beats the banker's
        elif t.kind == PONTOON:
            fixed[i] += float(r.pontoon_pays) * (1 - bp)  # 003 "Pontoons ... are paid double"
        elif t.kind == ROYAL:
            fixed[i] += float(r.royal_pontoon_pays) * t.stake * (1 - bp)  # 003 variation: "paid treble"
        else:
            f_kind[i] = 1
            f_obs[i] = t.obs
            f_total[i] = t.total
            f_pset[i] = psets.setdefault(t.cards, len(psets))
    prob = _prob_table(g, list(psets))
    out = np.array([banker_outcome(h) for h in g.banker], np.int64)
    twistable = np.array([banker_can_twist(h) for h in g.banker], bool)
    kids: list[list[tuple[int, float]]] = []
    for h in g.banker:
        row = []
        if banker_can_twist(h):
            for c in range(NCLASS):
                d = tuple(sorted((*h, c)))
                if d in g.banker_index:
                    # every order of the banker's cards is equally likely: the share of the hand ``d`` that
                    # comes from ``h`` is the multiplicity of ``c`` in ``d`` over its size
                    row.append((g.banker_index[d], counts_of(d)[c] / len(d)))
        kids.append(row)
    order = g_order_fwd(g)
    return Tables(f_kind, f_obs, f_pset, f_total, f_stake, fixed, prob, out, twistable, kids, order)


def pontoon_against_pontoon(g: Game) -> float:
    """The exact value of a player's Pontoon (declared at once) with the Pontoon rank variations: over the rank
    of his ten-value card and of the banker's (003 variations "an ace and a picture beats ... an ace and a
    ten", "A-K or A-Q is a natural pontoon, which beats a plain pontoon"), the banker's Pontoon collecting
    unless the player's outranks it (rul 29: then his is paid as a Pontoon; equal grades go to the banker)."""
    r = g.rules
    ranks = [x for x in TENS if x in r.pack_ranks and class_of(x, r) == g.pontoon[1]]
    each = r.pack_suits * r.packs_for(2)  # cards of each rank in the pack
    n, aces = int(g.counts.sum()), int(g.counts[g.pontoon[0]])
    pays, collects = float(r.pontoon_pays), float(r.banker_pontoon_collects)
    value = 0.0
    for mine in ranks:
        acc = 0.0
        banker_pontoon = 0.0
        for his in ranks:
            # the banker's two cards are an ace and a ``his``, the player holding an ace and a ``mine``
            q = 2 * (aces - 1) * (each - (mine == his)) / ((n - 2) * (n - 3))
            banker_pontoon += q
            acc += q * (pays if pontoon_grade(mine, r) > pontoon_grade(his, r) else -collects)
        value += each / (each * len(ranks)) * (acc + (1 - banker_pontoon) * pays)
    return value


def _prob_table(g: Game, sets: list[tuple[int, ...]]) -> np.ndarray:
    """[card multiset, banker hand]: the exact chance that the banker's first cards form the hand, the
    multiset's cards being out of the pack (hypergeometric: products of binomials over classes)."""
    top = int(g.counts.max()) + 1
    binom = np.array([[comb(n, k) for k in range(6)] for n in range(top)], np.float64)
    used = np.array([counts_of(c) for c in sets], np.int64).reshape(-1, NCLASS)
    hands = np.array([counts_of(h) for h in g.banker], np.int64)
    left = g.counts[None, :] - used  # [set, class]
    num = np.ones((len(sets), len(g.banker)))
    for i in range(NCLASS):
        num *= binom[left[:, i][:, None], hands[:, i][None, :]]
    total = int(g.counts.sum())
    sizes = np.array([len(h) for h in g.banker])
    lens = np.array([len(c) for c in sets])
    den = np.vectorize(lambda a, b: float(comb(total - int(a), int(b))))(lens[:, None], sizes[None, :])
    return num / den


def _u(total: int, out: int, five_pays: float) -> float:
    """The player's net per stake: his stuck ``total`` (22: a Five Card Trick) against the banker's ``out``."""
    if total == 22:  # 003 "Pontoons and Five Card Tricks are paid double"; the banker's Five Card Trick
        return -five_pays if out == 1 else five_pays  # "pays Pontoons only" (rul 22)
    if out == 0:
        return 1.0  # 003 "The dealer goes bust": pays every live hand
    if out == 1:
        return -five_pays  # 003: "Everyone else ... loses double their stake to the dealer"
    return 1.0 if total > out else -1.0  # 003 "collects from those who have equal or less"


def payoff_matrix(g: Game, tb: Tables) -> np.ndarray:
    """[stuck total 0..22, banker outcome]: the player's net per stake."""
    fp = float(g.rules.five_card_trick_pays)
    return np.array([[_u(t, int(o), fp) for o in tb.out] for t in range(23)])


def banker_reach(g: Game, tb: Tables, tw: np.ndarray) -> np.ndarray:
    """[observation, banker hand]: the chance, per unit of the chance of his first cards forming the hand,
    that the banker's play (twist probabilities ``tw``) reaches that hand and ends there."""
    return banker_reach_full(g, tb, tw)[1]


def banker_reach_full(g: Game, tb: Tables, tw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """As ``banker_reach``, with the chance of reaching each hand (his own probabilities times the share)."""
    no, nb = tw.shape
    reach = np.zeros((no, nb))
    for k, h in enumerate(g.banker):
        if len(h) == 2:
            reach[:, k] = 1.0
    end = np.zeros((no, nb))
    for k in range(nb):  # hands are listed by size: parents before children
        if tb.twistable[k]:
            go = reach[:, k] * tw[:, k]
            end[:, k] = reach[:, k] - go
            for d, rho in tb.kids[k]:
                reach[:, d] += rho * go
        else:
            end[:, k] = reach[:, k]
    return reach, end


def terminal_values(g: Game, tb: Tables, tw: np.ndarray) -> np.ndarray:
    """Each terminal's exact value (banker's Pontoon included) against the banker's strategy ``tw``."""
    end = banker_reach(g, tb, tw)
    pay = payoff_matrix(g, tb)
    vals = tb.fixed.copy()
    _k_values(tb.f_kind, tb.f_obs, tb.f_pset, tb.f_total, tb.f_stake, tb.prob, end, pay, vals)
    return vals


def player_q(g: Game, tb: Tables, tw: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Per node, each action's exact value against ``tw``; the best-response value per node; the best
    response's value of the game (the player's net per initial stake)."""
    tv = terminal_values(g, tb, tw)
    v = np.zeros(len(g.nodes))
    q: list[np.ndarray] = [np.zeros(0)] * len(g.nodes)

    def val(child: int) -> float:
        return float(tv[-1 - child]) if child < 0 else float(v[child])

    for i in tb.order:
        s = g.nodes[i]
        qs = np.array([sum(p * val(n) for _, p, n in s.children[a]) for a in s.actions])
        q[i] = qs
        v[i] = qs.max()
    total = sum(p * val(n) for n, p in g.roots)
    return q, v, np.array(total)


def strategy_value(g: Game, tb: Tables, sigma: Strategy, tw: np.ndarray) -> float:
    """The player's exact net per initial stake when he plays ``sigma`` and the banker ``tw``."""
    y = player_flow(g, sigma)
    return float(y @ terminal_values(g, tb, tw))


def player_flow(g: Game, sigma: Strategy) -> np.ndarray:
    """Chance times the player's own probabilities of reaching each terminal (merged histories summed)."""
    return player_reach(g, sigma)[1]


def player_reach(g: Game, sigma: Strategy) -> tuple[np.ndarray, np.ndarray]:
    """Chance times the player's own probabilities of reaching each node and each terminal."""
    mass = np.zeros(len(g.nodes))
    y = np.zeros(len(g.terminals))
    for n, p in g.roots:
        if n < 0:
            y[-1 - n] += p
        else:
            mass[n] += p
    for i in reversed(g_order_fwd(g)):
        s = g.nodes[i]
        if mass[i] == 0.0:
            continue
        for a, pa in zip(s.actions, sigma[i], strict=True):
            if pa == 0.0:
                continue
            for _, p, n in s.children[a]:
                if n < 0:
                    y[-1 - n] += mass[i] * pa * p
                else:
                    mass[n] += mass[i] * pa * p
    return mass, y


def g_order_fwd(g: Game) -> list[int]:
    """Player nodes, children before parents: after a burn first (its new hands follow the burn: 003
    variation), then most cards first (reversed: parents before children)."""
    return sorted(range(len(g.nodes)), key=lambda i: (not g.nodes[i].burned, -len(g.nodes[i].cards)))


def banker_values(g: Game, tb: Tables, y: np.ndarray) -> np.ndarray:
    """[observation, banker hand]: the player's value if the banker stays (or must) there, weighted by the
    chance of the deals that reach it (the unnormalised posterior: what the banker's choice there changes)."""
    pay = payoff_matrix(g, tb)
    stay = np.zeros((len(g.obs), len(g.banker)))
    _k_stay(tb.f_kind, tb.f_obs, tb.f_pset, tb.f_total, tb.f_stake, tb.prob, y, pay, stay)
    return stay


def banker_response(g: Game, tb: Tables, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The banker's exact best response to the player's flow ``y``: twist (1) or stay (0) per observation and
    hand, the weighted values of staying and twisting there, and the player's value against it."""
    stay = banker_values(g, tb, y)
    z = stay.copy()
    twist = np.full_like(stay, np.inf)
    nb = len(g.banker)
    for k in range(nb - 1, -1, -1):  # children before parents
        if tb.twistable[k] and tb.kids[k]:
            twist[:, k] = sum(rho * z[:, d] for d, rho in tb.kids[k])
            z[:, k] = np.minimum(stay[:, k], twist[:, k])
    br = (twist < stay).astype(np.float64)
    pairs = [k for k, h in enumerate(g.banker) if len(h) == 2]
    fixed = float(y @ tb.fixed)
    return br, np.stack([stay, twist]), fixed + float(z[:, pairs].sum())


def house_banker(g: Game, stay_on: int = 17) -> np.ndarray:
    """The documented "house banker": twists below ``stay_on`` (his best total), stays on it or more,
    whatever the player shows (docs/analysis.md)."""
    from pontoon.analysis.british.game import best

    row = np.array([1.0 if banker_can_twist(h) and best(h) < stay_on else 0.0 for h in g.banker])
    return np.tile(row, (len(g.obs), 1))


def describe(g: Game) -> dict[str, Any]:
    return {
        "player_states": len(g.nodes),
        "terminals": len(g.terminals),
        "observations": len(g.obs),
        "banker_hands": len(g.banker),
        "kinds": sorted({t.kind for t in g.terminals} & {BUST, FIVE, PONTOON, ROYAL, STUCK}),
    }


def _jit(fn: Any) -> Any:
    """numba's JIT where it loads, with its on-disk cache (the kernels are plain loops; without numba they run
    as Python): a fresh process loads them instead of compiling (the first split hint: seconds of compiling)."""
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba is a dependency
        return fn
    return njit(cache=True, nogil=True)(fn)


@_jit
def _k_values(kind, obs, pset, total, stake, prob, end, pay, vals):  # type: ignore[no-untyped-def]
    nb = prob.shape[1]
    for f in range(kind.shape[0]):
        if kind[f] != 1:
            continue
        acc = 0.0
        p, o, t = pset[f], obs[f], total[f]
        for k in range(nb):
            acc += prob[p, k] * end[o, k] * pay[t, k]
        vals[f] += stake[f] * acc


@_jit
def _k_stay(kind, obs, pset, total, stake, prob, y, pay, stay):  # type: ignore[no-untyped-def]
    nb = prob.shape[1]
    for f in range(kind.shape[0]):
        if kind[f] != 1 or y[f] == 0.0:
            continue
        w = y[f] * stake[f]
        p, o, t = pset[f], obs[f], total[f]
        for k in range(nb):
            stay[o, k] += w * prob[p, k] * pay[t, k]
