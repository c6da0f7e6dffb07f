"""The stake game (issue 27 item 2): the initial stake as the player's choice, solved with CFR+.

003 The Deal and Initial Stakes: the player looks at his first card, then places his initial bet, "any amount
within these limits"; the banker sees it (it lies in front of the player). Every later payment is a multiple of
the initial stake (buys on the grid {1, 2} x it, Pontoon and Five Card Trick pay multiples of it), so a stake of
``s`` minimum stakes plays the heads-up game of ``game.py`` with every payment times ``s``, and the banker, who
sees ``s``, has one strategy per stake. The stake game is therefore:

* the player's first decision, at his first card: a stake from a finite ``grid`` (multiples of the minimum);
* for each stake ``s``, a copy of the heads-up game (the player's states and the banker's observations keyed by
  ``s``), its payments times ``s``, reached by the player's two cards with the chance that his first card is one
  of them and that he staked ``s`` on it.

A player state ``(s, cards ...)`` merges histories whose first card differs (either of his two cards); they have
the same future, and the chance weight of each is fixed (the stake is his own choice, not counted in his
counterfactual values), so the merged regrets are a fixed positive multiple of each history's, as in ``solve``.
The figures are in minimum stakes per round and per unit staked (the value over the mean stake). The value of
the grid is measured by solving several grids (``docs/analysis.md``); an exact stake game is the continuum of
amounts from the minimum to the maximum, which no finite model covers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS, Game, build
from pontoon.analysis.british.solve import (
    average_banker,
    average_player,
    banker_step,
    flatten,
    player_average,
    player_step,
)
from pontoon.analysis.british.values import (
    Strategy,
    Tables,
    banker_reach_full,
    banker_response,
    banker_values,
    player_q,
    tables,
    terminal_values,
)
from pontoon.rules.british import BritishRules


@dataclass
class StakeSolution:
    """An approximate equilibrium of the stake game and its exact exploitability (minimum stakes per round)."""

    game: Game
    tables: Tables
    grid: tuple[float, ...]  # stakes, in minimum stakes
    stake: np.ndarray  # [first card class, stake]: the player's chance of each stake
    sigma: list[Strategy]  # per stake: the player's strategy per node
    tw: list[np.ndarray]  # per stake: the banker's chance of twisting per observation and hand
    value: float  # the player's value, minimum stakes per round
    player_br: float
    banker_br: float
    mean_stake: float  # the player's mean initial stake, in minimum stakes
    iterations: int
    seconds: float
    history: list[dict[str, float]] = field(default_factory=list)

    @property
    def exploitability(self) -> float:
        return self.player_br - self.banker_br


def _root_cards(g: Game) -> list[tuple[int, ...]]:
    return [g.terminals[-1 - n].cards if n < 0 else g.nodes[n].cards for n, _ in g.roots]


def first_card_share(g: Game) -> np.ndarray:
    """[root, class]: the chance of the root's two cards with the first of them of that class (either card of
    the pair is the first with equal chance: the deal is exchangeable)."""
    share = np.zeros((len(g.roots), NCLASS))
    for r, ((_, p), cards) in enumerate(zip(g.roots, _root_cards(g), strict=True)):
        for c in cards:
            share[r, c] += p / 2
    return share


def _first_values(share: np.ndarray, root_val: np.ndarray) -> np.ndarray:
    """Per first card class: the chance-weighted value of the roots it begins (unnormalised by P(first))."""
    return share.T @ root_val


def _root_values(g: Game, v: np.ndarray, tv: np.ndarray) -> np.ndarray:
    return np.array([tv[-1 - n] if n < 0 else v[n] for n, _ in g.roots])


def solve_stakes(
    rules: BritishRules,
    grid: tuple[float, ...],
    *,
    target: float = 1e-3,
    max_iterations: int = 2000,
    check_every: int = 50,
    log: Any = None,
) -> StakeSolution:
    """CFR+ on the stake game (regret matching+, alternating updates, linear averaging), until the exact
    exploitability is at most ``target`` per unit staked (times the mean stake), or ``max_iterations``."""
    t0 = time.perf_counter()
    grid = tuple(float(s) for s in grid)
    g = build(rules)
    tb = tables(g)
    fl = flatten(g, tb)
    share = first_card_share(g)
    na, nn, k = len(fl.kid_start) - 1, len(g.nodes), len(grid)
    no, nb = len(g.obs), len(g.banker)
    node_of_action = np.repeat(np.arange(nn), np.diff(fl.act_start))
    n_act = np.diff(fl.act_start)[node_of_action]
    sigma = [1.0 / n_act for _ in grid]
    tw = [np.where(tb.twistable[None, :], 0.5, 0.0) * np.ones((no, 1)) for _ in grid]
    pi = np.full((NCLASS, k), 1.0 / k)
    reg_pi = np.zeros((NCLASS, k))
    avg_pi = np.zeros((NCLASS, k))
    reg_p = [np.zeros(na) for _ in grid]
    reg_b = [np.zeros((no, nb, 2)) for _ in grid]
    avg_x = [np.zeros(na) for _ in grid]
    avg_tw = [np.zeros((no, nb)) for _ in grid]
    avg_reach = [np.zeros((no, nb)) for _ in grid]
    q, v, mass = np.zeros(na), np.zeros(nn), np.zeros(nn)
    y = np.zeros(len(g.terminals))
    twist, z = np.zeros((no, nb)), np.zeros((no, nb))
    sol = None
    history: list[dict[str, float]] = []
    it = 0
    for it in range(1, max_iterations + 1):
        # the player: every stake's game against the current banker, then the stake at each first card
        w = np.zeros((NCLASS, k))
        for j, s in enumerate(grid):
            tv = terminal_values(g, tb, tw[j])
            reg_p[j], sigma[j] = player_step(fl, sigma[j], tv, reg_p[j], q, v, node_of_action)
            w[:, j] = s * _first_values(share, _root_values(g, v, tv))
        reg_pi = np.maximum(reg_pi + w - (pi * w).sum(axis=1, keepdims=True), 0.0)
        tot = reg_pi.sum(axis=1, keepdims=True)
        pi = np.where(tot > 0, reg_pi / np.where(tot > 0, tot, 1.0), 1.0 / k)
        avg_pi += it * pi
        # the banker: each stake's observations against the player's new strategy
        for j, s in enumerate(grid):
            player_average(fl, sigma[j], share @ pi[:, j], mass, y, avg_x[j], it, node_of_action)
            tw[j] = banker_step(fl, tb, s * banker_values(g, tb, y), tw[j], reg_b[j], twist, z)
            reach, _ = banker_reach_full(g, tb, tw[j])
            avg_tw[j] += it * reach * tw[j]
            avg_reach[j] += it * reach
        if it % check_every == 0 or it == max_iterations:
            sol = _evaluate(
                g, tb, fl.act_start, grid, avg_pi, avg_x, avg_tw, avg_reach, it, time.perf_counter() - t0
            )
            history.append({"iteration": it, "exploitability": sol.exploitability, "seconds": sol.seconds})
            if log is not None:
                log(f"stake game CFR+ {it}: exploitability {sol.exploitability:.5f}, value {sol.value:.5f}")
            if sol.exploitability <= target * sol.mean_stake:
                break
    if sol is None or sol.iterations != it:
        sol = _evaluate(
            g, tb, fl.act_start, grid, avg_pi, avg_x, avg_tw, avg_reach, it, time.perf_counter() - t0
        )
    sol.history = history
    return sol


def _evaluate(
    g: Game,
    tb: Tables,
    act_start: np.ndarray,
    grid: tuple[float, ...],
    avg_pi: np.ndarray,
    avg_x: list[np.ndarray],
    avg_tw: list[np.ndarray],
    avg_reach: list[np.ndarray],
    it: int,
    secs: float,
) -> StakeSolution:
    k = len(grid)
    tot = avg_pi.sum(axis=1, keepdims=True)
    pi = np.where(tot > 0, avg_pi / np.where(tot > 0, tot, 1.0), 1.0 / k)
    sigmas = [average_player(g, act_start, x) for x in avg_x]
    tws = [average_banker(t, r) for t, r in zip(avg_tw, avg_reach, strict=True)]
    return evaluate(g, tb, grid, pi, sigmas, tws, it, secs)


def evaluate(
    g: Game,
    tb: Tables,
    grid: tuple[float, ...],
    pi: np.ndarray,
    sigmas: list[Strategy],
    tws: list[np.ndarray],
    it: int = 0,
    secs: float = 0.0,
) -> StakeSolution:
    """The exact value of the strategies (``pi`` the stake per first card class, ``sigmas``/``tws`` per stake)
    and both exact best responses: the player's picks a stake per first card and plays each stake's game best
    against that stake's banker; the banker's answers each stake's pool of hands."""
    from pontoon.analysis.british.values import player_reach

    share = first_card_share(g)
    value = banker_br = 0.0
    best = np.zeros((NCLASS, len(grid)))
    for j, s in enumerate(grid):
        sub = _weighted(g, share @ pi[:, j])
        _, y = player_reach(sub, sigmas[j])
        value += s * float(y @ terminal_values(g, tb, tws[j]))
        _, _, b = banker_response(sub, tb, y)
        banker_br += s * b
        _, vb, _ = player_q(g, tb, tws[j])
        best[:, j] = s * _first_values(share, _root_values(g, vb, terminal_values(g, tb, tws[j])))
    mean = float((share.sum(axis=0) @ pi) @ np.array(grid))
    return StakeSolution(
        g, tb, grid, pi, sigmas, tws, value, float(best.max(axis=1).sum()), banker_br, mean, it, secs
    )


def _weighted(g: Game, root_p: np.ndarray) -> Game:
    import dataclasses

    return dataclasses.replace(g, roots=[(n, float(p)) for (n, _), p in zip(g.roots, root_p, strict=True)])


def stake_chart(sol: StakeSolution) -> dict[str, str]:
    """The solved stake by first card: each stake's share (``1: 100%``, ``1: 40% 100: 60%``)."""
    from pontoon.analysis.british.game import NAMES

    present = sol.game.counts > 0
    out = {}
    for c in range(NCLASS):
        if present[c]:
            out[NAMES[c]] = " ".join(
                f"{s:g}: {p:.0%}" for s, p in zip(sol.grid, sol.stake[c], strict=True) if p >= 0.005
            )
    return out


def stake_report(sol: StakeSolution) -> dict[str, Any]:
    """The JSON ``stake_game`` entry for one grid (docs/analysis.md)."""
    return {
        "grid": list(sol.grid),
        "player_per_round": sol.value,  # minimum stakes
        "player_per_unit_staked": sol.value / sol.mean_stake,
        "banker_edge_per_unit_staked": -sol.value / sol.mean_stake,
        "mean_stake": sol.mean_stake,
        "exploitability": sol.exploitability,  # minimum stakes per round
        "player_best_response": sol.player_br,
        "banker_best_response": sol.banker_br,
        "stake_by_first_card": stake_chart(sol),
        "iterations": sol.iterations,
        "solve_seconds": sol.seconds,
    }


def stake_game(
    rules: BritishRules, grid: tuple[Decimal, ...], *, target: float = 1e-3, log: Any = None
) -> dict[str, Any]:
    """``pontoon analyze --stake-grid``: the stake game on ``grid`` (stakes in money, within the rules'
    limits), figures in minimum stakes (``stake_min``) per round and per unit staked."""
    units = tuple(float(x / rules.stake_min) for x in grid)
    sol = solve_stakes(rules, units, target=target, log=log)
    out = stake_report(sol)
    out["grid"] = [str(x) for x in grid]  # money, exact text
    out["grid_in_minimum_stakes"] = list(units)
    return out


def print_stake_game(rep: dict[str, Any], echo: Any) -> None:
    echo(
        f"stake game (the stake chosen after the first card from {', '.join(rep['grid'])}; the banker sees it):"
    )
    echo(
        f"  player {rep['player_per_round']:+.4f} minimum stakes per round, {rep['player_per_unit_staked']:+.4%} "
        f"per unit staked (mean stake {rep['mean_stake']:.3f}); exploitability {rep['exploitability']:.5f} "
        f"minimum stakes ({rep['iterations']} iterations, {rep['solve_seconds']:.0f} s)"
    )
    echo(
        "  stake by first card (in minimum stakes): "
        + "; ".join(f"{c} {m}" for c, m in rep["stake_by_first_card"].items())
    )
