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
  * splits: see ``split_value``: each split hand is played against the shoe less both pair cards
    and its own cards (the other hands' cards are not removed), resplits by expected hand counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.states import StateSpace, state_space
from pontoon.analysis.suits import (
    BONUS_COMPLETION,
    average_three_card_pay,
    completion_classes,
    super_bonus_units,
)
from pontoon.rules.model import CasinoRules


@lru_cache(maxsize=64)
def _table(up: int, h17: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return K.dealer_table(up, h17)


def dealer_dists(base: np.ndarray, removed: np.ndarray, up: int, h17: bool) -> np.ndarray:
    """Dealer outcome distributions (17..21, natural, bust) for ``base - removed[k]``."""
    return K.dealer_batch_table(np.asarray(base, np.int64), np.asarray(removed, np.int64), *_table(up, h17))


CODE_TO_POLICY = {"S": K.STAND, "H": K.HIT, "D": K.DOUBLE_HIT, "Ds": K.DOUBLE_STAND, "R": K.HIT, "Rs": K.STAND}


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
        for s in range(sp.size):
            if sp.best[s] != 21:
                continue
            n = int(sp.ncards[s])
            c = sp.counts[s]
            v = float(rules.regular_pays)
            if n == 3 and c[5] == 1 and c[6] == 1 and c[7] == 1:
                v = avg678  # rulings 16: 6-7-8
            elif n == 3 and c[6] == 3:
                v = avg777
            elif n == 5:
                v = float(rules.pays_5_card_21)
            elif n == 6:
                v = float(rules.pays_6_card_21)
            elif n >= 7:
                v = float(rules.pays_7_card_21)
            pay[s] = v
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


@dataclass
class ChainOut:
    st: np.ndarray
    hit: np.ndarray
    dbl: np.ndarray
    val: np.ndarray
    dec: np.ndarray
    racc: np.ndarray


@dataclass
class SplitChains:
    """The chains behind ``UpcardSolver.split_value`` for one pair value: ``outs`` by a2 (Aces
    among a split hand's first two cards; the hand's first card is the pair card), run on ``base``
    (the shoe less the upcard and the other pair card) over the states ``active``; ``dbl2``
    whether a split hand may double on two cards; ``max_hands`` the hands allowed for this pair
    (2: no resplit); ``n_np`` / ``n_p`` the expected hand counts of ``split_hand_counts``."""

    outs: dict[int, ChainOut]
    base: np.ndarray
    active: np.ndarray
    dbl2: bool
    max_hands: int
    n_np: float
    n_p: float

    def out_for(self, a2: int) -> ChainOut:
        """The chain of a hand with ``a2`` Aces among its first two cards (as ``split_value``)."""
        return self.outs.get(a2, next(iter(self.outs.values())))


def split_hand_counts(c_p: int, n: int, max_hands: int) -> tuple[float, float]:
    """Expected numbers of split hands that end (a) with a second card that is not a pair card,
    (b) with a pair card but no split left. Starts with two hands; a hand that draws a pair card is
    split again while fewer than ``max_hands`` hands exist. The chance of a pair card when h hands
    exist is (c_p - h) / (n - h) (each hand holds one pair card; other hands' cards ignored)."""
    memo: dict[tuple[int, int], tuple[float, float]] = {}

    def f(h: int, k: int) -> tuple[float, float]:
        if k == 0:
            return 0.0, 0.0
        key = (h, k)
        if key in memo:
            return memo[key]
        pp = max(c_p - h, 0) / (n - h) if n - h > 0 else 0.0
        a, b = f(h, k - 1)
        np_, p_ = (1 - pp) * (a + 1), (1 - pp) * b
        if pp > 0:
            if h < max_hands:
                a2, b2 = f(h + 1, k + 1)
                np_ += pp * a2
                p_ += pp * b2
            else:
                np_ += pp * a
                p_ += pp * (b + 1)
        memo[key] = (np_, p_)
        return memo[key]

    return f(2, 2)


class UpcardSolver:
    """Everything about one upcard against one composition ``base`` (the shoe less the upcard)."""

    def __init__(
        self,
        rules: CasinoRules,
        params: Params,
        base: np.ndarray,
        up: int,
        active: np.ndarray | None = None,
    ) -> None:
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
        idx = np.nonzero(self.active)[0]
        self.dist = np.zeros((sp.size, 7))
        if len(idx):
            self.dist[idx] = dealer_dists(self.base, sp.counts[idx], up, params.h17)
        self._split_dist: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.q0_cache: dict[int, float] = {}

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
        dist: np.ndarray | None = None,
        active: np.ndarray | None = None,
        a2: int = 0,
        nat_loss: float = 1.0,
        nat_loss_dbl: float | None = None,
        dbl2: bool = True,
        policy: np.ndarray | None = None,
        resc_pol: np.ndarray | None = None,
        build: bool = False,
        weights: np.ndarray | None = None,
    ) -> ChainOut:
        sp, pr = self.sp, self.pr
        size = sp.size
        out = ChainOut(
            np.zeros(size), np.zeros(size), np.zeros(size), np.zeros(size),
            np.full((2, 22, 12), -9, dtype=np.int64), np.zeros(22),
        )
        K.chain(
            sp.counts, sp.hard, sp.ncards, sp.nace, sp.trans,
            self.active if active is None else active,
            self.base if base is None else base,
            self.dist if dist is None else dist,
            pr.pay21, self.up, pr.peek, pr.p21wins,
            nat_loss, pr.nat_loss_dbl if nat_loss_dbl is None else nat_loss_dbl,
            pr.forced, dbl2, pr.dbl_any, a2, pr.ace_one, pr.rescue,
            np.full(size, K.OPTIMAL, dtype=np.int64) if policy is None else policy,
            np.full(22, -1, dtype=np.int64) if resc_pol is None else resc_pol,
            build, np.zeros(size) if weights is None else weights,
            out.st, out.hit, out.dbl, out.val, out.dec, out.racc,
        )
        return out

    # splits ----------------------------------------------------------------------------
    def split_setup(self, p: int) -> tuple[np.ndarray, np.ndarray]:
        """Active mask and dealer distributions for the hands of a split of value ``p``: the
        shoe lacks the other pair card, so a state s sees the dealer of s + p."""
        if p in self._split_dist:
            return self._split_dist[p]
        sp = self.sp
        base_s = self.base.copy()
        base_s[p] -= 1
        act = self.fits.copy() if base_s[p] >= 0 else np.zeros(sp.size, dtype=bool)
        act &= (sp.counts[:, p] >= 1) & (sp.ncards >= 2) & np.all(sp.counts <= base_s[None, :], axis=1)
        dist = np.zeros((sp.size, 7))
        idx = np.nonzero(act)[0]
        tr = sp.trans[idx, p]
        have = tr >= 0
        dist[idx[have]] = self.dist[tr[have]]
        # states whose own total plus p passes 21 were never needed by the main chain
        miss = idx[~have]
        if len(miss):
            rem = sp.counts[miss].copy()
            rem[:, p] += 1
            dist[miss] = dealer_dists(self.base, rem, self.up, self.pr.h17)
        # main-chain rows missing because of an ``active`` restriction
        lost = idx[have][~self.active[tr[have]]]
        if len(lost):
            rem = sp.counts[lost].copy()
            rem[:, p] += 1
            dist[lost] = dealer_dists(self.base, rem, self.up, self.pr.h17)
        self._split_dist[p] = (act, dist)
        return act, dist

    def split_chains(
        self,
        p: int,
        *,
        policy: np.ndarray | None = None,
        resc_pol: np.ndarray | None = None,
        max_hands: int | None = None,
    ) -> SplitChains | None:
        """The chains that value the hands of a split of value ``p`` (see ``split_value``), or
        None where the pair cannot be split (fewer than two hands allowed, or too few cards)."""
        pr = self.pr
        m = pr.max_hands if max_hands is None else max_hands
        if m < 2:
            return None
        if p == 0 and not pr.resplit_aces:
            m = 2
        n = self.n
        if self.base[p] < 2 or n < 3:
            return None
        n_np, n_p = split_hand_counts(int(self.base[p]), n, m)
        hands = n_np + n_p
        act, dist = self.split_setup(p)
        base_s = self.base.copy()
        base_s[p] -= 1
        # 001 Splits: against a dealer Pontoon the box loses one wager only (spread over its hands)
        loss = 1.0 / hands if pr.split_one_wager else 1.0
        loss_d = loss if pr.split_one_wager else pr.nat_loss_dbl
        dbl2 = pr.das and not (p == 0 and not self.rules.double_split_aces)
        out_by_a2: dict[int, ChainOut] = {}
        a2s = (0, 1) if p != 0 else (1, 2)
        for a2 in a2s if pr.dbl_any else (a2s[0],):
            out_by_a2[a2] = self.run(
                base=base_s,
                dist=dist,
                active=act,
                a2=a2,
                nat_loss=loss,
                nat_loss_dbl=loss_d,
                dbl2=dbl2,
                policy=policy,
                resc_pol=resc_pol,
            )
        return SplitChains(out_by_a2, base_s, act, dbl2, m, n_np, n_p)

    def split_combine(self, p: int, sc: SplitChains) -> float:
        """``split_value`` from the chains of ``split_chains(p)``."""
        pr, sp = self.pr, self.sp
        base_s = sc.base
        out_by_a2 = sc.outs
        left = self.n - 2  # the second card of a split hand comes from the shoe less both pair cards
        e_np = 0.0
        w_np = 0.0
        e_p = 0.0
        for r in range(10):
            cr = int(base_s[r]) - (1 if r == p else 0)
            if cr <= 0 or left <= 0:
                continue
            pr_r = cr / left
            cnt = [0] * 10
            cnt[p] += 1
            cnt[r] += 1
            s2 = sp.index[tuple(cnt)]
            a2 = int(sp.nace[s2])
            o = out_by_a2.get(a2, next(iter(out_by_a2.values())))
            if p == 0 and not pr.hit_split_aces:
                # 000 3.9.1: one card on each split Ace, no further action
                w = o.val[s2] if sp.best[s2] == 21 else o.st[s2]
            else:
                w = o.val[s2]
            if r == p:
                e_p = w
            else:
                e_np += pr_r * w
                w_np += pr_r
        if w_np > 0:
            e_np /= w_np
        return sc.n_np * e_np + sc.n_p * e_p

    def split_value(
        self,
        p: int,
        *,
        policy: np.ndarray | None = None,
        resc_pol: np.ndarray | None = None,
        max_hands: int | None = None,
    ) -> float:
        """Expectation of splitting a pair of value ``p`` (per original wager of the hand).

        Algorithm: every split hand is valued against the shoe less the upcard, both pair cards and
        its own cards, played optimally (or by ``policy``), doubles allowed when the rules allow
        them after a split. With E_np the mean value of a hand whose second card is not a pair card
        and E_p the value of a hand with two pair cards that may split no more,
        value = N_np * E_np + N_p * E_p, N_* the expected counts of such hands (``split_hand_counts``).
        Exact for one split without resplit up to the removal of the first hand's cards from the
        second hand's shoe; resplits are approximated through the hand counts.
        """
        sc = self.split_chains(p, policy=policy, resc_pol=resc_pol, max_hands=max_hands)
        if sc is None:
            return float("nan")
        return self.split_combine(p, sc)

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
            classes = [
                (w, qc * (m - float(pr.pay21[s3])))
                for w, m in completion_classes(self.rules, i, j, self.up, pr.sb_units)
            ]
        return opts, classes
