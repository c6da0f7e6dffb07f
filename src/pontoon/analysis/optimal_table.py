"""The analyser's composition-dependent ("optimal") decisions as a plain table for the simulator.

``optimal_decisions(rules)`` returns, for the full shoe and every up card:

* ``"two"``: the best first decision of every unsplit starting two-card hand, by the unordered
  pair of card values (suits ignored: the 7-7 suit classes of the Super Bonus are folded into
  one hit value, weighted by their probabilities), among S H D P R; naturals are left out;
* ``"three"`` / ``"four"``: the best decision of every 3- and 4-card hand by its multiset of card
  values, among S and H (and D where the rules double on any number of cards and the hand holds
  no Ace, whose count would otherwise depend on which cards came first).

Keys are tuples of value indices sorted ascending (0 = Ace, 1..8 = 2..9, 9 = ten-value) and the
up card's value index; values are the codes ``"S" "H" "D" "P" "R"``. These are the decisions
behind the analyser's ``house_edge.optimal`` (``strategy.solve``): the same solver, the same
option values (``UpcardSolver.hand_options`` and the optimal chain run), not recomputed here.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pontoon.analysis.player import Params, UpcardSolver
from pontoon.analysis.states import shoe_counts, state_space
from pontoon.analysis.strategy import comp_weights
from pontoon.rules.model import CasinoRules

Decisions = dict[str, dict[tuple[int, ...], str]]


def optimal_decisions(rules: CasinoRules) -> Decisions:
    """Best decisions by composition (see the module docstring); cached per rules."""
    return _cached(rules.model_dump_json())


@lru_cache(maxsize=8)
def _cached(key: str) -> Decisions:
    return _build(CasinoRules.model_validate_json(key))


def _best(opts: dict[str, float]) -> str:
    finite = {k: v for k, v in opts.items() if v == v}
    return max(finite, key=lambda k: finite[k])


def _build(rules: CasinoRules) -> Decisions:
    pr = Params.of(rules)
    sp = state_space()
    full = shoe_counts(rules.pack, rules.decks)
    two_st = sp.ncards == 2
    out: Decisions = {"two": {}, "three": {}, "four": {}}
    for up in range(10):
        if full[up] <= 0:
            continue
        base = full.copy()
        base[up] -= 1
        solver = UpcardSolver(rules, pr, base, up)
        w_all = comp_weights(base, sp.counts)
        w_dbl = w_all if pr.dbl_any else np.where(two_st, w_all, 0.0)
        a2s = (0, 1, 2) if pr.dbl_any else (0,)
        outs = {a2: solver.run(a2=a2, weights=w_dbl) for a2 in a2s}
        for i, j, _w in solver.start_weights():
            split_ev = solver.split_value(i) if (i == j and pr.max_hands >= 2) else None
            opts, classes = solver.hand_options(i, j, outs, split_ev)
            if "N" in opts:
                continue
            o = dict(opts)
            o["H"] += sum(cw * adj for cw, adj in classes)
            out["two"][(min(i, j), max(i, j), up)] = _best(o)
        o0 = outs[0]
        for s in np.nonzero((sp.ncards == 3) | (sp.ncards == 4))[0]:
            n = int(sp.ncards[s])
            if int(sp.best[s]) >= 21:
                continue
            cnt = sp.counts[s]
            if np.any(cnt > base):
                continue
            vals = tuple(v for v in range(10) for _ in range(int(cnt[v])))
            opts = {"H": float(o0.hit[s])}
            if int(sp.best[s]) >= pr.forced:
                opts["S"] = float(o0.st[s])
            if pr.dbl_any and cnt[0] == 0:
                opts["D"] = float(o0.dbl[s])
            out["three" if n == 3 else "four"][(*vals, up)] = _best(opts)
    return out
