"""Player expectations for one dealer upcard and one shoe composition.

``UpcardSolver`` computes, for every player state (multiset of card values), the expectation of
standing, hitting (then playing on), doubling (then keeping or rescuing), and the value of holding
the state; then for each two-card starting hand the expectation of every option the rules allow,
splits included. All numbers are per unit of the hand's original wager.

Exactness (one box against the dealer, which is the whole game for a single box):
  * stand / hit / double / rescue / surrender: exact for the composition, because the dealer's
    cards are drawn from what the player leaves (casino Pontoon has no hole card; for a hole-card
    game with a peek the analysis works in the world "dealer has no natural" with every value
    weighted by the probability of no natural given the cards out, which is exact too).
  * splits: ``splits.SplitMixin.split_value`` (exact for the post-split strategy, resplits to the
    rules' limit by E. Farmer's method; FED's one-wager loss by ``onewager``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

import numpy as np

from pontoon.analysis import dealer as D
from pontoon.analysis import kernels as K
from pontoon.analysis.splits import SPLIT_STRATEGIES, ChainOut, SplitMixin
from pontoon.analysis.states import StateSpace, state_space
from pontoon.analysis.suits import (
    BONUS_COMPLETION,
    average_three_card_pay,
    completion_classes,
    super_bonus_units,
)
from pontoon.errors import PontoonError
from pontoon.rules.model import CasinoRules


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
        fresh = not len(self.keys) and os.environ.get(NO_ROWS_CACHE_ENV, "") in ("", "0")
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


def _rows_ident(full: np.ndarray, h17: bool, max_hands: int, resplit_aces: bool) -> str:
    """What a shoe's prefetched dealer rows depend on: the shoe, the dealer's rule on soft 17, the
    split rules that choose the rows, and the code that computes them (``dealer.py``, the state
    space, this module)."""
    h = hashlib.sha256()
    h.update(np.asarray(full, dtype=np.int64).tobytes())
    h.update(f"|h17={bool(h17)}|hands={int(max_hands)}|rsa={bool(resplit_aces)}|".encode())
    here = Path(__file__).resolve().parent
    for name in ("dealer.py", "states.py", "player.py"):
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


@lru_cache(maxsize=1)
def _identity() -> np.ndarray:
    """``chain``'s ``dpos`` for a table with one row per state (``UpcardSolver.dist``)."""
    return np.arange(state_space().size, dtype=np.int64)


@lru_cache(maxsize=1)
def _no_fix() -> np.ndarray:
    """``chain``'s ``resc_fix`` that fixes nothing (rescue by ``resc_pol``)."""
    return np.full((state_space().size, 10), -1, dtype=np.int8)


@dataclass(frozen=True)
class _Defaults:
    """``chain``'s inputs when a run does not give them (read only in the kernel, shared)."""

    optimal: np.ndarray  # policy: OPTIMAL in every state
    no_rescue_chart: np.ndarray  # resc_pol: -1 (each double decides)
    no_weights: np.ndarray


@lru_cache(maxsize=1)
def _defaults() -> _Defaults:
    size = state_space().size
    # kept writeable: numba compiles read-only arrays as another signature
    return _Defaults(
        np.full(size, K.OPTIMAL, dtype=np.int64), np.full(22, -1, dtype=np.int64), np.zeros(size)
    )


_KEY = np.array([32**k for k in range(10)], dtype=np.int64)  # a multiset of card values as one int
_KEY_SHIFT = np.arange(0, 50, 5, dtype=np.int64)  # count k of a key: (key >> _KEY_SHIFT[k]) & 31


@lru_cache(maxsize=1)
def _state_keys() -> np.ndarray:
    """``_KEY`` of every state's counts."""
    return state_space().counts @ _KEY


CODE_TO_POLICY = {
    "S": K.STAND,
    "H": K.HIT,
    "D": K.DOUBLE_HIT,
    "Ds": K.DOUBLE_STAND,
    "R": K.HIT,
    "Rs": K.STAND,
}


@dataclass(frozen=True)
class Params:
    """Rule parameters as the kernels want them."""

    peek: bool
    p21wins: bool
    h17: bool
    nat_loss_dbl: float
    forced: int
    dbl_any: bool
    ace_one: bool
    rescue: bool
    das: bool
    pontoon_pays: float
    nat_push: bool
    surrender: str
    surrender_upcards: tuple[int, ...]
    max_hands: int
    resplit_aces: bool
    hit_split_aces: bool
    split_one_wager: bool
    sb_units: float
    pay21: np.ndarray = field(repr=False, compare=False)

    @classmethod
    def of(cls, rules: CasinoRules, bet: Decimal | float | int | None = None) -> Params:
        sp = state_space()
        b = rules.table_min if bet is None else bet
        pay = np.zeros(sp.size)
        avg678 = average_three_card_pay(rules, "678")
        avg777 = average_three_card_pay(rules, "777")
        k = np.nonzero(sp.best == 21)[0]  # the pay of a 21 by its cards (disjoint cases)
        n, c = sp.ncards[k], sp.counts[k]
        v = np.full(len(k), float(rules.regular_pays))
        v[n == 5] = float(rules.pays_5_card_21)
        v[n == 6] = float(rules.pays_6_card_21)
        v[n >= 7] = float(rules.pays_7_card_21)
        v[(n == 3) & (c[:, 5] == 1) & (c[:, 6] == 1) & (c[:, 7] == 1)] = avg678  # rulings 16: 6-7-8
        v[(n == 3) & (c[:, 6] == 3)] = avg777
        pay[k] = v
        peek = bool(rules.dealer_hole_card and rules.dealer_peeks)
        sur_up: tuple[int, ...] = ()
        if rules.surrender != "none":
            # rulings 9: casino Pontoon offers surrender against an Ace or picture only
            sur_up = (0, 9) if rules.is_pontoon else tuple(range(10))
        return cls(
            peek=peek,
            p21wins=bool(rules.player_21_wins),
            h17=bool(rules.dealer_hits_soft_17),
            nat_loss_dbl=1.0 if rules.double_loses_original_only else 2.0,
            forced=int(rules.forced_draw_below),
            dbl_any=rules.double_on == "any",
            ace_one=bool(rules.double_ace_counts_one),
            rescue=bool(rules.rescue),
            das=bool(rules.double_after_split),
            pontoon_pays=float(rules.pontoon_pays),
            nat_push=rules.natural_vs_dealer_natural == "push",
            surrender=rules.surrender,
            surrender_upcards=sur_up,
            max_hands=int(rules.max_split_hands),
            resplit_aces=bool(rules.resplit_aces),
            hit_split_aces=bool(rules.hit_split_aces),
            split_one_wager=bool(rules.split_loses_one_wager),
            sb_units=super_bonus_units(rules, b),
            pay21=pay,
        )


class UpcardSolver(SplitMixin):
    """Everything about one upcard against one composition ``base`` (the shoe less the upcard)."""

    def __init__(
        self,
        rules: CasinoRules,
        params: Params,
        base: np.ndarray,
        up: int,
        active: np.ndarray | None = None,
        split_strategy: str = "cdp1",
        completion_memo: dict[tuple[object, ...], list[tuple[float, float]]] | None = None,
    ) -> None:
        if split_strategy not in SPLIT_STRATEGIES:
            raise PontoonError(f"split strategy {split_strategy!r}: accepted {', '.join(SPLIT_STRATEGIES)}")
        self.split_strategy = split_strategy
        self.rules = rules
        self.pr = params
        self.sp: StateSpace = state_space()
        self.base = np.asarray(base, dtype=np.int64)
        self.n = int(self.base.sum())
        self.up = up
        sp = self.sp
        fits = np.all(sp.counts <= self.base[None, :], axis=1) & (sp.ncards >= 1)
        self.fits = fits
        self.active = fits if active is None else (fits & active)
        full = self.base.copy()
        full[up] += 1
        self.dealers = dealer_cache(full, params.h17)  # shared by the up cards of one shoe
        # each state's dealer distribution (the zero row where not active)
        pos = self.dealers.state_rows()  # may add rows: by_up read after it
        self.dist = self.dealers.by_up[up].take(np.where(self.active, pos, -1), axis=0)
        # (p, a) -> (active states, dealer rows, each state's row in them): ``split_setup``
        self._split_dist: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._pair_mask: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.main_outs: dict[int, ChainOut] = {}
        self.q0_cache: dict[int, float] = {}
        # ``completion``'s memo: may be shared by the up cards of one analysis (same rules, bet)
        self.completion_memo = {} if completion_memo is None else completion_memo

    def completion(
        self, i: int, j: int, known: tuple[tuple[int, str], ...] | None = None
    ) -> list[tuple[float, float]]:
        """``suits.completion_classes`` of the bonus hand (i, j) against this up card, kept. It
        reads the up card only as whether it is i, j, the completing card or a 7 (rulings 17's
        Super Bonus), and the known cards only by their suits: the memo's key, so that up cards
        share the classes (the same arithmetic, the same bits)."""
        c = BONUS_COMPLETION[(min(i, j), max(i, j))]
        up = self.up
        suits = None if known is None else tuple(x[1] for x in known)
        key = (i, j, up == i, up == j, up == c, up == 6, suits, self.pr.sb_units)
        got = self.completion_memo.get(key)
        if got is None:
            got = completion_classes(self.rules, i, j, self.up, self.pr.sb_units, known=known)
            self.completion_memo[key] = got
        return got

    # ---------------------------------------------------------------------------------
    def q_nat(self, s: int) -> float:
        """Probability the dealer's next card makes a natural, given the state's cards out."""
        if self.up not in (0, 9):
            return 0.0
        other = 9 if self.up == 0 else 0
        left = self.n - int(self.sp.ncards[s])
        if left <= 0:
            return 0.0
        return (int(self.base[other]) - int(self.sp.counts[s, other])) / left

    def run(
        self,
        *,
        base: np.ndarray | None = None,
        dist: tuple[np.ndarray, np.ndarray] | None = None,
        active: np.ndarray | None = None,
        a2: int = 0,
        nat_loss: float = 1.0,
        nat_loss_dbl: float | None = None,
        dbl2: bool = True,
        policy: np.ndarray | None = None,
        resc_pol: np.ndarray | None = None,
        resc_fix: np.ndarray | None = None,
        build: bool = False,
        weights: np.ndarray | None = None,
        prune: bool = False,
    ) -> ChainOut:
        """``K.chain`` for this up card (``prune``: with a fixed policy, only the states it
        reaches from the two-card states are valued; see the kernel). ``dist``: (dealer rows,
        each state's row in them, -1 for the last row), default this up card's own ``self.dist``."""
        sp, pr = self.sp, self.pr
        size = sp.size
        out = ChainOut(
            np.zeros(size),
            np.zeros(size),
            np.zeros(size),
            np.zeros(size),
            np.full((2, 22, 12), -9, dtype=np.int64),
            np.zeros(22),
            np.full(size, K.ACT_HIT, dtype=np.int8),
            np.zeros((size, 10), dtype=np.int8),
        )
        K.chain(
            sp.counts,
            sp.hard,
            sp.ncards,
            sp.nace,
            sp.trans,
            self.active if active is None else active,
            self.base if base is None else base,
            self.dist if dist is None else dist[0],
            _identity() if dist is None else dist[1],
            pr.pay21,
            self.up,
            pr.peek,
            pr.p21wins,
            nat_loss,
            pr.nat_loss_dbl if nat_loss_dbl is None else nat_loss_dbl,
            pr.forced,
            dbl2,
            pr.dbl_any,
            a2,
            pr.ace_one,
            pr.rescue,
            _defaults().optimal if policy is None else policy,
            _defaults().no_rescue_chart if resc_pol is None else resc_pol,
            _no_fix() if resc_fix is None else resc_fix,
            build,
            prune,
            False,
            _defaults().no_weights if weights is None else weights,
            out.st,
            out.hit,
            out.dbl,
            out.val,
            out.dec,
            out.racc,
            out.act,
            out.rfl,
        )
        return out

    # splits ----------------------------------------------------------------------------
    # two-card starting hands -----------------------------------------------------------
    def start_weights(self) -> list[tuple[int, int, float]]:
        """(i, j, probability) of every two-card starting hand i <= j from ``base``."""
        out = []
        b, n = self.base, self.n
        for i in range(10):
            for j in range(i, 10):
                if i == j:
                    w = b[i] * (b[i] - 1) / (n * (n - 1))
                else:
                    w = 2 * b[i] * b[j] / (n * (n - 1))
                if w > 0:
                    out.append((i, j, float(w)))
        return out

    def state_of(self, i: int, j: int) -> int:
        cnt = [0] * 10
        cnt[i] += 1
        cnt[j] += 1
        return self.sp.index[tuple(cnt)]

    def hand_options(
        self,
        i: int,
        j: int,
        outs: dict[int, ChainOut],
        split_ev: float | None,
    ) -> tuple[dict[str, float], list[tuple[float, float]]]:
        """Option values of the unsplit two-card hand (i, j), and its suit classes for hitting
        ((weight, hit adjustment)); ``outs`` by a2 (Aces among the first two cards)."""
        pr, sp = self.pr, self.sp
        s = self.state_of(i, j)
        q0 = self.q_nat(s)
        if (i, j) == (0, 9):
            # rulings 5: a player's Pontoon is paid 3 to 2 at once (blackjack: pushes a natural)
            v = pr.pontoon_pays * ((1 - q0) if (pr.nat_push or pr.peek) else 1.0)
            return {"N": v}, [(1.0, 0.0)]
        o = outs.get(int(sp.nace[s]), outs[min(outs)])
        extra = -q0 if pr.peek else 0.0  # peek: a dealer natural takes the original wager first
        opts: dict[str, float] = {}
        bt = int(sp.best[s])
        if bt >= pr.forced:
            opts["S"] = o.st[s] + extra
        opts["H"] = o.hit[s] + extra
        opts["D"] = o.dbl[s] + extra
        if split_ev is not None and i == j and not np.isnan(split_ev):
            opts["P"] = split_ev + extra
        if self.up in pr.surrender_upcards:
            # rulings 9: half the wager, the whole wager if the dealer makes Pontoon
            # late surrender without a peek (engine): half the wager whatever the dealer makes
            opts["R"] = -0.5 if (pr.surrender == "late" and not pr.peek) else -0.5 * (1 - q0) - q0
        classes = [(1.0, 0.0)]
        key = (i, j)
        if key in BONUS_COMPLETION and pr.p21wins:
            c = BONUS_COMPLETION[key]
            left = self.n - 2
            qc = (int(self.base[c]) - int(sp.counts[s, c])) / left if left > 0 else 0.0
            s3 = sp.trans[s, c]
            classes = [(w, qc * (m - float(pr.pay21[s3]))) for w, m in self.completion(i, j)]
        return opts, classes
