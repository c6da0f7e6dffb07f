"""Issue 27 item 5: the first banker hint facing a split (split_bots.split_banker_values) gathers the player's
split runs by what the banker sees (split_reading.gather). The gathering is now array work in the order of the
former loop over pairs of runs; here it is held equal, float for float, to that loop (kept below as the
reference), and the hint's figures with it (one pack, a pair's first hint; a reduced pack, every pair)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon.analysis.british import split_bots as sb
from pontoon.analysis.british import strategy as S
from pontoon.analysis.british.game import NCLASS
from pontoon.analysis.british.split_banker import class_ends
from pontoon.analysis.british.split_fast import SplitModel
from pontoon.analysis.british.split_reading import Gathered, _hand_runs, gather, observation_values
from pontoon.analysis.british.values import _u
from pontoon.rules.british import BRITISH


def reference_gather(model: Any, run: Any) -> Gathered:
    """``gather`` as it was: a Python loop over the pairs of runs, a dict per observation and group."""
    x = run.x
    hg = model.graph(x)[0]
    counts, total = model.counts, model.total
    pay = np.array(
        [[_u(t, o, float(model.rules.five_card_trick_pays)) for o in range(23)] for t in range(23)]
    )
    acts = [[a for a in range(3) if (hg.kid[j, a] >= 0).any()] for j in range(len(hg.cnt))]
    second: dict[tuple[int, int], Any] = {}
    obs_id: dict[Any, int] = {}
    groups: dict[Any, int] = {}
    rows_w: list[float] = []
    rows_a: list[np.ndarray] = []
    rows_f: list[float] = []
    eye = np.eye(NCLASS, dtype=np.int64)
    for c2 in range(NCLASS):
        if int(hg.start[c2]) < 0:
            continue
        for c1 in range(NCLASS):
            k1 = int(counts[c1]) - 2 * (c1 == x)
            k2 = int(counts[c2]) - 2 * (c2 == x) - (c2 == c1)
            if int(hg.start[c1]) < 0 or k1 <= 0 or k2 <= 0:
                continue
            p12 = k1 / (total - 2) * k2 / (total - 3)
            for seen1, e1, p1 in _hand_runs(
                model, x, c1, eye[x] + eye[c2], lambda j, c2=c2: int(run.dec1[c2, j])
            ):
                m1 = int(hg.e_mset[e1])
                if (e1, c2) not in second:

                    def choose2(j: int, e1: int = e1) -> int:
                        d = int(run.dec2[e1, j])
                        return -1 if d < 0 else acts[j][d]

                    second[(e1, c2)] = _hand_runs(model, x, c2, hg.mcnt[m1], choose2)
                st1, t1, f1 = float(hg.e_stake[e1]), int(hg.e_total[e1]), float(hg.e_fixed[e1])
                pay1 = st1 * pay[t1] if t1 >= 0 else np.zeros(23)
                for seen2, e2, p2 in second[(e1, c2)]:
                    w = p12 * p1 * p2
                    u = tuple(int(v) for v in hg.mcnt[m1] + hg.mcnt[int(hg.e_mset[e2])])
                    o = obs_id.setdefault((seen1, seen2), len(obs_id))
                    gi = groups.setdefault((o, u), len(rows_w))
                    if gi == len(rows_w):
                        rows_w.append(0.0)
                        rows_a.append(np.zeros(23))
                        rows_f.append(0.0)
                    t2 = int(hg.e_total[e2])
                    rows_w[gi] += w
                    rows_a[gi] += w * (pay1 + (float(hg.e_stake[e2]) * pay[t2] if t2 >= 0 else 0.0))
                    rows_f[gi] += w * (f1 + float(hg.e_fixed[e2]))
    keys = list(groups)
    order = sorted(range(len(keys)), key=lambda i: keys[i][0])
    obs: list[Any] = [None] * len(obs_id)
    for k, i in obs_id.items():
        obs[i] = k
    return Gathered(
        obs,
        np.array([keys[i][0] for i in order], np.int64),
        np.array([keys[i][1] for i in order], np.int64).reshape(len(order), NCLASS),
        np.array([rows_w[i] for i in order]),
        np.array([rows_a[i] for i in order]).reshape(len(order), 23),
        np.array([rows_f[i] for i in order]),
    )


def _same(a: Gathered, b: Gathered) -> None:
    assert a.obs == b.obs
    for f in ("g_obs", "g_u", "w", "a", "f"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f  # float for float


def test_gathered_runs_equal_the_loop_on_every_pair_of_a_reduced_pack(cache) -> None:  # type: ignore[no-untyped-def]
    sol = S.solved(BRITISH.with_(pack_ranks="A5T", pack_suits=4))
    g = sol.game
    model = SplitModel(sol.rules, g)
    pairs = 0
    for x in range(NCLASS):
        if model.counts[x] < 2:
            continue
        run = model.run(x, class_ends(g, sb.split_play(sol, x)), sb.SPLIT_CLASSES)
        got = gather(model, run)
        assert len(got.obs) > 0
        _same(got, reference_gather(model, run))
        pairs += 1
    assert pairs == 3


def test_first_split_hint_figures_unchanged_on_the_full_pack() -> None:
    """One pack, 8-8: the gathering equal to the loop's and the hint's stay and twist values at many of the
    banker's observations and hands equal to those from the loop's gathering."""
    sol = S.solved(BRITISH)
    g = sol.game
    model, gd = sb._reading(sol, 8)
    ref = reference_gather(model, model.run(8, class_ends(g, sb.split_play(sol, 8)), sb.SPLIT_CLASSES))
    _same(gd, ref)
    checked = 0
    for o in range(0, len(gd.obs), max(1, len(gd.obs) // 8)):
        stay, twist, mass = observation_values(g, model, ref, o)
        for hand, k in list(g.banker_index.items())[::15]:
            if mass[k] > 0:
                got = sb.split_banker_values(sol, 8, gd.obs[o], hand)
                want = [-float(stay[k]), -float(twist[k])]  # NaN: no twist there (both)
                assert np.array_equal([got["stick"], got["twist"]], want, equal_nan=True)
                checked += 1
    assert checked >= 8
