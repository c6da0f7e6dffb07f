"""The banker's double (003 variation, rul 30) in the exact heads-up model, solved with CFR+.

003: "after everyone else has made their initial bet, the banker looks at his own first card and can choose to
double the bets ... the final payments are doubled, but this doubling does not affect the payments for Pontoon
or Five Card Trick"; rul 30: it doubles ordinary wins and losses, a player's bust included, and neither a
Pontoon, a Five Card Trick, a Royal Pontoon nor the banker's Pontoon or Five Card Trick.

The game: the banker's first decision, at his first card ``c``, doubles with chance ``d[c]``; the player sees
it, so there is one copy of the heads-up game per multiplier ``m`` (1 passed, 2 doubled), each with its own
player strategy and banker strategy, and payments of that multiplier.

Exactness (docs/analysis.md): the banker's cards are exchangeable draws, so given the multiset ``k`` of his
first cards, his first card is ``c`` with chance ``count(c, k) / |k|``; his doubling depends on ``c``, and his
later play does not need it (his posterior over the player's cards depends on his cards' multiset only), so the
reach of a hand is carried per first card: ``reach(c, k) = sum_d (count(d, k) - [d = c]) / (|k| - 1) *
reach(c, k - d) * twist(k - d)``, and the chance that the deal reaches his hand ``k`` in copy ``m`` is
``prob(k) * sum_c share(c | k) * dbl_m(c) * reach(c, k)``. The values the banker's later decisions compare are
those of ``solve`` in each copy; the value of doubling at ``c`` is the sum over his pairs holding ``c`` of
``share(c | pair)`` times the pair's value, plus the deals where he does not play (busts, Pontoons), split by
his first card exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pontoon.analysis.british.game import BUST, NCLASS, PONTOON, ROYAL, Game, build, counts_of
from pontoon.analysis.british.solve import (
    _k_player_q,
    average_banker,
    average_player,
    banker_step,
    flatten,
    player_average,
    player_step,
)
from pontoon.analysis.british.values import Strategy, Tables, _jit, _k_stay, _k_values, _u, tables
from pontoon.errors import RulesError
from pontoon.rules.british import BritishRules

MULTS = (1.0, 2.0)


@dataclass
class DoubleTables:
    """What the copies need beyond ``Tables``: the first card's chances and the payments per multiplier."""

    p_first: np.ndarray  # [terminal, class]: chance the banker's first card is of the class, given his cards
    fixed: list[np.ndarray]  # per multiplier: [terminal, class] the value where the banker does not play
    pay: list[np.ndarray]  # per multiplier: [stuck total, banker hand] the player's net per stake
    share: np.ndarray  # [banker hand, class]: count(c, k) / |k|
    last: list[list[tuple[int, int, float]]]  # per hand: (parent, card class, count(d, k)) for the reach
    pairs_of: np.ndarray  # [class, banker hand]: share(c | pair) for pairs, else 0
    flow: np.ndarray  # the reach recursion's rows (``_flow``)


def double_tables(g: Game, tb: Tables) -> DoubleTables:
    r = g.rules
    n = int(g.counts.sum())
    a, x = g.pontoon
    collects, pays, royal = (
        float(r.banker_pontoon_collects),
        float(r.pontoon_pays),
        float(r.royal_pontoon_pays),
    )
    used = np.array([counts_of(t.cards) for t in g.terminals], np.float64)
    size = used.sum(axis=1, keepdims=True)
    p_first = np.maximum(g.counts[None, :] - used, 0.0) / (n - size)
    bp = np.zeros_like(p_first)  # his Pontoon given his first card (003 "immediately exposed")
    bp[:, a] = (g.counts[x] - used[:, x]) / (n - size[:, 0] - 1)
    bp[:, x] = (g.counts[a] - used[:, a]) / (n - size[:, 0] - 1)
    fixed = []
    for m in MULTS:
        base = np.zeros(len(g.terminals))
        for i, t in enumerate(g.terminals):
            if t.kind == BUST:
                base[i] = -m * t.stake  # rul 30: a bust loses the doubled stake
            elif t.kind == PONTOON:
                base[i] = pays  # not doubled (003)
            elif t.kind == ROYAL:
                base[i] = royal * t.stake
        # the banker's Pontoon collects its (undoubled) amount; where he has none, the player's own payment
        fixed.append(-collects * bp + (1 - bp) * base[:, None] * (tb.f_kind[:, None] == 0))
    fp = float(r.five_card_trick_pays)
    pay = [
        np.array([[_mult(_u(t, int(o), fp), t, int(o), m) for o in tb.out] for t in range(23)]) for m in MULTS
    ]
    share = np.array([[h.count(c) / len(h) for c in range(NCLASS)] for h in g.banker])
    last: list[list[tuple[int, int, float]]] = []
    for h in g.banker:
        row = []
        if len(h) > 2:
            for d in sorted(set(h)):
                parent = list(h)
                parent.remove(d)
                k = g.banker_index.get(tuple(parent))
                if k is not None:
                    row.append((k, d, float(h.count(d))))
        last.append(row)
    pairs_of = np.zeros((NCLASS, len(g.banker)))
    for k, h in enumerate(g.banker):
        if len(h) == 2:
            for c in set(h):
                pairs_of[c, k] = h.count(c) / 2
    return DoubleTables(p_first, fixed, pay, share, last, pairs_of, _flow(g, last))


def _mult(u: float, total: int, out: int, m: float) -> float:
    """rul 30: ordinary wins and losses doubled; Five Card Tricks (his or the banker's) paid as they are."""
    return u if total == 22 or out == 1 else m * u


def copy_reach(
    g: Game, tb: Tables, dt: DoubleTables, tw: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """[observation, hand]: per unit of the chance that his first |k| cards form ``k``, the chance that his
    first card (doubled or passed with the chances ``w`` per class) and his play ``tw`` reach ``k``; and that
    they reach it and he stays (or must) there. ``sum_c share(c | k) w(c) reach(c, k)``."""
    no, nb = tw.shape
    out = np.zeros((no, nb))
    _k_first_reach(dt.flow, tw, dt.share, w, out, np.zeros((NCLASS, nb)))
    stay = np.where(tb.twistable[None, :], 1.0 - tw, 1.0)
    return out, out * stay


def _flow(g: Game, dt_last: list[list[tuple[int, int, float]]]) -> np.ndarray:
    """Rows (hand, parent or -1 for a pair, first card class, weight), hands in order (parents first): his last
    card is d and his first c with chance (count(d, k) - [d = c]) / (|k| - 1)."""
    rows: list[tuple[float, float, float, float]] = []
    for k, h in enumerate(g.banker):
        if len(h) == 2:
            rows += [(k, -1, c, 1.0) for c in sorted(set(h))]
            continue
        for parent, d, cnt in dt_last[k]:
            for c in sorted(set(h)):
                w = (cnt - (d == c)) / (len(h) - 1)
                if w > 0:
                    rows.append((k, parent, c, w))
    return np.array(rows, np.float64).reshape(-1, 4)


@_jit
def _k_first_reach(flow, tw, share, weight, out, reach):  # type: ignore[no-untyped-def]
    no, nb = tw.shape
    nc = reach.shape[0]
    for o in range(no):
        reach[:, :] = 0.0
        for r in range(flow.shape[0]):
            k, parent, c, w = int(flow[r, 0]), int(flow[r, 1]), int(flow[r, 2]), flow[r, 3]
            if parent < 0:
                reach[c, k] = 1.0
            else:
                reach[c, k] += w * reach[c, parent] * tw[o, parent]
        for k in range(nb):
            acc = 0.0
            for c in range(nc):
                acc += share[k, c] * weight[c] * reach[c, k]
            out[o, k] = acc


def _weights(dbl: np.ndarray, j: int) -> np.ndarray:
    return dbl if MULTS[j] > 1 else 1.0 - dbl


@dataclass
class DoubleSolution:
    game: Game
    tables: Tables
    dbl: np.ndarray  # [class]: the banker's chance of doubling with that first card
    sigma: list[Strategy]  # per multiplier
    tw: list[np.ndarray]
    value: float
    player_br: float
    banker_br: float
    iterations: int
    seconds: float
    history: list[dict[str, float]] = field(default_factory=list)

    @property
    def exploitability(self) -> float:
        return self.player_br - self.banker_br


def terminal_values_m(
    g: Game, tb: Tables, dt: DoubleTables, dbl: np.ndarray, tw: np.ndarray, j: int
) -> np.ndarray:
    """Each terminal's value in copy ``j``, times the chance that the banker's first card leads there."""
    w = _weights(dbl, j)  # [class]
    _, e_m = copy_reach(g, tb, dt, tw, w)
    vals = (dt.p_first * w[None, :] * dt.fixed[j]).sum(axis=1)
    _k_values(tb.f_kind, tb.f_obs, tb.f_pset, tb.f_total, tb.f_stake, tb.prob, e_m, dt.pay[j], vals)
    return vals


def _stay(g: Game, tb: Tables, dt: DoubleTables, y: np.ndarray, j: int) -> np.ndarray:
    stay = np.zeros((len(g.obs), len(g.banker)))
    _k_stay(tb.f_kind, tb.f_obs, tb.f_pset, tb.f_total, tb.f_stake, tb.prob, y, dt.pay[j], stay)
    return stay


def _first_values(dt: DoubleTables, y: np.ndarray, z: np.ndarray, j: int) -> np.ndarray:
    """[class]: the player's value in copy ``j`` of the deals whose banker's first card is of the class."""
    return (y[:, None] * dt.p_first * dt.fixed[j]).sum(axis=0) + dt.pairs_of @ z.sum(axis=0)


def solve_double(
    rules: BritishRules,
    *,
    target: float = 1e-3,
    max_iterations: int = 2000,
    check_every: int = 50,
    log: Any = None,
) -> DoubleSolution:
    """CFR+ (as ``solve``) on the game with the banker's double, to an exact exploitability of ``target``."""
    if not rules.banker_may_double:
        raise RulesError("solve_double is the game with banker_may_double=true")
    if rules.natural_beats_plain or rules.ace_picture_beats_ace_ten:
        raise RulesError(
            "the British analysis does not model banker_may_double with the Pontoon grades "
            "(natural_beats_plain, ace_picture_beats_ace_ten)"
        )
    t0 = time.perf_counter()
    g = build(rules, double=True)
    tb = tables(g)
    dt = double_tables(g, tb)
    fl = flatten(g, tb)
    na, nn, no, nb = len(fl.kid_start) - 1, len(g.nodes), len(g.obs), len(g.banker)
    node_of_action = np.repeat(np.arange(nn), np.diff(fl.act_start))
    n_act = np.diff(fl.act_start)[node_of_action]
    sigma = [1.0 / n_act for _ in MULTS]
    tw = [np.where(tb.twistable[None, :], 0.5, 0.0) * np.ones((no, 1)) for _ in MULTS]
    dbl = np.full(NCLASS, 0.5)
    reg_d = np.zeros((NCLASS, 2))
    avg_d = np.zeros(NCLASS)
    reg_p = [np.zeros(na) for _ in MULTS]
    reg_b = [np.zeros((no, nb, 2)) for _ in MULTS]
    avg_x = [np.zeros(na) for _ in MULTS]
    avg_tw = [np.zeros((no, nb)) for _ in MULTS]
    avg_reach = [np.zeros((no, nb)) for _ in MULTS]
    q, v, mass, y = np.zeros(na), np.zeros(nn), np.zeros(nn), np.zeros(len(g.terminals))
    twist, z = np.zeros((no, nb)), np.zeros((no, nb))
    sol = None
    history: list[dict[str, float]] = []
    it = 0
    for it in range(1, max_iterations + 1):
        vd = np.zeros((NCLASS, 2))
        for j in range(len(MULTS)):
            tv = terminal_values_m(g, tb, dt, dbl, tw[j], j)
            reg_p[j], sigma[j] = player_step(fl, sigma[j], tv, reg_p[j], q, v, node_of_action)
        for j in range(len(MULTS)):
            player_average(fl, sigma[j], fl.root_p, mass, y, avg_x[j], it, node_of_action)
            tw_new = banker_step(fl, tb, _stay(g, tb, dt, y, j), tw[j], reg_b[j], twist, z)
            vd[:, j] = _first_values(dt, y, z, j)
            own, _ = copy_reach(g, tb, dt, tw[j], _weights(dbl, j))
            avg_tw[j] += it * own * tw[j]
            avg_reach[j] += it * own
            tw[j] = tw_new
        # the double, at his first card: he minimises the player's value
        cur = (1 - dbl) * vd[:, 0] + dbl * vd[:, 1]
        reg_d = np.maximum(reg_d + cur[:, None] - vd, 0.0)
        tot_d = reg_d.sum(axis=1)
        avg_d += it * dbl  # his first decision: his own reach is 1
        dbl = np.where(tot_d > 0, reg_d[:, 1] / np.where(tot_d > 0, tot_d, 1.0), 0.5)
        if it % check_every == 0 or it == max_iterations:
            sol = _evaluate(
                g, tb, dt, fl.act_start, avg_d, avg_x, avg_tw, avg_reach, it, time.perf_counter() - t0
            )
            history.append({"iteration": it, "exploitability": sol.exploitability, "seconds": sol.seconds})
            if log is not None:
                log(f"double game CFR+ {it}: exploitability {sol.exploitability:.6f}, value {sol.value:.6f}")
            if sol.exploitability <= target:
                break
    if sol is None or sol.iterations != it:
        sol = _evaluate(
            g, tb, dt, fl.act_start, avg_d, avg_x, avg_tw, avg_reach, it, time.perf_counter() - t0
        )
    sol.history = history
    return sol


def _evaluate(
    g: Game,
    tb: Tables,
    dt: DoubleTables,
    act_start: np.ndarray,
    avg_d: np.ndarray,
    avg_x: list[np.ndarray],
    avg_tw: list[np.ndarray],
    avg_reach: list[np.ndarray],
    it: int,
    secs: float,
) -> DoubleSolution:
    dbl = avg_d / (it * (it + 1) / 2)
    sigmas = [average_player(g, act_start, x) for x in avg_x]
    tws = [average_banker(t, r) for t, r in zip(avg_tw, avg_reach, strict=True)]
    return evaluate(g, tb, dt, dbl, sigmas, tws, it, secs)


def banker_best(
    g: Game, tb: Tables, dt: DoubleTables, y: list[np.ndarray]
) -> tuple[np.ndarray, list[np.ndarray], float]:
    """The banker's exact best response to the player's flows ``y`` (per copy): his double per first card,
    his twist (1) or stay (0) per copy, observation and hand, and the player's value against it."""
    brs = []
    vd = np.zeros((NCLASS, len(MULTS)))
    for j in range(len(MULTS)):
        stay = _stay(g, tb, dt, y[j], j)
        z = stay.copy()
        twist = np.full_like(stay, np.inf)
        for k in range(len(g.banker) - 1, -1, -1):  # children before parents
            if tb.twistable[k] and tb.kids[k]:
                twist[:, k] = sum(rho * z[:, d] for d, rho in tb.kids[k])
                z[:, k] = np.minimum(stay[:, k], twist[:, k])
        brs.append((twist < stay).astype(np.float64))
        vd[:, j] = _first_values(dt, y[j], z, j)
    return (vd[:, 1] < vd[:, 0]).astype(np.float64), brs, float(vd.min(axis=1).sum())


def evaluate(
    g: Game,
    tb: Tables,
    dt: DoubleTables,
    dbl: np.ndarray,
    sigmas: list[Strategy],
    tws: list[np.ndarray],
    it: int = 0,
    secs: float = 0.0,
) -> DoubleSolution:
    """The exact value of the strategies and both exact best responses."""
    from pontoon.analysis.british.values import player_flow

    fl = flatten(g, tb)
    value = player_br = 0.0
    ys = []
    for j in range(len(MULTS)):
        tv = terminal_values_m(g, tb, dt, dbl, tws[j], j)
        y = player_flow(g, sigmas[j])
        ys.append(y)
        value += float(y @ tv)
        na = len(fl.kid_start) - 1
        q, v = np.zeros(na), np.zeros(len(g.nodes))
        _k_player_q(fl.order, fl.act_start, fl.kid_start, fl.kid, fl.kid_p, np.zeros(na), tv, q, v, True)
        player_br += sum(p * (tv[-1 - n] if n < 0 else v[n]) for n, p in g.roots)
    _, _, banker_br = banker_best(g, tb, dt, ys)
    return DoubleSolution(g, tb, dbl, sigmas, tws, value, float(player_br), banker_br, it, secs)


def analyze_double(rules: BritishRules, *, target: float = 1e-3, log: Any = None) -> dict[str, Any]:
    """``pontoon analyze`` for rules with banker_may_double: the solved game with the double, its exact
    exploitability, the banker's double by first card and each copy's player chart."""
    from pontoon.analysis.british.game import BUY_GRID, NAMES
    from pontoon.analysis.british.report import player_chart

    t0 = time.perf_counter()
    sol = solve_double(rules, target=target, check_every=25, log=log)
    g = sol.game
    return {
        "game": "british",
        "rules": rules.model_dump(mode="json"),
        "model": {
            "players": 1,
            "packs": rules.packs_for(2),
            "stake": "one initial stake (every payment is a multiple of it)",
            "double": "the banker doubles or not at his first card (003 variation, rul 30); the player sees it",
            "buy_grid": list(BUY_GRID),
            "splits": "not offered",
            "cards": "by point value",
            "player_states": 2 * len(g.nodes),
            "banker_observations": 2 * len(g.obs),
            "banker_hands": len(g.banker),
        },
        "banker_edge": {"solution": -sol.value},
        "solution": {
            "solver": "CFR+",
            "player_value": sol.value,
            "exploitability": sol.exploitability,
            "player_best_response": sol.player_br,
            "banker_best_response": sol.banker_br,
            "iterations": sol.iterations,
            "solve_seconds": sol.seconds,
        },
        "banker_double": {NAMES[c]: float(sol.dbl[c]) for c in range(NCLASS) if g.counts[c] > 0},
        "strategy": {
            "player_passed": player_chart(g, sol.sigma[0]),
            "player_doubled": player_chart(g, sol.sigma[1]),
        },
        "seconds": time.perf_counter() - t0,
    }


def print_double(report: dict[str, Any], echo: Any) -> None:
    r, s = report["rules"], report["solution"]
    echo(f"{r['name'] or r['preset']} (003), heads-up, the banker may double at his first card (rul 30)")
    echo(f"banker's edge at the solution: {report['banker_edge']['solution']:+.4%} of the initial stake")
    echo(f"  exploitability {s['exploitability']:.6f} ({s['solver']}, {s['iterations']} iterations)")
    echo(
        "banker's chance of doubling by his first card: "
        + "  ".join(f"{c}:{p:.0%}" for c, p in report["banker_double"].items())
    )
    for key, label in (("player_passed", "not doubled"), ("player_doubled", "doubled")):
        echo(f"player, first decision on two cards, bets {label} (S stick, T twist, B buy 2, b buy 1):")
        for kind in ("hard", "soft"):
            row = report["strategy"][key][kind]
            echo(f"  {kind}: " + "  ".join(f"{t}:{c}" for t, c in row.items()))
    echo(f"({report['seconds']:.1f} s)")
