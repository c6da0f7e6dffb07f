"""The heads-up British game solved (issue 27 item 2): CFR+ on the exact game, exploitability by exact best
responses.

Why CFR+ and not the sequence-form LP: the banker's side of the LP has one pair of rows per observation and
banker hand (about 1,080 x 700 non-terminal hands for one pack), each with a term per player terminal of
that observation: some 60 M non-zeros, beyond HiGHS on this machine. CFR+ needs only what item 1 already
computes exactly (each side's action values against the other's strategy), as flat arrays and numba loops,
and its average strategy's exploitability is measured exactly by the two best responses of ``values``.

Merged states are exact for CFR too: a player state's histories have the same chance weight at every
iteration (the banker acts after him) and a banker state's histories differ only in the order of his own
cards (equally likely whatever the player holds), so each merged state's regrets are a fixed positive
multiple of every one of its histories' regrets in the perfect-recall game, and regret matching is
unchanged by a positive multiple.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pontoon.analysis.british.game import BUY_GRID, Game, build
from pontoon.analysis.british.values import (
    Strategy,
    Tables,
    _jit,
    banker_reach_full,
    banker_response,
    banker_values,
    player_q,
    tables,
    terminal_values,
)
from pontoon.rules.british import BritishRules


@dataclass
class Flat:
    """The player's DAG as flat arrays (numba): nodes -> actions -> children."""

    order: np.ndarray  # nodes, most cards first (children before parents)
    act_start: np.ndarray
    kid_start: np.ndarray
    kid: np.ndarray  # >= 0 a node, < 0: -1 - terminal
    kid_p: np.ndarray
    root_kid: np.ndarray
    root_p: np.ndarray
    b_twistable: np.ndarray
    b_kid_start: np.ndarray
    b_kid: np.ndarray
    b_rho: np.ndarray
    b_pair: np.ndarray


def flatten(g: Game, tb: Tables) -> Flat:
    act_start = [0]
    kid_start = [0]
    kid: list[int] = []
    kid_p: list[float] = []
    for s in g.nodes:
        for a in s.actions:
            for _, p, n in s.children[a]:
                kid.append(n)
                kid_p.append(p)
            kid_start.append(len(kid))
        act_start.append(len(kid_start) - 1)
    b_start = [0]
    b_kid: list[int] = []
    b_rho: list[float] = []
    for row in tb.kids:
        for d, rho in row:
            b_kid.append(d)
            b_rho.append(rho)
        b_start.append(len(b_kid))
    return Flat(
        np.array(tb.order, np.int64),
        np.array(act_start, np.int64),
        np.array(kid_start, np.int64),
        np.array(kid, np.int64),
        np.array(kid_p),
        np.array([n for n, _ in g.roots], np.int64),
        np.array([p for _, p in g.roots]),
        tb.twistable.copy(),
        np.array(b_start, np.int64),
        np.array(b_kid, np.int64),
        np.array(b_rho),
        np.array([len(h) == 2 for h in g.banker]),
    )


@_jit
def _k_player_q(order, act_start, kid_start, kid, kid_p, sigma, tv, q, v, best):  # type: ignore[no-untyped-def]
    """Backward over the player's nodes: each action's value; the node's value under ``sigma`` or (best) max."""
    for i in order:
        acc = 0.0
        top = -1e300
        for a in range(act_start[i], act_start[i + 1]):
            x = 0.0
            for k in range(kid_start[a], kid_start[a + 1]):
                n = kid[k]
                x += kid_p[k] * (tv[-1 - n] if n < 0 else v[n])
            q[a] = x
            acc += sigma[a] * x
            top = max(top, x)
        v[i] = top if best else acc


@_jit
def _k_player_reach(order, act_start, kid_start, kid, kid_p, root_kid, root_p, sigma, mass, y):  # type: ignore[no-untyped-def]
    mass[:] = 0.0
    y[:] = 0.0
    for r in range(root_kid.shape[0]):
        n = root_kid[r]
        if n < 0:
            y[-1 - n] += root_p[r]
        else:
            mass[n] += root_p[r]
    for j in range(order.shape[0] - 1, -1, -1):
        i = order[j]
        m = mass[i]
        if m == 0.0:
            continue
        for a in range(act_start[i], act_start[i + 1]):
            w = m * sigma[a]
            if w == 0.0:
                continue
            for k in range(kid_start[a], kid_start[a + 1]):
                n = kid[k]
                if n < 0:
                    y[-1 - n] += w * kid_p[k]
                else:
                    mass[n] += w * kid_p[k]


@_jit
def _k_banker_q(stay, tw, twistable, b_start, b_kid, b_rho, twist, z):  # type: ignore[no-untyped-def]
    """Backward over the banker's hands: the twist value, and the value under ``tw``, per observation."""
    no, nb = stay.shape
    for o in range(no):
        for k in range(nb - 1, -1, -1):
            if twistable[k] and b_start[k + 1] > b_start[k]:
                x = 0.0
                for j in range(b_start[k], b_start[k + 1]):
                    x += b_rho[j] * z[o, b_kid[j]]
                twist[o, k] = x
                z[o, k] = tw[o, k] * x + (1.0 - tw[o, k]) * stay[o, k]
            else:
                twist[o, k] = 0.0
                z[o, k] = stay[o, k]


@dataclass
class Solution:
    """An approximate equilibrium: the average strategies and their exact exploitability."""

    game: Game
    tables: Tables
    sigma: Strategy  # the player's average strategy per node
    tw: np.ndarray  # the banker's average chance of twisting per observation and hand
    value: float  # the player's value of (sigma, tw), per initial stake
    player_br: float  # the player's best response to tw
    banker_br: float  # the player's value against the banker's best response to sigma
    iterations: int
    seconds: float
    history: list[dict[str, float]] = field(default_factory=list)

    @property
    def exploitability(self) -> float:
        """Both best responses' gains: player_br - banker_br (0 at an equilibrium)."""
        return self.player_br - self.banker_br


def solve(
    rules: BritishRules,
    *,
    buy_grid: tuple[float, ...] = BUY_GRID,
    target: float = 1e-3,
    max_iterations: int = 4000,
    check_every: int = 50,
    log: Any = None,
) -> Solution:
    """CFR+ (regret matching+, alternating updates, linear averaging) until the exact exploitability of the
    average strategies is at most ``target`` per initial stake, or ``max_iterations``."""
    t0 = time.perf_counter()
    g = build(rules, buy_grid)
    tb = tables(g)
    fl = flatten(g, tb)
    na = len(fl.kid_start) - 1
    nn = len(g.nodes)
    no, nb = len(g.obs), len(g.banker)
    # uniform starts
    sigma = np.zeros(na)
    for i in range(nn):
        a0, a1 = fl.act_start[i], fl.act_start[i + 1]
        sigma[a0:a1] = 1.0 / (a1 - a0)
    tw = np.where(tb.twistable[None, :], 0.5, 0.0) * np.ones((no, 1))
    reg_p = np.zeros(na)
    reg_b = np.zeros((no, nb, 2))  # stay, twist
    avg_x = np.zeros(na)
    avg_tw = np.zeros((no, nb))
    avg_reach = np.zeros((no, nb))
    q = np.zeros(na)
    v = np.zeros(nn)
    mass = np.zeros(nn)
    y = np.zeros(len(g.terminals))
    twist = np.zeros((no, nb))
    z = np.zeros((no, nb))
    node_of_action = np.repeat(np.arange(nn), np.diff(fl.act_start))
    sol = None
    it = 0
    history: list[dict[str, float]] = []
    for it in range(1, max_iterations + 1):
        # the player: action values against the current banker
        reg_p, sigma = player_step(fl, sigma, terminal_values(g, tb, tw), reg_p, q, v, node_of_action)
        player_average(fl, sigma, fl.root_p, mass, y, avg_x, it, node_of_action)
        # the banker: values against the new player strategy (he minimises the player's value)
        tw = banker_step(fl, tb, banker_values(g, tb, y), tw, reg_b, twist, z)
        reach, _ = banker_reach_full(g, tb, tw)
        avg_tw += it * reach * tw
        avg_reach += it * reach
        if it % check_every == 0 or it == max_iterations:
            sol = _evaluate(g, tb, fl, avg_x, avg_tw, avg_reach, it, time.perf_counter() - t0)
            history.append({"iteration": it, "exploitability": sol.exploitability, "seconds": sol.seconds})
            if log is not None:
                log(f"CFR+ {it}: exploitability {sol.exploitability:.6f}, value {sol.value:.6f}")
            if sol.exploitability <= target:
                break
    if sol is None or sol.iterations != it:
        sol = _evaluate(g, tb, fl, avg_x, avg_tw, avg_reach, it, time.perf_counter() - t0)
    sol.history = history
    return sol


def player_step(
    fl: Flat,
    sigma: np.ndarray,
    tv: np.ndarray,
    reg: np.ndarray,
    q: np.ndarray,
    v: np.ndarray,
    node_of_action: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """One CFR+ update of the player (every British solver: ``solve``, ``double``, ``stakes``): his action
    values ``q`` and node values ``v`` against the terminal values ``tv``, his regrets (regret matching+) and his
    new strategy."""
    _k_player_q(fl.order, fl.act_start, fl.kid_start, fl.kid, fl.kid_p, sigma, tv, q, v, False)
    reg = np.maximum(reg + q - v[node_of_action], 0.0)
    return reg, _match(reg, fl.act_start, node_of_action)


def player_average(
    fl: Flat,
    sigma: np.ndarray,
    root_p: np.ndarray,
    mass: np.ndarray,
    y: np.ndarray,
    avg_x: np.ndarray,
    it: int,
    node_of_action: np.ndarray,
) -> None:
    """The player's reach (``mass`` per node, ``y`` per terminal) under ``sigma`` from the roots' chances
    ``root_p``, and his linear average (``avg_x`` += it x reach x strategy)."""
    _k_player_reach(
        fl.order, fl.act_start, fl.kid_start, fl.kid, fl.kid_p, fl.root_kid, root_p, sigma, mass, y
    )
    avg_x += it * mass[node_of_action] * sigma


def banker_step(
    fl: Flat,
    tb: Tables,
    stay: np.ndarray,
    tw: np.ndarray,
    reg_b: np.ndarray,
    twist: np.ndarray,
    z: np.ndarray,
) -> np.ndarray:
    """One CFR+ update of the banker: his values of twisting (``twist``) and his node values (``z``) against the
    stay values ``stay`` with his play ``tw``, his regrets ``reg_b`` (in place) and his new twist chances."""
    _k_banker_q(stay, tw, fl.b_twistable, fl.b_kid_start, fl.b_kid, fl.b_rho, twist, z)
    reg_b[:, :, 0] = np.maximum(reg_b[:, :, 0] + z - stay, 0.0)
    reg_b[:, :, 1] = np.maximum(reg_b[:, :, 1] + z - twist, 0.0)
    tot = reg_b.sum(axis=2)
    return np.where(tot > 0, reg_b[:, :, 1] / np.where(tot > 0, tot, 1.0), 0.5) * tb.twistable[None, :]


def average_player(g: Game, act_start: np.ndarray, avg_x: np.ndarray) -> Strategy:
    """The player's average strategy per node from his reach-weighted sums (uniform where never reached)."""
    sigma: Strategy = []
    for i in range(len(g.nodes)):
        a0, a1 = act_start[i], act_start[i + 1]
        x = avg_x[a0:a1]
        sigma.append(x / x.sum() if x.sum() > 0 else np.full(a1 - a0, 1.0 / (a1 - a0)))
    return sigma


def average_banker(avg_tw: np.ndarray, avg_reach: np.ndarray) -> np.ndarray:
    """The banker's average twist chances from his reach-weighted sums (0 where never reached)."""
    return np.where(avg_reach > 0, avg_tw / np.where(avg_reach > 0, avg_reach, 1.0), 0.0)


def _match(reg: np.ndarray, act_start: np.ndarray, node_of_action: np.ndarray) -> np.ndarray:
    """Regret matching per node (uniform where no regret is positive)."""
    tot = np.add.reduceat(reg, act_start[:-1])
    n = np.diff(act_start)
    t = tot[node_of_action]
    return np.where(t > 0, reg / np.where(t > 0, t, 1.0), 1.0 / n[node_of_action])


def _evaluate(
    g: Game,
    tb: Tables,
    fl: Flat,
    avg_x: np.ndarray,
    avg_tw: np.ndarray,
    avg_reach: np.ndarray,
    it: int,
    secs: float,
) -> Solution:
    sigma = average_player(g, fl.act_start, avg_x)
    tw = average_banker(avg_tw, avg_reach)
    _, _, pbr = player_q(g, tb, tw)
    from pontoon.analysis.british.values import player_flow, strategy_value

    _, _, bbr = banker_response(g, tb, player_flow(g, sigma))
    val = strategy_value(g, tb, sigma, tw)
    return Solution(g, tb, sigma, tw, val, float(pbr), bbr, it, secs)
