"""The analyser's composition-dependent ("optimal") decisions as plain tables for the simulator.

``optimal_tables(rules)`` (the full table) returns a read-only ``int8`` array ``codes`` of shape
``(11, 13, S)``, ``S = state_space().size``, indexed ``codes[up, kind, state]``, for the full shoe:

* ``up``: the dealer's up card by point value, 1 (Ace) .. 10 (ten-value); row 0 is unused (-1);
* ``state``: the hand's multiset of card values (``state_space().index``);
* ``kind``:

  - ``KIND_DIFF = 0``: the first decision of an unsplit two-card hand whose cards differ in suit;
  - ``KIND_SAME = 1``: the same for two cards of one suit. Kinds 0 and 1 differ only for the hands
    whose hit value depends on suits (6-7, 6-8, 7-8, 7-7 completing a 6-7-8 / 7-7-7 and the Super
    Bonus, where a player's 21 is paid at once): the suit classes of ``completion_classes`` are
    conditioned on the two cards' suit relation (the up card's suit and which suit the pair has
    stay averaged, weighted exactly as ``completion_classes`` weights them). A bonus hand's
    relation that the shoe cannot deal (two 7s of one suit from one deck) holds -1;
  - ``KIND_MULTI = 2``: any decision of an unsplit hand of three or more cards, for every state
    with best total below 21 that the shoe less the up card can hold;
  - ``KIND_SPLIT + p`` (``KIND_SPLIT = 3``, ``p`` = 0..9 the pair's value index): any decision of a
    hand of two or more cards that came from splitting a pair of value ``p`` (its state includes the
    pair card it kept), valued by the chains of ``UpcardSolver.split_value`` (``split_chains``:
    the shoe less the up card and the other pair card, doubles after splits, the a2 variants, the
    nat-loss settings). Split Aces that may not be hit hold -1, except the A-A hand where Aces
    may be resplit and resplitting is best (``OPT_S | OPT_SPLIT``: stand, resplit when allowed).

* entries: -1 = no decision (unreachable, 21, bust, natural, a hand that may not act); else
  ``code & 7`` is the best option other than a split, ``OPT_H = 0`` hit, ``OPT_S = 1`` stand,
  ``OPT_D = 2`` double (only where the rules allow it on that hand: two cards, a split hand's two
  cards with doubling after splits, any number of cards with ``double_on = "any"``), ``OPT_R = 5``
  surrender (kinds 0 and 1 only, against the up cards where the rules offer it); ``code & OPT_SPLIT``
  (8) says split when the rules allow it: the first split of a pair (kinds 0 and 1) or a resplit of
  the two-pair-card hand ``(p, p)`` of kind ``KIND_SPLIT + p`` (only where the rules let that pair
  be resplit at all; whether the hand limit is reached is the caller's check). Stand is never an
  option below ``forced_draw_below``. The rescue of a doubled hand is not in these codes:
  ``optimal_rescue(rules)`` gives it, same layout, on the state the hand holds after its doubling
  card, in the kind of the hand (2 unsplit, 3 + p split): ``OPT_RESCUE`` (64) says the table
  decides it, and then ``OPT_RESCUE_HARD`` (16) / ``OPT_RESCUE_SOFT`` (32) say rescue when the
  doubled total counts its Aces as 1 / an Ace as 11 (an Ace past the first two cards where those
  count 1): the analyser's choice (forfeit the original wager against keeping the doubled hand,
  by its exact cards: the chains' ``rfl``). ``with_rescue(codes, rescue)`` lays the bits on the
  codes (the simulator's table, ``sim.api``).

These are the decisions behind the analyser's ``house_edge.optimal`` (``strategy.solve``): the
argmax of the same option values (``UpcardSolver.hand_options``, the optimal chain run, the split
chains), ties going S, H, D, R in kinds 0/1 (as ``optimal_decisions``) and H, S, D elsewhere (as
the chain). Where a state alone cannot say everything the analyser conditions on, the table
holds the best state-only decision, an approximation:

* resplits: ``split_value`` values a split exactly (every pair card drawn is resplit while hands
  remain, post-split play CDP1: the decisions exported here are those of the first split, which
  CDP1 keeps when more pair cards are out); the resplit bit compares ``split_value(p)`` (two
  fresh hands of one pair card each) with the best other option of the ``(p, p)`` hand in the
  split chain;
* suits: kinds 0/1 know whether the two cards share a suit, not which suit nor the up card's
  suit (which change a 6-7-8 / 7-7-7 pay with a spades class, and the Super Bonus odds a little);
* doubles with Aces counting one (``double_on = "any"`` and ``double_ace_counts_one``): the values
  of a hand holding an Ace depend on how many Aces were among its first two cards (a2), which
  the state does not say. Such a hand takes the option with the best value averaged over the a2
  it can have, weighted by how often optimal play (which knows a2) reaches it with each (by
  ordering alone where play does not reach it); exact wherever every a2 gives the same decision.
  Doubles on such hands are included (``optimal_decisions`` leaves them out).
  ``optimal_tables_by_a2(rules)`` holds, for these rules, one table per a2 (0, 1, 2 Aces among
  the hand's first two cards) with each a2's own decisions: the simulator, which knows the first
  two cards, plays that one (no a2 approximation left).

Playing the table through the analyser's own chains (tests/analysis/test_optimal_tables.py) gives
``house_edge.optimal`` exactly for blackjack, within 1.1e-7 for mbs (suits) and 5.2e-5 for
federal (a2); the table by a2 gave federal's within 5.2e-7 (suits, and 8-8 against a ten, whose
split hands now take the chart's play as optimal play does: ``split_chart``). The Super Bonus is
valued at the table minimum wager (``Params.of(rules)``).

``optimal_decisions(rules)`` is the older, smaller export, a readable dict (the simulator reads
``optimal_tables``; the tests check the two agree where both decide). It returns, for the full shoe and every up card:

* ``"two"``: the best first decision of every unsplit starting two-card hand, by the unordered
  pair of card values (suits ignored: the 7-7 suit classes of the Super Bonus are folded into
  one hit value, weighted by their probabilities), among S H D P R; naturals are left out;
* ``"three"`` / ``"four"``: the best decision of every 3- and 4-card hand by its multiset of card
  values, among S and H (and D where the rules double on any number of cards and the hand holds
  no Ace, whose count would otherwise depend on which cards came first).

Keys are tuples of value indices sorted ascending (0 = Ace, 1..8 = 2..9, 9 = ten-value) and the
up card's value index; values are the codes ``"S" "H" "D" "P" "R"``. These are the decisions
behind the analyser's ``house_edge.optimal`` (``strategy.solve``): the same solver, the same
option values (``UpcardSolver.hand_options`` and the optimal chain run), not recomputed here.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import product

import numpy as np

from pontoon.analysis import kernels as K
from pontoon.analysis.player import ChainOut, Params, UpcardSolver
from pontoon.analysis.split_chart import chart_splits
from pontoon.analysis.splits import SplitChains
from pontoon.analysis.states import StateSpace, shoe_counts, state_space
from pontoon.analysis.strategy import comp_weights
from pontoon.analysis.suits import BONUS_COMPLETION, SUITS, completion_classes
from pontoon.rules.model import CasinoRules

Decisions = dict[str, dict[tuple[int, ...], str]]

OPT_H = 0
OPT_S = 1
OPT_D = 2
OPT_R = 5
OPT_SPLIT = 8
# rescue of a doubled hand (000 3.11.4, 004 3.25.3), on the entry of the state the hand holds after
# its doubling card: OPT_RESCUE says the table decides it, OPT_RESCUE_HARD / OPT_RESCUE_SOFT rescue
# when the doubled total counts every Ace as 1 / an Ace (not among the first two where they count
# 1) as 11
OPT_RESCUE_HARD = 16
OPT_RESCUE_SOFT = 32
OPT_RESCUE = 64
KIND_DIFF = 0
KIND_SAME = 1
KIND_MULTI = 2
KIND_SPLIT = 3
N_KINDS = KIND_SPLIT + 10
_LETTER = {"H": OPT_H, "S": OPT_S, "D": OPT_D, "R": OPT_R}


def optimal_decisions(rules: CasinoRules) -> Decisions:
    """Best decisions by composition (see the module docstring); cached per rules."""
    return _cached(rules.model_dump_json())


@lru_cache(maxsize=8)
def _cached(key: str) -> Decisions:
    return _build(CasinoRules.model_validate_json(key))


def _upcard_chains(
    rules: CasinoRules, pr: Params
) -> Iterator[tuple[int, np.ndarray, UpcardSolver, dict[int, ChainOut]]]:
    """For every up card the full shoe can show: (up, the shoe less it, its solver, the optimal
    chain run by a2, the Aces among the first two cards; doubles weighted as the solver does)."""
    sp = state_space()
    full = shoe_counts(rules.pack, rules.decks)
    for up in range(10):
        if full[up] <= 0:
            continue
        base = full.copy()
        base[up] -= 1
        solver = UpcardSolver(rules, pr, base, up)
        w_all = comp_weights(base, sp.counts)
        w_dbl = w_all if pr.dbl_any else np.where(sp.ncards == 2, w_all, 0.0)
        a2s = (0, 1, 2) if pr.dbl_any else (0,)
        yield up, base, solver, {a2: solver.run(a2=a2, weights=w_dbl) for a2 in a2s}


def _best(opts: dict[str, float]) -> str:
    finite = {k: v for k, v in opts.items() if v == v}
    return max(finite, key=lambda k: finite[k])


def _build(rules: CasinoRules) -> Decisions:
    pr = Params.of(rules)
    sp = state_space()
    out: Decisions = {"two": {}, "three": {}, "four": {}}
    for up, base, solver, outs in _upcard_chains(rules, pr):
        for i, j, _w in solver.start_weights():
            split_ev = None
            if i == j and pr.max_hands >= 2:
                beat = solver.split_beat(i, *solver.hand_options(i, j, outs, None))
                split_ev = solver.split_value(i, beat=beat)  # exact where it may be played
            opts, classes = solver.hand_options(i, j, outs, split_ev)
            if "N" in opts:
                continue
            o = dict(opts)
            o["H"] += sum(cw * adj for cw, adj in classes)
            out["two"][(min(i, j), max(i, j), up)] = _best(o)
        o0 = outs[0]
        for s in np.nonzero((sp.ncards == 3) | (sp.ncards == 4))[0]:
            n = int(sp.ncards[s])
            if int(sp.best[s]) >= 21:
                continue
            cnt = sp.counts[s]
            if np.any(cnt > base):
                continue
            vals = tuple(v for v in range(10) for _ in range(int(cnt[v])))
            opts = {"H": float(o0.hit[s])}
            if int(sp.best[s]) >= pr.forced:
                opts["S"] = float(o0.st[s])
            if pr.dbl_any and cnt[0] == 0:
                opts["D"] = float(o0.dbl[s])
            out["three" if n == 3 else "four"][(*vals, up)] = _best(opts)
    return out


# ------------------------------------------------------------------------------------------
# the full table


def optimal_tables(rules: CasinoRules) -> np.ndarray:
    """The decision codes ``int8[up, kind, state]`` (see the module docstring); cached per rules,
    read-only."""
    return _tables_cached(rules.model_dump_json())


@lru_cache(maxsize=8)
def _tables_cached(key: str) -> np.ndarray:
    return _both_cached(key)[0]


def optimal_tables_by_a2(rules: CasinoRules) -> np.ndarray:
    """The decision codes by the Aces among the hand's first two cards, ``int8[a2, up, kind, state]``:
    where the rules double any number of cards with those Aces counting one (``double_on = "any"``
    and ``double_ace_counts_one``: FED), ``[t]`` holds the analyser's exact decisions for hands
    with ``t`` such Aces (the argmax of the chain run with ``a2 = t``), which the state alone
    cannot say (``optimal_tables`` holds one decision averaged over a2: 5e-5 of federal's edge);
    for other rules the one table, shape ``(1, 11, N_KINDS, S)``. Cached per rules, read-only."""
    codes, by_a2 = _both_cached(rules.model_dump_json())
    return codes[None] if by_a2 is None else by_a2


@lru_cache(maxsize=8)
def _both_cached(key: str) -> tuple[np.ndarray, np.ndarray | None]:
    rescue = np.zeros((11, N_KINDS, state_space().size), dtype=np.int8)
    codes, by_a2 = _build_tables(CasinoRules.model_validate_json(key), rescue)
    for arr in (codes, by_a2, rescue):
        if arr is not None:
            arr.flags.writeable = False
    if len(_RESCUE) >= 8:
        _RESCUE.pop(next(iter(_RESCUE)))
    _RESCUE[key] = rescue
    return codes, by_a2


_RESCUE: dict[str, np.ndarray] = {}  # the rescue bits built with each table


def optimal_rescue(rules: CasinoRules) -> np.ndarray:
    """The rescue bits ``int8[up, kind, state]`` of doubled hands (``OPT_RESCUE``,
    ``OPT_RESCUE_HARD``, ``OPT_RESCUE_SOFT``; 0 where the table leaves the rescue to the chart) on
    the state a doubled hand holds after its doubling card, in its kind (2 unsplit, 3 + p split);
    built with ``optimal_tables`` (the same chains), read-only. ``with_rescue`` lays them on the
    decision codes for the simulator."""
    key = rules.model_dump_json()
    optimal_tables(rules)
    if key not in _RESCUE:  # evicted while the table stayed cached
        _both_cached.cache_clear()
        _tables_cached.cache_clear()
        optimal_tables(rules)
    return _RESCUE[key]


def with_rescue(codes: np.ndarray, rescue: np.ndarray) -> np.ndarray:
    """Decision codes with rescue bits (``optimal_rescue``) added: the simulator's table. An entry
    with no decision (-1) under rescue bits takes code 0 there (a soft 21 whose Aces count 1 on the
    double: no hand decides on it)."""
    has = rescue != 0
    return np.where(has, np.where(codes >= 0, codes, 0) | rescue, codes).astype(np.int8)


def _two_code(opts: dict[str, float], adj: float) -> int:
    """Code of an unsplit two-card hand from ``hand_options`` values, ``adj`` added to hitting."""
    o = dict(opts)
    o["H"] += adj
    plain = {k: v for k, v in o.items() if k != "P"}
    best = _best(plain)
    code = _LETTER[best]
    pv = o.get("P", float("nan"))
    if pv == pv and pv > plain[best]:
        code |= OPT_SPLIT
    return code


def suit_relation(
    rules: CasinoRules, solver: UpcardSolver, i: int, j: int, same: bool
) -> tuple[float, float]:
    """For a bonus pair (i, j) of ``BONUS_COMPLETION``: the probability that its two cards are
    of one suit (``same``) or not, and the mean adjustment of its hit value given that relation.

    The suit combinations (first card, second card, up card) and their weights are those of
    ``completion_classes``; the weighted sum of the two adjustments is the folded one that
    ``hand_options`` returns as classes."""
    pr, sp = solver.pr, solver.sp
    c = BONUS_COMPLETION[(i, j)]
    s = solver.state_of(i, j)
    left = solver.n - 2
    qc = (int(solver.base[c]) - int(sp.counts[s, c])) / left if left > 0 else 0.0
    pay = float(pr.pay21[sp.trans[s, c]])
    qc *= 1.0 - solver.q_nat(sp.trans[s, c]) if pr.peek else 1.0  # peek: no dealer natural (as the 21)
    d = rules.decks
    n = 4 * d
    up = solver.up
    wt = 0.0
    tot = 0.0
    for s1, s2, su in product(SUITS, repeat=3):
        if (s1 == s2) != same:
            continue
        p = 0.25
        p *= (d - (up == i and su == s1)) / (n - (up == i))
        p *= (d - (up == j and su == s2) - (i == j and s1 == s2)) / (n - (up == j) - (i == j))
        if p <= 0:
            continue
        ((_, m),) = completion_classes(rules, i, j, up, pr.sb_units, known=((i, s1), (j, s2), (up, su)))
        wt += p
        tot += p * qc * (m - pay)
    return wt, (tot / wt if wt > 0 else 0.0)


def _chart_codes(sc: SplitChains) -> np.ndarray:
    """The codes of a split's hands played by a fixed chart (``split_chart``): the chain's actions."""
    act = next(iter(sc.outs.values())).act
    return np.select([act == K.ACT_STAND, act == K.ACT_DOUBLE], [OPT_S, OPT_D], OPT_H).astype(np.int8)


def _options(o: ChainOut, can_s: np.ndarray, can_d: np.ndarray) -> np.ndarray:
    """Values H, S, D (rows) of every state, -inf where the option is not allowed."""
    out = np.full((3, o.hit.shape[0]), -np.inf)
    out[0] = o.hit
    out[1] = np.where(can_s, o.st, -np.inf)
    out[2] = np.where(can_d, o.dbl, -np.inf)
    return out


def _argmax(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and values of the best of H, S, D, ties as the chain breaks them (H, then S, D)."""
    code = np.full(v.shape[1], OPT_H, dtype=np.int8)
    best = v[0].copy()
    m = v[1] > best
    code[m] = OPT_S
    best[m] = v[1][m]
    m = v[2] > best
    code[m] = OPT_D
    best[m] = v[2][m]
    return code, best


def _hit_probs(sp: StateSpace, base: np.ndarray) -> np.ndarray:
    """P(next card = r | state's cards out of ``base``), 0 where the state does not fit."""
    left = (int(base.sum()) - sp.ncards).astype(float)
    cr = np.maximum(base[None, :] - sp.counts, 0).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(left[:, None] > 0, cr / left[:, None], 0.0)
    fits = np.all(sp.counts <= base[None, :], axis=1)
    return np.where(fits[:, None], q, 0.0)


def _reach(
    sp: StateSpace, base: np.ndarray, flow2: dict[int, np.ndarray], hits: dict[int, np.ndarray]
) -> dict[int, np.ndarray]:
    """Probability of reaching each state of three or more cards with each a2 under a policy:
    ``flow2[a2]`` the probability of hitting each two-card state, ``hits[a2]`` whether a state of
    three or more cards hits."""
    q = _hit_probs(sp, base)
    many = sp.ncards >= 3
    reach = {t: np.zeros(sp.size) for t in flow2}
    for h in range(2, 21):
        g = np.nonzero(sp.hard == h)[0]
        for t in flow2:
            f = flow2[t][g] + np.where(many[g] & hits[t][g], reach[t][g], 0.0)
            nz = f > 0
            if not nz.any():
                continue
            gs, fs = g[nz], f[nz]
            for r in range(10):
                dst = sp.trans[gs, r]
                ok = dst >= 0
                np.add.at(reach[t], dst[ok], fs[ok] * q[gs[ok], r])
    return reach


@lru_cache(maxsize=16)
def _a2_prior(t: int, pair: int | None) -> np.ndarray:
    """Share of each state's card orders with ``t`` Aces among the first two cards (``pair``:
    the first card is fixed, a split hand's pair card); 0 where no order has ``t``."""
    sp = state_space()
    k = sp.nace
    n = sp.ncards
    if pair is None:
        den = np.maximum(n * (n - 1) // 2, 1)
        ways = [np.ones_like(k), k, k * (k - 1) // 2]  # C(k, t)
        rest = [np.ones_like(k), n - k, (n - k) * (n - k - 1) // 2]  # C(n - k, 2 - t)
        out = ways[t] * rest[2 - t] / den
        return np.where(n >= 2, out, 0.0)
    aces = k - (1 if pair == 0 else 0)  # Aces among the other cards
    ace2 = t - (1 if pair == 0 else 0)  # 1: the second card is an Ace
    if ace2 not in (0, 1):
        return np.zeros(sp.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(n > 1, (aces if ace2 == 1 else n - 1 - aces) / (n - 1), 0.0)
    return np.where(sp.counts[:, pair] >= 1, np.clip(share, 0.0, 1.0), 0.0)


def _by_a2(
    sp: StateSpace,
    mask: np.ndarray,
    opts: dict[int, np.ndarray],
    reach: dict[int, np.ndarray],
    prior: dict[int, np.ndarray],
) -> np.ndarray:
    """Codes of the states in ``mask``: the best option of the a2-averaged values (weights
    ``reach``, or ``prior`` where no a2 reaches the state). Which options are allowed does not
    depend on a2."""
    use_r = sum(reach[t] for t in opts) > 0
    acc = np.zeros((3, sp.size))
    for t, v in opts.items():
        w = np.where(use_r, reach[t], prior[t])
        acc += w[None, :] * np.where(np.isfinite(v), v, 0.0)
    allowed = np.isfinite(next(iter(opts.values())))
    code, _ = _argmax(np.where(allowed, acc, -np.inf))
    return np.where(mask, code, -1).astype(np.int8)


def _build_tables(
    rules: CasinoRules, rescue: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """(the state-only table, the table by a2 where decisions depend on it, else None); the rescue
    bits (``optimal_rescue``) into ``rescue`` when given."""
    pr = Params.of(rules)
    sp = state_space()
    size = sp.size
    codes = np.full((11, N_KINDS, size), -1, dtype=np.int8)
    exact = np.full((3, 11, N_KINDS, size), -1, dtype=np.int8) if pr.dbl_any and pr.ace_one else None
    two = sp.ncards == 2
    many = sp.ncards >= 3
    live = sp.best < 21
    can_s = sp.best >= pr.forced  # rulings 14: no standing below the forced-draw limit
    by_a2 = pr.dbl_any and pr.ace_one  # values of hands with Aces depend on a2
    charted = chart_splits(rules)  # FED: splits optimal play plays by the chart (split_chart)
    for up, base, solver, outs in _upcard_chains(rules, pr):
        a2s = tuple(outs)
        chart = charted.get(up, {})
        chains: dict[int, SplitChains] = {}
        split_ev: dict[int, float] = {}
        if pr.max_hands >= 2:
            for p in range(10):
                sc = solver.split_chains(p)
                if sc is not None and solver.base[p] >= 2:
                    chains[p] = sc
                    beat = solver.split_beat(p, *solver.hand_options(p, p, outs, None))
                    split_ev[p] = solver.split_combine(p, sc, beat)  # exact where it may be played
                    if p in chart:  # the chart's play of this split's hands, as optimal play takes it
                        chains[p] = solver.split_chains(p, policy=chart[p][0], resc_pol=chart[p][1]) or sc
                        split_ev[p] = chart[p][2]
        row = codes[up + 1]
        # kinds 0 / 1: the first decision of the unsplit two-card hands
        flow0 = {t: np.zeros(size) for t in a2s}  # probability of hitting each two-card hand
        for i, j, w in solver.start_weights():
            opts, _classes = solver.hand_options(i, j, outs, split_ev.get(i) if i == j else None)
            if "N" in opts:
                continue
            s = solver.state_of(i, j)
            t0 = int(sp.nace[s]) if pr.dbl_any else 0
            if (i, j) in BONUS_COMPLETION and pr.p21wins:
                for kind, same in ((KIND_DIFF, False), (KIND_SAME, True)):
                    wt, adj = suit_relation(rules, solver, i, j, same)
                    if wt > 0:
                        row[kind, s] = _two_code(opts, adj)
                        if row[kind, s] == OPT_H:
                            flow0[t0][s] += w * wt
            else:
                row[KIND_DIFF, s] = row[KIND_SAME, s] = _two_code(opts, 0.0)
                if row[KIND_DIFF, s] == OPT_H:
                    flow0[t0][s] += w
        # kind 2: unsplit hands of three or more cards
        mask = solver.fits & many & live
        can_d = np.full(size, pr.dbl_any)
        opt_t = {t: _options(outs[t], can_s, can_d) for t in a2s}
        code0, _ = _argmax(opt_t[0])
        row[KIND_MULTI] = np.where(mask, code0, -1)
        if by_a2:
            hits = {t: live & (_argmax(opt_t[t])[0] == OPT_H) for t in a2s}
            reach = _reach(sp, base, flow0, hits)
            prior = {t: _a2_prior(t, None) for t in a2s}
            amb = mask & (sp.nace > 0)
            row[KIND_MULTI] = np.where(amb, _by_a2(sp, amb, opt_t, reach, prior), row[KIND_MULTI])
            if exact is not None:  # each a2's own decisions (the kernel knows the first two cards)
                for t in a2s:
                    exact[t, up + 1, KIND_MULTI] = np.where(mask, _argmax(opt_t[t])[0], -1)
        # kinds 3 + p: split hands
        for p, sc in chains.items():
            if p == 0 and not pr.hit_split_aces:
                # 000 3.9.1: one card on each split Ace; only a resplit of A-A is left to decide
                s_aa = sp.index[(2,) + (0,) * 9]
                if sc.max_hands > 2 and sc.active[s_aa] and split_ev[p] > sc.out_for(2).st[s_aa]:
                    row[KIND_SPLIT, s_aa] = OPT_S | OPT_SPLIT
                if exact is not None:
                    exact[:, up + 1, KIND_SPLIT] = row[KIND_SPLIT]
                continue
            m_sp = sc.active & live
            can_d_sp = pr.dbl_any | (two & sc.dbl2)
            opt_sp = {t: _options(o, can_s, can_d_sp) for t, o in sc.outs.items()}
            # two-card hands: the chain of their own a2; more cards: one chain, or averaged over a2
            first = next(iter(sc.outs))
            code_sp = _argmax(opt_sp[first])[0]
            for t in sc.outs:
                code_t = _argmax(opt_sp[t])[0]
                code_sp = np.where(two & (sp.nace == t), code_t, code_sp)
            if p in chart:
                code_sp = _chart_codes(sc)
            elif by_a2:
                ts = tuple(sc.outs)
                hits = {t: live & (_argmax(opt_sp[t])[0] == OPT_H) for t in ts}
                flow2 = {t: np.zeros(size) for t in ts}
                one = [0] * 10
                one[p] = 1
                s1 = sp.index[tuple(one)]
                for r in range(10):
                    s2 = int(sp.trans[s1, r])
                    if s2 < 0 or not sc.active[s2] or sp.best[s2] >= 21:
                        continue
                    t = int(sp.nace[s2])
                    if t not in flow2 or code_sp[s2] != OPT_H:
                        continue
                    if r == p and sc.max_hands > 2:
                        continue  # resplit (split_value resplits every pair card while it may)
                    flow2[t][s2] += _second_card_prob(sc.base, p, r)
                reach = _reach(sp, sc.base, flow2, hits)
                prior = {t: _a2_prior(t, p) for t in ts}
                amb = m_sp & many & (sp.nace > 0)
                code_sp = np.where(amb, _by_a2(sp, amb, opt_sp, reach, prior), code_sp)
            kind_row = np.where(m_sp, code_sp, -1).astype(np.int8)
            # the resplit bit of the (p, p) hand
            pp = [0] * 10
            pp[p] = 2
            s_pp = sp.index[tuple(pp)]
            resplit = False
            if sc.max_hands > 2 and kind_row[s_pp] >= 0:
                t_pp = int(sp.nace[s_pp])
                _c, v_pp = _argmax(opt_sp.get(t_pp, opt_sp[first])[:, [s_pp]])
                if split_ev[p] > float(v_pp[0]):
                    kind_row[s_pp] |= OPT_SPLIT
                    resplit = True
            row[KIND_SPLIT + p] = kind_row
            if rescue is not None:
                rescue[up + 1, KIND_SPLIT + p] = _rescue_bits(sp, pr, sc.base, sc.outs, can_d_sp, sc.active)
            if exact is not None:
                for t in range(3):  # a split hand's a2: its pair card and its second card
                    ex = kind_row
                    if t in opt_sp and p not in chart:
                        ex = np.where(m_sp, _argmax(opt_sp[t])[0], -1).astype(np.int8)
                        if resplit:
                            ex[s_pp] |= OPT_SPLIT
                    exact[t, up + 1, KIND_SPLIT + p] = ex
        if rescue is not None:
            # the rescue of unsplit doubled hands (two cards, or any number where the rules allow)
            rescue[up + 1, KIND_MULTI] = _rescue_bits(sp, pr, base, outs, two | pr.dbl_any, solver.active)
        if exact is not None:
            for t in range(3):
                exact[t, up + 1, :KIND_MULTI] = row[:KIND_MULTI]  # two cards: the state says a2
                if t not in a2s:
                    exact[t, up + 1, KIND_MULTI] = row[KIND_MULTI]
    return codes, exact


def _rescue_bits(
    sp: StateSpace,
    pr: Params,
    base: np.ndarray,
    outs: dict[int, ChainOut],
    can_dbl: np.ndarray,
    active: np.ndarray,
) -> np.ndarray:
    """The rescue bits (``OPT_RESCUE``...) of every state a doubled hand can hold after its
    doubling card, from the chains ``outs`` (by a2) that doubled the states ``can_dbl`` (of those it valued,
    ``active``) with the shoe ``base``: the chains' own choice ``rfl[s, r]`` (000 3.11.4, 004 3.25.3). It depends on the
    doubled hand's cards and total only (its stand value against forfeiting one wager), so every
    (state, drawn card) that makes the same cards and total agrees; where two did not, the entry
    is left to the chart (none does on the presets: tests/sim/test_optimal_rescue.py)."""
    bits = np.zeros(sp.size, dtype=np.int16)
    if not pr.rescue:
        return bits.astype(np.int8)
    seen = np.zeros((sp.size, 2), dtype=np.int8)  # 0 unseen, 1 keep, 2 rescue, 3 both
    src = np.nonzero(
        can_dbl & active & np.all(sp.counts <= base[None, :], axis=1) & (sp.ncards >= 2) & (sp.best < 21)
    )[0]
    for a2, o in outs.items():
        for r in range(10):
            j = sp.trans[src, r]
            ok = (j >= 0) & (base[r] - sp.counts[src, r] > 0)
            ss, jj = src[ok], j[ok]
            a2e = np.where(sp.ncards[ss] == 2, sp.nace[ss], a2)
            # 000 3.17.2, 004 3.25.2: Aces among the first two cards count 1 on a double
            free = sp.nace[jj] > (a2e if pr.ace_one else 0)
            hard = sp.hard[jj]
            soft = free & (hard + 10 <= 21)
            dt = np.where(soft, hard + 10, hard)
            keep = dt < 21
            ss, jj, soft = ss[keep], jj[keep], soft[keep].astype(np.int64)
            dec = np.where(o.rfl[ss, r] == 1, 2, 1).astype(np.int8)
            np.bitwise_or.at(seen, (jj, soft), dec)
    for f, bit in ((0, OPT_RESCUE_HARD), (1, OPT_RESCUE_SOFT)):
        bits |= np.where(seen[:, f] == 2, bit, 0).astype(np.int16)
    decided = (seen[:, 0] != 3) & (seen[:, 1] != 3) & ((seen[:, 0] > 0) | (seen[:, 1] > 0))
    bits = np.where(decided, bits | OPT_RESCUE, 0)
    return bits.astype(np.int8)


def _second_card_prob(base_s: np.ndarray, p: int, r: int) -> float:
    """P(a split hand's second card is r) from the shoe less the up card and both pair cards."""
    left = int(base_s.sum()) - 1
    cr = int(base_s[r]) - (1 if r == p else 0)
    return cr / left if left > 0 and cr > 0 else 0.0
