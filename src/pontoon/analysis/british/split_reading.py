"""The banker facing a split who reads the split hands (issue 27; 003 Split your cards; ruling 35).

At his turn the banker sees, of each hand of a split (``view(banker)``: 003 Split "face up", Twist "face up",
Buy "face down", "throw in your hand face up"): the pair card, the number of face-down cards (the second card
and the bought ones), the face-up (twisted) cards in order, the stake, whether it twisted and its status (stuck,
five cards, bust); a busted hand shows every card in the order dealt. ``reading_response`` gives his exact best
response to a split play of the player (a ``split_fast.SplitRun``: the decisions of both hands), over every
strategy that reads all that and his own cards, and the player's value against it:

* both hands' runs of cards under the split play are walked forward (hand 1 for each second card of hand 2, which
  the player knows; hand 2 for each way hand 1 ended), each with its chance; every pair of runs is gathered by
  what the banker sees of the two hands and by the set of the player's cards (``u``), with the weighted payment
  against each banker outcome;
* per observation, the value of staying on each of his hands is a hypergeometric sum over the sets ``u`` (his
  cards are exchangeable draws from the pack less the player's: every order of the pack is equally likely), and a
  backward pass over his hands takes the better of staying and twisting (``split_banker.blind_response``'s pass,
  once per observation).

With ``twist`` (a play reading his own cards only) the same sums value that play instead: equal to the split's
value of ``SplitRun`` (the check that the forward walk is complete). Exact: equal to the engine's enumeration of a
reduced pack (``tests/analysis/test_british_split_reading.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from pontoon.analysis.british.game import NCLASS, Game, banker_can_twist, banker_outcome, counts_of, hard
from pontoon.analysis.british.split_fast import (
    TWIST,
    SplitModel,
    SplitRun,
    _binom,
    _k_hyper,
    hand_classes,
)
from pontoon.analysis.british.values import _jit, _u

Obs = tuple[Any, ...]


@dataclass
class Gathered:
    """The split's runs gathered by what the banker sees (``obs``: per observation id, both hands' views) and the
    player's cards: per group its observation (groups sorted by it), its cards, chance ``w``, weighted payment
    ``a[o]`` against banker outcome ``o`` (0 bust, 1 five, else his total) and fixed payment ``f``."""

    obs: list[tuple[Obs, Obs]]
    g_obs: np.ndarray
    g_u: np.ndarray
    w: np.ndarray
    a: np.ndarray
    f: np.ndarray

    @cached_property
    def index(self) -> dict[tuple[Obs, Obs], int]:  # built once (each hint looks one observation up)
        return {o: i for i, o in enumerate(self.obs)}


def seen_of_view(hand: dict[str, Any], initial: Any = 1) -> Obs:
    """What ``view(banker)`` shows of a split hand at his turn, as ``gather`` keys it (the stake in initial
    stakes)."""
    from decimal import Decimal

    from pontoon.analysis.british.infosets import HIDDEN, card_class

    stake = float(Decimal(hand["stake"]) / Decimal(initial))
    if hand["status"] == "bust":  # 003 "throw in your hand face up": every card, in the order dealt
        return ("bust", stake, bool(hand["twisted"]), tuple(card_class(c) for c in hand["cards"]))
    hidden = sum(1 for c in hand["cards"] if c == HIDDEN)
    ups = tuple(card_class(c) for c in hand["cards"][1:] if c != HIDDEN)
    return (hand["status"], stake, hidden, ups)


def _hand_runs(
    model: SplitModel, x: int, c: int, other: np.ndarray, choose: Any
) -> list[tuple[Obs, int, float]]:
    """Every run of one split hand from (x, c), the player's other cards ``other`` out of the pack:
    (what the banker sees of it, its end, its chance); ``choose(j)``: the action at node j (-1 end)."""
    hg = model.graph(x)[0]
    counts, total = model.counts, model.total
    out: list[tuple[Obs, int, float]] = []
    n_other = int(other.sum())

    def walk(j: int, p: float, seq: tuple[int, ...], hidden: int, ups: tuple[int, ...]) -> None:
        a = choose(j)
        cards, stake, _, twisted = hg.keys[j]
        if a < 0:
            e = int(hg.end[j])
            if hg.forced[j] and hard(cards) > 21:  # 003 "throw in your hand face up": every card, as dealt
                seen: Obs = ("bust", stake, twisted, seq)
            else:
                seen = ("five" if hg.forced[j] else "stuck", stake, hidden, ups)
            out.append((seen, e, p))
            return
        left = total - n_other - len(cards)
        for c in range(NCLASS):
            k = int(hg.kid[j, a, c])
            lc = int(counts[c]) - int(other[c]) - int(hg.cnt[j, c])
            if k < 0 or lc <= 0:
                continue
            if a == TWIST:  # 003 Twist: face up
                walk(k, p * lc / left, (*seq, c), hidden, (*ups, c))
            else:  # 003 Buy: face down
                walk(k, p * lc / left, (*seq, c), hidden + 1, ups)

    walk(int(hg.start[c]), 1.0, (x, c), 1, ())
    return out


def gather(model: SplitModel, run: SplitRun) -> Gathered:
    """The runs of both hands of ``run``'s split play, gathered (``Gathered``). Per pair of first cards, the
    second hand's runs after each first-hand run are taken as arrays, and every pair of runs is listed in the
    order of a loop over them; observations and groups are numbered by first appearance in that order and
    the sums taken with ``np.add.at`` in that order (the same floats as adding pair by pair)."""
    x = run.x
    hg = model.graph(x)[0]
    counts, total = model.counts, model.total
    pay = np.array(
        [[_u(t, o, float(model.rules.five_card_trick_pays)) for o in range(23)] for t in range(23)]
    )
    acts = [[a for a in range(3) if (hg.kid[j, a] >= 0).any()] for j in range(len(hg.cnt))]
    ucode = hg.mcnt @ (np.int64(1) << (5 * np.arange(NCLASS, dtype=np.int64)))  # a class count below 32
    end_pay = np.array(
        [float(hg.e_stake[e]) * pay[t] if t >= 0 else np.zeros(23) for e, t in enumerate(hg.e_total)]
    )
    end_pay = end_pay.reshape(len(hg.e_total), 23)
    fixed = hg.e_fixed.astype(float)
    seen_ids: tuple[dict[Obs, int], dict[Obs, int]] = ({}, {})
    seen_of: tuple[list[Obs], list[Obs]] = ([], [])
    second: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    parts: list[tuple[np.ndarray, ...]] = []  # per first-hand run: the pairs' seen ids, ends and chances
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
                key = (e1, c2)
                if key not in second:

                    def choose2(j: int, e1: int = e1) -> int:
                        d = int(run.dec2[e1, j])
                        return -1 if d < 0 else acts[j][d]

                    runs = _hand_runs(model, x, c2, hg.mcnt[int(hg.e_mset[e1])], choose2)
                    ids = np.array([_seen_id(seen_ids[1], seen_of[1], r[0]) for r in runs], np.int64)
                    second[key] = (
                        ids,
                        np.array([r[1] for r in runs], np.int64),
                        np.array([r[2] for r in runs]),
                    )
                ids, e2, p2 = second[key]
                s1 = _seen_id(seen_ids[0], seen_of[0], seen1)
                parts.append(
                    (
                        np.full(len(ids), s1, np.int64),
                        ids,
                        np.full(len(ids), e1, np.int64),
                        e2,
                        (p12 * p1) * p2,
                    )
                )
    if not parts:
        return Gathered(
            [],
            np.zeros(0, np.int64),
            np.zeros((0, NCLASS), np.int64),
            np.zeros(0),
            np.zeros((0, 23)),
            np.zeros(0),
        )
    # the pairs, in the loop's order: seen ids (q), ends (r), chances (w)
    q1, q2, r1, r2 = (np.concatenate([p[k] for p in parts]) for k in range(4))
    w = np.concatenate([p[4] for p in parts])
    o = _first_seen(q1 * (len(seen_of[1]) + 1) + q2)
    obs = [(seen_of[0][i], seen_of[1][j]) for i, j in _firsts(q1, q2, o)]
    u = ucode[hg.e_mset[r1]] + ucode[hg.e_mset[r2]]
    uid = _first_seen(u)  # a few thousand sets of the player's cards: o * their number fits in 63 bits
    gid = _first_seen(o * (int(uid.max()) + 1) + uid)
    n = int(gid.max()) + 1
    W, A, F = np.zeros(n), np.zeros((n, 23)), np.zeros(n)
    np.add.at(W, gid, w)
    for lo in range(0, len(w), 1 << 16):  # the payments in slices (23 per pair)
        sl = slice(lo, lo + (1 << 16))
        np.add.at(A, gid[sl], w[sl, None] * (end_pay[r1[sl]] + end_pay[r2[sl]]))
    np.add.at(F, gid, w * (fixed[r1] + fixed[r2]))
    first = np.full(n, len(w), np.int64)
    np.minimum.at(first, gid, np.arange(len(w)))
    g_obs, g_u = o[first], u[first]
    order = np.argsort(g_obs, kind="stable")
    uvec = (g_u[order][:, None] >> (5 * np.arange(NCLASS, dtype=np.int64))) & 31
    return Gathered(obs, g_obs[order], uvec.reshape(n, NCLASS), W[order], A[order].reshape(n, 23), F[order])


def _first_seen(code: np.ndarray) -> np.ndarray:
    """Per element of ``code``, its value's number in the order of first appearance (0, 1, ...)."""
    uniq, first, inv = np.unique(code, return_index=True, return_inverse=True)
    rank = np.empty(len(uniq), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(uniq))
    return rank[inv.reshape(-1)]


def _firsts(s1: np.ndarray, s2: np.ndarray, o: np.ndarray) -> list[tuple[int, int]]:
    """Per number of ``o`` (0, 1, ...), the ``(s1, s2)`` of its first element."""
    first = np.full(int(o.max()) + 1, len(o), np.int64)
    np.minimum.at(first, o, np.arange(len(o)))
    return list(zip(s1[first].tolist(), s2[first].tolist(), strict=True))


def _seen_id(ids: dict[Obs, int], of: list[Obs], seen: Obs) -> int:
    got = ids.get(seen)
    if got is None:
        got = ids[seen] = len(of)
        of.append(seen)
    return got


@_jit
def _k_read(  # type: ignore[no-untyped-def]
    g_obs, g_u, a, f, counts, total, cls, mul, size, out, binom, twistable, kid_start, kid, rho, pair, fixed_play,
    use_fixed, dec,
):  # fmt: skip
    """Per observation: the banker's stay values over his hands (``split_banker._k_stay`` for that observation's
    groups), then his best response by a backward pass (or, with ``use_fixed``, the play ``fixed_play``: his
    chance of twisting per hand); returns the player's value summed over observations (his Pontoon apart);
    ``dec[obs, hand]``: 1 where the best response twists (when ``dec`` has rows)."""
    nb = cls.shape[0]
    S = np.zeros(nb)
    z = np.zeros(nb)
    value = 0.0
    G = g_obs.shape[0]
    q = np.zeros(nb)
    i = 0
    while i < G:
        o = g_obs[i]
        S[:] = 0.0
        while i < G and g_obs[i] == o:
            _k_hyper(g_u[i], counts, total, cls, mul, size, binom, q)
            for k in range(nb):
                if q[k] != 0.0:
                    S[k] += q[k] * (a[i, out[k]] + f[i])
            i += 1
        for k in range(nb - 1, -1, -1):  # children before parents
            z[k] = S[k]
            if not twistable[k]:
                continue
            t = 0.0
            for r in range(kid_start[k], kid_start[k + 1]):
                t += rho[r] * z[kid[r]]
            if use_fixed:
                z[k] = (1.0 - fixed_play[k]) * S[k] + fixed_play[k] * t
            elif t < S[k]:
                z[k] = t
                if dec.shape[0] > 0:
                    dec[o, k] = 1
        for k in range(nb):
            if pair[k]:
                value += z[k]
    return value


@dataclass
class Reading:
    """The banker's best response reading the split hands: the player's value against it (his Pontoon
    included), the observations and, where asked, his twist decisions ``dec[obs, banker hand]``."""

    value: float
    obs: list[tuple[Obs, Obs]]
    obs_index: dict[tuple[Obs, Obs], int]
    dec: np.ndarray


def _banker_arrays(g: Game) -> tuple[np.ndarray, ...]:
    cls, mul = hand_classes(list(g.banker))
    size = np.array([len(h) for h in g.banker], np.int64)
    out = np.array([banker_outcome(h) for h in g.banker], np.int64)
    twistable = np.array([banker_can_twist(h) for h in g.banker], np.bool_)
    kid_start, kid, rho = [0], [], []
    for h in g.banker:
        if banker_can_twist(h):
            for c in range(NCLASS):
                d = tuple(sorted((*h, c)))
                if d in g.banker_index:  # the share of the orders of d that come from h
                    kid.append(g.banker_index[d])
                    rho.append(counts_of(d)[c] / len(d))
        kid_start.append(len(kid))
    pair = np.array([len(h) == 2 for h in g.banker], np.bool_)
    return (
        cls,
        mul,
        size,
        out,
        twistable,
        np.array(kid_start, np.int64),
        np.array(kid, np.int64),
        np.array(rho, np.float64),
        pair,
    )


def pontoon_part(model: SplitModel, gathered: Gathered) -> float:
    """The deals where the banker has a Pontoon (003: shown before the split, it collects the initial stake)."""
    u = gathered.g_u
    left = model.total - u.sum(axis=1)
    a, t = model.counts[model.p0] - u[:, model.p0], model.counts[model.p1] - u[:, model.p1]
    p = np.where(left >= 2, a * t / np.maximum(left * (left - 1) / 2, 1), 0.0)
    return -float(model.rules.banker_pontoon_collects) * float(gathered.w @ p)


def reading_response(
    g: Game,
    model: SplitModel,
    run: SplitRun,
    *,
    twist: np.ndarray | None = None,
    decisions: bool = False,
    gathered: Gathered | None = None,
) -> Reading:
    """The banker's exact best response to ``run``'s split play reading everything he sees of the split hands
    (module docstring), or with ``twist`` the value of that play of his own cards (or [class, hand]: a play per
    class of what he sees of the ended hands, ``split_fast.end_feature``); ``decisions``: keep his
    twist decision per observation and hand (reduced packs: the array is observations x hands)."""
    gd = gathered if gathered is not None else gather(model, run)
    cls, mul, size, out, twistable, kid_start, kid, rho, pair = _banker_arrays(g)
    dec = np.zeros((len(gd.obs), len(g.banker)) if decisions else (0, 0), np.int8)
    fixed = np.asarray(twist if twist is not None else np.zeros(len(g.banker)), np.float64)
    rows = fixed.reshape(-1, len(g.banker))
    nphi = int(round(np.sqrt(rows.shape[0])))
    of_group = np.array([class_of_seen(o, nphi) for o in gd.obs], np.int64)[gd.g_obs] if nphi > 1 else None
    value = 0.0
    for cl, row in enumerate(rows):  # a play per class of the ended hands (split_fast.end_feature)
        at = slice(None) if of_group is None else of_group == cl
        value += _k_read(
            gd.g_obs[at], gd.g_u[at], gd.a[at], gd.f[at], model.counts, model.total, cls, mul, size, out,
            _binom(model.total), twistable, kid_start, kid, rho, pair, row, twist is not None, dec,
        )  # fmt: skip
    index = {o: i for i, o in enumerate(gd.obs)}
    return Reading(float(value) + pontoon_part(model, gd), gd.obs, index, dec)


def class_of_seen(seen: tuple[Obs, Obs], nphi: int) -> int:
    """The class (``split_fast.end_feature``, ``seen_class``) of an observation of ``gather``: per hand 0 bust,
    else its number of cards (the pair card, the face-down ones and the twisted ones) less one, capped."""
    phi = [0 if h[0] == "bust" else min(1 + int(h[2]) + len(h[3]), nphi) - 1 for h in seen]
    return phi[0] * nphi + phi[1]


def _flow_without(g: Game, sigma: Any, drop: dict[int, float]) -> np.ndarray:
    """``values.player_flow`` with the roots ``drop`` (root node -> the share of its chance taken out: the
    player splits there) left out."""
    from dataclasses import replace

    from pontoon.analysis.british.values import player_flow

    roots = [(n, p * (1.0 - drop.get(n, 0.0))) for n, p in g.roots]
    return player_flow(replace(g, roots=roots), sigma)


def reading_profile(
    g: Game, tb: Any, sigma: Any, dev: dict[str, Any], twists: dict[int, np.ndarray], banker_br: float
) -> dict[str, Any]:
    """The profile that splits where splitting holds against a banker reading the split hands.

    For each pair that the player's best response splits against the banker's own play facing a split
    (``twists[x]``, or the simple banker): the player's best split against that play (``split_fast``), and the
    banker's best response to it reading the split hands (``reading_response``): the split's value guaranteed to
    that split play whatever the banker does. The profile splits the set of those pairs (the same-rank share of
    a ten-value pair) that makes the banker's best response worth most to the player: the lowest exploitability
    (every set tried; the empty set is the profile that never splits). Its exploitability is exact:
    the player's best response is the one with splits against the banker's own play (``with_split_banker``), and
    the banker's best response is his best response without splits to the player's flow less the split roots,
    plus each split's reading best response."""
    from pontoon.analysis.british.game import NAMES
    from pontoon.analysis.british.split_banker import class_ends, simple_play
    from pontoon.analysis.british.split_fast import same_rank_share
    from pontoon.analysis.british.values import banker_response

    model = SplitModel(g.rules, g)
    pairs: dict[str, Any] = {}
    found: dict[
        str, tuple[int, float, float]
    ] = {}  # pair -> (root node, chance of splitting there, guaranteed)
    roots = {g.nodes[n].cards: (n, p) for n, p in g.roots if n >= 0 and len(g.nodes[n].cards) == 2}
    for x in range(NCLASS):
        name = NAMES[x] * 2
        pair = dev["pairs"].get(name)
        if pair is None or pair["split"] <= pair["no_split"] or (x, x) not in roots:
            continue
        twist = twists.get(x, simple_play(g))
        run = model.run(x, class_ends(g, twist), 1 if twist.ndim == 1 else int(round(np.sqrt(len(twist)))))
        read = reading_response(g, model, run)
        n, p = roots[(x, x)]
        chance = p * same_rank_share(g.rules, x)
        against = pair["split_banker"]["upper"] if "split_banker" in pair else pair["split"]
        pairs[name] = {
            "split_value": run.value,
            "guaranteed": read.value,
            "split_in_profile": False,
            "chance": chance,
            # the full view's gain over the banker's play facing the split, against the player's best split
            "full_view_gain": run.value - read.value,
            "split_by_best_response": bool(against > pair["no_split"]),
        }
        found[name] = (n, chance, read.value)
    best: tuple[float, tuple[str, ...]] | None = None
    names = sorted(found)
    for mask in range(1 << len(names)):  # every set of the pairs split in the profile (a few pairs)
        chosen = tuple(nm for i, nm in enumerate(names) if mask >> i & 1)
        drop = {found[nm][0]: same_rank_share(g.rules, NAMES.index(nm[0])) for nm in chosen}
        _, _, rest = banker_response(g, tb, _flow_without(g, sigma, drop))
        bbr = float(rest) + sum(found[nm][1] * found[nm][2] for nm in chosen)
        if best is None or bbr > best[0]:
            best = (bbr, chosen)
    bbr, chosen = best if best is not None else (banker_br, ())
    for nm in chosen:
        pairs[nm]["split_in_profile"] = True
    pbr = dev["with_split_banker"]["player_best_response_with_splits"]
    return {
        "pairs": pairs,
        "full_view": full_view_gap(pairs, dev),
        "banker_best_response": bbr,
        "banker_best_response_without_splits": banker_br,
        "player_best_response_with_splits": pbr,
        "exploitability_with_splits": pbr - bbr,
    }


@_jit
def _k_obs(g_u, w, a, f, lo, hi, counts, total, cls, mul, size, out, binom, S, M):  # type: ignore[no-untyped-def]
    """At one observation (groups lo..hi): per banker hand the player's value if the banker stays there, and the
    chance of the deals, each weighted by the chance that the banker's first cards form the hand."""
    q = np.zeros(cls.shape[0])
    for i in range(lo, hi):
        _k_hyper(g_u[i], counts, total, cls, mul, size, binom, q)
        for k in range(cls.shape[0]):
            if q[k] != 0.0:
                S[k] += q[k] * (a[i, out[k]] + f[i])
                M[k] += q[k] * w[i]


def observation_values(
    g: Game, model: SplitModel, gd: Gathered, o: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per banker hand, at observation ``o`` of ``gd``: the player's value per initial stake if the banker stays,
    and if he twists and then plays his best response, given everything he sees and his cards (his Pontoon
    excluded: he has none when he plays; NaN where he cannot twist or the hand cannot occur), and the chance of
    the deals that reach it (the weight of each normalised value)."""
    cls, mul, size, out, twistable, kid_start, kid, rho, _ = _banker_arrays(g)
    lo, hi = np.searchsorted(gd.g_obs, [o, o + 1])
    nb = len(g.banker)
    S, M = np.zeros(nb), np.zeros(nb)
    _k_obs(
        gd.g_u, gd.w, gd.a, gd.f, int(lo), int(hi), model.counts, model.total, cls, mul, size, out,
        _binom(model.total), S, M,
    )  # fmt: skip
    z = S.copy()
    tw = np.full(nb, np.nan)
    for k in range(nb - 1, -1, -1):  # children before parents
        if twistable[k]:
            t = float(rho[kid_start[k] : kid_start[k + 1]] @ z[kid[kid_start[k] : kid_start[k + 1]]])
            tw[k] = t
            z[k] = min(S[k], t)
    m = np.where(M > 0, M, np.nan)
    return S / m, tw / m, M


def full_view_gap(pairs: dict[str, Any], dev: dict[str, Any]) -> dict[str, float]:
    """What the banker's summary facing a split (his own cards and each split hand's bust or number of cards,
    ``split_fast.end_feature``) loses against reading everything he sees (ruling 35), per round:

    * ``gain``: his exact best response reading everything (``reading_response``), over his play of the summary,
      against the player's best split against that play, summed over the pairs the player's best response splits
      (each weighted by its chance per round);
    * ``bound``: the most any banker facing a split, whatever he reads, can lower the player's best response with
      splits (so the exploitability of the profile that never splits) below its value against the summary play:
      per pair split, ``chance * (split_value - max(no_split, guaranteed))``. Exact as a bound: against any banker
      the player's best split is worth at least what his present best split guarantees (``guaranteed``, the
      reading best response's value), and he keeps the pair unsplit where that is better."""
    gain = bound = 0.0
    for name, d in pairs.items():
        if not d["split_by_best_response"]:
            continue
        keep = dev["pairs"][name]["no_split"]
        gain += d["chance"] * d["full_view_gain"]
        bound += d["chance"] * (d["split_value"] - max(keep, d["guaranteed"]))
    return {"gain": gain, "bound": bound}
