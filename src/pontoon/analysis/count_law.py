"""The exact law of a count over the deals of k cards, and exact draws of a shoe at a true count.

A deal of k cards from a shoe of N is a uniform draw without replacement. Ranks with the same tag
form a group; the number of ways to deal c cards whose (scaled) tags sum to s from the first g
groups is ``ways[g][c, s]`` (a product of binomials summed by dynamic programming, as floats: at
most C(416, 208) ~ 1e124), so that

* P(running count = IRC + s | k cards dealt) = ways[G][k, s] / C(N, k), exactly;
* the depth law at a true-count bucket t (floor of the kernel's true count, running count x cards a
  deck / cards left, equal to t): P(k | t) is proportional to P(t | k), the depth of a round's
  start being uniform over the cards dealt before the cut card (0 to the penetration). This is the
  reweighting of the depths: a deep shoe reaches an extreme count far more often than a shallow
  one, and a bucket's shoes are drawn at the depths where that count occurs, as often as it occurs
  there;
* a shoe given (k, s): the groups' card numbers are drawn backward through ``ways`` and each
  group's cards split among its ranks by the multivariate hypergeometric law, all by inverse
  distribution functions of given uniforms, so a draw is an exact sample of the deals of k cards
  with that count, and the same uniforms at two buckets give neighbouring shoes (common random
  numbers: ``analysis/indices.py`` reads the change of a margin from one count to the next with
  far less noise than from independent shoes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pontoon.analysis.counts import CountSystem
from pontoon.analysis.states import shoe_counts
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules

UNIFORMS = 22  # per draw: the depth, the count, then two per group (its size, its split; at most 10)


def _scale(tags: tuple[float, ...]) -> int:
    """The least m in 1..12 making every tag times m a whole number."""
    for m in range(1, 13):
        if all(abs(t * m - round(t * m)) < 1e-9 for t in tags):
            return m
    raise PontoonError(
        f"count tags {tags}: indices need tags that are multiples of 1/m for some m up to 12 (e.g. 0.5)"
    )


@dataclass(frozen=True)
class CountLaw:
    full: np.ndarray  # cards of each value in the full shoe
    n: int
    deck: int  # cards a deck
    irc: float
    scale: int
    groups: tuple[tuple[int, tuple[int, ...]], ...]  # (scaled tag, value indices)
    smin: int
    ways: tuple[np.ndarray, ...]  # ways[g][c, s - smin], g = 0..G

    def true_counts(self, k: int) -> np.ndarray:
        """The kernel's true count (``_count_kernel._tc_bucket``) of each scaled sum after k cards."""
        s = np.arange(self.ways[-1].shape[1]) + self.smin
        rc = self.irc + s / self.scale
        return np.asarray(rc * float(self.deck) / (self.n - k))

    def in_bucket(self, k: int, t: int) -> np.ndarray:
        return np.floor(self.true_counts(k)) == t

    def bucket_chance(self, t: int, k: int) -> float:
        """P(floor(true count) = t | k cards dealt), exactly."""
        w = self.ways[-1][k]
        return float(w[self.in_bucket(k, t)].sum() / w.sum())

    def depth_law(self, t: int, penetration: float) -> np.ndarray:
        """P(k | bucket t) for k = 0 .. cards before the cut card - 1 (zeros where t cannot occur)."""
        hi = max(2, int(self.n * penetration))
        k = np.arange(hi)[:, None]
        s = np.arange(self.ways[-1].shape[1])[None, :] + self.smin
        tc = (self.irc + s / self.scale) * float(self.deck) / (self.n - k)
        w = self.ways[-1][:hi]
        p = np.where(np.floor(tc) == t, w, 0.0).sum(axis=1) / w.sum(axis=1)
        tot = p.sum()
        return np.asarray(p / tot if tot > 0 else p)

    def draw(self, t: int, depth: np.ndarray, u: np.ndarray, stratum: float | None = None) -> np.ndarray:
        """Cards dealt (by value index) at bucket t: depth from ``depth`` (``depth_law``) at the
        quantile ``stratum`` (or ``u[0]``), the rest by the uniforms ``u`` (``UNIFORMS`` of them)."""
        k = _pick(depth, u[0] if stratum is None else stratum)
        row = np.where(self.in_bucket(k, t), self.ways[-1][k], 0.0)
        s = _pick(row, u[1])
        c = k
        out = np.zeros(10, dtype=np.int64)
        for g in range(len(self.groups) - 1, -1, -1):
            v, ranks = self.groups[g]
            ng = int(sum(self.full[r] for r in ranks))
            x = np.arange(min(ng, c) + 1)
            prev = self.ways[g]
            cols = s - v * x
            ok = (cols >= 0) & (cols < prev.shape[1]) & (c - x >= 0)
            w = np.zeros(len(x))
            w[ok] = prev[c - x[ok], cols[ok]] * _binoms(ng)[x[ok]]
            xg = _pick(w, u[2 + 2 * g])
            _split(self.full, ranks, xg, u[3 + 2 * g], out)
            c -= xg
            s -= v * xg
        return out


def _pick(w: np.ndarray, u: float) -> int:
    """The index at the quantile ``u`` of the weights ``w`` (inverse distribution function)."""
    cum = np.cumsum(w)
    i = int(np.searchsorted(cum, u * cum[-1], side="right"))
    return i if i < len(w) and w[i] > 0 else int(np.flatnonzero(w)[-1])


@lru_cache(maxsize=256)
def _binoms(n: int) -> np.ndarray:
    return np.array([float(math.comb(n, x)) for x in range(n + 1)])


def _split(full: np.ndarray, ranks: tuple[int, ...], x: int, u: float, out: np.ndarray) -> None:
    """``x`` cards among the values ``ranks`` (multivariate hypergeometric) by inverse
    distribution functions: the uniform ``u``'s successive base-64 digits, one a value."""
    left = int(sum(full[r] for r in ranks))
    for r in ranks[:-1]:
        u = u * 64.0
        d = u - math.floor(u)
        u = d
        nr = int(full[r])
        rest = left - nr
        y = np.arange(max(0, x - rest), min(nr, x) + 1)
        w = np.array([math.comb(nr, int(a)) * math.comb(rest, x - int(a)) for a in y], dtype=float)
        a = int(y[_pick(w, d)])
        out[r] += a
        x -= a
        left = rest
    out[ranks[-1]] += x


def count_law(rules: CasinoRules, system: CountSystem) -> CountLaw:
    """The law of ``system``'s count on ``rules``'s shoe (module docstring)."""
    return _law(rules.pack, rules.decks, system.tags, float(system.irc(rules.pack, rules.decks)))


@lru_cache(maxsize=32)
def _law(pack: str, decks: int, tags: tuple[float, ...], irc: float) -> CountLaw:
    full = shoe_counts(pack, decks).astype(np.int64)
    n = int(full.sum())
    m = _scale(tags)
    by: dict[int, list[int]] = {}
    for r, t in enumerate(tags):
        if full[r] > 0:
            by.setdefault(round(t * m), []).append(r)
    groups = tuple((v, tuple(rs)) for v, rs in sorted(by.items()))
    sizes = [int(sum(full[r] for r in rs)) for _, rs in groups]
    smin = sum(min(0, v) * ng for (v, _), ng in zip(groups, sizes, strict=True))
    smax = sum(max(0, v) * ng for (v, _), ng in zip(groups, sizes, strict=True))
    width = smax - smin + 1
    cur = np.zeros((n + 1, width))
    cur[0, -smin] = 1.0
    ways = [cur]
    for (v, _), ng in zip(groups, sizes, strict=True):
        nxt = np.zeros_like(cur)
        b = _binoms(ng)
        for x in range(ng + 1):
            sh = v * x
            src = cur[: n + 1 - x]
            if sh >= 0:
                nxt[x:, sh:] += b[x] * src[:, : width - sh]
            else:
                nxt[x:, :sh] += b[x] * src[:, -sh:]
        cur = nxt
        ways.append(cur)
    deck = int(shoe_counts(pack, 1).sum())
    return CountLaw(full, n, deck, irc, m, groups, smin, tuple(ways))
