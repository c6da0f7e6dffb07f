"""The banker's exact best response reading every hand, against N players who play the solved heads-up
strategy (issue 27 item 3; docs/analysis.md "Several players").

At his turn the banker sees his own cards and, of every hand, what ``view(banker)`` shows: the face-up
(twisted) cards in order, the number of cards and the stake (so the buys, on the model's grid), a declared
Pontoon (its ace up: the other card is a ten-value one), a bust (every card face up: 003 "throw in your hand
face up"). The unknown cards are the live hands' face-down cards. Each player decides from his own cards
only, so the joint chance of the live hands' face-down multisets ``H_1 .. H_m`` given all that is
proportional to

    prod_i w_i(H_i) * prod_c n_c^(s_c) / T^(|s|),   s = H_1 + ... + H_m  (a count per point value)

where ``w_i(H)`` is the solved player's own chance (summed over the orders of his cards) of ending with the
face-down cards ``H`` and what the banker sees of hand i, ``n`` the pack less every card the banker has seen,
and ``x^(k)`` the falling factorial: every order of the pack is equally likely, so the chance of any
sequence of dealt cards depends only on how many of each value it holds. The hands are coupled only through
the pack (card removal), and only through the combined vector ``s``: a dynamic programme over the hands
whose state is ``s`` (``_k_step``) carries, per state, the players' weight and, per banker outcome, the
weighted sum of every live hand's payment (an expectation semiring), exactly, without enumerating the
product of the hands' supports. The banker's later cards ``d`` multiply a state's weight by
``prod_c (n_c - s_c)^(d_c) / (T - |s|)^(|d|)``, so one programme per decision values his whole tree:

    V(d) = min(stay(d), sum_c V(d + c))        (the players' value: the banker minimises it)

Every figure is the players' net summed over the live hands, in initial stakes, conditional on what the
banker sees (busted hands and declared Pontoons are paid whatever he does and are not included).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
from numba import types
from numba.typed import Dict

from pontoon.analysis.british.game import (
    ACE,
    FIVE,
    NCLASS,
    ROYAL,
    STUCK,
    TEN,
    Hand,
    banker_can_twist,
    banker_outcome,
    counts_of,
)
from pontoon.analysis.british.infosets import HIDDEN, buys_of, card_class
from pontoon.analysis.british.reading_fast import _k_step_fast, banker_nodes, tree_values, twists_better
from pontoon.analysis.british.strategy import Solved
from pontoon.analysis.british.values import _jit, _u, banker_values, player_flow

OUTCOMES = 22  # the banker's outcome: 0 bust, 1 five card trick, else the total he stays on (2 .. 21)
Obs = tuple[tuple[int, ...], tuple[int, ...]]  # a live hand as the banker sees it: face-up cards, buys


@dataclass(frozen=True)
class Seen:
    """What the banker sees at his turn, by point value: his cards (in the order dealt), each live hand
    (face-up cards in order, buys) and every other card shown (busted hands, declared Pontoons)."""

    banker: tuple[int, ...]
    live: tuple[Obs, ...]
    shown: tuple[int, ...]  # sorted

    @property
    def first(self) -> Hand:
        return tuple(sorted(self.banker[:2]))


@dataclass
class Support:
    """Per banker observation of a hand: the face-down multisets the solved player ends with there, as count
    vectors, his own chance ``w`` of each (summed over orders) and his payment per banker outcome."""

    counts: np.ndarray  # [k, NCLASS]
    w: np.ndarray  # [k]
    pay: np.ndarray  # [k, OUTCOMES]: the player's net (stake included) against each banker outcome


@dataclass
class Tree:
    """The banker's values at every hand he can reach from his first two cards, for one ``Seen``."""

    stay: dict[Hand, float]  # the players' expected net if he stays with this hand (conditional)
    twist: dict[Hand, float]  # ... if he twists and then plays best (absent where he cannot twist)
    value: float  # at his first decision, playing best
    blind: float  # at his first decision, playing the blind best response (several.blind_response)
    states: int  # the programme's combined states
    flags: np.ndarray | None = None  # per hand of reading_fast.banker_nodes(first): he twists (fast only)


@dataclass
class Reader:
    """The exact best-response banker reading every hand, for the solved heads-up strategy ``sol``."""

    sol: Solved
    support: dict[Obs, Support] = field(default_factory=dict)
    blind_row: np.ndarray | None = None
    fast: bool = True  # the programme's banker tree by the numba kernel (reading_fast), else in numpy
    last: bool = True  # a deviator's observations at a deal by reading_last's table of sums (with ``fast``)
    _cache: dict[Seen, Tree] = field(default_factory=dict)
    _blind_of: dict[Hand, np.ndarray] = field(default_factory=dict)
    _prefixes: dict[Seen, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        g = self.sol.game
        y = player_flow(g, self.sol.sigma)
        counts = g.counts
        total = int(counts.sum())
        r = g.rules
        fp = float(r.five_card_trick_pays)
        rows: dict[Obs, list[tuple[tuple[int, ...], float, np.ndarray]]] = defaultdict(list)
        for (kind, hidden, up, buys), i in g.term_index.items():
            if kind not in (STUCK, FIVE, ROYAL) or y[i] == 0.0:
                continue
            t = g.terminals[i]
            # the heads-up chance of his cards (any order: the same for each) divides out of the flow
            k = counts_of(t.cards)
            chance = 1.0
            for c in range(NCLASS):
                for j in range(k[c]):
                    chance *= (int(counts[c]) - j) / 1.0
            for j in range(len(t.cards)):
                chance /= total - j
            stake = float(t.stake)
            if kind == ROYAL:  # 003 variation: Royal Pontoon "beats everything and is paid treble"
                pay = np.full(OUTCOMES, float(r.royal_pontoon_pays) * stake)
            else:
                pay = np.array([stake * _u(t.total, o, fp) for o in range(OUTCOMES)])
            rows[(up, tuple(int(b) for b in buys))].append((counts_of(hidden), float(y[i]) / chance, pay))
        for o, lst in rows.items():
            self.support[o] = Support(
                np.array([a for a, _, _ in lst], np.int64).reshape(-1, NCLASS),
                np.array([b for _, b, _ in lst]),
                np.array([p for _, _, p in lst]).reshape(-1, OUTCOMES),
            )
        tw, _ = blind_response(self.sol)
        self.blind_row = tw[0]

    # ------------------------------------------------------------------------------------------------
    def tree(self, seen: Seen) -> Tree:
        """The banker's exact values from his first two cards for what he sees (cached)."""
        key = Seen(tuple(seen.banker[:2]), seen.live, seen.shown)
        if key not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = self._tree(key)
        return self._cache[key]

    def _tree(self, seen: Seen) -> Tree:
        g = self.sol.game
        known = list(seen.banker[:2]) + list(seen.shown) + [c for up, _ in seen.live for c in up]
        n = g.counts.astype(np.int64) - np.array(counts_of(tuple(known)), np.int64)
        if (n < 0).any():
            raise ValueError("what the banker sees holds more cards of a value than the pack")
        hands = sorted((self.support[o] for o in seen.live), key=lambda s: len(s.w))
        codes, digits, w, a = _combine(hands, n, fast=self.fast)
        if not len(codes):
            raise ValueError("no deal of the pack gives what the banker sees")
        if self.fast:
            stay, twist, value, blind, flags = tree_values(
                seen.first, n, digits, w, a, self.blind_flags(seen.first)
            )
            return Tree(stay, twist, value, blind, len(codes), flags)
        stay, twist, value, blind = _banker_tree(seen.first, n, digits, w, a, self)
        return Tree(stay, twist, value, blind, len(codes))

    def tree_last(self, others: Seen, mine: Obs) -> Tree:
        """``tree`` of ``others`` with the live hand ``mine`` added (cached as ``tree``): the other hands'
        programme is combined once (``_prefix``, kept for the last few ``others``) and ``mine`` added last,
        which is what a deviator's many observations at one deal share. The same figures as ``tree`` up to the
        order of the sums (the hands combined in another order)."""
        key = Seen(tuple(others.banker[:2]), tuple(sorted([*others.live, mine])), others.shown)
        got = self._cache.get(key)
        if got is not None:
            return got
        g = self.sol.game
        n = g.counts.astype(np.int64) - np.array(counts_of(_known(key)), np.int64)
        if (n < 0).any():
            raise ValueError("what the banker sees holds more cards of a value than the pack")
        codes, digits, w, a = self._prefix(Seen(key.banker, others.live, others.shown))
        h = self.support[mine]
        radix = _radix(g.counts)
        step = _k_step_fast if self.fast else _k_step
        codes, digits, w, a = step(codes, digits, w, a, h.counts @ radix, h.counts, h.w, h.pay, n)
        if not len(codes):
            raise ValueError("no deal of the pack gives what the banker sees")
        if len(self._cache) > 64:
            self._cache.clear()
        if self.fast:
            stay, twist, value, blind, flags = tree_values(
                key.first, n, digits, w, a, self.blind_flags(key.first)
            )
            self._cache[key] = Tree(stay, twist, value, blind, len(codes), flags)
        else:
            stay, twist, value, blind = _banker_tree(key.first, n, digits, w, a, self)
            self._cache[key] = Tree(stay, twist, value, blind, len(codes))
        return self._cache[key]

    def _prefix(self, others: Seen) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The programme over ``others``' live hands, the pack less what he sees of them (a superset of the
        states feasible once another hand is added: ``_k_step`` drops the rest), codes in the full pack's
        radix."""
        got = self._prefixes.get(others)
        if got is None:
            g = self.sol.game
            n = g.counts.astype(np.int64) - np.array(counts_of(_known(others)), np.int64)
            if (n < 0).any():
                raise ValueError("what the banker sees holds more cards of a value than the pack")
            hands = sorted((self.support[o] for o in others.live), key=lambda s: len(s.w))
            got = _combine(hands, n, _radix(g.counts), fast=self.fast)
            if len(self._prefixes) > 4:
                self._prefixes.clear()
            self._prefixes[others] = got
        return got

    def blind_flags(self, first: Hand) -> np.ndarray:
        """Per hand of ``reading_fast.banker_nodes(first)``: whether the blind banker twists there."""
        got = self._blind_of.get(first)
        if got is None:
            g = self.sol.game
            assert self.blind_row is not None
            hands, _, _ = banker_nodes(first)
            ks = [g.banker_index.get(h) for h in hands]
            got = np.array([k is not None and bool(self.blind_row[k] > 0.5) for k in ks], np.bool_)
            self._blind_of[first] = got
        return got

    def values(self, seen: Seen) -> tuple[float, float | None]:
        """The players' expected net (summed over the live hands, in initial stakes) if the banker stays now
        and if he twists and then plays best (None where he may not twist), given ``seen``."""
        t = self.tree(seen)
        h = tuple(sorted(seen.banker))
        return t.stay[h], t.twist.get(h)

    def decide(self, seen: Seen) -> str:
        """``twist`` or ``stick``: the banker's exact best response (ties, to rounding, stay)."""
        stay, twist = self.values(seen)
        return "twist" if twist is not None and twists_better(twist, stay) else "stick"

    def decide_round(self, rnd: Any) -> str:
        """The decision at the banker's turn of the engine's round ``rnd``, from ``view(banker)`` and the public
        stake events only (ruling 35); ValueError where a hand is off the model."""
        seen = seen_from_view(rnd.view(rnd.banker), initial_stakes(rnd))
        if seen is None or not self.observed(seen):
            raise ValueError(
                "a hand is off the model (a split, a burn, an odd stake or a state never played)"
            )
        return self.decide(seen)

    def observed(self, seen: Seen) -> bool:
        """Whether every live hand is in the model (an observation the solved player can reach)."""
        return all(o in self.support for o in seen.live)


def _known(seen: Seen) -> tuple[int, ...]:
    """Every card the banker has seen: his first two, the shown ones, the live hands' face-up ones."""
    return (*seen.banker[:2], *seen.shown, *(c for up, _ in seen.live for c in up))


def _radix(n: np.ndarray) -> np.ndarray:
    return np.concatenate([[1], np.cumprod(n[:-1] + 1)]).astype(np.int64)


def _combine(
    hands: list[Support], n: np.ndarray, radix: np.ndarray | None = None, *, fast: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The programme over the hands: per combined face-down vector ``s`` (feasible: ``s <= n``) the summed
    weight ``prod w_i`` and, per banker outcome, the summed weight times the hands' total payment. ``radix``:
    of the state codes (by default ``n``'s); ``fast``: ``reading_fast._k_step_fast``'s table of codes."""
    radix = _radix(n) if radix is None else radix
    codes = np.zeros(1, np.int64)
    digits = np.zeros((1, NCLASS), np.int64)
    w = np.ones(1)
    a = np.zeros((1, OUTCOMES))
    for h in hands:
        step = _k_step_fast if fast else _k_step
        codes, digits, w, a = step(codes, digits, w, a, h.counts @ radix, h.counts, h.w, h.pay, n)
    return codes, digits, w, a


def _banker_tree(
    first: Hand, n: np.ndarray, digits: np.ndarray, w: np.ndarray, a: np.ndarray, rd: Reader
) -> tuple[dict[Hand, float], dict[Hand, float], float, float]:
    """Backward induction over the banker's cards from ``first``; the combined states' weights times the chance
    of his next cards (``prod_c (n_c - s_c)^(d_c) / (T - |s|)^(|d|)``) give each hand's posterior."""
    g = rd.sol.game
    size = int(digits[0].sum())
    left = int(n.sum()) - size
    base = np.ones(len(w))
    for c in range(NCLASS):
        base *= _pfall(int(n[c]), digits[:, c])
    base /= _pfall_scalar(int(n.sum()), size)
    stay: dict[Hand, float] = {}
    twist: dict[Hand, float] = {}
    raw: dict[Hand, tuple[float, float, float]] = {}  # (best, blind, mass), unnormalised
    by_out = np.ascontiguousarray(a.T)  # [outcome, state]
    room = [np.ascontiguousarray(n[c] - digits[:, c]).astype(np.float64) for c in range(NCLASS)]

    def go(hand: Hand, drawn: int, f: np.ndarray) -> tuple[float, float, float]:
        """``f``: each state's weight times the chance of the banker's cards drawn so far."""
        if hand in raw:
            return raw[hand]
        mass = float(f @ w)
        s = float(f @ by_out[banker_outcome(hand)])
        best = blind = s
        if banker_can_twist(hand) and mass > 0:
            t = tb = 0.0
            have = counts_of(hand)
            for c in range(NCLASS):
                more = have[c] - first.count(c)  # his cards of this value drawn since the first two
                if n[c] - more <= 0:
                    continue
                # the next card is a ``c``: (cards of value c left) / (cards left), per state
                b, bl, _ = go(tuple(sorted((*hand, c))), drawn + 1, f * (room[c] - more) / (left - drawn))
                t += b
                tb += bl
            twist[hand] = t / mass
            best = min(s, t)
            k = g.banker_index.get(hand)
            assert rd.blind_row is not None
            if k is not None and rd.blind_row[k] > 0.5:
                blind = tb
        if mass > 0:
            stay[hand] = s / mass
        raw[hand] = (best, blind, mass)
        return raw[hand]

    b, bl, mass = go(first, 0, base)
    return stay, twist, b / mass, bl / mass


def _pfall(n: int, k: np.ndarray) -> np.ndarray:
    """n^(k) / 1 for each k (the falling factorial), as floats."""
    out = np.ones(k.shape)
    for j in range(int(k.max(initial=0))):
        out *= np.where(k > j, n - j, 1)
    return out


def _pfall_scalar(n: int, k: int) -> float:
    out = 1.0
    for j in range(k):
        out *= n - j
    return out


@_jit
def _k_step(codes, digits, w, a, hcodes, hdigits, hw, hpay, cap):  # type: ignore[no-untyped-def]
    """One hand added to the programme: every (state, face-down multiset) pair that fits the pack."""
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    n, m, k = codes.shape[0], hcodes.shape[0], a.shape[1]
    size = max(16, 2 * n)
    oc = np.empty(size, np.int64)
    od = np.empty((size, NCLASS), np.int64)
    ow = np.zeros(size)
    oa = np.zeros((size, k))
    cnt = 0
    for i in range(n):
        for j in range(m):
            ok = True
            for c in range(NCLASS):
                if digits[i, c] + hdigits[j, c] > cap[c]:
                    ok = False
                    break
            if not ok:
                continue
            code = codes[i] + hcodes[j]
            at = -1
            if code in index:
                at = index[code]
            else:
                if cnt == size:
                    size *= 2
                    oc2 = np.empty(size, np.int64)
                    od2 = np.empty((size, NCLASS), np.int64)
                    ow2 = np.zeros(size)
                    oa2 = np.zeros((size, k))
                    oc2[:cnt] = oc[:cnt]
                    od2[:cnt] = od[:cnt]
                    ow2[:cnt] = ow[:cnt]
                    oa2[:cnt] = oa[:cnt]
                    oc, od, ow, oa = oc2, od2, ow2, oa2
                at = cnt
                index[code] = at
                oc[at] = code
                for c in range(NCLASS):
                    od[at, c] = digits[i, c] + hdigits[j, c]
                cnt += 1
            x = w[i] * hw[j]
            ow[at] += x
            for o in range(k):
                oa[at, o] += a[i, o] * hw[j] + x * hpay[j, o]
    return oc[:cnt], od[:cnt], ow[:cnt], oa[:cnt]


def blind_response(sol: Solved) -> tuple[np.ndarray, float]:
    """The banker's exact best response to the solved player among strategies that read his own cards only:
    twist (1) or stay per hand, tiled over the observations, and the player's value against it."""
    g, tb = sol.game, sol.tables
    y = player_flow(g, sol.sigma)
    stay = banker_values(g, tb, y).sum(axis=0)  # what he cannot tell apart: summed over the observations
    z = stay.copy()
    twist = np.full_like(stay, np.inf)
    for k in range(len(g.banker) - 1, -1, -1):  # children before parents
        if tb.twistable[k] and tb.kids[k]:
            twist[k] = sum(rho * z[d] for d, rho in tb.kids[k])
            z[k] = min(stay[k], twist[k])
    row = (twist < stay).astype(np.float64)
    pairs = [k for k, h in enumerate(g.banker) if len(h) == 2]
    value = float(y @ tb.fixed) + float(z[pairs].sum())
    return np.tile(row, (len(g.obs), 1)), value


def initial_stakes(rnd: Any) -> dict[str, Decimal]:
    """Each player's initial stake, from the public stake events (as ``bots.initial_stakes``)."""
    return {
        str(ev.data["seat"]): Decimal(str(ev.data["amount"])) for ev in rnd.events() if ev.kind == "stake"
    }


# ----------------------------------------------------------------------------------------------------
def seen_from_view(view: dict[str, Any], stakes: dict[str, Decimal]) -> Seen | None:
    """What the banker sees, from ``view(banker)`` and the public initial stakes (ruling 35); None where a
    hand is off the model (a split, a burn, a stake off the buy grid)."""
    banker = tuple(card_class(c) for c in view["banker_cards"])
    live: list[Obs] = []
    shown: list[int] = []
    for h in view["hands"]:
        if h["status"] == "out":
            continue
        if h["split"] or h["burned"]:
            return None
        if h["status"] == "bust":
            shown += [card_class(c) for c in h["cards"]]
        elif h["status"] == "pontoon":
            shown += [ACE, TEN]  # 003: the ace face up on the ten-value card (ranks by value: rul 21)
        elif h["status"] in ("stuck", "five"):
            initial = stakes.get(h["owner"])
            if not initial:
                return None
            ratio = Decimal(h["stake"]) / initial
            hidden = sum(1 for c in h["cards"] if c == HIDDEN)
            if ratio != ratio.to_integral_value() or hidden < 2:
                return None
            try:
                buys = buys_of(int(ratio), hidden - 2)
            except ValueError:
                return None
            live.append((tuple(card_class(c) for c in h["cards"] if c != HIDDEN), buys))
        else:
            return None
    return Seen(banker, tuple(sorted(live)), tuple(sorted(shown)))


def settled_from_view(view: dict[str, Any], stakes: dict[str, Decimal], pontoon_pays: Decimal) -> float:
    """The players' net, in initial stakes, of the hands already settled whatever the banker does: busted
    hands (003 "the banker takes your stake") and declared Pontoons (003 "paid double")."""
    out = Decimal(0)
    for h in view["hands"]:
        initial = stakes.get(h["owner"]) or Decimal(1)
        if h["status"] == "bust":
            out -= Decimal(h["stake"]) / initial
        elif h["status"] == "pontoon":
            out += pontoon_pays * Decimal(h["stake"]) / initial
    return float(out)
