"""``optimal_table.optimal_tables``: the analyser's decisions by up card, hand kind and state."""

from __future__ import annotations

import time

import numpy as np
import pytest

from pontoon.analysis import kernels as K
from pontoon.analysis import optimal_table as OT
from pontoon.analysis.optimal_table import (
    KIND_DIFF,
    KIND_MULTI,
    KIND_SAME,
    KIND_SPLIT,
    OPT_D,
    OPT_H,
    OPT_R,
    OPT_S,
    OPT_SPLIT,
    optimal_decisions,
    optimal_tables,
    suit_relation,
)
from pontoon.analysis.player import Params, UpcardSolver
from pontoon.analysis.states import shoe_counts, state_space
from pontoon.analysis.strategy import solve
from pontoon.analysis.suits import BONUS_COMPLETION
from pontoon.rules.load import resolve_rules
from pontoon.rules.model import CasinoRules

SP = state_space()
LETTER = {OPT_H: "H", OPT_S: "S", OPT_D: "D", OPT_R: "R"}
CODES = {-1} | {c | x for c in (OPT_H, OPT_S, OPT_D, OPT_R) for x in (0, OPT_SPLIT)}
SEVEN, EIGHT = 6, 7  # value indices of a 7 and an 8


def st(*points: int) -> int:
    """State index of a hand given by card points (1 = Ace .. 10 = ten-value)."""
    cnt = [0] * 10
    for p in points:
        cnt[p - 1] += 1
    return SP.index[tuple(cnt)]


def letter(code: int) -> str:
    return "P" if code & OPT_SPLIT else LETTER[code & 7]


def solver_for(rules: CasinoRules, up: int) -> UpcardSolver:
    base = shoe_counts(rules.pack, rules.decks)
    base[up] -= 1
    return UpcardSolver(rules, Params.of(rules), base, up)


@pytest.fixture(scope="module")
def mbs() -> CasinoRules:
    return resolve_rules("mbs")


@pytest.fixture(scope="module")
def federal() -> CasinoRules:
    return resolve_rules("federal")


def test_build_time_shape_and_layout(mbs: CasinoRules) -> None:
    OT._tables_cached.cache_clear()
    t0 = time.perf_counter()
    codes = optimal_tables(mbs)
    dt = time.perf_counter() - t0
    print(f"optimal_tables(mbs) built in {dt:.2f} s")
    assert dt < 10.0  # about 1-1.5 s on an idle core
    assert codes.shape == (11, 13, SP.size)
    assert codes.dtype == np.int8
    assert not codes.flags.writeable
    assert optimal_tables(mbs) is codes  # cached
    assert (OPT_H, OPT_S, OPT_D, OPT_R, OPT_SPLIT) == (0, 1, 2, 5, 8)
    assert (codes[0] == -1).all()
    assert set(np.unique(codes).tolist()) <= CODES
    # kinds by card counts; nothing to decide on 21 or more, naturals included
    assert (codes[:, KIND_DIFF : KIND_SAME + 1, SP.ncards != 2] == -1).all()
    assert (codes[:, KIND_MULTI, SP.ncards < 3] == -1).all()
    assert (codes[:, KIND_SPLIT:, SP.ncards < 2] == -1).all()
    assert (codes[:, :, SP.best >= 21] == -1).all()
    assert (codes[:, :2, st(1, 10)] == -1).all()
    # every starting hand but the natural, and every 3+ card hand the shoe less the up card holds
    assert ((codes[1:, KIND_DIFF] >= 0).sum(axis=1) == 54).all()
    for up in range(10):
        base = shoe_counts(mbs.pack, mbs.decks)
        base[up] -= 1
        fits = np.all(SP.counts <= base[None, :], axis=1)
        live = fits & (SP.ncards >= 3) & (SP.best < 21)
        assert ((codes[up + 1, KIND_MULTI] >= 0) == live).all()
    # surrender only on two unsplit cards against an Ace or a picture (rulings 9); splits only
    # on pairs; no doubles of three or more cards where only two cards double
    low = codes[:, :, :] & 7
    r_at = np.argwhere((codes >= 0) & (low == OPT_R))
    assert set(r_at[:, 1].tolist()) <= {KIND_DIFF, KIND_SAME}  # (mbs never surrenders)
    assert set(r_at[:, 0].tolist()) <= {1, 10}
    p_at = np.argwhere((codes >= 0) & (codes & OPT_SPLIT > 0))
    for _up, kind, s in p_at:
        assert SP.ncards[s] == 2 and SP.counts[s].max() == 2
        if kind >= KIND_SPLIT:
            assert SP.counts[s, kind - KIND_SPLIT] == 2
    assert not ((codes[:, KIND_MULTI] >= 0) & (low[:, KIND_MULTI] == OPT_D)).any()
    sp_kinds = codes[:, KIND_SPLIT:]
    assert not ((sp_kinds >= 0) & ((sp_kinds & 7) == OPT_D) & (SP.ncards[None, None, :] > 2)).any()
    # split hands hold their pair card; split Aces that may not be hit have no decision
    for p in range(10):
        k = codes[:, KIND_SPLIT + p]
        assert ((k >= 0) <= (SP.counts[:, p] >= 1)[None, :]).all()
    assert (codes[:, KIND_SPLIT] == -1).all()


@pytest.mark.parametrize("preset", ["mbs", "federal", "blackjack"])
def test_two_card_kinds_are_optimal_decisions_where_suits_do_not_matter(preset: str) -> None:
    rules = resolve_rules(preset)
    codes = optimal_tables(rules)
    two = optimal_decisions(rules)["two"]
    p21 = Params.of(rules).p21wins
    suited = 0
    for (i, j, up), code in two.items():
        s = SP.index[tuple((i == v) + (j == v) for v in range(10))]
        k0, k1 = int(codes[up + 1, KIND_DIFF, s]), int(codes[up + 1, KIND_SAME, s])
        if (i, j) in BONUS_COMPLETION and p21:
            if k0 != k1:
                suited += 1
            else:
                assert letter(k0) == code  # both relations agree: so does the folded choice
            continue
        assert k0 == k1
        assert letter(k0) == code, (i, j, up)
    if p21:
        assert suited > 0  # e.g. 7-7 against a 7 (the Super Bonus)
    else:
        assert (codes[:, KIND_DIFF] == codes[:, KIND_SAME]).all()


@pytest.mark.parametrize("preset", ["mbs", "federal"])
def test_suit_relations_add_up_to_the_folded_classes(preset: str) -> None:
    rules = resolve_rules(preset)
    for up in (SEVEN, EIGHT, 2):
        solver = solver_for(rules, up)
        outs = {0: solver.run(a2=0)}
        for i, j in BONUS_COMPLETION:
            _opts, classes = solver.hand_options(i, j, outs, None)
            wd, ad = suit_relation(rules, solver, i, j, False)
            ws, as_ = suit_relation(rules, solver, i, j, True)
            assert wd + ws == pytest.approx(1.0, abs=1e-12)
            assert wd * ad + ws * as_ == pytest.approx(sum(w * a for w, a in classes), abs=1e-12)


@pytest.mark.parametrize("preset", ["mbs", "federal", "blackjack"])
def test_multi_card_kind_agrees_with_three_and_four(preset: str) -> None:
    rules = resolve_rules(preset)
    codes = optimal_tables(rules)
    dec = optimal_decisions(rules)
    by_a2 = rules.double_on == "any" and rules.double_ace_counts_one
    n = 0
    for sec in ("three", "four"):
        for (*vals, up), code in dec[sec].items():
            if by_a2 and 0 in vals:
                continue  # a hand with an Ace: see test_aces_counting_one_on_doubles
            s = SP.index[tuple(vals.count(v) for v in range(10))]
            assert letter(int(codes[up + 1, KIND_MULTI, s])) == code, (vals, up)
            n += 1
    assert n > 1000


def test_known_decisions_mbs(mbs: CasinoRules) -> None:
    c = optimal_tables(mbs)
    many = c[:, KIND_MULTI]
    hard5 = (SP.ncards == 5) & ~SP.soft
    for up in range(2, 11):
        for s in np.nonzero(hard5 & (SP.best >= 17) & (SP.best <= 20) & (many[up] >= 0))[0]:
            assert many[up, s] == OPT_S
    for s in np.nonzero(hard5 & (SP.best >= 18) & (SP.best <= 20) & (many[1] >= 0))[0]:
        assert many[1, s] == OPT_S
    assert many[1, st(2, 3, 3, 4, 5)] == OPT_H  # hard 17 against an Ace (the chart: H)
    # hard 12 and 16 of three or more cards against a 2 and a ten: hit (no ten-value 10s left
    # to bust: the 48-card pack)
    for up in (2, 10):
        for hand in ((2, 4, 6), (3, 4, 5), (2, 2, 8), (2, 2, 3, 5)):
            assert many[up, st(*hand)] == OPT_H
    for hand in ((2, 4, 10), (4, 5, 7), (2, 2, 3, 4, 5), (2, 3, 3, 4, 4), (2, 2, 2, 4, 6)):
        assert many[10, st(*hand)] == OPT_H
    # hard 16 of three cards against a 6 stands; soft 18 of three cards: stand v 2..8, hit v 9, T, A
    assert many[6, st(4, 5, 7)] == OPT_S
    for up in range(2, 9):
        assert many[up, st(1, 2, 5)] == OPT_S
        assert many[up, st(1, 2, 4)] == OPT_H  # soft 17
    for up in (9, 10, 1):
        assert many[up, st(1, 2, 5)] == OPT_H
    # two cards: 11 doubles against a 6; 8-8 splits against a 6 and a ten
    assert c[6, KIND_DIFF, st(5, 6)] == OPT_D
    assert c[6, KIND_DIFF, st(8, 8)] & OPT_SPLIT
    assert c[10, KIND_DIFF, st(8, 8)] & OPT_SPLIT


def test_seven_seven_against_a_seven_by_suits(mbs: CasinoRules) -> None:
    """7-7 of one suit against a 7 draws for the Super Bonus; of two suits it splits."""
    c = optimal_tables(mbs)
    solver = solver_for(mbs, SEVEN)
    outs = {0: solver.run(a2=0)}
    opts, _ = solver.hand_options(SEVEN, SEVEN, outs, solver.split_value(SEVEN))
    s = st(7, 7)
    for kind, same in ((KIND_DIFF, False), (KIND_SAME, True)):
        wt, adj = suit_relation(mbs, solver, SEVEN, SEVEN, same)
        vals = dict(opts)
        vals["H"] += adj
        best = max(vals, key=lambda k: vals[k])
        assert letter(int(c[7, kind, s])) == best
        print(kind, round(wt, 4), {k: round(float(v), 4) for k, v in vals.items()})
    assert c[7, KIND_SAME, s] == OPT_H  # Super Bonus: hitting is worth more than a unit
    assert c[7, KIND_DIFF, s] & OPT_SPLIT
    wt, adj = suit_relation(mbs, solver, SEVEN, SEVEN, True)
    assert opts["H"] + adj > 1.0 > opts["P"]
    # against any other up card the Super Bonus is off: one decision for both kinds
    for up in (2, 6, 8, 10):
        assert c[up, KIND_DIFF, s] == c[up, KIND_SAME, s]


@pytest.mark.parametrize("preset", ["mbs", "federal"])
def test_split_eights(preset: str) -> None:
    rules = resolve_rules(preset)
    c = optimal_tables(rules)
    k8 = c[:, KIND_SPLIT + EIGHT]
    for up in range(1, 11):
        assert (k8[up] >= 0).sum() > 100  # every split-8 hand that fits
    assert c[6, KIND_DIFF, st(8, 8)] & OPT_SPLIT
    assert k8[6, st(8, 3)] == OPT_D  # 11 after a split doubles (DAS)
    assert k8[6, st(8, 8)] == OPT_S | OPT_SPLIT  # resplit, else stand on 16
    assert k8[10, st(8, 2, 6)] == OPT_H
    assert k8[6, st(8, 2, 1)] == -1  # soft 21
    assert (k8[:, SP.counts[:, EIGHT] == 0] == -1).all()


def test_double_any_and_forced_draw_federal(federal: CasinoRules) -> None:
    c = optimal_tables(federal)
    live = c >= 0
    # 001: must hit 11 or less: no stand below 12, in any kind
    assert not (live & ((c & 7) == OPT_S) & (SP.best < 12)[None, None, :]).any()
    # doubles on any number of cards, after splits too
    assert (live[:, KIND_MULTI] & ((c[:, KIND_MULTI] & 7) == OPT_D)).any()
    sp3 = live[:, KIND_SPLIT:] & ((c[:, KIND_SPLIT:] & 7) == OPT_D) & (SP.ncards >= 3)[None, None, :]
    assert sp3.any()
    # up to 3 hands: 8-8 resplits; 3 hands in all is the caller's check
    assert c[10, KIND_SPLIT + EIGHT, st(8, 8)] & OPT_SPLIT


def test_aces_counting_one_on_doubles_federal(federal: CasinoRules) -> None:
    """A hand with an Ace: the decision is best over the ways optimal play reaches it (by a2)."""
    c = optimal_tables(federal)
    up = 4  # value index 3
    solver = solver_for(federal, up - 1)
    outs = {t: solver.run(a2=t) for t in (0, 1, 2)}
    s = st(1, 1, 6)  # soft 18: A-A would have been split, so A-6-A / 6-A-A (a2 = 1)
    assert outs[1].dbl[s] > outs[1].st[s] > outs[1].hit[s]
    assert outs[2].st[s] > outs[2].dbl[s]
    assert c[up, KIND_MULTI, s] == OPT_D
    # where every a2 the hand can have gives the same decision, that is the table's
    for s in np.nonzero((c[up, KIND_MULTI] >= 0) & (SP.nace > 0))[0][:400]:
        k, n = int(SP.nace[s]), int(SP.ncards[s])
        ts = [t for t in (0, 1, 2) if t <= k and 2 - t <= n - k]
        best = set()
        for t in ts:
            o = outs[t]
            v = {OPT_H: o.hit[s], OPT_S: o.st[s] if SP.best[s] >= 12 else -9.0, OPT_D: o.dbl[s]}
            best.add(max(v, key=lambda x: v[x]))
        if len(best) == 1:
            assert c[up, KIND_MULTI, s] == best.pop()


def _policy(row: np.ndarray) -> np.ndarray:
    pol = np.full(SP.size, K.OPTIMAL, dtype=np.int64)
    for code, k in ((OPT_H, K.HIT), (OPT_S, K.STAND), (OPT_D, K.DOUBLE_HIT)):
        pol[(row >= 0) & ((row & 7) == code)] = k
    return pol


def _table_ev(rules: CasinoRules) -> float:
    """House expectation of playing the table (split hands by kind 3 + p, as split_value plays
    them), from the analyser's own chains: equals ev_optimal up to what a state cannot say."""
    codes = optimal_tables(rules)
    pr = Params.of(rules)
    full = shoe_counts(rules.pack, rules.decks)
    n = int(full.sum())
    ev = 0.0
    for up in range(10):
        solver = solver_for(rules, up)
        row = codes[up + 1]
        pol = _policy(row[KIND_MULTI])
        outs = {t: solver.run(a2=t, policy=pol) for t in ((0, 1, 2) if pr.dbl_any else (0,))}
        e = 0.0
        for i, j, w in solver.start_weights():
            sv = None
            if i == j and pr.max_hands >= 2:
                sv = solver.split_value(i, policy=_policy(row[KIND_SPLIT + i]))
            opts, _ = solver.hand_options(i, j, outs, sv)
            if "N" in opts:
                e += w * opts["N"]
                continue
            s = solver.state_of(i, j)
            rels = [(1.0, 0.0, int(row[KIND_DIFF, s]))]
            if (i, j) in BONUS_COMPLETION and pr.p21wins:
                rels = []
                for kind, same in ((KIND_DIFF, False), (KIND_SAME, True)):
                    wt, adj = suit_relation(rules, solver, i, j, same)
                    if wt > 0:
                        rels.append((wt, adj, int(row[kind, s])))
            for wt, adj, code in rels:
                if code & OPT_SPLIT:
                    v = opts["P"]
                else:
                    v = opts[LETTER[code & 7]] + (adj if code == OPT_H else 0.0)
                e += w * wt * v
        ev += float(full[up]) / n * e
    return ev


@pytest.mark.parametrize(
    "preset,tol",
    [
        ("blackjack", 1e-12),  # no suits, no a2: exactly the analyser's optimal play
        ("mbs", 1e-6),  # suits: the table knows one suit or two, not which
        ("federal", 1e-4),  # Aces counting one on doubles of any number of cards (a2), measured 5.2e-5
    ],
)
def test_playing_the_table_gives_ev_optimal(preset: str, tol: float) -> None:
    rules = resolve_rules(preset)
    ev = _table_ev(rules)
    opt = solve(rules).ev_optimal
    assert ev <= opt + 1e-12
    assert ev == pytest.approx(opt, abs=tol)


def test_blackjack_preset() -> None:
    rules = resolve_rules("blackjack")
    c = optimal_tables(rules)
    assert c.shape == (11, 13, SP.size)
    assert (c[:, KIND_DIFF] == c[:, KIND_SAME]).all()  # no suit pays
    assert not ((c >= 0) & ((c & 7) == OPT_R)).any()  # no surrender
    assert c[10, KIND_DIFF, st(8, 8)] & OPT_SPLIT
    assert c[6, KIND_DIFF, st(5, 6)] == OPT_D
    assert c[4, KIND_MULTI, st(2, 4, 6)] == OPT_S  # 12 v 4
    assert c[2, KIND_MULTI, st(2, 4, 6)] == OPT_H  # 12 v 2
    assert c[10, KIND_DIFF, st(10, 6)] == OPT_H  # 16 v T: hit two cards,
    assert c[10, KIND_MULTI, st(2, 4, 10)] == OPT_S  # stand on three or more (multi-deck exception)
    assert (c[:, KIND_SPLIT] == -1).all()  # split Aces: one card each
    assert c[6, KIND_SPLIT + EIGHT, st(8, 3)] == OPT_D
    late = optimal_tables(rules.with_(surrender="late"))
    assert late[10, KIND_DIFF, st(9, 7)] == OPT_R  # 16 v T
    assert late[10, KIND_SAME, st(10, 6)] == OPT_R
    assert late[10, KIND_DIFF, st(8, 8)] & OPT_SPLIT
    r_at = np.argwhere((late >= 0) & ((late & 7) == OPT_R))
    assert set(r_at[:, 1].tolist()) == {KIND_DIFF, KIND_SAME}


def test_split_aces_hit_and_resplit(mbs: CasinoRules) -> None:
    resplit = optimal_tables(mbs.with_(resplit_aces=True))
    aa = st(1, 1)
    for up in range(1, 11):
        assert resplit[up, KIND_SPLIT, aa] == OPT_S | OPT_SPLIT
        assert (np.delete(resplit[up, KIND_SPLIT], aa) == -1).all()
    hit = optimal_tables(mbs.with_(hit_split_aces=True))
    k = hit[:, KIND_SPLIT]
    assert (k[1:, st(1, 5)] >= 0).all()
    assert k[6, st(1, 7)] in (OPT_S, OPT_D)  # soft 18 v 6 (no doubles on split Aces: S)
    assert k[6, aa] >= 0 and not k[6, aa] & OPT_SPLIT  # no resplit of Aces here
