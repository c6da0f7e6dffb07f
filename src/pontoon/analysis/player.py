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

from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.dealer_rows import dealer_cache
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
            # rulings 5: a player's Pontoon is paid 3 to 2 at once (blackjack: pushes a natural);
            # with a peek too where it beats a dealer natural (Spanish 21; casino/settle.py)
            v = pr.pontoon_pays * ((1 - q0) if pr.nat_push else 1.0)
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
            nn = 1.0 - self.q_nat(s3) if pr.peek else 1.0  # peek: no dealer natural (as the 21)
            classes = [(w, qc * nn * (m - float(pr.pay21[s3]))) for w, m in self.completion(i, j)]
        return opts, classes
