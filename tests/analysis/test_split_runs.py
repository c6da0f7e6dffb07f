"""``split_kernels.split_runs`` (every chain of a split in one kernel call, ``lean``) and ``split_kernels.hand_values``
against the chains run one by one through ``UpcardSolver.run`` as ``split_chains`` ran them before
(full chains, Python decisions and hand values): equal bit for bit wherever the split is read."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.analysis import dealer as D
from pontoon.analysis import kernels as K
from pontoon.analysis.dealer_rows import DealerCache, _trie
from pontoon.analysis.player import ChainOut, Params, UpcardSolver
from pontoon.analysis.splits import SplitChains, _two_card_states
from pontoon.analysis.states import shoe_counts, state_space
from pontoon.rules.load import resolve_rules


def _decisions(solver: UpcardSolver, o: ChainOut, act: np.ndarray, dbl2: bool) -> np.ndarray:
    """The decisions as numpy worked them out before ``split_kernels.decide``."""
    sp, pr = solver.sp, solver.pr
    can_s = sp.best >= pr.forced
    can_d = np.full(sp.size, pr.dbl_any) | ((sp.ncards == 2) & dbl2)
    better_s = can_s & (o.st > o.hit)
    better_d = can_d & (o.dbl > np.where(better_s, o.st, o.hit))
    code = np.where(better_d, K.DOUBLE_HIT, np.where(better_s, K.STAND, K.HIT))
    return np.where(act, code, K.HIT).astype(np.int64)


def _reference(
    solver: UpcardSolver, p: int, sc: SplitChains, policy: np.ndarray | None, resc: np.ndarray | None
) -> list[dict[int, ChainOut]]:
    """The chains of ``sc`` run one at a time (no ``lean``), with ``split_setup``'s dealer rows."""
    strat = solver.split_strategy
    causal = policy is not None or strat != "cdp"
    pr = solver.pr
    loss = 0.0 if pr.split_one_wager else 1.0
    loss_d = 0.0 if pr.split_one_wager else pr.nat_loss_dbl
    by_a: list[dict[int, ChainOut]] = []
    act0 = sc.active
    for a in range(len(sc.by_a)):
        act, dist = solver.split_setup(p, a)
        outs: dict[int, ChainOut] = {}
        for a2 in sc.a2s:
            pol, fix = policy, None
            if pol is None and strat == "cdz":
                pol = _decisions(solver, solver.main_out(a2), act, sc.dbl2)
                fix = solver.main_out(a2).rfl
            elif pol is None and strat == "cdp1" and a > 0:
                pol = _decisions(solver, by_a[0][a2], act0, sc.dbl2)
            if a > 0 and fix is None and causal:
                fix = by_a[0][a2].rfl
            outs[a2] = solver.run(
                base=sc.bases[a],
                dist=dist,
                active=act,
                a2=a2,
                nat_loss=loss,
                nat_loss_dbl=loss_d,
                dbl2=sc.dbl2,
                policy=pol,
                resc_pol=resc,
                resc_fix=fix,
                prune=a > 0,
            )
            if sc.pols[a][a2] is not None:
                assert np.array_equal(sc.pols[a][a2], pol)
            else:
                assert pol is None
        by_a.append(outs)
    return by_a


def _hand_values(solver: UpcardSolver, p: int, by_a: list[dict[int, ChainOut]], a: int) -> tuple[float, ...]:
    """``_hand_values`` as Python worked it out before ``split_kernels.hand_values``."""
    sp, pr = solver.sp, solver.pr
    base_s = solver.base.copy()
    base_s[p] -= 1 + a
    left = solver.n - 2 - a
    ev_x = e_np = w_np = e_p = 0.0
    for r in range(10):
        cr = int(base_s[r]) - (1 if r == p else 0)
        if cr <= 0 or left <= 0:
            continue
        pr_r = cr / left
        s2 = int(_two_card_states()[p, r])
        outs = by_a[a]
        o = outs.get(int(sp.nace[s2]), next(iter(outs.values())))
        w = o.val[s2] if (p != 0 or pr.hit_split_aces or sp.best[s2] == 21) else o.st[s2]
        ev_x += pr_r * w
        if r == p:
            e_p = w
        else:
            e_np += pr_r * w
            w_np += pr_r
    return ev_x, (e_np / w_np if w_np > 0 else 0.0), e_p


CASES = [
    ("blackjack", 5, 7, "cdp1"),
    ("blackjack", 9, 1, "cdz"),
    ("blackjack", 0, 9, "cdp"),
    ("blackjack", 3, 0, "cdp1"),
    ("mbs", 9, 1, "cdp1"),
    ("mbs", 6, 6, "cdz"),
    ("mbs", 0, 7, "cdp"),
    ("federal", 0, 6, "cdp1"),
    ("federal", 9, 0, "cdz"),
]


@pytest.mark.parametrize("fixed", [False, True])
@pytest.mark.parametrize(("preset", "up", "p", "strat"), CASES)
def test_split_runs_equal_the_chains_run_one_by_one(
    preset: str, up: int, p: int, strat: str, fixed: bool
) -> None:
    rules = resolve_rules(preset)
    pr = Params.of(rules)
    base = shoe_counts(rules.pack, rules.decks)
    base[up] -= 1
    solver = UpcardSolver(rules, pr, base, up, split_strategy=strat)
    sp = solver.sp
    policy = resc = None
    if fixed:  # a chart-like fixed policy: stand on 17 or more, else hit; double 10 and 11
        policy = np.where(sp.best >= 17, K.STAND, np.where(np.isin(sp.best, (10, 11)), K.DOUBLE_HIT, K.HIT))
        policy = policy.astype(np.int64)
        resc = np.where(np.arange(22) < 15, 1, 0).astype(np.int64) if pr.rescue else None
    sc = solver.split_chains(p, policy=policy, resc_pol=resc)
    assert sc is not None
    ref = _reference(solver, p, sc, policy, resc)
    optimal0 = policy is None and strat != "cdz"  # a = 0 plays optimally (else pruned too)
    two = sp.ncards == 2
    can_d = np.full(sp.size, pr.dbl_any) | (two & sc.dbl2)
    for a, (outs, routs) in enumerate(zip(sc.by_a, ref, strict=True)):
        act, _dist = solver.split_setup(p, a)
        assert set(outs) == set(routs)
        for a2, o in outs.items():
            r = routs[a2]
            # what the split's values, suits and one-wager loss read: the two-card states
            for name in ("st", "hit", "dbl", "val", "act"):
                assert np.array_equal(getattr(o, name)[two], getattr(r, name)[two]), (a, a2, name)
            assert np.array_equal(o.rfl[two], r.rfl[two])
            if a == 0 and optimal0:  # and every decision of a = 0 (CDP1's, the optimal tables')
                for name in ("st", "hit", "val", "act"):
                    assert np.array_equal(getattr(o, name), getattr(r, name)), (a2, name)
                assert np.array_equal(o.dbl[can_d], r.dbl[can_d])
                dbl = o.act == K.ACT_DOUBLE
                assert np.array_equal(o.rfl[dbl], r.rfl[dbl])
                assert np.array_equal(sc.active, act)
        hv = solver._hand_values(p, sc, a)
        assert hv == _hand_values(solver, p, ref, a)
        assert all(isinstance(x, float) for x in hv)
    # the split's value (FED: its one-wager loss too, from the chains' actions and rescues)
    sc_ref = SplitChains(ref, sc.bases, sc.active, sc.dbl2, sc.max_hands, sc.pols, resc, sc.causal)
    assert solver.split_combine(p, sc) == solver.split_combine(p, sc_ref)


def test_decide_is_the_numpy_decisions() -> None:
    rules = resolve_rules("mbs")
    pr = Params.of(rules)
    base = shoe_counts(rules.pack, rules.decks)
    base[4] -= 1
    solver = UpcardSolver(rules, pr, base, 4)
    o = solver.run(a2=0)
    for dbl2 in (False, True):
        got = solver._decisions(o, solver.active, dbl2)
        assert np.array_equal(got, _decisions(solver, o, solver.active, dbl2))
        # stand, hit and double (where a split hand may double on two cards) all occur
        assert len(set(got[solver.active].tolist())) == (3 if dbl2 else 2)


@pytest.mark.parametrize("preset", ["blackjack", "mbs"])
def test_prefetch_holds_every_split_row(preset: str) -> None:
    """``prefetch`` (keys built from the states' keys, rows decoded from them) computes every row
    the split chains read, and each is the kernel's row for those cards."""
    rules = resolve_rules(preset)
    pr = Params.of(rules)
    full = shoe_counts(rules.pack, rules.decks)
    dc = DealerCache(full, pr.h17)
    dc._add_keys(np.zeros(0, dtype=np.int64))  # nothing to add: no rows, no kernel call
    assert len(dc.keys) == 0
    dc.prefetch(pr)
    table, keys = dc.by_up, dc.keys
    assert np.all(keys[1:] > keys[:-1])
    rng = np.random.default_rng(7)
    sp = state_space()
    for p in range(10):
        n = min(2 * (pr.max_hands - 2), int(full[p]) - 2) + 1
        if p == 0 and not pr.resplit_aces:
            n = 1
        pos, by_up = dc.position_stack(p, n)
        assert by_up is table and dc.keys is keys  # no row was missing
        for a in range(n):
            idx = np.nonzero(pos[a] >= 0)[0]
            pick = rng.choice(idx, size=min(20, len(idx)), replace=False)
            rem = sp.counts[pick].copy()
            rem[:, p] += 1 + a
            want = D.dealer_all_upcards(dc.full, rem, *_trie(pr.h17))
            assert np.array_equal(by_up[:, pos[a, pick]], want)


@pytest.mark.parametrize(("preset", "up"), [("blackjack", 0), ("blackjack", 5), ("mbs", 9), ("federal", 0)])
def test_chain_stands_as_stand_value(preset: str, up: int) -> None:
    """``chain`` pastes ``stand_value``'s sums (no array view per state): the same bits."""
    rules = resolve_rules(preset)
    pr = Params.of(rules)
    base = shoe_counts(rules.pack, rules.decks)
    base[up] -= 1
    solver = UpcardSolver(rules, pr, base, up)
    o = solver.run(a2=0)
    sp = solver.sp
    idx = np.nonzero(solver.active)[0]
    want = [K.stand_value(solver.dist[s], int(sp.best[s]), 1.0, 1.0, pr.peek) for s in idx]
    assert o.st[idx].tolist() == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=40), min_size=10, max_size=10))
def test_comp_weights_table_is_the_elementwise_sum(shoe: list[int]) -> None:
    """``strategy.comp_weights`` reads log C(base_r, c) from a table by (r, c): the same bits as
    the terms worked out state by state."""
    from pontoon.analysis.strategy import _LG, comp_weights

    base = np.array(shoe, dtype=np.int64)
    counts = state_space().counts
    n_total = int(base.sum())
    fits = np.all(counts <= base[None, :], axis=1)
    c = np.minimum(counts, base[None, :])
    n = c.sum(axis=1)
    v = (_LG[base][None, :] - _LG[c] - _LG[base[None, :] - c]).sum(axis=1)
    v -= _LG[n_total] - _LG[n] - _LG[np.maximum(n_total - n, 0)]
    want = np.where(fits, np.exp(v), 0.0)
    assert np.array_equal(comp_weights(base, counts), want)


@pytest.mark.parametrize("preset", ["mbs", "rws-plus"])
def test_completion_memo_shared_by_the_up_cards(preset: str) -> None:
    """``UpcardSolver.completion`` keys its memo by what ``completion_classes`` reads of the up card
    (is it i, j, the completing card, a 7) and of the known cards (their suits): shared by every
    up card, it gives each the classes worked out for it."""
    from itertools import product

    from pontoon.analysis.suits import BONUS_COMPLETION, SUITS, completion_classes

    rules = resolve_rules(preset)
    pr = Params.of(rules)
    full = shoe_counts(rules.pack, rules.decks)
    memo: dict[tuple[object, ...], list[tuple[float, float]]] = {}
    for up in range(10):
        base = full.copy()
        base[up] -= 1
        solver = UpcardSolver(rules, pr, base, up, completion_memo=memo)
        for i, j in BONUS_COMPLETION:
            assert solver.completion(i, j) == completion_classes(rules, i, j, up, pr.sb_units)
            for s1, s2, su in product(SUITS, repeat=3):
                known = ((i, s1), (j, s2), (up, su))
                want = completion_classes(rules, i, j, up, pr.sb_units, known=known)
                assert solver.completion(i, j, known) == want
    assert len(memo) < 10 * 4 * 65  # shared: far fewer than one per up card
