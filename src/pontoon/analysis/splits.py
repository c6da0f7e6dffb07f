"""Splits and resplits of a pair (``SplitMixin``, a part of ``player.UpcardSolver``), exact for a
given post-split strategy by E. Farmer's method, and FED's one-wager loss of a split box
(``onewager``). See ``SplitMixin.split_value``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis import split_kernels as SK
from pontoon.analysis.states import state_space

if TYPE_CHECKING:
    from pontoon.analysis.dealer_rows import DealerCache
    from pontoon.analysis.player import Params
    from pontoon.analysis.states import StateSpace
    from pontoon.rules.model import CasinoRules


@lru_cache(maxsize=1)
def _two_card_states() -> np.ndarray:
    """[i, j]: the state of the two cards i and j."""
    sp = state_space()
    out = np.full((10, 10), -1, dtype=np.int64)
    for i in range(10):
        for j in range(10):
            cnt = [0] * 10
            cnt[i] += 1
            cnt[j] += 1
            out[i, j] = sp.index[tuple(cnt)]
    return out


SPLIT_STRATEGIES = ("cdz", "cdp1", "cdp")

_A2S: dict[tuple[int, ...], np.ndarray] = {
    a2s: np.array(a2s, dtype=np.int64) for a2s in ((0, 1), (1, 2), (0,), (1,))
}  # the a2s arrays of ``SK.split_runs`` / ``SK.hand_values``


def _a2s_array(a2s: tuple[int, ...]) -> np.ndarray:
    got = _A2S.get(a2s)
    return got if got is not None else np.array(a2s, dtype=np.int64)


# ``SK.split_runs``'s inputs that its mode does not read, and the chains' outputs it does not fill
_NO_REF = np.zeros((0, 0))
_NO_REF_RFL = np.zeros((0, 0, 0), dtype=np.int8)
_NO_RESCUE_CHART = np.full(22, -1, dtype=np.int64)  # each double decides
_NO_DEC = np.full((2, 22, 12), -9, dtype=np.int64)  # written in build mode only
_NO_RACC = np.zeros(22)  # split chains carry no weights


@dataclass
class ChainOut:
    """A chain's outputs (``K.chain``; re-exported by ``player``)."""

    st: np.ndarray
    hit: np.ndarray
    dbl: np.ndarray
    val: np.ndarray
    dec: np.ndarray
    racc: np.ndarray
    act: np.ndarray  # the action taken in each state (K.ACT_*)
    rfl: np.ndarray  # [s, r] 1 where a double of s that drew r is rescued


@dataclass
class SplitChains:
    """The chains behind ``UpcardSolver.split_value`` for one pair value ``p``.

    ``by_a[a]``: the chains (by a2, Aces among a split hand's first two cards) of a split hand
    (its state includes the pair card it kept) when ``a`` pair cards besides the two of the
    original pair are out of the shoe, run on ``bases[a]`` = the shoe less the up card and
    ``1 + a`` pair cards; ``outs`` / ``base`` / ``active`` are those of ``a = 0`` (the hands'
    decisions that the optimal tables export); ``dbl2`` whether a split hand may double on two
    cards; ``max_hands`` the hands allowed for this pair (2: no resplit). Every state is valued
    only in the chains of optimal play (a = 0 of CDP1, every a of CDP); the others (a > 0, a
    fixed policy, CDZ) value the two-card states and what their policy reaches from them
    (``SK.split_runs``), all that is read of them. ``val`` / ``st``: the
    chains' ``val`` and ``st`` as [a, k, state] for ``a2`` = ``a2s[k]`` (the ``by_a`` chains are
    views of them where ``split_chains`` made them; stacked from ``by_a`` on first use else)."""

    by_a: list[dict[int, ChainOut]]
    bases: list[np.ndarray]
    active: np.ndarray
    dbl2: bool
    max_hands: int
    pols: list[dict[int, np.ndarray | None]] = field(default_factory=list)  # fixed policies used
    resc_pol: np.ndarray | None = None
    causal: bool = True  # decisions by the hand's own cards only (not CDP's final pair count)
    val: np.ndarray | None = None
    st: np.ndarray | None = None
    hv: np.ndarray | None = None  # (a, 3): ``_hand_values`` of every a, once worked out

    @property
    def outs(self) -> dict[int, ChainOut]:
        return self.by_a[0]

    @property
    def base(self) -> np.ndarray:
        return self.bases[0]

    @property
    def a2s(self) -> tuple[int, ...]:
        return tuple(self.by_a[0])

    def out_for(self, a2: int, a: int = 0) -> ChainOut:
        """The chain of a hand with ``a2`` Aces among its first two cards (as ``split_value``)."""
        outs = self.by_a[a]
        return outs.get(a2, next(iter(outs.values())))

    def stacks(self) -> tuple[np.ndarray, np.ndarray]:
        """(``val``, ``st``) as [a, k, state]."""
        if self.val is None or self.st is None:
            a2s = self.a2s
            self.val = np.ascontiguousarray([[outs[a2].val for a2 in a2s] for outs in self.by_a])
            self.st = np.ascontiguousarray([[outs[a2].st for a2 in a2s] for outs in self.by_a])
        return self.val, self.st


@lru_cache(maxsize=512)
def split_terminals(n_pair: int, n_other: int, max_hands: int) -> tuple[dict[int, float], dict[int, float]]:
    """Probabilities of how the second cards of a split fall (exact, any hand limit).

    Hands get their second cards one at a time; a pair card starts a new hand while fewer than
    ``max_hands`` exist (000 3.9, the rules' ``max_split_hands``). ``n_pair`` pair cards and
    ``n_other`` other cards remain after the up card and the two pair cards. Returns
    (``early``, ``full``): ``early[h]`` = P(the split ends with h < max_hands hands, every second
    card a non-pair card), ``full[k]`` = P(max_hands hands are reached after k hands were completed
    by a non-pair card). With a pair cards and b other cards drawn, the next card is a pair card
    with chance (n_pair - a) / (n_pair + n_other - a - b). Kept (the same for many up cards):
    the dicts are shared, read only."""
    early: dict[int, float] = {}
    full: dict[int, float] = {}
    m = max_hands
    if m <= 2:
        return early, {0: 1.0}
    frontier = {(0, 0): 1.0}  # (a, b) -> probability; 2 + a - b hands still wait for a card
    while frontier:
        nxt: dict[tuple[int, int], float] = {}
        for (a, b), pr in frontier.items():
            left = n_pair + n_other - a - b
            if left <= 0:
                continue
            q = max(n_pair - a, 0) / left
            if q > 0:
                if 2 + a + 1 >= m:
                    full[b] = full.get(b, 0.0) + pr * q
                else:
                    nxt[(a + 1, b)] = nxt.get((a + 1, b), 0.0) + pr * q
            if q < 1:
                if 2 + a - (b + 1) == 0:
                    early[2 + a] = early.get(2 + a, 0.0) + pr * (1 - q)
                else:
                    nxt[(a, b + 1)] = nxt.get((a, b + 1), 0.0) + pr * (1 - q)
        frontier = nxt
    return early, full


class SplitMixin:
    """The split methods of ``player.UpcardSolver`` (which sets these attributes)."""

    rules: CasinoRules
    pr: Params
    sp: StateSpace
    base: np.ndarray
    n: int
    up: int
    fits: np.ndarray
    dealers: DealerCache
    split_strategy: str
    _split_dist: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]]
    _pair_mask: dict[int, tuple[np.ndarray, np.ndarray]]  # p -> (fits, holds a p, 2+ cards; counts of p)
    main_outs: dict[int, ChainOut]

    if TYPE_CHECKING:

        def run(self, *args: Any, **kw: Any) -> ChainOut: ...

        def q_nat(self, s: int) -> float: ...

        def state_of(self, i: int, j: int) -> int: ...

    def _removal_dists(self, rem: np.ndarray) -> np.ndarray:
        """Dealer distributions for ``base - rem[k]`` (rows of card counts)."""
        if not len(rem):
            return np.zeros((0, 7))
        return self.dealers.get(rem, self.up)

    def split_setup(self, p: int, a: int = 0) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Active mask and dealer distributions for the hands of a split of value ``p`` when
        ``1 + a`` other pair cards are out: a state s (holding its own pair card) sees the dealer
        of the shoe less s and those pair cards. The distributions as ``run`` takes them: the
        up card's table of dealer rows and each state's row in it (-1, the zero row, where the
        state is not active), not gathered into a table of their own."""
        key = (p, a)
        if key in self._split_dist:
            act, rows, pos = self._split_dist[key]
            return act, (rows, pos)
        sp = self.sp
        holds = self._holds(p)
        c_p = self._pair_mask[p][1]
        # the shoe less 1 + a pair cards: only the pair value's count changes (self.fits: the rest)
        act = holds & (c_p <= int(self.base[p]) - 1 - a)
        if act.any():
            pos = self.dealers.state_positions(p, 1 + a)  # may add rows: index after it
            pos = np.where(act, pos, -1)
        else:
            pos = np.full(sp.size, -1, dtype=np.int64)
        rows = self.dealers.by_up[self.up]  # kept with pos: rows added later make a new table
        self._split_dist[key] = (act, rows, pos)
        return act, (rows, pos)

    def main_out(self, a2: int) -> ChainOut:
        """The unsplit chain (optimal play) for ``a2`` (CDZ- decisions of split hands)."""
        if a2 not in self.main_outs:
            self.main_outs[a2] = self.run(a2=a2)
        return self.main_outs[a2]

    def _decisions(self, o: ChainOut, act: np.ndarray, dbl2: bool) -> np.ndarray:
        """The policy codes of the best option of every active state of ``o`` (stand, then hit
        if better, then double if better and allowed, as the kernel's OPTIMAL; ``SK.decide``)."""
        pr, sp = self.pr, self.sp
        out = np.empty(sp.size, dtype=np.int64)
        SK.decide(o.st, o.hit, o.dbl, act, sp.best, sp.ncards, pr.forced, pr.dbl_any, dbl2, out)
        return out

    def _holds(self, p: int) -> np.ndarray:
        """The states that fit the shoe and hold a ``p`` among two or more cards."""
        if p not in self._pair_mask:
            c_p = np.ascontiguousarray(self.sp.counts[:, p])
            self._pair_mask[p] = (self.fits & (c_p >= 1) & (self.sp.ncards >= 2), c_p)
        return self._pair_mask[p][0]

    def split_chains(
        self,
        p: int,
        *,
        policy: np.ndarray | None = None,
        resc_pol: np.ndarray | None = None,
        max_hands: int | None = None,
    ) -> SplitChains | None:
        """The chains that value the hands of a split of value ``p`` (see ``split_value``), or
        None where the pair cannot be split (fewer than two hands allowed, or too few cards).
        One kernel call (``SK.split_runs``) runs them all."""
        pr, sp = self.pr, self.sp
        m = pr.max_hands if max_hands is None else max_hands
        if m < 2:
            return None
        if p == 0 and not pr.resplit_aces:
            m = 2  # 000 3.9.1: split Aces are not split again unless the rules say so
        if self.base[p] < 2 or self.n < 3:
            return None
        # pair cards that can be out besides the original two: m - 2 resplits, and up to m - 2
        # more from the hands' removal recursion (Farmer's EV[X; a, b] in terms of EV[X; a, 0])
        n_a = min(2 * (m - 2), int(self.base[p]) - 2) + 1
        # 001 Splits: against a dealer Pontoon the box loses one wager only (see split_combine)
        loss = 0.0 if pr.split_one_wager else 1.0
        loss_d = 0.0 if pr.split_one_wager else pr.nat_loss_dbl
        dbl2 = pr.das and not (p == 0 and not self.rules.double_split_aces)
        a2_all = (0, 1) if p != 0 else (1, 2)
        a2s: tuple[int, ...] = a2_all if pr.dbl_any else (a2_all[0],)
        strat = self.split_strategy
        causal = policy is not None or strat != "cdp"
        n2, size = len(a2s), sp.size
        pols = np.empty((n_a, n2, size), dtype=np.int64)
        ref_st = ref_hit = ref_dbl = _NO_REF
        ref_rfl = _NO_REF_RFL
        if policy is not None:
            mode = SK.SPLIT_FIXED
            pols[:] = policy
        elif strat == "cdz":
            # CDZ-: the unsplit hand's best option (among those a split hand has), and its rescues
            mode = SK.SPLIT_CDZ
            mains = [self.main_out(a2) for a2 in a2s]
            ref_st = np.stack([o.st for o in mains])
            ref_hit = np.stack([o.hit for o in mains])
            ref_dbl = np.stack([o.dbl for o in mains])
            ref_rfl = np.stack([o.rfl for o in mains])
        else:
            # CDP1: the decisions (rescues too) of the first split (one pair card besides the
            # hand's out) for a > 0; CDP: optimal play for every a
            mode = SK.SPLIT_CDP1 if strat == "cdp1" else SK.SPLIT_CDP
        pos, by_up = self.dealers.position_stack(p, n_a)
        f = np.zeros((4, n_a, n2, size))
        act = np.full((n_a, n2, size), K.ACT_HIT, dtype=np.int8)
        rfl = np.zeros((n_a, n2, size, 10), dtype=np.int8)
        active = np.empty((n_a, size), dtype=bool)
        SK.split_runs(
            sp.counts,
            sp.hard,
            sp.ncards,
            sp.nace,
            sp.trans,
            sp.best,
            self._holds(p),
            pos,
            by_up[self.up],
            self.base,
            p,
            _a2s_array(a2s),
            pr.pay21,
            self.up,
            pr.peek,
            pr.p21wins,
            loss,
            loss_d,
            pr.forced,
            dbl2,
            pr.dbl_any,
            pr.ace_one,
            pr.rescue,
            mode,
            pols,
            ref_st,
            ref_hit,
            ref_dbl,
            ref_rfl,
            _NO_RESCUE_CHART if resc_pol is None else resc_pol,
            active,
            f[0],
            f[1],
            f[2],
            f[3],
            act,
            rfl,
        )
        by_a: list[dict[int, ChainOut]] = []
        pol_l: list[dict[int, np.ndarray | None]] = []
        bases_a = np.repeat(self.base[None, :], n_a, axis=0)
        bases_a[:, p] -= np.arange(1, n_a + 1)
        bases = list(bases_a)
        for a in range(n_a):
            by_a.append(
                {
                    a2: ChainOut(
                        f[0, a, k],
                        f[1, a, k],
                        f[2, a, k],
                        f[3, a, k],
                        _NO_DEC,
                        _NO_RACC,
                        act[a, k],
                        rfl[a, k],
                    )
                    for k, a2 in enumerate(a2s)
                }
            )
            if mode in (SK.SPLIT_FIXED, SK.SPLIT_CDZ):
                pol_l.append({a2: pols[a, k] for k, a2 in enumerate(a2s)})
            elif mode == SK.SPLIT_CDP1 and a > 0:  # one set of decisions for every a > 0
                pol_l.append({a2: pols[1, k] for k, a2 in enumerate(a2s)})
            else:
                pol_l.append({a2: None for a2 in a2s})
        return SplitChains(by_a, bases, active[0], dbl2, m, pol_l, resc_pol, causal, f[3], f[0])

    def _hand_table(self, p: int, sc: SplitChains) -> list[tuple[float, float, float]]:
        """``_hand_values`` of every a (``SK.hand_values``, once per ``sc``)."""
        if sc.hv is None:
            val, st = sc.stacks()
            hv = np.empty((len(sc.by_a), 3))
            one_card = p == 0 and not self.pr.hit_split_aces  # 000 3.9.1
            SK.hand_values(
                _two_card_states(),
                self.sp.nace,
                self.sp.best,
                self.base,
                p,
                _a2s_array(sc.a2s),
                one_card,
                val,
                st,
                hv,
            )
            sc.hv = hv
        return [(x, y, z) for x, y, z in sc.hv.tolist()]

    def _hand_values(self, p: int, sc: SplitChains, a: int) -> tuple[float, float, float]:
        """(EV[X; a, 0], EV[N; a, 0], EV[P; a, 0]): the value of one split hand whose second card
        is any card / a non-pair card / a pair card it may not split, with ``a`` pair cards out
        besides the original two (Farmer's notation, blackjack_split.pdf; ``SK.hand_values``)."""
        return self._hand_table(p, sc)[a]

    def _removal_ev(self, p: int, hv: list[tuple[float, float, float]]) -> Callable[[int, int, int], float]:
        """EV[X; a, b] (kind 0) and EV[N; a, b] (kind 1) from the values ``hv[a]`` of
        ``_hand_values``: b non-pair cards out too, by the removal recursion (a random card out is
        a pair card with chance v, so E[a, b-1] = v E[a+1, b-1] + (1 - v) E[a, b])."""
        n_pair = int(self.base[p]) - 2
        n_other = self.n - int(self.base[p])
        a_max = len(hv) - 1
        memo: dict[tuple[int, int, int], float] = {}

        def ev(kind: int, a: int, b: int) -> float:
            if a > a_max or a > n_pair or b < 0:
                return 0.0
            if b == 0:
                return hv[a][kind]
            key = (kind, a, b)
            if key in memo:
                return memo[key]
            left = n_pair + n_other - a - (b - 1) - kind  # N: its own second card is out too
            v = (n_pair - a) / left if left > 0 else 0.0
            res = 0.0 if v >= 1.0 else (ev(kind, a, b - 1) - v * ev(kind, a + 1, b - 1)) / (1.0 - v)
            memo[key] = res
            return res

        return ev

    def split_combine(self, p: int, sc: SplitChains, beat: float | None = None) -> float:
        """``split_value`` from the chains of ``split_chains(p)`` (exact; see ``split_value``).
        ``beat``: the best other option of the pair; where FED's one-wager loss cannot lift the
        split to it, that loss may be the union approximation (see ``split_value``)."""
        m = sc.max_hands
        n_pair = int(self.base[p]) - 2
        n_other = self.n - int(self.base[p])
        ev = self._removal_ev(p, self._hand_table(p, sc))
        early, full = split_terminals(n_pair, n_other, m)
        total = 0.0
        for h, q in early.items():
            total += q * h * ev(1, h - 2, h - 1)
        for k, q in full.items():
            if k > 0:
                total += q * k * ev(1, m - 2, k - 1)
            total += q * (m - k) * ev(0, m - 2, k)
        if not self.pr.split_one_wager or self.up not in (0, 9):
            return total  # 001 Splits: only a dealer Pontoon (an Ace or ten-value up card) costs
        if sc.causal and beat is None:
            exact = self._split_nat_loss_exact(p, sc)
            if exact is not None:
                return total - exact
        union, lower = self._split_nat_loss(p, sc, early, full)
        if sc.causal and beat is not None and not total - lower < beat:
            exact = self._split_nat_loss_exact(p, sc)
            if exact is not None:
                return total - exact
        return total - union

    def _split_nat_loss(
        self, p: int, sc: SplitChains, early: dict[int, float], full: dict[int, float]
    ) -> tuple[float, float]:
        """001 Splits, rul 6 and 26: against a dealer Pontoon a split box loses one wager in all; a
        busted split hand was settled (lost) at once and is not that wager, nor is a 21 paid at
        once. The chains value live hands at 0 against a Pontoon, so the box loses
        P(dealer Pontoon and some hand alive). Each final hand's x = P(Pontoon and this hand
        alive) is exact (chains charging the loss, played as without it, through the same
        removal recursion); the union over a split's H hands is d (1 - prod (1 - x_i / d)),
        d = P(Pontoon) given the cards known out: hands alive independently given the Pontoon.
        Returns (that union, a lower bound of the exact loss: the union is at least its largest
        part, so the sum over the split's outcomes of max_i x_i). The union stands for the exact
        loss only for CDP (whose play depends on the pair cards out when the split is over, which
        no causal play knows), where the kernel's keys would overflow, and for splits whose value
        with the lower bound is still below another option (``split_combine``'s ``beat``)."""
        if self.up not in (0, 9):
            return 0.0, 0.0
        m = sc.max_hands
        by_a1: list[dict[int, ChainOut]] = []
        for a, outs in enumerate(sc.by_a):
            act, dist = self.split_setup(p, a)
            o1: dict[int, ChainOut] = {}
            for a2, o in outs.items():
                fixed = sc.pols[a].get(a2) if a < len(sc.pols) else None
                pol = fixed if fixed is not None else self._decisions(o, act, sc.dbl2)
                o1[a2] = self.run(
                    base=sc.bases[a],
                    dist=dist,
                    active=act,
                    a2=a2,
                    nat_loss=1.0,
                    nat_loss_dbl=1.0,
                    dbl2=sc.dbl2,
                    policy=pol,
                    resc_pol=sc.resc_pol,
                )
            by_a1.append(o1)
        sc1 = SplitChains(by_a1, sc.bases, sc.active, sc.dbl2, m)
        dhv: list[tuple[float, float, float]] = []
        for a in range(len(sc.by_a)):
            v0 = self._hand_values(p, sc, a)
            v1 = self._hand_values(p, sc1, a)
            dhv.append((v0[0] - v1[0], v0[1] - v1[1], v0[2] - v1[2]))
        xev = self._removal_ev(p, dhv)
        other = 9 if self.up == 0 else 0
        n_other = self.n - int(self.base[p])
        c_o = int(self.base[other]) - (2 if p == other else 0)

        def union(xs: list[float], a: int, b: int) -> float:
            left = self.n - 2 - a - b
            if p == other:
                co = float(c_o - a)
            else:
                co = c_o * (1.0 - b / n_other) if n_other > 0 else 0.0
            d = co / left if left > 0 else 0.0
            if d <= 0:
                return 0.0
            keep = 1.0
            for x in xs:
                keep *= 1.0 - min(max(x, 0.0) / d, 1.0)
            return d * (1.0 - keep)

        total = 0.0
        lower = 0.0
        for h, q in early.items():
            xs = [xev(1, h - 2, h - 1)] * h
            total += q * union(xs, h - 2, h - 1)
            lower += q * max(0.0, *xs)
        for k, q in full.items():
            xs = ([xev(1, m - 2, k - 1)] * k if k > 0 else []) + [xev(0, m - 2, k)] * (m - k)
            total += q * union(xs, m - 2, k)
            lower += q * max(0.0, *xs)
        return total, lower

    def _split_nat_loss_exact(self, p: int, sc: SplitChains) -> float | None:
        """P(dealer Pontoon and some split hand alive), exactly (``onewager``): the chance d0 of
        the complement card times 1 - P(every hand dead | that card out first). None where the
        shoe is too large for the kernel's multiset keys, or the split past its work limit
        (``onewager.MAX_STATES`` partial box states: small pairs with three or more hands)."""
        from pontoon.analysis import onewager  # FED only: numba's typed containers load slowly

        sp, pr = self.sp, self.pr
        other = 9 if self.up == 0 else 0
        shoe0 = self.base.copy()
        shoe0[p] -= 2
        n0 = int(shoe0.sum())
        if shoe0[other] <= 0 or n0 <= 0:
            return 0.0
        d0 = float(shoe0[other]) / n0
        shoe0[other] -= 1
        if not onewager.key_fits(shoe0):
            return None
        act = np.full((3, sp.size), K.ACT_STAND, dtype=np.int8)
        rfl = np.zeros((3, sp.size, 10), dtype=np.int8)
        for a2 in range(3):
            o = sc.out_for(a2)
            act[a2] = o.act
            rfl[a2] = o.rfl
        one_card = p == 0 and not pr.hit_split_aces  # 000 3.9.1
        dead = onewager.all_dead(
            sp.counts,
            sp.hard,
            sp.ncards,
            sp.nace,
            sp.trans,
            shoe0,
            p,
            sc.max_hands,
            one_card,
            pr.p21wins,
            pr.ace_one,
            act,
            rfl,
            _two_card_states(),
            onewager.MAX_STATES,
        )
        if dead < 0:
            return None  # past the work limit: the union approximation
        return d0 * (1.0 - dead)

    def split_value(
        self,
        p: int,
        *,
        policy: np.ndarray | None = None,
        resc_pol: np.ndarray | None = None,
        max_hands: int | None = None,
        beat: float | None = None,
    ) -> float:
        """Expectation of splitting a pair of value ``p`` (per original wager of the hand).

        Exact for the post-split strategy ``split_strategy`` (CDZ-, CDP1, CDP as in Farmer's
        analyser) or the fixed ``policy``: every split hand's value is the mean over the ways the
        split's second cards fall (``split_terminals``) of the hands' values with the pair cards
        and non-pair second cards known to be out removed from their shoe (other cards are
        exchangeable); a hand's value with b non-pair cards out follows from those with none
        out through the removal recursion of ``split_combine`` (E. Farmer, "Optimal
        expected values for blackjack splits"). Every pair card drawn is resplit while fewer
        than the rules' ``max_split_hands`` hands exist (Aces once unless ``resplit_aces``).

        FED's one-wager loss to a dealer Pontoon (001 Splits) is exact (``onewager``) for every
        strategy but CDP. Its cost grows with the number of ways small cards can bust or make 21
        (up to 17 s for 2-2 against an Ace in 6 decks), so a caller that only compares the split
        with the hand's other options passes ``beat`` (the best of them, in the same units): where
        the split stays below it even with the least loss the hands' own chances allow, the split
        is not played, and the loss is the union approximation (``_split_nat_loss``), which keeps
        it below ``beat``.
        """
        sc = self.split_chains(p, policy=policy, resc_pol=resc_pol, max_hands=max_hands)
        if sc is None:
            return float("nan")
        return self.split_combine(p, sc, beat)

    def split_beat(self, p: int, opts: dict[str, float], classes: list[tuple[float, float]]) -> float:
        """``split_value``'s ``beat`` for the pair of ``p`` from its other options (``hand_options``
        without the split): the least, over its suit classes, of the best of them, less the peek's
        charge that ``hand_options`` adds to the split."""
        best = min(max({**opts, "H": opts["H"] + adj}.values()) for _w, adj in classes)
        return best + (self.q_nat(self.state_of(p, p)) if self.pr.peek else 0.0)
