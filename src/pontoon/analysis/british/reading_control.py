"""A control variate for the pooled best response to the banker reading every hand: the same deals valued
against the blind banker, whose mean is known exactly (issue 27 item 3; docs/analysis.md "Pooled runs").

A deal ``D`` (the other players' final hands and the banker's first two cards ``f``) gives ``z_D``
(``reading_best.deal_values``): per terminal ``i`` of the deviator, ``P(K_i | D) / P(K_i) * pay_D(i)``, an
unbiased estimate of his terminal value against the banker reading every hand (less the part paid where the
banker has a Pontoon: those deals give 0). The same deal valued against the **blind** banker (his exact best
response among strategies reading his own cards only, ``reading.blind_response``: he twists at the hands it
says whatever he sees of the players) gives

    c_D[i] = P(K_i | D) / P(K_i) * payb_D(i)

(``blind_values``; ``payb_D`` as ``pay_D`` with the blind banker's decisions). Its mean is known exactly:
``E[c_D[i]] = E[payb(i) 1{no banker Pontoon} | K_i]`` (the identity ``P(D | K) / P(D) = P(K | D) / P(K)``),
and the blind banker decides from his own cards only, so given the deviator's cards and ``f`` his later cards
are uniform draws from the cards not in them (the other players' cards are unseen cards of an exchangeable
pack that cannot run out; their play does not depend on the banker's cards): the expectation is the
heads-up one, ``mu[i] = tv_b[i] - B[i]`` (``control_mean``), ``tv_b`` the heads-up terminal values against the
blind banker (``values.terminal_values``) and ``B[i]`` what terminal ``i`` is paid where the banker has a
Pontoon (the tables' fixed part less ``Terms.fixed`` times the chance of no banker Pontoon). Checked exactly
heads-up (the mean over every banker's first two cards equals ``mu`` to 1e-13) and with N players on fresh
deals (``check``).

So ``z_D - c_D + mu`` is unbiased for what ``z_D`` estimates, whatever the pairing, and where the reading
banker plays mostly as the blind one (the more hands, the more so) the two values of a deal move together:
a deviation's gain ``(y - y0) . z_D`` and ``(y - y0) . c_D`` correlate at 0.94 to 0.97 for ``blind`` from
five players on, so the difference's variance is 8 to 16 times smaller (the difference estimator: the
control's coefficient fixed at 1, nothing fitted, exactly unbiased).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon.analysis.british.game import multiset_p
from pontoon.analysis.british.reading import blind_response
from pontoon.analysis.british.reading_best import Terms, chance_ratio
from pontoon.analysis.british.reading_fast import outcome_chances_fast
from pontoon.analysis.british.reading_response_sample import _rest
from pontoon.analysis.british.values import terminal_values

CTL = "_ctl"  # a deal record's control scalar: f"{deviation}{CTL}" = (y_dev - y0) . c_D


def control_mean(sol: Any, tm: Terms) -> np.ndarray:
    """``mu = E[c_D]``, exact: the heads-up terminal values against the blind banker less what each terminal
    is paid where the banker has a Pontoon (``B``: ``values.tables``' fixed part, which includes it, less
    ``tm.fixed`` times the chance of no banker Pontoon given the terminal's cards)."""
    g, tb = sol.game, sol.tables
    tw, _ = blind_response(sol)
    tv = terminal_values(g, tb, tw)
    bp = np.array([multiset_p(g.counts, t.cards, g.pontoon) for t in g.terminals])  # 003: shown at once
    return np.asarray(tv - (tb.fixed - tm.fixed * (1.0 - bp)), np.float64)


def replay(t: Any, seed: int, j: int) -> tuple[Any, Any]:
    """Deal ``j`` of ``seed`` played by the solved bots up to the banker's turn (the pack from
    ``default_rng([seed, j, 0])``, the bots' stream ``[seed, j, 1]``: ``reading_pool.deal_record``'s deal):
    the round and ``_rest`` of it (None where the banker has a Pontoon)."""
    from pontoon.british.pack import BritishPack, one_pack
    from pontoon.british.round import BritishRound

    pack = BritishPack.shuffled(t.packs, np.random.default_rng([seed, j, 0]), one_pack(t.rules))
    t.bots.rng = np.random.default_rng([seed, j, 1])
    rnd = BritishRound(t.rules, t.seats, "bank", pack)
    while not rnd.is_over() and rnd.phase != "banker":
        seat, verb, amt = t.bots.decide(rnd)
        rnd.act(seat, verb, amt)
    return rnd, _rest(rnd)


def blind_values(t: Any, rest: Any) -> np.ndarray:
    """``c_D``: the deal ``rest`` valued against the blind banker (zeros where the banker has a Pontoon)."""
    tm: Terms = t.tm
    if rest is None:
        return np.zeros(len(tm.size))
    f, _, _, used = rest
    n = t.n0 - used
    ratio = chance_ratio(tm, n, t.n0)
    z = ratio * tm.fixed
    ts = np.concatenate([v for v in tm.by_obs.values()])
    ts = ts[ratio[ts] > 0]
    if len(ts):
        out = outcome_chances_fast(f, n[None, :] - tm.k[ts], t.rd.blind_flags(f))
        z[ts] += ratio[ts] * tm.stake[ts] * (out * tm.u[ts]).sum(axis=1)
    return z


def control_scalars(t: Any, c: np.ndarray) -> dict[str, float]:
    """Each fixed deviation's gain against the blind banker on the deal (``(y_dev - y0) . c_D``)."""
    return {f"{name}{CTL}": float((y - t.y0) @ c) for name, y in t.dev_flows.items()}


def control_record(t: Any, seed: int, j: int) -> tuple[dict[str, Any], np.ndarray]:
    """Deal ``j`` of ``seed`` replayed (no programme: a tenth of a second): its control scalars and ``c_D``."""
    _, rest = replay(t, seed, j)
    c = blind_values(t, rest)
    return {"seed": seed, "j": j, **control_scalars(t, c)}, c


def check(t: Any, seed: int, deals: int) -> dict[str, Any]:
    """The control's mean over ``deals`` fresh deals against its exact mean, per deviation and for the
    solution (``y0 . c_D``): the mean, its standard error and the exact value (the N-player claim above)."""
    rows = []
    for j in range(deals):
        _, c = control_record(t, seed, j)
        rows.append([float(t.y0 @ c), *((y - t.y0) @ c for y in t.dev_flows.values())])
    x = np.array(rows)
    exact = [float(t.y0 @ t.mu), *(float((y - t.y0) @ t.mu) for y in t.dev_flows.values())]
    out: dict[str, Any] = {"deals": deals}
    for k, name in enumerate(["solved", *t.dev_flows]):
        v = x[:, k]
        out[name] = {"mean": float(v.mean()), "se": float(v.std(ddof=1) / np.sqrt(len(v))), "exact": exact[k]}
    return out
