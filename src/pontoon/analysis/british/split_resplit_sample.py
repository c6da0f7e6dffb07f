"""Resplits on the full pack, estimated by sampling (issue 27; 003 Split: "If either of the new cards dealt is
equal to the first two you may choose to split again").

The exact value of every resplit offer of a pair (``split_resplit_fast.FastWorld``) is tens of CPU-hours on 52 or
104 cards, but one offer costs seconds to minutes. An offer of the split of x-x is either the first hand's
(its second card ``c1`` an x, the second hand's ``c2`` known: ``ra[c2]``) or the second hand's (``c2`` an x, the
first hand ended as ``e``: ``rb[e]``); each has chance ``(k - 2) / (n - 2)`` per split (``k`` the x's of the
pack, ``n`` its cards). Its gain is ``max(0, R - C)``: the resplit's value ``R`` (exact, ``FastWorld``) less the
value of playing on without it ``C`` (the passes, ``SplitModel.run``). ``sample_offers`` draws offers with their
exact chances (``c2`` given ``c1`` an x exactly; ``c1`` given ``c2`` an x exactly, then the first hand played by
the passes' decisions, its cards drawn from the pack) and values each exactly; the mean gain per offer times the
chance of an offer per split is the resplits' first-order gain per split (each offer valued as if it were the
only one: the first hand's play is the one without resplits, and a first-hand offer declined leaves the second
hand's offer to the second-hand samples). ``split_resplit_bound`` gives the rigorous bound; this is an estimate,
with its standard error.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS
from pontoon.analysis.british.split_fast import SplitModel, SplitRun


def first_offer(world: Any, c2: int) -> float:
    """``ra[c2]`` of ``FastWorld.resplit_values`` for one second card of the second hand (the first hand x-x split
    again at its start), the banker's Pontoon included."""
    from pontoon.analysis.british.split_resplit_fast import _dist, _split_again

    x, K = world.x, world.K
    q = np.zeros(NCLASS, np.int64)
    q[x] = 3
    q[c2] += 1
    one = np.array([c2], np.int64)
    pont = -world.collects * _dist(q, K, world.dmemo, world.dstore)[24]
    return float(pont + _split_again(q, one, 2, K, world.memo, world.dmemo, world.dstore))


def second_offer(world: Any, e: int) -> float:
    """``rb[e]`` of ``FastWorld.resplit_values`` for one end ``e`` of the first hand (the second hand x-x split
    again at its start), the banker's Pontoon and the first hand's value against the house banker included."""
    from pontoon.analysis.british.split_resplit_fast import _dist, _ended, _split_again

    hg, x, K = world.hg, world.x, world.K
    q = (hg.mcnt[hg.e_mset[e]] + 2 * (np.arange(NCLASS) == x)).astype(np.int64)
    d = _dist(q, K, world.dmemo, world.dstore)
    ends = K[19]
    none = np.zeros(0, np.int64)
    rest = _split_again(q, none, 2, K, world.memo, world.dmemo, world.dstore)
    return float(-world.collects * d[24] + _ended(d, e, ends) + rest)


def play_first_hand(model: SplitModel, run: SplitRun, c1: int, rng: np.random.Generator) -> int:
    """The first hand x-c1 (the second hand's second card an x) played by the passes' decisions ``run.dec1``, its
    cards drawn from the pack left: the end it reaches."""
    x = run.x
    hg = model.graph(x)[0]
    counts, total = model.counts, model.total
    j = int(hg.start[c1])
    while True:
        a = int(run.dec1[x, j])
        if a < 0:
            return int(hg.end[j])
        kids = hg.kid[j, a]
        left = counts - hg.cnt[j] - 2 * (np.arange(NCLASS) == x)  # the second hand's x and its second card x
        w = np.where(kids >= 0, np.maximum(left, 0), 0).astype(np.float64)
        assert w.sum() > 0 and total > 0
        c = int(rng.choice(NCLASS, p=w / w.sum()))
        j = int(kids[c])


def sample_offers(
    model: SplitModel,
    x: int,
    be: Any,
    nphi: int,
    twist_three: np.ndarray,
    rng: np.random.Generator,
    samples: int,
    log: Any = None,
    max_memo: int = 1_500_000,
) -> dict[str, Any]:
    """``samples`` offers of the split of x-x drawn with their exact chances (alternately the first hand's and
    the second hand's), each valued exactly: per kind the gains ``max(0, R - C)`` per offer, their mean and
    standard error, and the first-order gain per split (``module docstring``)."""
    from pontoon.analysis.british.split_resplit_fast import FastWorld

    plain = model.run(x, be, nphi)
    counts, n = model.counts, model.total
    k = int(counts[x])
    p_offer = (k - 2) / (n - 2)  # per kind, per split
    world = FastWorld(model, x, twist_three)
    rows: dict[str, list[dict[str, Any]]] = {"first": [], "second": []}
    for i in range(samples):
        if len(world.memo) + len(world.dmemo) > max_memo:  # memory: start the memo afresh
            world = FastWorld(model, x, twist_three)
        t = time.process_time()
        if i % 2 == 0:  # the first hand's second card an x; c2 given it
            w = (counts - 3 * (np.arange(NCLASS) == x)).astype(np.float64)
            c2 = int(rng.choice(NCLASS, p=w / w.sum()))
            r = first_offer(world, c2)
            ra = np.full(NCLASS, -np.inf)
            ra[c2] = r
            only = model.run(x, be, nphi, resplit=(ra, np.full(len(model.graph(x)[0].e_mset), -np.inf)))
            k2 = counts[c2] - 3 * (c2 == x)
            chance = (k - 2) / (n - 2) * k2 / (n - 3)
            gain = (only.value - plain.value) / chance
            row = {"c2": c2, "resplit": r, "gain": gain}
            kind = "first"
        else:  # the second hand's second card an x; c1 given it, the first hand played
            w = (counts - 3 * (np.arange(NCLASS) == x)).astype(np.float64)
            c1 = int(rng.choice(NCLASS, p=w / w.sum()))
            e = play_first_hand(model, plain, c1, rng)
            r = second_offer(world, e)
            gain = max(0.0, r - float(plain.res[e, x]))
            row = {"c1": c1, "end": e, "resplit": r, "on": float(plain.res[e, x]), "gain": gain}
            kind = "second"
        row["cpu_seconds"] = time.process_time() - t
        rows[kind].append(row)
        if log is not None:
            log(kind, row)
    out: dict[str, Any] = {"pair_split": plain.value, "offer_chance_per_split_each_kind": p_offer}
    per_split = 0.0
    var = 0.0
    for kind, rs in rows.items():
        gains = np.array([r["gain"] for r in rs])
        mean = float(gains.mean()) if len(gains) else 0.0
        se = float(gains.std(ddof=1) / np.sqrt(len(gains))) if len(gains) > 1 else float("inf")
        out[kind] = {"n": len(gains), "mean_gain_per_offer": mean, "standard_error": se, "rows": rs}
        per_split += p_offer * mean
        var += (p_offer * se) ** 2
    out["gain_per_split"] = per_split
    out["gain_per_split_se"] = float(np.sqrt(var))
    return out
