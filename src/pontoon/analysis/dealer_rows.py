"""The dealer's outcome distributions a shoe's analysis reads: one row per multiset of cards out
(a player's hand, split hands' extra pair cards), for every up card at once
(``dealer.dealer_all_upcards`` through the trie of the dealer's final hands), computed once per
shoe, shared by the up cards' solvers, and kept on disk for shoes of whole decks
(``PONTOON_NO_ROWS_CACHE``)."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pontoon.analysis import dealer as D
from pontoon.analysis.states import state_space

if TYPE_CHECKING:
    from pontoon.analysis.player import Params


_KEY = np.array([32**k for k in range(10)], dtype=np.int64)  # a multiset of card values as one int
_KEY_SHIFT = np.arange(0, 50, 5, dtype=np.int64)  # count k of a key: (key >> _KEY_SHIFT[k]) & 31


@lru_cache(maxsize=1)
def _state_keys() -> np.ndarray:
    """``_KEY`` of every state's counts."""
    return state_space().counts @ _KEY


@lru_cache(maxsize=64)
def _table(up: int, h17: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return D.dealer_table(up, h17)


_TRIE_DIR = Path(__file__).resolve().parent / "__pycache__"  # beside numba's cache of the kernels


@lru_cache(maxsize=4)
def _trie(h17: bool) -> tuple[np.ndarray, ...]:
    """``D.dealer_trie(h17)``, kept on disk beside the compiled kernels so that a new process
    does not rebuild it (a pure function of ``h17``; rebuilt if the file is missing or bad)."""
    path = _TRIE_DIR / f"dealer_trie_{'h17' if h17 else 's17'}_v1.npz"
    names = ("parent", "rank", "used", "depth", "contrib", "orders")
    try:
        with np.load(path) as f:
            return tuple(f[n] for n in names)
    except (OSError, KeyError, ValueError):
        pass
    arrays = D.dealer_trie(h17)
    try:
        _TRIE_DIR.mkdir(exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(
            tmp,
            parent=arrays[0],
            rank=arrays[1],
            used=arrays[2],
            depth=arrays[3],
            contrib=arrays[4],
            orders=arrays[5],
        )
        os.replace(tmp, path)
    except OSError:
        pass  # read-only install: build it each process
    return arrays


class DealerCache:
    """Dealer distributions for every up card of ``full - removed`` (``D.dealer_all_upcards``),
    computed once per removed multiset and shared by the up cards' solvers."""

    def __init__(self, full: np.ndarray, h17: bool) -> None:
        self.full = np.asarray(full, dtype=np.int64)
        self.h17 = h17
        self.keys = np.zeros(0, dtype=np.int64)
        # by_up[up, row]: the distribution given up card ``up``; the last row (index -1) is
        # zeros, for states without a row
        self.by_up = np.zeros((10, 1, 7))
        self._pos: dict[tuple[int, int], np.ndarray] = {}
        self._stacks: dict[tuple[int, int], np.ndarray] = {}  # ``position_stack``
        self._fits: np.ndarray | None = None  # states of two or more cards that fit ``full``
        self._prefetched: set[tuple[int, bool]] = set()  # (max_hands, resplit_aces) done

    def state_positions(self, p: int, k: int) -> np.ndarray:
        """For every state s of two or more cards holding a ``p``: the row of ``s`` plus ``k``
        cards of value ``p`` (-1 where that does not fit ``full``, or for other states); kept
        (until rows are added), so that the up cards share one lookup."""
        key = (p, k)
        if key not in self._pos:
            sp = state_space()
            if self._fits is None:
                self._fits = np.all(sp.counts <= self.full[None, :], axis=1) & (sp.ncards >= 2)
            c_p = sp.counts[:, p]
            ok = self._fits & (c_p >= 1) & (c_p + k <= self.full[p])  # the state plus k fits
            pos = np.full(sp.size, -1, dtype=np.int64)
            idx = np.nonzero(ok)[0]
            # a key is linear in the counts: the state's own key plus k of value p's
            keys = _state_keys()[idx] + k * _KEY[p]
            at = np.searchsorted(self.keys, keys)
            if len(self.keys) and np.all(at < len(self.keys)) and np.array_equal(self.keys[at], keys):
                pos[idx] = at  # every row known (the usual case after ``prefetch``)
            else:
                rem = sp.counts[idx].copy()
                rem[:, p] += k
                pos[idx] = self._positions(rem)
            self._pos[key] = pos
        return self._pos[key]

    def state_rows(self) -> np.ndarray:
        """The row of every state (of one or more cards) that fits ``full``, -1 for the others;
        kept (until rows are added), so that the up cards share one lookup."""
        pos = self._pos.get((-1, 0))
        if pos is None:
            sp = state_space()
            idx = np.nonzero(np.all(sp.counts <= self.full[None, :], axis=1) & (sp.ncards >= 1))[0]
            pos = np.full(sp.size, -1, dtype=np.int64)
            pos[idx] = self._positions(sp.counts[idx], _state_keys()[idx])  # may clear _pos
            self._pos[(-1, 0)] = pos
        return pos

    def position_stack(self, p: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(``pos``, ``by_up``): ``pos[a]`` = ``state_positions(p, 1 + a)`` for a < ``n``, rows
        of the table ``by_up`` (kept until rows are added)."""
        key = (p, n)
        if key not in self._stacks:
            while True:
                table = self.by_up
                pos = np.stack([self.state_positions(p, 1 + a) for a in range(n)])
                if self.by_up is table:  # no rows were added on the way: one table for all
                    break
            self._stacks[key] = pos
        return self._stacks[key], self.by_up

    def add(self, rem: np.ndarray) -> None:
        """Compute the rows of ``rem`` not yet known (one kernel call)."""
        self._positions(np.asarray(rem, dtype=np.int64))

    def _add_keys(self, keys: np.ndarray) -> None:
        """Compute the rows of the multisets whose ``_KEY`` values are ``keys`` not yet known
        (one kernel call; the rows' counts decoded from the keys)."""
        srt = np.sort(keys)  # unique by hand: numpy 2's np.unique hashes, ten times slower here
        uk = srt[np.concatenate(([True], srt[1:] != srt[:-1]))] if len(srt) else srt
        if len(self.keys):
            at = np.minimum(np.searchsorted(self.keys, uk), len(self.keys) - 1)
            uk = uk[self.keys[at] != uk]
        if len(uk):
            self._insert(uk, (uk[:, None] >> _KEY_SHIFT[None, :]) & 31)

    def _insert(self, uk: np.ndarray, rem: np.ndarray) -> None:
        """Compute the rows ``rem`` (keys ``uk``: sorted, none known yet) and merge them in."""
        new = D.dealer_all_upcards(self.full, rem, *_trie(self.h17))
        self._pos.clear()
        self._stacks.clear()  # row numbers change
        rows = [self.by_up[:, :-1], new, np.zeros((10, 1, 7))]
        if not len(self.keys):
            self.keys = uk
            self.by_up = np.concatenate(rows[1:], axis=1)
        else:
            allk = np.concatenate([self.keys, uk])
            order = np.argsort(allk, kind="stable")
            self.keys = allk[order]
            # C order: ``chain`` reads the up card's rows in place (``split_setup``)
            self.by_up = np.ascontiguousarray(np.concatenate(rows, axis=1)[:, np.append(order, len(order))])

    def _positions(self, rem: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
        """Row indices of ``rem`` in ``by_up``, computing the missing ones first (``keys``:
        ``rem @ _KEY`` where the caller has them)."""
        if keys is None:
            keys = rem @ _KEY
        pos = np.searchsorted(self.keys, keys)
        found = pos < len(self.keys)
        found[found] = self.keys[pos[found]] == keys[found]
        if found.all():
            return pos
        miss = np.nonzero(~found)[0]
        uk, first = np.unique(keys[miss], return_index=True)
        self._insert(uk, rem[miss[first]])
        return np.searchsorted(self.keys, keys)

    def get(self, rem: np.ndarray, up: int, keys: np.ndarray | None = None) -> np.ndarray:
        """(k, 7): the distributions given up card ``up`` of the rows ``rem`` (card counts
        removed from ``full``; ``keys``: their ``_KEY`` values, where known)."""
        pos = self._positions(np.asarray(rem, dtype=np.int64), keys)  # may replace self.by_up
        return self.by_up[up].take(pos, axis=0)

    def prefetch(self, pr: Params) -> None:
        """Every row an analysis of ``full`` asks for: the hands, and the split hands with 1 to
        2 (max_hands - 2) + 1 further pair cards out. A new process reads them from the disk
        (``_load_rows``) where an earlier one computed them for the same shoe and rules (not
        with ``PONTOON_NO_ROWS_CACHE=1``)."""
        done = (int(pr.max_hands), bool(pr.resplit_aces))
        if done in self._prefetched:  # rows are only ever added: every one is still there
            return
        self._prefetched.add(done)
        # kept on disk: a shoe of whole decks (a table's shoe), not the partial shoes of effects
        # of removal or index charts (each file is 15 MB, and only _ROWS_KEPT stay)
        fresh = (
            not len(self.keys)
            and os.environ.get(NO_ROWS_CACHE_ENV, "") in ("", "0")
            and _whole_decks(self.full)
        )
        ident = _rows_ident(self.full, self.h17, pr.max_hands, pr.resplit_aces) if fresh else ""
        if fresh and self._load_rows(ident):
            return
        sp = state_space()
        fits = np.all(sp.counts <= self.full[None, :], axis=1) & (sp.ncards >= 1)
        skeys = _state_keys()
        keys = [np.zeros(1, dtype=np.int64), skeys[fits]]  # by key: the key is linear in the counts
        if pr.max_hands >= 2:
            for p in range(10):
                m = 2 if (p == 0 and not pr.resplit_aces) else pr.max_hands
                if self.full[p] < 2:
                    continue
                c_p = sp.counts[:, p]
                sel = fits & (c_p >= 1) & (sp.ncards >= 2)
                for k in range(1, min(2 * (m - 2), int(self.full[p]) - 2) + 2):
                    # the state plus k cards of value p: only that count can pass the shoe's
                    keys.append(skeys[sel & (c_p + k <= self.full[p])] + k * _KEY[p])
        self._add_keys(np.concatenate(keys))
        if fresh:
            self._save_rows(ident)

    def _load_rows(self, ident: str) -> bool:
        """The rows (keys and distributions) kept by ``_save_rows`` under ``ident``, if they are
        there and whole: the file holds the shoe and rule it was made for, checked here."""
        path = _TRIE_DIR / f"dealer_rows_{ident[:24]}.npy"
        if not path.is_file():  # a regular file, so of a known size (not a device or a pipe)
            return False
        try:
            with path.open("rb") as f:  # three .npy arrays one after the other (no pickles)
                ident_ok = str(np.load(f)) == ident
                keys = np.load(f)
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
                else:
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
                offset = f.tell()
            if fortran or dtype != np.float64:
                return False
            # mapped, not read: the pages the analysis touches come from the page cache
            by_up = np.asarray(np.memmap(path, dtype=np.float64, mode="c", offset=offset, shape=shape))
        except (OSError, ValueError, EOFError):
            return False
        n = keys.shape[0]
        if not (
            ident_ok
            and keys.dtype == np.int64
            and keys.ndim == 1
            and by_up.dtype == np.float64
            and by_up.shape == (10, n + 1, 7)
            and bool(np.all(keys[1:] > keys[:-1]))
            and not by_up[:, n].any()
        ):
            return False
        self.keys, self.by_up = keys, by_up
        self._pos.clear()
        self._stacks.clear()
        return True

    def _save_rows(self, ident: str) -> None:
        """Keep the rows for a later process (atomically: written aside, then renamed; at most
        ``_ROWS_KEPT`` shoes, the oldest dropped; nothing where the folder cannot be written)."""
        path = _TRIE_DIR / f"dealer_rows_{ident[:24]}.npy"
        try:
            _TRIE_DIR.mkdir(exist_ok=True)
            old = sorted(_TRIE_DIR.glob("dealer_rows_*.npy"), key=lambda q: q.stat().st_mtime)
            for q in old[: max(0, len(old) - _ROWS_KEPT + 1)]:
                q.unlink()
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp")
            with tmp.open("wb") as f:
                np.save(f, np.array(ident))
                np.save(f, self.keys)
                np.save(f, self.by_up)
            os.replace(tmp, path)
        except OSError:
            pass  # read-only install: computed again by each process


_ROWS_KEPT = 8  # shoes whose dealer rows stay on disk (about 15 MB each for 6 decks)
NO_ROWS_CACHE_ENV = "PONTOON_NO_ROWS_CACHE"  # set (not 0): rows computed, not read or kept


def _whole_decks(full: np.ndarray) -> bool:
    """Whether ``full`` is d whole decks of a pack: 4d of each value A..9 and 12d (48-card
    decks) or 16d (52-card decks) ten-value cards."""
    d4 = int(full[0])
    return d4 > 0 and d4 % 4 == 0 and bool(np.all(full[:9] == d4)) and int(full[9]) in (3 * d4, 4 * d4)


def _rows_ident(full: np.ndarray, h17: bool, max_hands: int, resplit_aces: bool) -> str:
    """What a shoe's prefetched dealer rows depend on: the shoe, the dealer's rule on soft 17, the
    split rules that choose the rows, and the code that computes them (``dealer.py``, the state
    space, this module)."""
    h = hashlib.sha256()
    h.update(np.asarray(full, dtype=np.int64).tobytes())
    h.update(f"|h17={bool(h17)}|hands={int(max_hands)}|rsa={bool(resplit_aces)}|".encode())
    here = Path(__file__).resolve().parent
    for name in ("dealer.py", "states.py", "dealer_rows.py"):
        h.update((here / name).read_bytes())
    return h.hexdigest()


_DEALER_CACHES: dict[tuple[bytes, bool], DealerCache] = {}


def dealer_cache(full: np.ndarray, h17: bool) -> DealerCache:
    """The shared ``DealerCache`` of a full shoe (a few kept)."""
    key = (np.asarray(full, dtype=np.int64).tobytes(), h17)
    if key not in _DEALER_CACHES:
        if len(_DEALER_CACHES) >= 4:
            _DEALER_CACHES.pop(next(iter(_DEALER_CACHES)))
        _DEALER_CACHES[key] = DealerCache(np.asarray(full, dtype=np.int64), h17)
    return _DEALER_CACHES[key]


def dealer_dists(base: np.ndarray, removed: np.ndarray, up: int, h17: bool) -> np.ndarray:
    """Dealer outcome distributions (17..21, natural, bust) for ``base - removed[k]``."""
    return D.dealer_batch_table(np.asarray(base, np.int64), np.asarray(removed, np.int64), *_table(up, h17))
