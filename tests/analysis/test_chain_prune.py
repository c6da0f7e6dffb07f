"""``chain``'s ``prune``: with a fixed policy only the states the policy reaches from the two-card
hands are valued; there every value of the full chain is kept (hitting: where the hand draws on)."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis import kernels as K
from pontoon.analysis.player import Params, UpcardSolver
from pontoon.analysis.states import shoe_counts
from pontoon.rules.load import resolve_rules


@pytest.mark.parametrize(
    ("preset", "up", "p"), [("blackjack", 5, 7), ("mbs", 9, 1), ("federal", 0, 6), ("mbs", 3, 0)]
)
def test_pruned_chain_equals_the_full_chain_where_it_values(preset: str, up: int, p: int) -> None:
    rules = resolve_rules(preset)
    pr = Params.of(rules)
    base = shoe_counts(rules.pack, rules.decks)
    base[up] -= 1
    solver = UpcardSolver(rules, pr, base, up)
    act, dist = solver.split_setup(p, 1)
    base_s = base.copy()
    base_s[p] -= 2
    a2 = 1 if p == 0 else 0
    dbl2 = pr.das
    opt = solver.run(base=base_s, dist=dist, active=act, a2=a2, dbl2=dbl2)
    pol = solver._decisions(opt, act, dbl2)  # a fixed policy: the optimal one's decisions
    kw = {"base": base_s, "dist": dist, "active": act, "a2": a2, "dbl2": dbl2, "policy": pol}
    full = solver.run(**kw)
    pruned = solver.run(**kw, prune=True)
    two = act & (solver.sp.ncards == 2)
    valued = (pruned.val != 0) | two
    assert two.any()
    assert valued.sum() < act.sum()  # it did leave states out
    for name in ("st", "dbl", "val", "act"):
        a, b = getattr(full, name), getattr(pruned, name)
        assert np.array_equal(a[valued], b[valued]), name
    assert np.array_equal(full.rfl[valued], pruned.rfl[valued])
    # hitting is valued where the hand draws on (the two-card hands, and where the policy draws)
    draws = two | (valued & ((full.act == K.ACT_HIT) | (full.act == K.ACT_DOUBLE)))
    assert np.array_equal(full.hit[draws], pruned.hit[draws])
    # the optimal policy (codes OPTIMAL) is never pruned
    again = solver.run(base=base_s, dist=dist, active=act, a2=a2, dbl2=dbl2, prune=True)
    assert np.array_equal(again.val, opt.val)
    assert K.OPTIMAL == -1
