"""The player's hand space: every multiset of card values with a hard total of 21 or less.

Ranks are indexed by point value: 0 = Ace, 1..8 = 2..9, 9 = any ten-value card (T, J, Q, K;
in 48-card packs only pictures: rulings 3). A *state* is a multiset of these ten values. The
analyser works on states, never on orders, because a hand's future depends only on which cards
it holds (the Aces of a doubled hand excepted: see ``player.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pontoon.cards import Card

VALUE_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")
UPCARD_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")
UPCARD_INDEX = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)  # label order -> value index
MAX_CARDS = 21


def value_index(rank: str) -> int:
    """Value index of a card rank (``"A"`` -> 0, ``"7"`` -> 6, ``"T"``/``"J"``/``"Q"``/``"K"`` -> 9)."""
    if rank == "A":
        return 0
    if rank in "TJQK":
        return 9
    return int(rank) - 1


def card_index(card: Card) -> int:
    return value_index(card.rank)


def shoe_counts(pack: str, decks: int) -> np.ndarray:
    """Cards per value index in a full shoe (48-card packs have 12 pictures a deck, 52-card packs 16)."""
    tens = 12 if pack == "pontoon48" else 16
    out = np.full(10, 4 * decks, dtype=np.int64)
    out[9] = tens * decks
    return out


def counts_from_ranks(remaining: Mapping[str, int]) -> np.ndarray:
    out = np.zeros(10, dtype=np.int64)
    for rank, n in remaining.items():
        if n:
            out[value_index(str(rank).upper())] += int(n)
    return out


def counts_from_cards(cards: Iterable[Card]) -> np.ndarray:
    out = np.zeros(10, dtype=np.int64)
    for c in cards:
        out[card_index(c)] += 1
    return out


@dataclass(frozen=True)
class StateSpace:
    """All multisets with hard total <= 21, ordered by hard total, highest first."""

    counts: np.ndarray  # (S, 10) int64
    hard: np.ndarray  # (S,) hard total (Aces 1)
    ncards: np.ndarray  # (S,)
    nace: np.ndarray  # (S,)
    best: np.ndarray  # (S,) best total (an Ace 11 where it fits)
    soft: np.ndarray  # (S,) bool
    trans: np.ndarray  # (S, 10) index of state + card, -1 when the hard total would pass 21
    index: dict[tuple[int, ...], int]

    @property
    def size(self) -> int:
        return int(self.hard.shape[0])

    def find(self, counts: Iterable[int]) -> int:
        return self.index.get(tuple(int(x) for x in counts), -1)


def _multisets() -> np.ndarray:
    """Every multiset of the ten values with a hard total of 21 or less (as counts, in no
    particular order): the values taken in turn, each row repeated once per count that fits."""
    rows = np.zeros((1, 10), dtype=np.int64)
    total = np.zeros(1, dtype=np.int64)
    for i in range(10):
        v = i + 1
        reps = (21 - total) // v + 1  # counts 0 .. (21 - total) // v of value v (hard total <= 21)
        starts = np.cumsum(reps) - reps
        rows = np.repeat(rows, reps, axis=0)
        total = np.repeat(total, reps)
        k = np.arange(total.shape[0], dtype=np.int64) - np.repeat(starts, reps)
        rows[:, i] = k
        total = total + k * v
    return rows


@lru_cache(maxsize=1)
def state_space() -> StateSpace:
    raw = _multisets()
    raw_hard = raw @ np.arange(1, 11, dtype=np.int64)
    # highest hard total first, then fewer cards, then the counts (as tuples compare)
    order = np.lexsort((*raw.T[::-1], raw.sum(axis=1), -raw_hard))
    counts = raw[order]
    hard = raw_hard[order]
    index = {c: i for i, c in enumerate(map(tuple, counts.tolist()))}
    ncards = counts.sum(axis=1)
    nace = counts[:, 0].copy()
    soft = (nace > 0) & (hard + 10 <= 21)
    best = np.where(soft, hard + 10, hard)
    # state + one card of value r: found by its key (counts are below 32)
    key = counts @ (32 ** np.arange(10, dtype=np.int64))
    by_key = np.argsort(key)
    nxt = key[:, None] + 32 ** np.arange(10, dtype=np.int64)[None, :]
    pos = np.minimum(np.searchsorted(key[by_key], nxt), len(key) - 1)
    ok = (hard[:, None] + np.arange(1, 11)[None, :] <= 21) & (key[by_key][pos] == nxt)
    trans = np.where(ok, by_key[pos], -1).astype(np.int64)
    return StateSpace(counts, hard, ncards, nace, best, soft, trans, index)


def composition_weights(base: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Probability that the first n cards dealt from ``base`` hold exactly each state's cards."""
    from math import lgamma

    n_total = int(base.sum())
    lg = np.array([lgamma(k + 1) for k in range(max(n_total, 30) + 2)])
    out = np.zeros(counts.shape[0])
    for s in range(counts.shape[0]):
        c = counts[s]
        if np.any(c > base):
            continue
        n = int(c.sum())
        # multivariate hypergeometric: prod C(base_i, c_i) / C(N, n)
        v = 0.0
        for i in range(10):
            v += lg[base[i]] - lg[c[i]] - lg[base[i] - c[i]]
        v -= lg[n_total] - lg[n] - lg[n_total - n]
        out[s] = np.exp(v)
    return out


def as_counter(counts: np.ndarray) -> Counter[str]:
    return Counter({VALUE_RANKS[i]: int(counts[i]) for i in range(10) if counts[i]})
