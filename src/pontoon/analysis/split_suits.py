"""6-7-8 and 7-7-7 made inside split hands, by suit (rulings 16; 000 4.1, 004 4.1.1), exactly.

A three-card 21 of 6-7-8 or 7-7-7 is paid by its suits (mixed, one suit other than spades, all
spades), and split hands are eligible (rulings 16; split hands get no Super Bonus, rulings 17).
The chains of ``splits.SplitMixin`` value a split hand by card values, paying such a 21 its
average over the suits of the full shoe (``Params.pay21``). Split hands play by card values, and
neither the dealer nor the hands' values depend on suits, so given every card's value the suits of
the cards nobody has seen are a uniform draw from the identities of their values. The only suits
that are known are those of the cards seen when the split is decided: the two pair cards and the
dealer's up card. So the exact value of a split *given those three suits* is the chains' value
plus, for every hand, P(the hand ends as a three-card bonus 21) x (its expected pay given the
known suits - the average paid by the chains):

* the first hand keeps the first pair card (suit ``s1``), the second hand the second (``s2``),
  and a resplit hand starts with a pair card drawn later, whose suit is unknown (004 3.24.2: the
  engine inserts each new hand after the hand it came from, deals the first hand its second card
  at once and the second original hand last);
* P(bonus) of a hand: its second card completes two of the bonus values with its pair card, its
  play (the split chains' ``act``) hits that two-card hand, and the third card completes the
  bonus; the removal recursion of ``SplitMixin._removal_ev`` gives it for every number of pair
  cards and non-pair second cards out, exactly as for the hands' values (E. Farmer's method);
* which hands are the original ones at the end of a split: the walk of ``split_terminals`` with
  the order in which the engine deals the second cards (``order_terminals``).

Averaged over the suits of the pair and the up card the correction is zero (the chains' average
is the unconditional pay), so a split value used for every suit class alike (the chart, a fixed
policy) was already exact; what the suits change is optimal play, which may split one suit class
of a pair and not another (7-7 against a 7: 7s7s is hit for the Super Bonus, 7s7d split), and the
value of each class. Decisions of split hands stay by card values (with the chains' average pay):
a strategy restriction whose value is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.states import card_index
from pontoon.analysis.suits import BONUS_COMPLETION, SUITS, three_card_multiplier
from pontoon.cards import Card

if TYPE_CHECKING:
    from pontoon.analysis.player import UpcardSolver
    from pontoon.analysis.splits import SplitChains
    from pontoon.rules.model import CasinoRules

BONUS_VALUES = (5, 6, 7)  # value indices of 6, 7, 8
KINDS = ("678", "777")
Known = Sequence[tuple[int, str]]


@dataclass(frozen=True)
class SuitShoe:
    """The 6s, 7s and 8s of the full shoe by suit: ``counts[v - 5][k]`` cards of value index ``v``
    and suit ``SUITS[k]`` (the other cards' suits never change a payment)."""

    counts: tuple[tuple[int, ...], ...]

    @classmethod
    def even(cls, decks: int) -> SuitShoe:
        """``decks`` cards of every suit (any pack: 6s, 7s and 8s are in both)."""
        return cls(tuple(tuple(decks for _ in SUITS) for _ in BONUS_VALUES))

    @classmethod
    def of_cards(cls, cards: Iterable[str | Card]) -> SuitShoe:
        """From a shoe's cards (a stacked shoe), e.g. ``["7S", "7H", "KD"]``."""
        c = [[0] * 4 for _ in BONUS_VALUES]
        for x in cards:
            card = x if isinstance(x, Card) else Card.parse(x)
            v = card_index(card)
            if v in BONUS_VALUES:
                c[v - 5][SUITS.index(card.suit)] += 1
        return cls(tuple(tuple(r) for r in c))

    def left(self, v: int, known: Known) -> list[int]:
        """Cards of value ``v`` by suit less the ``known`` cards (value index, suit) of that value."""
        out = list(self.counts[v - 5])
        for kv, ks in known:
            if kv == v:
                out[SUITS.index(ks)] -= 1
        return out


def _draws(left: Sequence[int], k: int) -> tuple[tuple[tuple[str, ...], float], ...]:
    """The suits of ``k`` cards drawn without replacement from ``left`` (by suit), with chances."""
    return _draws_of(tuple(left), k)


@lru_cache(maxsize=1024)
def _draws_of(left: tuple[int, ...], k: int) -> tuple[tuple[tuple[str, ...], float], ...]:
    out: list[tuple[tuple[str, ...], float]] = [((), 1.0)]
    for _ in range(k):
        nxt = []
        for suits, p in out:
            rem = list(left)
            for s in suits:
                rem[SUITS.index(s)] -= 1
            n = sum(rem)
            for idx, s in enumerate(SUITS):
                if rem[idx] > 0 and n > 0:
                    nxt.append(((*suits, s), p * rem[idx] / n))
        out = nxt
    return tuple(out)


def hand_pay(rules: CasinoRules, kind: str, p: int, first: str | None, known: Known, shoe: SuitShoe) -> float:
    """Expected multiplier of a split hand of pair value ``p`` that ends as a 6-7-8 (``kind``
    "678") or 7-7-7 ("777"), its first card of suit ``first`` (None: a resplit card, drawn), given
    the ``known`` cards out (the pair cards and the up card, the hand's own first card among
    them). The other cards are drawn from the shoe's identities less the known ones."""
    return _hand_pay(_pays(rules, kind), kind, p, first, tuple(sorted(known)), shoe)


def _pays(rules: CasinoRules, kind: str) -> tuple[float, ...]:
    """The pays of a ``kind`` bonus hand: mixed, one suit other than spades, spades (rulings 16)."""
    return tuple(three_card_multiplier(rules, kind, s) for s in ("SSH", "HHH", "SSS"))


@lru_cache(maxsize=4096)
def _hand_pay(
    pays: tuple[float, ...],
    kind: str,
    p: int,
    first: str | None,
    known: tuple[tuple[int, str], ...],
    shoe: SuitShoe,
) -> float:
    lp = shoe.left(p, known)
    firsts = (((first,), 1.0),) if first is not None else _draws(lp, 1)
    tot = 0.0
    wsum = 0.0
    for (f,), pf in firsts:
        if kind == "777":
            rem = list(lp)
            if first is None:
                rem[SUITS.index(f)] -= 1
            others = _draws(rem, 2)
        else:
            v1, v2 = (v for v in BONUS_VALUES if v != p)
            others = tuple(
                ((a, b), qa * qb)
                for ((a,), qa), ((b,), qb) in product(
                    _draws(shoe.left(v1, known), 1), _draws(shoe.left(v2, known), 1)
                )
            )
        for suits, q in others:
            one = suits[0] == f and suits[1] == f  # every suit alike (two drawn: 777, 678)
            pay = pays[0] if not one else (pays[2] if f == "S" else pays[1])  # rulings 16
            tot += pf * q * pay
            wsum += pf * q
    return tot / wsum if wsum > 0 else 0.0


def order_terminals(
    n_pair: int, n_other: int, max_hands: int
) -> tuple[dict[int, float], dict[tuple[int, bool], float]]:
    """``splits.split_terminals`` with the engine's order of the hands (004 3.24.2): ``early[h]``
    as there; ``full[(k, b_done)]``: max_hands hands reached after k hands were completed by a
    non-pair second card, ``b_done`` whether the second original hand is one of them. The first
    original hand gets the first second card, so it is completed iff k >= 1; new hands are
    inserted right after the hand they come from, so the second original hand gets its second
    card after every hand made before it. State: (a, b, waiting before it, it done, waiting
    after it)."""
    early: dict[int, float] = {}
    full: dict[tuple[int, bool], float] = {}
    if max_hands <= 2:
        return early, {(0, False): 1.0}
    frontier: dict[tuple[int, int, int, bool, int], float] = {(0, 0, 1, False, 0): 1.0}
    while frontier:
        nxt: dict[tuple[int, int, int, bool, int], float] = {}
        for (a, b, c1, done, c2), pr in frontier.items():
            left = n_pair + n_other - a - b
            if left <= 0:
                continue
            q = max(n_pair - a, 0) / left
            if q > 0:
                if 2 + a + 1 >= max_hands:
                    full[(b, done)] = full.get((b, done), 0.0) + pr * q
                else:  # the new hand goes right after the current one
                    key = (a + 1, b, c1 + 1, done, c2) if c1 > 0 else (a + 1, b, c1, done, c2 + 1)
                    nxt[key] = nxt.get(key, 0.0) + pr * q
            if q < 1:
                if c1 > 0:
                    key = (a, b + 1, c1 - 1, done, c2)
                elif not done:
                    key = (a, b + 1, 0, True, c2)
                else:
                    key = (a, b + 1, 0, True, c2 - 1)
                if key[2] == 0 and key[3] and key[4] == 0:
                    early[2 + a] = early.get(2 + a, 0.0) + pr * (1 - q)
                else:
                    nxt[key] = nxt.get(key, 0.0) + pr * (1 - q)
        frontier = nxt
    return early, full


def _bonus_chances(
    solver: UpcardSolver, p: int, sc: SplitChains, kind: str
) -> Callable[[int, int, int], float]:
    """P(a split hand ends as a three-card ``kind`` 21, hitting its two cards) as
    ``SplitMixin._removal_ev``'s function: (0 = any second card / 1 = a non-pair one, a, b)."""
    sp = solver.sp
    hv: list[tuple[float, float, float]] = []
    for a in range(len(sc.by_a)):
        base_s = sc.bases[a]
        left = solver.n - 2 - a  # cards for the second card: the shoe less the up card, 2 + a pair cards
        bx = bn = wn = bp = 0.0
        for r in range(10):
            cr = int(base_s[r]) - (1 if r == p else 0)
            if cr <= 0 or left <= 1:
                continue
            pr_r = cr / left
            if r != p:
                wn += pr_r
            comp = _completion(kind, p, r)
            if comp is None:
                continue
            cnt = [0] * 10
            cnt[p] += 1
            cnt[r] += 1
            s2 = sp.index[tuple(cnt)]
            o = sc.out_for(int(sp.nace[s2]), a)
            if int(o.act[s2]) != K.ACT_HIT:
                continue  # stood or doubled (a doubled 21 pays 1:1, 000 4.1.1.4)
            q3 = (int(base_s[comp]) - int(sp.counts[s2, comp])) / (left - 1)
            b = pr_r * max(q3, 0.0)
            bx += b
            if r == p:
                bp = b / pr_r
            else:
                bn += b
        hv.append((bx, bn / wn if wn > 0 else 0.0, bp))
    return solver._removal_ev(p, hv)


def _completion(kind: str, p: int, r: int) -> int | None:
    """The third card that makes (p, r) a ``kind`` bonus hand, or None."""
    key = (min(p, r), max(p, r))
    if key not in BONUS_COMPLETION:
        return None
    c = BONUS_COMPLETION[key]
    return c if (kind == "777") == (key == (6, 6)) else None


@dataclass(frozen=True)
class SplitSuits:
    """For one split (pair value ``p``, its chains): the expected number of bonus 21s made by the
    first original hand, the second, and the resplit hands, by kind (``coef[kind]`` = (A, B, R)),
    and the average pay the chains gave them (``paid[kind]``)."""

    rules: CasinoRules
    p: int
    up: int
    shoe: SuitShoe
    coef: dict[str, tuple[float, float, float]]
    paid: dict[str, float]
    pays: dict[str, tuple[float, ...]]  # mixed, suited, spades (rulings 16)

    def adjustment(self, s1: str, s2: str, su: str | None) -> float:
        """Exact split value given the pair's suits (first hand ``s1``, second ``s2``) and the up
        card's suit ``su`` (None where the up card is not a 6, 7 or 8) less the chains' value."""
        known: list[tuple[int, str]] = [(self.p, s1), (self.p, s2)]
        if su is not None and self.up in BONUS_VALUES:
            known.append((self.up, su))
        kn = tuple(sorted(known))
        tot = 0.0
        for kind, (ca, cb, cr) in self.coef.items():
            if ca == cb == cr == 0.0:
                continue
            pay, pays = self.paid[kind], self.pays[kind]
            tot += ca * (_hand_pay(pays, kind, self.p, s1, kn, self.shoe) - pay)
            tot += cb * (_hand_pay(pays, kind, self.p, s2, kn, self.shoe) - pay)
            tot += cr * (_hand_pay(pays, kind, self.p, None, kn, self.shoe) - pay)
        return tot


def split_suits(
    solver: UpcardSolver, p: int, sc: SplitChains, shoe: SuitShoe | None = None
) -> SplitSuits | None:
    """The bonus counts of the split of ``p`` played by ``sc`` (see ``SplitSuits``), or None where
    suits change nothing (not a 6, 7 or 8; no 21 paid at once; a peek; pays that ignore suits)."""
    rules, pr, sp = solver.rules, solver.pr, solver.sp
    if p not in BONUS_VALUES or not pr.p21wins or pr.peek:
        return None
    pays = {rules.pays_678_mixed, rules.pays_678_suited, rules.pays_678_spades}
    pays7 = {rules.pays_777_mixed, rules.pays_777_suited, rules.pays_777_spades}
    if len(pays) == 1 and len(pays7) == 1:
        return None
    m = sc.max_hands
    n_pair = int(solver.base[p]) - 2
    n_other = solver.n - int(solver.base[p])
    early, full = order_terminals(n_pair, n_other, m)
    coef: dict[str, tuple[float, float, float]] = {}
    paid: dict[str, float] = {}
    for kind in KINDS:
        if kind == "777" and p != 6:
            continue
        ev = _bonus_chances(solver, p, sc, kind)
        ca = cb = cr = 0.0
        for h, q in early.items():
            v = ev(1, h - 2, h - 1)
            ca += q * v
            cb += q * v
            cr += q * (h - 2) * v
        for (k, done), q in full.items():
            vn = ev(1, m - 2, k - 1) if k > 0 else 0.0
            vx = ev(0, m - 2, k)
            ca += q * (vn if k >= 1 else vx)
            cb += q * (vn if done else vx)
            cr += q * ((k - (k >= 1) - done) * vn + ((m - k) - (k == 0) - (not done)) * vx)
        coef[kind] = (ca, cb, cr)
        cnt = [0] * 10
        if kind == "777":
            cnt[6] = 3
        else:
            cnt[5] = cnt[6] = cnt[7] = 1
        paid[kind] = float(pr.pay21[sp.index[tuple(cnt)]])
    table = {k: _pays(rules, k) for k in coef}
    return SplitSuits(rules, p, solver.up, shoe or SuitShoe.even(rules.decks), coef, paid, table)


def pair_suit_classes(
    solver: UpcardSolver, ss: SplitSuits | None, p: int
) -> list[tuple[float, float, float]]:
    """(weight, hit adjustment, split adjustment) of the suit classes of the pair (p, p) against
    the solver's up card: the suits of the two pair cards and of the up card (where it is a 6, 7
    or 8) drawn from the full shoe, merged where both adjustments agree. The hit adjustment is
    that of ``UpcardSolver.hand_options`` (7-7 completing a 7-7-7, the Super Bonus), given the
    class; the split adjustment ``SplitSuits.adjustment``."""
    rules, pr, sp = solver.rules, solver.pr, solver.sp
    up = solver.up
    shoe = ss.shoe if ss is not None else SuitShoe.even(rules.decks)
    bonus_hit = (p, p) in BONUS_COMPLETION and pr.p21wins
    qc = pay = 0.0
    if bonus_hit:
        c = BONUS_COMPLETION[(p, p)]
        s = solver.state_of(p, p)
        left = solver.n - 2
        qc = (int(solver.base[c]) - int(sp.counts[s, c])) / left if left > 0 else 0.0
        pay = float(pr.pay21[sp.trans[s, c]])
        qc *= 1.0 - solver.q_nat(sp.trans[s, c]) if pr.peek else 1.0  # peek: no dealer natural (as the 21)
    up_suits: list[str | None] = list(SUITS) if up in BONUS_VALUES else [None]
    out: dict[tuple[float, float], float] = {}
    # hearts, diamonds and clubs pay alike, so the adjustments of one relabelling of them are those
    # of another (the starting hand's always, from an even shoe; the split's where the shoe is even)
    even = len({c for row in shoe.counts for c in row}) == 1
    memo: dict[tuple[object, ...], tuple[float, float]] = {}
    for (s1, s2), w12 in _draws(shoe.left(p, ()), 2):
        for su in up_suits:
            w = w12
            if su is not None:
                lu = shoe.left(up, [(p, s1), (p, s2)])
                w *= lu[SUITS.index(su)] / sum(lu) if sum(lu) > 0 else 0.0
            if w <= 0:
                continue
            pattern = _relabel((s1, s2, su))
            if (pattern, even) in memo:
                hadj, padj = memo[(pattern, even)]
            else:
                hadj = padj = 0.0
                if bonus_hit:
                    known = ((p, s1), (p, s2), (up, su or "S"))
                    ((_, m),) = solver.completion(p, p, known)
                    hadj = qc * (m - pay)
                padj = ss.adjustment(s1, s2, su) if ss is not None else 0.0
                if even:
                    memo[(pattern, even)] = (hadj, padj)
            key = (round(hadj, 13), round(padj, 13))
            out[key] = out.get(key, 0.0) + w
    return [(w, h, a) for (h, a), w in out.items()]


def _relabel(suits: Sequence[str | None]) -> tuple[str | None, ...]:
    """The suits with hearts, diamonds and clubs renamed in order of first appearance."""
    names: dict[str, str] = {}
    out: list[str | None] = []
    for x in suits:
        if x is None or x == "S":
            out.append(x)
        else:
            out.append(names.setdefault(x, "abc"[len(names)]))
    return tuple(out)


def split_with_suits(
    solver: UpcardSolver,
    p: int,
    *,
    policy: np.ndarray | None = None,
    resc_pol: np.ndarray | None = None,
    beat: float | None = None,
) -> tuple[float, list[tuple[float, float, float]] | None]:
    """``UpcardSolver.split_value`` (the value averaged over the suits) and, where suits change
    the split's value, the pair's suit classes (``pair_suit_classes``). ``beat`` as for
    ``split_value``, lowered by the largest split adjustment (the split is then left out only
    where no suit class can play it)."""
    sc = solver.split_chains(p, policy=policy, resc_pol=resc_pol)
    if sc is None:
        return float("nan"), None
    ss = split_suits(solver, p, sc)
    if ss is None:
        return solver.split_combine(p, sc, beat), None
    classes = pair_suit_classes(solver, ss, p)
    slack = max(0.0, *(a for _w, _h, a in classes))
    return solver.split_combine(p, sc, None if beat is None else beat - slack), classes
