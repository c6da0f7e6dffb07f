"""The banker facing a split (issue 27; 003 Split your cards): a strategy of his own there, and what it certifies.

The solved heads-up game has no state for a split hand. Here the banker facing a split of x-x gets a strategy
that reads his own cards only, found by best-response iteration inside that class: starting from the simple
banker of the bots, the player's exact best split against the banker's current play (``split_fast``), then
the banker's exact best response to that split play among the strategies that read his own cards (a backward
pass over his hands, each hand's stay value summed over every way the two hands can end, weighted by the
hypergeometric chance of his cards given the player's), and again. Each banker so found is a fixed strategy,
so the player's best split against it is an exact **upper bound** on what splitting x-x can be worth against
the banker (any banker: one who also reads the split hands can only do better for himself). Kept per pair: the
banker whose upper bound is lowest.

With ``nphi`` > 1 (``split_fast.SPLIT_CLASSES``, the report's default) the class is wider: the banker also reads,
of each split hand at his turn, a bust or its number of cards (``split_fast.end_feature``, ``seen_class``: in
``view(banker)``, ruling 35); the passes, his best response and fictitious play are the same per class of the two
ended hands, and the bounds are as exact.

Where that bound is at most the pair's value unsplit (against the solved banker), splitting is no profitable
deviation, and the profile "the solved strategies, the player never splits, the banker facing a split plays
this strategy" has exactly the exploitability of the game without splits: the banker's best response is
unchanged (no split is ever reached), and the player's best response with splits is the one without. Where it
is above, the remaining gain is reported and counts in ``exploitability_with_splits`` (exact for that profile).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS, Game, banker_can_twist, banker_outcome, counts_of
from pontoon.analysis.british.split_fast import (
    BankerEnds,
    SplitModel,
    SplitRun,
    _binom,
    _k_hyper,
    banker_ends,
    hand_classes,
    simple_twists,
)
from pontoon.analysis.british.values import _jit, _u


@_jit
def _k_forward(  # type: ignore[no-untyped-def]
    cnt, mset, mcnt, end, kid, a_start, k_start, k_cls, k_node, order, start, e_mset, e_stake, e_fixed,
    e_total, counts, total, x, pidx, dec1, dec2, pay, A, F, W, phi, nphi,
):  # fmt: skip
    """The chance of every way the split ends under the decisions ``dec1``, ``dec2`` (``SplitRun``), gathered by
    the distinct sets of the player's cards ``u``: ``W[u]`` the chance, ``A[u, o]`` the weighted payment against
    banker outcome ``o`` (0 bust, 1 five, else his total), ``F[u]`` the weighted fixed payments (busts, Royal
    Pontoon), all unless the banker has a Pontoon; each by the class ``phi[e1] * nphi + phi[e2]`` of what the
    banker sees of the two ended hands (first index; ``split_fast.end_feature``)."""
    nn, nc, ne, no = cnt.shape[0], counts.shape[0], e_mset.shape[0], pay.shape[1]
    m1mass = np.zeros((ne, nc))
    mass = np.zeros(nn)
    for c2 in range(nc):
        if start[c2] < 0:
            continue
        mass[:] = 0.0
        for c1 in range(nc):
            s = start[c1]
            k1 = counts[c1] - 2 * (c1 == x)
            k2 = counts[c2] - 2 * (c2 == x) - (c2 == c1)
            if s >= 0 and k1 > 0 and k2 > 0:
                mass[s] += k1 / (total - 2) * k2 / (total - 3)
        for i in range(nn - 1, -1, -1):  # parents first
            j = order[i]
            w = mass[j]
            if w == 0.0:
                continue
            d = dec1[c2, j]
            if d < 0:
                m1mass[end[j], c2] += w
                continue
            left = total - 2
            for c in range(nc):
                left -= cnt[j, c]
            for c in range(nc):
                k = kid[j, d, c]
                lc = counts[c] - cnt[j, c] - (c == x) - (c == c2)
                if k >= 0 and lc > 0:
                    mass[k] += w * lc / left
    for e in range(ne):
        m1 = e_mset[e]
        mass[:] = 0.0
        some = False
        for c2 in range(nc):
            if start[c2] >= 0 and m1mass[e, c2] > 0.0:
                mass[start[c2]] += m1mass[e, c2]
                some = True
        if not some:
            continue
        s1, t1, f1 = e_stake[e], e_total[e], e_fixed[e]
        n1 = 0
        for c in range(nc):
            n1 += mcnt[m1, c]
        for i in range(nn - 1, -1, -1):
            j = order[i]
            w = mass[j]
            if w == 0.0:
                continue
            d = dec2[e, j]
            if d < 0:
                e2 = end[j]
                u = pidx[m1, mset[j]]
                s2, t2 = e_stake[e2], e_total[e2]
                cl = phi[e] * nphi + phi[e2]
                for o in range(no):
                    q = 0.0
                    if t1 >= 0:
                        q += s1 * pay[t1, o]
                    if t2 >= 0:
                        q += s2 * pay[t2, o]
                    A[cl, u, o] += w * q
                F[cl, u] += w * (f1 + e_fixed[e2])
                W[cl, u] += w
                continue
            a = a_start[j] + d
            left = total - n1
            for c in range(nc):
                left -= cnt[j, c]
            for q in range(k_start[a], k_start[a + 1]):
                c = k_cls[q]
                lc = counts[c] - mcnt[m1, c] - cnt[j, c]
                if lc > 0:
                    mass[k_node[q]] += w * lc / left


@_jit
def _k_stay(rcs, counts, total, cls, mul, size, out, binom, A, F, S):  # type: ignore[no-untyped-def]
    """``S[k]``: the player's value if the banker stays on (or must end at) hand ``k``, weighted by the chance
    that his first cards form it: summed over the sets of the player's cards (``A``, ``F`` of ``_k_forward``)."""
    q = np.zeros(cls.shape[0])
    for u in range(rcs.shape[0]):
        if A[u, 0] == 0.0 and F[u] == 0.0 and A[u, 2] == 0.0:
            continue
        _k_hyper(rcs[u], counts, total, cls, mul, size, binom, q)
        for k in range(cls.shape[0]):
            if q[k] != 0.0:
                S[k] += q[k] * (A[u, out[k]] + F[u])


@_jit
def _k_stay_classes(rcs, counts, total, cls, mul, size, out, binom, A, F, S):  # type: ignore[no-untyped-def]
    """``_k_stay`` for every class at once (``A[class]``, ``F[class]``, ``S[class]``): the banker's hand chances
    once per set of the player's cards."""
    q = np.zeros(cls.shape[0])
    nk = A.shape[0]
    for u in range(rcs.shape[0]):
        some = False
        for cl in range(nk):
            if A[cl, u, 0] != 0.0 or F[cl, u] != 0.0 or A[cl, u, 2] != 0.0:
                some = True
        if not some:
            continue
        _k_hyper(rcs[u], counts, total, cls, mul, size, binom, q)
        for k in range(cls.shape[0]):
            if q[k] != 0.0:
                for cl in range(nk):
                    S[cl, k] += q[k] * (A[cl, u, out[k]] + F[cl, u])


def stay_values(g: Game, model: SplitModel, run: SplitRun, nphi: int = 1) -> tuple[np.ndarray, float]:
    """For the split play of ``run``: per banker hand of ``g.banker``, the player's value if the banker stays on
    it (or must end there), weighted by the chance of the deals that reach it; and the value of the deals where
    the banker has a Pontoon (the same for every banker play). With ``nphi`` > 1: per class of what the banker
    sees of the two ended hands (``split_fast.end_feature``; rows ``phi1 * nphi + phi2``) and banker hand."""
    from pontoon.analysis.british.split_fast import end_feature

    hg, csr, pidx, rcs = model.graph(run.x)
    fp = float(model.rules.five_card_trick_pays)
    pay = np.array([[_u(t, o, fp) for o in range(23)] for t in range(23)], np.float64)
    K = nphi * nphi
    A, F, W = np.zeros((K, len(rcs), 23)), np.zeros((K, len(rcs))), np.zeros((K, len(rcs)))
    _k_forward(
        hg.cnt, hg.mset, hg.mcnt, hg.end, hg.kid, *csr, hg.order, hg.start, hg.e_mset, hg.e_stake,
        hg.e_fixed, hg.e_total, model.counts, model.total, run.x, pidx, run.dec1, run.dec2, pay, A, F, W,
        end_feature(hg, nphi), nphi,
    )  # fmt: skip
    nb = len(g.banker)
    cls, mul = hand_classes(list(g.banker))
    size = np.array([len(h) for h in g.banker], np.int64)
    out = np.array([banker_outcome(h) for h in g.banker], np.int64)
    S = np.zeros((K, nb))
    _k_stay_classes(rcs, model.counts, model.total, cls, mul, size, out, _binom(model.total), A, F, S)
    left = model.total - rcs.sum(axis=1)
    a, t = model.counts[model.p0] - rcs[:, model.p0], model.counts[model.p1] - rcs[:, model.p1]
    pontoon = np.where(left >= 2, a * t / np.maximum(left * (left - 1) / 2, 1), 0.0)
    # 003: the banker's Pontoon, shown before the split, collects on the initial stake
    pont = -float(model.rules.banker_pontoon_collects) * float(W.sum(axis=0) @ pontoon)
    return (S[0] if nphi == 1 else S), pont


def _backward(g: Game, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The better of staying and twisting on each banker hand for the stay values ``S`` (children before
    parents): his twist decisions (1 twist) and the player's value from each hand."""
    nb = len(g.banker)
    z = S.copy()
    twist = np.zeros(nb)
    for k in range(nb - 1, -1, -1):  # children before parents
        h = g.banker[k]
        if not banker_can_twist(h):
            continue
        t = 0.0
        for c in range(NCLASS):
            d = tuple(sorted((*h, c)))
            if d in g.banker_index:
                t += counts_of(d)[c] / len(d) * z[g.banker_index[d]]
        if t < S[k]:
            twist[k], z[k] = 1.0, t
    return twist, z


def blind_response(g: Game, model: SplitModel, run: SplitRun, nphi: int = 1) -> tuple[np.ndarray, float]:
    """The banker's exact best response to the split play of ``run`` among the strategies that read his own
    cards only: twist (1) or stay (0) per banker hand of ``g.banker``, and the player's value against it. With
    ``nphi`` > 1, among those that also read the class of what he sees of the two ended hands
    (``split_fast.end_feature``): twist per class and banker hand ([class, hand])."""
    S, pontoon = stay_values(g, model, run, nphi)
    rows = S.reshape(-1, len(g.banker))
    twist = np.zeros(rows.shape)
    value = pontoon
    pairs = np.array([len(h) == 2 for h in g.banker])
    for cl in range(rows.shape[0]):
        twist[cl], z = _backward(g, rows[cl])
        value += float(z[pairs].sum())
    return (twist[0] if nphi == 1 else twist), value


def play_value(g: Game, model: SplitModel, run: SplitRun, twist: np.ndarray) -> float:
    """The player's value when he splits as in ``run`` and the banker plays ``twist`` (his own cards only; or
    [class, hand] reading the class of the ended hands, ``split_fast.end_feature``)."""
    nphi = 1 if twist.ndim == 1 else int(round(np.sqrt(twist.shape[0])))
    S, pontoon = stay_values(g, model, run, nphi)
    value = pontoon
    for t, Sc in zip(twist.reshape(-1, len(g.banker)), S.reshape(-1, len(g.banker)), strict=True):
        stays = np.array([1.0 - t[k] if banker_can_twist(h) else 1.0 for k, h in enumerate(g.banker)])
        value += float(np.sum(own_reach(g, t) * stays * Sc))
    return value


def class_ends(g: Game, twist: np.ndarray) -> BankerEnds | np.ndarray:
    """The banker's ends under a play facing a split, for ``SplitModel.run``: ``split_fast.banker_ends`` of a
    play of his own cards, or per class ([class, hand], ``split_fast.end_feature``) the share of each banker
    hand's orders that his play ends on."""
    if twist.ndim == 1:
        return banker_ends(g, lambda h: twist[g.banker_index[h]])
    can = np.array([banker_can_twist(h) for h in g.banker])
    return np.array([own_reach(g, t) * np.where(can, 1.0 - t, 1.0) for t in twist])


def own_reach(g: Game, twist: np.ndarray) -> np.ndarray:
    """The banker's own chance of reaching each hand under ``twist`` (his order shares as in ``banker_ends``)."""
    reach = np.zeros(len(g.banker))
    for k, h in enumerate(g.banker):
        if len(h) == 2:
            reach[k] = 1.0
        if banker_can_twist(h) and twist[k] > 0.0:
            for c in range(NCLASS):
                d = tuple(sorted((*h, c)))
                if d in g.banker_index:
                    reach[g.banker_index[d]] += twist[k] * reach[k] * counts_of(d)[c] / len(d)
    return reach


def simple_play(g: Game) -> np.ndarray:
    """The simple banker of the bots as a twist chance per banker hand."""
    return np.array([float(banker_can_twist(h) and simple_twists(h)) for h in g.banker])


def split_banker(
    g: Game, x: int, keep: float, model: SplitModel, rounds: int = 8, nphi: int = 1
) -> dict[str, Any]:
    """Fictitious play for the banker facing a split of x-x (module docstring): each round the player's best
    split against the banker's average play (his best responses so far, each hand's twist chance weighted by
    how often each reaches it), then the banker's best response to that split play. ``keep``: the pair's value
    unsplit against the solved banker. Returns the lowest upper bound on the split's value, the banker play that
    gives it (``twist``: his chance of twisting per banker hand; with ``nphi`` > 1 per class of what he sees of
    the ended hands and banker hand, ``split_fast.end_feature``) and each round's bound."""
    base = simple_play(g)
    twist = base if nphi == 1 else np.tile(base, (nphi * nphi, 1))
    num, den = np.zeros(twist.shape), np.zeros(twist.shape)
    best: dict[str, Any] = {}
    bounds = []
    for i in range(rounds):
        run = model.run(x, class_ends(g, twist), nphi)
        bounds.append(run.value)
        if not best or run.value < best["upper"]:
            best = {"upper": run.value, "twist": twist.copy(), "round": i}
        if best["upper"] <= keep or i == rounds - 1:
            break
        response, _ = blind_response(g, model, run, nphi)
        if np.array_equal(response, twist):  # a saddle point among the bankers of that class
            best["saddle"] = True
            break
        reach = np.array([own_reach(g, r) for r in response.reshape(-1, len(g.banker))]).reshape(twist.shape)
        num += reach * response
        den += reach
        twist = np.where(den > 0, num / np.where(den > 0, den, 1.0), response)
    return {**best, "rounds": bounds}


def with_split_banker(
    g: Game,
    dev: dict[str, Any],
    rounds: int = 8,
    twists: dict[int, np.ndarray] | None = None,
    nphi: int = 1,
) -> dict[str, Any]:
    """``splits.split_deviation``'s report with the banker facing each split given a play of his own
    (``split_banker``) where the simple banker leaves splitting profitable: per pair ``split_banker`` (the upper
    bound on the split's value, the fictitious-play round that gave it, whether it is a saddle point among the
    bankers reading their own cards), and ``with_split_banker``: the player's best response with splits when the
    banker facing a split plays so, and its gain over the best response without splits; ``twists`` (where given)
    gets each such play (x -> his chance of twisting per banker hand)."""
    from pontoon.analysis.british.game import NAMES

    model = SplitModel(g.rules, g)
    total = dev["player_best_response_with_splits"]
    for x in range(NCLASS):
        name = NAMES[x] * 2
        pair = dev["pairs"].get(name)
        if pair is None or pair["split"] <= pair["no_split"]:
            continue
        found = split_banker(g, x, pair["no_split"], model, rounds, nphi)
        if twists is not None:
            twists[x] = found["twist"]  # the banker's play facing a split of x-x (reading his own cards)
        pair["split_banker"] = {
            "upper": found["upper"],
            "round": found["round"],
            "saddle": bool(found.get("saddle", False)),
            "rounds": found["rounds"],
        }
        p = (int(g.counts[x]) / g.total_cards) * ((int(g.counts[x]) - 1) / (g.total_cards - 1))
        p *= pair.get("splittable_share", 1.0)  # ten-value pairs: only those of one rank (003)
        total -= p * (pair["split"] - max(pair["no_split"], found["upper"]))
    dev["with_split_banker"] = {
        "player_best_response_with_splits": total,
        "gain": total - dev["without_splits"],
        "banker_reads": "his own cards"
        + (
            ""
            if nphi == 1
            else f"; of each split hand: bust, else its number of cards (2 to {nphi}, {nphi} or more)"
        ),
    }
    return dev


def resplit_chances(g: Game, dev: dict[str, Any]) -> dict[str, Any]:
    """Where a resplit (003 Split: "If either of the new cards dealt is equal to the first two you may choose to
    split again") would be offered to the player's best response with splits (``with_split_banker``): per pair
    that it splits, the chance per round that a split hand's second card is of the pair's rank (either hand:
    1 - P(neither), the pack less the pair), and their sum. Resplits are not in the default full-pack analysis
    (bounded by ``split_resplit_bound``, valued exactly by ``split_resplit``, slow on a full pack): the chances say
    how much of the game they touch."""
    from pontoon.analysis.british.game import NAMES

    n = g.total_cards
    pairs: dict[str, float] = {}
    for x in range(NCLASS):
        pair = dev["pairs"].get(NAMES[x] * 2)
        if pair is None:
            continue
        against = pair["split_banker"]["upper"] if "split_banker" in pair else pair["split"]
        if against <= pair["no_split"]:
            continue  # his best response does not split this pair
        k = int(g.counts[x])
        p = (k / n) * ((k - 1) / (n - 1)) * pair.get("splittable_share", 1.0)
        neither = (n - k) / (n - 2) * (n - k - 1) / (n - 3)  # 003: both hands' second cards at once
        pairs[NAMES[x] * 2] = p * (1.0 - neither)
    return {"per_round": sum(pairs.values()), "pairs": pairs}
