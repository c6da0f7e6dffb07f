"""Split rounds of ``distribution`` exactly, where affordable: every way the box's cards can fall.

The hands of a split are played one after another as the engine plays them (004 3.24.2: a hand
gets its second card when its turn comes; a pair card drawn as a second card starts a new hand
while fewer than the rules' hands exist, 000 3.9, and the hand draws again), each by the chain of
its own Aces among its first two cards (the same chains and rescues ``dist_splits`` values), the
dealer then drawing from what is left. The recursion's state is the multiset of cards the box has
used, the hands made and the hands still to play (hands whose cards differ in order but not in
multiset are merged: the chance of an ordered run of cards depends on its multiset only), and
what it carries is, per dealer final class (17..21, Pontoon, bust), the measure of the net outcome
of the hands already finished: a hand that busts, makes a 21 paid at once or is rescued moves every
class's measure by its outcome, a hand that stands moves each class's by its outcome against that
class. Once every hand is played, the classes are weighed by the dealer's chances from the shoe
less the box's cards (the solver's dealer rows, ``SplitMixin._removal_dists``). FED's one-wager loss (001 Splits) is exact too: the
Pontoon class carries "no hand alive yet" and "some hand alive" apart.

The peek (a dealer natural ends the round before the split): by exchangeability the hole card may
as well be the first card after the box's, so a split run's weight is its chance times the dealer's
chance of each class but the natural from what is left, which sums to the chance of no natural.

Affordable: split Aces that take one card each and are not split again (110 ways on any shoe), and
every split on a shoe of at most ``SMALL_SHOE`` cards (within ``WORK``). On a 6-8 deck shoe a small
pair with resplits has millions of box states: ``split_exact`` then says None and ``dist_splits``
approximates."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.dealer import NAT
from pontoon.analysis.dist_tables import LINES, Grid, _tier_pay, _twentyone
from pontoon.analysis.player import ChainOut, UpcardSolver
from pontoon.rules.model import CasinoRules

WORK = 100_000  # ways a hand ends, applied to a box state, at most per split; beyond it, None
SMALL_SHOE = 30  # cards left after the up card and the pair: every split is tried exactly
# (on casino shoes only split Aces that take one card each and are not split again: 110 ways)
ALIVE = 7  # FED: the Pontoon class's measure once some hand is alive (5: none yet)
_LINE = {name: k for k, name in enumerate(LINES)}


@dataclass
class _Acc:
    """What reaches one box state: its chance, the outcome measure per class (8, L) on the lattice,
    the expected pay lines and amount wagered of the hands finished (times the chance)."""

    mass: float
    poly: np.ndarray
    lines: np.ndarray
    wager: float


@dataclass
class SplitExact:
    """A split's outcome measure (total: the chance of no dealer natural, 1 without a peek) on the
    lattice ``v0 + k * step``, its expected pay lines and amount wagered."""

    probs: np.ndarray
    v0: float
    step: float
    lines: np.ndarray
    wager: float
    work: int  # ways a hand ended, applied to a box state

    def as_dict(self) -> dict[float, float]:
        return {
            round(self.v0 + k * self.step, 9): float(self.probs[k])
            for k in np.nonzero(self.probs)[0].tolist()
        }


def _shift(a: np.ndarray, k: int) -> np.ndarray:
    """``a`` moved ``k`` lattice points up along its last axis (what falls off is zero)."""
    if k == 0:
        return a
    out = np.zeros_like(a)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


class _Split:
    """One split of pair ``p`` against the solver's up card (see the module's text)."""

    def __init__(
        self,
        rules: CasinoRules,
        grid: Grid,
        solver: UpcardSolver,
        outs: dict[int, ChainOut],
        p: int,
        max_hands: int,
    ) -> None:
        self.rules, self.grid, self.solver, self.outs, self.p = rules, grid, solver, outs, p
        self.sp, self.pr = solver.sp, solver.pr
        self.max_hands = max_hands
        self.shoe0 = solver.base.copy()
        self.shoe0[p] -= 2
        self.one_card = p == 0 and not self.pr.hit_split_aces  # 000 3.9.1
        self.paid: dict[int, tuple[list[tuple[float, float]], np.ndarray]] = {}
        self.no_line = np.zeros(len(LINES))
        self.dbl21 = np.zeros(len(LINES))
        self.dbl21[_LINE["doubled 21"]] = 1.0

    # ----------------------------------------------------------------- the lattice
    def lattice(self) -> tuple[float, float, int] | None:
        """(step, v0, length) of the sums of ``max_hands`` hands' outcomes; None: no short lattice."""
        from pontoon.analysis.dist_splits import _step

        pr = self.pr
        vals = {-2.0, -1.0, 0.0, 1.0, 2.0, -pr.nat_loss_dbl}
        if pr.p21wins:  # every pay of a 21 paid at once: by its cards, or a 6-7-8 / 7-7-7 tier
            r = self.rules
            vals |= {float(x) for x in (r.regular_pays, r.pays_5_card_21, r.pays_6_card_21, r.pays_7_card_21)}
            vals |= {
                _tier_pay(self.rules, f"{k} {how}")
                for k in ("6-7-8", "7-7-7")
                for how in ("mixed", "suited", "spades")
            }
        step = _step(sorted(vals))
        if step is None:
            return None
        lo, hi = min(vals), max(vals)
        h = self.max_hands
        v0 = h * lo - 1.0  # FED's one wager lies within: it replaces an alive hand's own loss
        length = int(round((h * hi - v0) / step)) + 1
        if length > 20000:
            return None
        return step, v0, length

    def _paid21(self, s: int) -> tuple[list[tuple[float, float]], np.ndarray]:
        """A 21 paid at once in state ``s``: ([(pay, probability)], its expected pay lines) (6-7-8
        and 7-7-7 by full-shoe suits, as the analysis)."""
        got = self.paid.get(s)
        if got is None:
            vec = _twentyone(self.rules, self.grid, self.solver, s)
            g, blk, l0 = self.grid.g, (self.grid.blocks - 1) * self.grid.g, self.grid.line0
            pays = [
                (self.grid.values[k], float(vec[blk + k])) for k in np.nonzero(vec[blk : blk + g])[0].tolist()
            ]
            got = (pays, vec[l0 : l0 + len(LINES)].copy())
            self.paid[s] = got
        return got

    # ----------------------------------------------------------------- one hand
    def _act(self, t: int, i: int) -> int:
        sp, pr = self.sp, self.pr
        a = int(self.outs.get(t, next(iter(self.outs.values()))).act[i])
        if int(sp.ncards[i]) == 2 and not pr.das and a == K.ACT_DOUBLE:
            a = K.ACT_STAND if int(sp.best[i]) >= pr.forced else K.ACT_HIT  # as dist_splits._split_hand
        return a

    def _rescued(self, t: int, i: int, r: int) -> bool:
        return bool(self.outs.get(t, next(iter(self.outs.values()))).rfl[i, r] == 1)

    def hand_ends(self, left: np.ndarray, r2: int) -> list[tuple[tuple[int, ...], float, tuple[object, ...]]]:
        """Every way the hand in turn ends once its second card ``r2`` is dealt from ``left`` (the
        shoe less the box's cards so far, ``r2`` still in it): (the cards it drew from ``left``,
        their chance given ``r2``, the event: ("dead", pays) or ("alive", total, stake, Pontoon loss))."""
        sp, pr, p = self.sp, self.pr, self.p
        cnt = [0] * 10
        cnt[p] += 1
        cnt[r2] += 1
        s2 = sp.index[tuple(cnt)]
        t = int(sp.nace[s2])  # Aces among the hand's first two cards (the chain's a2)
        ends: list[tuple[tuple[int, ...], float, tuple[object, ...]]] = []
        n0 = int(left.sum())
        mass = {s2: 1.0}
        heap = [-s2]
        while heap:
            i = -heapq.heappop(heap)
            m = mass.pop(i)
            drawn = sp.counts[i].copy()
            drawn[p] -= 1
            key = tuple(int(x) for x in drawn)
            best = int(sp.best[i])
            if best == 21:
                if pr.p21wins:  # 004 3.24.3: a 21 after a split is paid at once
                    pays, ln = self._paid21(i)
                    ends.append((key, m, ("dead", pays, 1.0, ln)))
                else:
                    ends.append((key, m, ("alive", 21, 1.0, 1.0)))
                continue
            if self.one_card and int(sp.ncards[i]) == 2:
                ends.append((key, m, ("alive", best, 1.0, 1.0)))  # 000 3.9.1: one card each
                continue
            a = self._act(t, i)
            n_left = n0 - int(drawn.sum())
            if a == K.ACT_STAND or n_left <= 0:
                ends.append((key, m, ("alive", best, 1.0, 1.0)))
                continue
            for r in range(10):
                cr = int(left[r]) - int(drawn[r])
                if cr <= 0:
                    continue
                q = m * cr / n_left
                j = int(sp.trans[i, r])
                k2 = list(key)
                k2[r] += 1
                kk = tuple(k2)
                if j < 0:  # 000 3.16: a bust hand loses at once
                    lost = 2.0 if a == K.ACT_DOUBLE else 1.0
                    ends.append((kk, q, ("dead", [(-lost, 1.0)], lost, self.no_line)))
                    continue
                if a == K.ACT_HIT:
                    if j not in mass:
                        mass[j] = 0.0
                        heapq.heappush(heap, -j)
                    mass[j] += q
                    continue
                if a != K.ACT_DOUBLE:  # pragma: no cover - the chains take these three
                    continue
                # a double: one card (FED: the Aces held before it count one, 001 Doubling)
                free = int(sp.nace[j]) > 0
                if pr.ace_one:
                    free = int(sp.nace[j]) > (int(sp.nace[i]) if int(sp.ncards[i]) == 2 else t)
                hj = int(sp.hard[j])
                dt = hj + 10 if (free and hj + 10 <= 21) else hj
                if dt == 21 and pr.p21wins:
                    ends.append((kk, q, ("dead", [(2.0, 1.0)], 2.0, self.dbl21)))
                elif dt < 21 and pr.rescue and self._rescued(t, i, r):  # 000 3.11.4 rescue
                    ends.append((kk, q, ("dead", [(-1.0, 1.0)], 2.0, self.no_line)))
                else:
                    ends.append((kk, q, ("alive", dt, 2.0, pr.nat_loss_dbl)))
        return ends

    # ----------------------------------------------------------------- the box
    def _apply(self, acc: _Acc, q: float, ev: tuple[object, ...], step: float) -> _Acc:
        """``acc`` times ``q`` once the hand has ended in ``ev``."""
        pr = self.pr
        poly = acc.poly * q
        lines = acc.lines * q
        if ev[0] == "dead":
            _kind, pays, stake, ln = ev
            out = np.zeros_like(poly)
            for v, pq in pays:  # type: ignore[attr-defined]
                out += pq * _shift(poly, int(round(v / step)))
            lines = lines + acc.mass * q * ln  # type: ignore[operator]
            return _Acc(acc.mass * q, out, lines, acc.wager * q + acc.mass * q * float(stake))  # type: ignore[arg-type]
        _kind, total, stake, natloss = ev
        t, m = int(total), float(stake)  # type: ignore[call-overload, arg-type]
        out = np.empty_like(poly)
        for d in range(5):
            dt = 17 + d
            v = m if t > dt else (0.0 if t == dt else -m)
            out[d] = _shift(poly[d], int(round(v / step)))
        out[6] = _shift(poly[6], int(round(m / step)))  # the dealer busts
        if pr.split_one_wager:  # 001 Splits: one wager in all to a dealer Pontoon if a hand is alive
            out[NAT] = 0.0
            out[ALIVE] = poly[ALIVE] + _shift(poly[NAT], int(round(-1.0 / step)))
        else:
            out[NAT] = _shift(poly[NAT], int(round(-float(natloss) / step)))  # type: ignore[arg-type]
            out[ALIVE] = 0.0
        return _Acc(acc.mass * q, out, lines, acc.wager * q + acc.mass * q * m)

    def run(self, work: int) -> SplitExact | None:
        lat = self.lattice()
        if lat is None:
            return None
        step, v0, length = lat
        pr, p = self.pr, self.p
        resplit_ok = self.max_hands > 2
        start = np.zeros((8, length))
        zero = int(round(-v0 / step))
        start[:7, zero] = 1.0
        if not pr.split_one_wager:
            start[ALIVE] = 0.0
        level: dict[tuple[tuple[int, ...], int, int], _Acc] = {
            ((0,) * 10, 2, 2): _Acc(1.0, start, np.zeros(len(LINES)), 0.0)
        }
        played = 0
        final: list[tuple[tuple[int, ...], _Acc]] = []
        while level:
            nxt: dict[tuple[tuple[int, ...], int, int], _Acc] = {}
            for (used, hands, rem), acc in level.items():
                if rem == 0:
                    final.append((used, acc))
                    continue
                u = np.asarray(used, dtype=np.int64)
                w = 1.0
                h = hands
                while True:
                    left = self.shoe0 - u
                    n = int(left.sum())
                    if n <= 0:
                        break
                    # 004 3.24.2, 000 3.9: a pair card as a second card is split again
                    resplit = resplit_ok and h < self.max_hands and left[p] > 0
                    for r2 in range(10):
                        if left[r2] <= 0 or (r2 == p and resplit):
                            continue
                        q2 = w * float(left[r2]) / n
                        ends = self.hand_ends(left, r2)
                        played += len(ends)
                        if played > work:
                            return None
                        for drawn, q, ev in ends:
                            key = (
                                tuple(int(a) + int(b) for a, b in zip(u, drawn, strict=True)),
                                h,
                                rem - 1 + h - hands,
                            )
                            got = self._apply(acc, q2 * q, ev, step)
                            old = nxt.get(key)
                            if old is None:
                                nxt[key] = got
                            else:
                                old.mass += got.mass
                                old.poly += got.poly
                                old.lines += got.lines
                                old.wager += got.wager
                    if not resplit:
                        break
                    w *= float(left[p]) / n
                    u = u.copy()
                    u[p] += 1
                    h += 1
            level = nxt
        # the dealer from the shoe less the box's cards (both pair cards among them), all at once
        gone = np.array([used for used, _acc in final], dtype=np.int64).reshape(-1, 10)
        gone[:, p] += 2
        dds = self.solver._removal_dists(gone)
        if pr.peek:
            dds[:, NAT] = 0.0  # the peek: a natural ended the round before the split
        polys = np.stack([acc.poly for _used, acc in final])
        polys[:, NAT] += polys[:, ALIVE]
        probs = np.einsum("kd,kdl->l", dds, polys[:, :7])
        keep = dds.sum(axis=1)  # the chance of no natural after a peek, else 1
        lines = keep @ np.stack([acc.lines for _used, acc in final])
        wager = float(keep @ np.array([acc.wager for _used, acc in final]))
        return SplitExact(probs, v0, step, lines, wager, played)


def split_exact(
    rules: CasinoRules,
    grid: Grid,
    solver: UpcardSolver,
    outs: dict[int, ChainOut],
    p: int,
    work: int = WORK,
    compiled: bool = False,
) -> SplitExact | None:
    """The exact outcome measure of a split of pair ``p`` (see the module's text), its hands played
    by ``outs`` (the chains by a2, Aces among a hand's first two cards); None where it would play
    more than ``work`` ways a hand ends (summed over the box states they end from) or the pays have
    no short lattice. ``compiled``: the same recursion compiled (``dist_box``), on any shoe."""
    pr = solver.pr
    m = pr.max_hands
    if p == 0 and not pr.resplit_aces:
        m = 2  # 000 3.9.1: split Aces are not split again unless the rules say so
    one_card = p == 0 and not pr.hit_split_aces and m == 2
    if compiled and not one_card:
        from pontoon.analysis import dist_box

        got = dist_box.run(_Split(rules, grid, solver, outs, p, m), work)
        return None if got is None else SplitExact(*got)
    if int(solver.base.sum()) - 2 > SMALL_SHOE and not one_card:
        return None  # 6-8 decks: millions of box states for small pairs with resplits
    return _Split(rules, grid, solver, outs, p, m).run(work)
