"""The exact law of a count over deals of k cards and the draws at a true count (analysis/count_law.py)."""

from __future__ import annotations

import math

import numpy as np

from pontoon.analysis.count_law import UNIFORMS, count_law
from pontoon.analysis.counts import SYSTEMS
from pontoon.analysis.indices import true_count
from pontoon.analysis.states import shoe_counts
from pontoon.rules.load import resolve_rules


def test_the_law_counts_every_deal_and_matches_random_deals() -> None:
    """ways[k] sums to C(N, k) for every k, and P(bucket | k) equals the share of uniform random
    deals of k cards whose true count falls in the bucket (40,000 deals, within 4 standard errors)."""
    rules = resolve_rules("mbs")
    sysm = SYSTEMS["walker-hi-lo"]
    law = count_law(rules, sysm)
    for k in range(law.n + 1):
        assert math.isclose(law.ways[-1][k].sum(), math.comb(law.n, k), rel_tol=1e-9)
    full = shoe_counts(rules.pack, rules.decks)
    rng = np.random.default_rng(7)
    k = 150
    deals = rng.multivariate_hypergeometric(full, k, size=40_000)
    tcs = np.array([true_count(sysm, rules, d) for d in deals])
    for t in (-7, -4, -1, 2):
        p = law.bucket_chance(t, k)
        share = float(np.mean(np.floor(tcs) == t))
        assert abs(share - p) < 4 * math.sqrt(p * (1 - p) / len(tcs)) + 1e-4, (t, p, share)


def test_depths_are_reweighted_by_how_often_the_count_occurs() -> None:
    """The neutral count (Walker: -4 on 48-card decks) is mostly shallow (the full shoe is there),
    an extreme one only deep; a draw lies in its bucket at a depth the law allows."""
    rules = resolve_rules("mbs")
    sysm = SYSTEMS["walker-hi-lo"]
    law = count_law(rules, sysm)
    mean_depth = {}
    for t in (-12, -4, 4):
        d = law.depth_law(t, 0.75)
        assert math.isclose(d.sum(), 1.0) and len(d) == int(law.n * 0.75)
        mean_depth[t] = float(np.dot(d, np.arange(len(d))))
        u = np.random.default_rng(t + 20).random((20, UNIFORMS))
        for row in u:
            dealt = law.draw(t, d, row)
            assert d[int(dealt.sum())] > 0 and np.all(dealt <= law.full)
            assert math.floor(true_count(sysm, rules, dealt)) == t
    assert mean_depth[-4] < 0.5 * mean_depth[-12] and mean_depth[-4] < 0.5 * mean_depth[4], mean_depth
    assert law.depth_law(-4, 0.75)[0] > 0 and law.depth_law(4, 0.75)[0] == 0
