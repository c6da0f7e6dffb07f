"""The players' best response to the banker reading every hand, full pack, N >= 2: fitted on sampled deals and
bracketed (issue 27 item 3; docs/analysis.md "Several players").

The exact best response (``reading_response.exact_response``) needs each of the deviator's terminal values
``tv[i]``: the expectation, over the other players' solved hands and the banker's first two cards given his
cards, of his payment against the banker reading every hand. With ``K_i`` his cards at terminal ``i`` and a
deal ``D`` (the others' final hands and the banker's first two cards, from an engine round of solved
players, as ``reading_response_sample``), ``P(D | K_i) / P(D) = P(K_i | D) / P(K_i)``: the chance of his
cards (any one order: the same for each) from the pack less ``D``'s cards over that from the full pack. So

    z_D[i] = P(K_i | D) / P(K_i) * pay_D(i)

is an unbiased estimate of ``tv[i]`` (less the part paid where the banker has a Pontoon, the same whatever
he plays: those deals give 0), where ``pay_D(i)`` is exact given ``D``: his stake lost (a bust), his Pontoon
or Royal Pontoon paid, or his stake times the expectation over the banker's outcome, the banker twisting
where his programme for everything he sees (``D``'s hands and what he sees of terminal ``i``) says to
(``reading_fast``), his later cards from the pack left. Values are linear in ``tv`` (``player_flow(g,
sigma) @ tv``), so the mean ``zbar`` over deals gives every strategy's value at once and the best response
to ``zbar`` by backward induction (``reading_response.best_response``).

That fitted response is the best on the deals it was fitted on: its gain there over the solution is biased
**up** (``E max >= max E``: an upper figure, ``in_sample_gain``). Played on fresh deals
(``reading_response_sample.sample_response`` with it as a deviation) its mean gain is an unbiased estimate
of its own gain, which is at most the best response's: a lower bound with a standard error. The true gain
of the best response lies between, in expectation.

A deal needs one programme per observation of the deviator (about 1,000): all of them (``budget`` None) or
``budget`` of them drawn with chance in proportion to the solved deviator's flow there times his stake (a
fifth of it spread evenly), each weighted by one over its chance (importance sampling: still unbiased).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from pontoon.analysis.british.game import BUST, FIVE, PONTOON, ROYAL, STUCK, Game, counts_of
from pontoon.analysis.british.reading import OUTCOMES, Obs, Reader, Seen
from pontoon.analysis.british.reading_fast import outcome_chances_fast
from pontoon.analysis.british.reading_last import planner
from pontoon.analysis.british.reading_response import best_response
from pontoon.analysis.british.reading_response_sample import _rest, sampling_table
from pontoon.analysis.british.strategy import solved
from pontoon.analysis.british.values import _u, g_order_fwd, player_flow


@dataclass
class Terms:
    """The deviator's terminals as flat arrays (once per game)."""

    k: np.ndarray  # [terminal, class]: his cards
    size: np.ndarray  # his number of cards
    fixed: np.ndarray  # paid whatever the banker does (no banker Pontoon): -stake, Pontoon, Royal Pontoon
    stake: np.ndarray
    u: np.ndarray  # [terminal, outcome]: his net per stake against each banker outcome (live terminals)
    by_obs: dict[int, np.ndarray]  # the live terminals (stuck, five cards) of each observation
    obs_weight: dict[int, float]  # the solved player's flow there times his stake (importance sampling)


def terms_of(g: Game, sigma: list[np.ndarray]) -> Terms:
    r = g.rules
    fp = float(r.five_card_trick_pays)
    k = np.array([counts_of(t.cards) for t in g.terminals], np.int64)
    stake = np.array([float(t.stake) for t in g.terminals])
    fixed = np.zeros(len(g.terminals))
    u = np.zeros((len(g.terminals), OUTCOMES))
    by: dict[int, list[int]] = {}
    for i, t in enumerate(g.terminals):
        if t.kind == BUST:
            fixed[i] = -t.stake  # 003 "the banker takes your stake"
        elif t.kind == PONTOON:
            fixed[i] = float(r.pontoon_pays)  # 003 "paid double"
        elif t.kind == ROYAL:
            fixed[i] = float(r.royal_pontoon_pays) * t.stake  # 003 variation: "paid treble"
        else:
            assert t.kind in (STUCK, FIVE)
            u[i] = [_u(t.total, o, fp) for o in range(OUTCOMES)]
            by.setdefault(t.obs, []).append(i)
    y = player_flow(g, sigma)
    by_obs = {o: np.array(ts, np.int64) for o, ts in by.items()}
    weight = {o: float(y[ts] @ stake[ts]) for o, ts in by_obs.items()}
    return Terms(k, k.sum(axis=1), fixed, stake, u, by_obs, weight)


def chance_ratio(tm: Terms, n: np.ndarray, n0: np.ndarray) -> np.ndarray:
    """Per terminal, the chance of his cards from the pack ``n`` over that from the full pack ``n0``."""
    out = np.ones(len(tm.size))
    for c in range(len(n)):
        for j in range(int(tm.k[:, c].max(initial=0))):
            has = tm.k[:, c] > j
            out[has] *= (n[c] - j) / (n0[c] - j) if n[c] > j else 0.0
    t, t0 = int(n.sum()), int(n0.sum())
    for j in range(int(tm.size.max(initial=0))):
        has = tm.size > j
        out[has] *= (t0 - j) / (t - j)
    return out


def deal_values(
    rd: Reader,
    tm: Terms,
    rest: Any,
    n0: np.ndarray,
    budget: int | None = None,
    rng: np.random.Generator | None = None,
    plans: Any = None,
) -> np.ndarray:
    """``z_D``: per terminal, the unbiased estimate of its value from the deal ``rest`` (``_rest``'s: the
    banker's first two cards, the other live hands as he sees them, the cards shown, their cards).
    ``plans``: the deal's ``reading_last.planner`` where the caller has one (the same decisions)."""
    g = rd.sol.game
    f, live, shown, used = rest
    n = n0 - used
    ratio = chance_ratio(tm, n, n0)
    z = ratio * tm.fixed
    shown_t = tuple(sorted(shown))

    others = Seen(f, tuple(sorted(live)), shown_t)

    def mine(o: int) -> Obs:
        up, buys = g.obs[o]
        return (tuple(up), tuple(int(b) for b in buys))

    def add(o: int, plan: Any, scale: float) -> None:
        ts = tm.by_obs[o]
        ts = ts[ratio[ts] > 0]
        if not len(ts):
            return
        out = outcome_chances_fast(f, n[None, :] - tm.k[ts], plan)
        z[ts] += scale * ratio[ts] * tm.stake[ts] * (out * tm.u[ts]).sum(axis=1)

    costly = [o for o in tm.by_obs if mine(o) in rd.support] if rd.observed(others) else []
    for o in set(tm.by_obs) - set(costly):
        add(o, frozenset(), 1.0)  # what the solved player never shows: the banker stays
    if plans is None:
        plans = planner(rd, others, len(costly) if budget is None else min(budget, len(costly)))
    if budget is None or len(costly) <= budget:
        for o in costly:
            add(o, plans.plan(mine(o)), 1.0)
        return z
    bound = np.array([tm.obs_weight[o] for o in costly])
    prob = 0.8 * bound / bound.sum() + 0.2 / len(costly)
    assert rng is not None
    picks = rng.choice(len(costly), size=budget, p=prob)
    for k in picks:
        o = costly[int(k)]
        add(o, plans.plan(mine(o)), 1.0 / (budget * prob[k]))
    return z


def sampled_values(
    rules: Any,
    players: int,
    rounds: int,
    seed: int,
    *,
    seconds: float | None = None,
    budget: int | None = None,
) -> Iterator[np.ndarray]:
    """``deal_values`` of ``rounds`` deals (or as many as ``seconds`` allow) of ``players`` solved players
    (``rules``' packs for the table), one per deal (zeros where the banker has a Pontoon: paid whatever the
    deviator plays); the game is ``solved(rules.with_(packs=rules.packs_for(players + 1)))``'s."""
    t0 = time.perf_counter()
    rules, packs, sol, rd, bots, seats, n0 = sampling_table(rules, players)
    from pontoon.british.pack import BritishPack, one_pack
    from pontoon.british.round import BritishRound

    g = sol.game
    tm = terms_of(g, sol.sigma)
    for j in range(rounds):
        if seconds is not None and j > 1 and time.perf_counter() - t0 > seconds:
            break
        pack = BritishPack.shuffled(packs, np.random.default_rng([seed, j, 0]), one_pack(rules))
        bots.rng = np.random.default_rng([seed, j, 1])
        rnd = BritishRound(rules, seats, "bank", pack)
        while not rnd.is_over() and rnd.phase != "banker":
            seat, verb, amt = bots.decide(rnd)
            rnd.act(seat, verb, amt)
        rest = _rest(rnd)
        if rest is None:
            yield np.zeros(len(g.terminals))
        else:
            yield deal_values(rd, tm, rest, n0, budget, np.random.default_rng([seed, j, 3]))


def fit_response(
    rules: Any,
    players: int,
    rounds: int,
    seed: int,
    *,
    seconds: float | None = None,
    budget: int | None = None,
) -> dict[str, Any]:
    """The mean ``zbar`` of ``sampled_values``, the best response to it (``strategy``, pure) and its gain
    over the solution on these deals (``in_sample_gain``: biased up, never below 0), per initial stake,
    with the deals used and the time."""
    t0 = time.perf_counter()
    packs = rules.packs_for(players + 1)
    sol = solved(rules.with_(packs=packs))
    g = sol.game
    total = np.zeros(len(g.terminals))
    count = 0
    for z in sampled_values(rules, players, rounds, seed, seconds=seconds, budget=budget):
        total += z
        count += 1
    zbar = total / max(count, 1)
    _, pure, best = best_response(g, zbar)
    y0 = player_flow(g, sol.sigma)
    return {
        "rounds": count,
        "packs": packs,
        "budget": budget,
        "strategy": pure,
        "in_sample_gain": best - float(y0 @ zbar),
        # deviating only where the fitted gain at the state is larger than the sampling noise could make it
        "shrunk": {f"fitted_{int(100 * tau)}": thresholded(g, zbar, sol.sigma, tau) for tau in THRESHOLDS},
        "seconds": time.perf_counter() - t0,
    }


THRESHOLDS = (0.05, 0.15)  # initial stakes: the fitted response deviates where it gains more at the state


def thresholded(g: Game, tv: np.ndarray, sigma: list[np.ndarray], tau: float) -> list[np.ndarray]:
    """The solution ``sigma`` changed to the best action at each state where that action's value (given
    the state, the later states played this way, terminal values ``tv``) beats the solution's mix there by
    more than ``tau``: a fitted response that ignores small, noisy gains (backward induction)."""
    v = np.zeros(len(g.nodes))
    out = [x.copy() for x in sigma]

    def val(child: int) -> float:
        return float(tv[-1 - child]) if child < 0 else float(v[child])

    for i in g_order_fwd(g):
        s = g.nodes[i]
        q = np.array([sum(p * val(n) for _, p, n in s.children[a]) for a in s.actions])
        if q.max() - float(q @ sigma[i]) > tau:
            out[i] = np.eye(len(q))[int(np.argmax(q))]
        v[i] = float(q @ out[i])
    return out


def bracket(
    rules: Any,
    players: int,
    fit_rounds: int,
    eval_rounds: int,
    seed: int,
    *,
    budget: int | None = None,
    eval_budget: int | None = None,
    seconds: float | None = None,
    fit_seconds: float | None = None,
) -> dict[str, Any]:
    """The players' best response to the reading banker at a table of ``players``, bracketed: fitted on
    ``fit_rounds`` deals (seed ``[seed, 0]``; ``in_sample_gain``, biased up) and valued on ``eval_rounds``
    fresh ones (seed ``[seed, 1]``: ``reading_response_sample.sample_response`` with it as the deviation
    ``fitted`` beside ``heads_up`` and ``blind``: unbiased, a lower bound), each with the seconds it took.
    ``seconds``: at most that long for the valuation's deals; ``fit_seconds``: for the fit's."""
    from pontoon.analysis.british.reading_response_sample import sample_response

    fit = fit_response(rules, players, fit_rounds, _child(seed, 0), budget=budget, seconds=fit_seconds)
    got = sample_response(
        rules,
        players,
        eval_rounds,
        _child(seed, 1),
        seconds=seconds,
        budget=eval_budget,
        extra={"fitted": fit["strategy"], **fit["shrunk"]},
    )
    fit.pop("strategy")
    fit.pop("shrunk")
    return {"players": players, "fit": fit, "eval": got}


def _child(seed: int, k: int) -> int:
    """A seed of its own for each stage (``sample_response`` and ``fit_response`` take one integer)."""
    return int(np.random.SeedSequence([seed, k]).generate_state(1, np.uint64)[0] >> np.uint64(1))
