"""Split rounds of the outcome distribution (analysis/dist_exact.py, issue 23): on small stacked shoes
where pairs are split and resplit, the whole distribution equals the round engine's, playing every
ordering of the shoe with the distribution's own play (the chart, or optimal play: each dealt hand's
best option, each split hand by the split chains), to 1e-12. The approximation that the exact path
replaces (``work=0``) is visibly off on the same shoes."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from pontoon.analysis import kernels as K
from pontoon.analysis.distribution import round_distribution
from pontoon.analysis.states import card_index
from pontoon.analysis.strategy import _fallback, _row_key, solve
from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.rules.load import resolve_rules
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe

from .enumerate_engine import distinct_orders, shoe_values
from .test_enumeration import FLAT

CODE = {K.ACT_STAND: "S", K.ACT_HIT: "H", K.ACT_DOUBLE: "D"}


class Play:
    """The distribution's play of one rules and shoe, as the engine asks for it: a dealt hand by
    the chart or its best option, a split hand by the split chains (resplitting every pair card),
    a rescue by the chain's rescue flags."""

    def __init__(self, rules: CasinoRules, shoe: tuple[int, ...], basic: bool) -> None:
        self.basic = basic
        self.by_up = {ur.detail["solver"].up: ur for ur in solve(rules, shoe=shoe).upcards}
        self.chains: dict[tuple[int, int], Any] = {}

    def _split_out(self, up: int, p: int) -> Any:
        if (up, p) not in self.chains:
            det = self.by_up[up].detail
            solver = det["solver"]
            chart = self.basic or det["split_opt"].get(p) == det["split_basic"].get(p)
            sc = (
                solver.split_chains(p, policy=det["policy"], resc_pol=det["rescue"])
                if chart
                else solver.split_chains(p)
            )
            self.chains[(up, p)] = sc.out_for(0, 0)
        return self.chains[(up, p)]

    def _out(self, up: int, split_of: int | None) -> Any:
        if split_of is not None:
            return self._split_out(up, split_of)
        return self.by_up[up].detail["outs_basic" if self.basic else "outs_opt"][0]

    def decide(self, counts: tuple[int, ...], up: int, split_of: int | None, can_split: bool) -> str:
        ur = self.by_up[up]
        det, solver = ur.detail, ur.detail["solver"]
        sp = solver.sp
        s = sp.index[counts]
        if sum(counts) == 2 and split_of is None:
            i, j = (k for k in range(10) for _ in range(counts[k]))
            opts = ur.hands[(i, j)]
            if not self.basic:
                return max(opts, key=lambda k: opts[k])  # type: ignore[no-any-return]
            code = (
                det["pair_codes"][i]
                if i == j
                else det["row_code"][_row_key(i, j, int(sp.best[s]), bool(sp.soft[s]))]
            )
            if code == "P" or code in ("D", "Ds"):
                return "P" if code == "P" else "D"
            if code in ("R", "Rs") and "R" in opts:
                return "R"
            return "S" if _fallback(code) == "S" and "S" in opts else "H"
        if split_of is not None and sum(counts) == 2 and counts[split_of] == 2 and can_split:
            return "P"  # every pair card is split again while the rules allow (as the analysis)
        return CODE.get(int(self._out(up, split_of).act[s]), "S")

    def rescue(self, counts: list[int], last: int, up: int, split_of: int | None) -> bool:
        counts[last] -= 1
        s = self.by_up[up].detail["solver"].sp.index[tuple(counts)]
        return bool(self._out(up, split_of).rfl[s, last] == 1)


def played(rules: CasinoRules, order: list[str], pl: Play) -> CasinoRound:
    """The round engine's round on the stacked shoe ``order``, one wager of 10 played as ``pl`` plays."""
    rnd = CasinoRound(rules, Shoe.stacked_from(order, pack=rules.pack, synthetic=True))
    rnd.place_bet(1, "p", "main", 10)
    rnd.close_bets()
    while not rnd.is_over():
        h = rnd.current_hand()
        assert h is not None
        up = card_index(rnd.dealer_cards[0])
        split_of = card_index(h.cards[0]) if h.from_split else None
        counts = [0] * 10
        for c in h.cards:
            counts[card_index(c)] += 1
        if h.awaiting_rescue:
            yes = pl.rescue(counts, card_index(h.cards[-1]), up, split_of)
            rnd.act(Action("rescue" if yes else "stand", 1))
            continue
        legal = {a.verb for a in rnd.legal_actions() if a.box == 1}
        code = pl.decide(tuple(counts), up, split_of, "split" in legal)
        verb = {"P": "split", "R": "surrender", "D": "double", "S": "stand"}.get(code, "hit")
        rnd.act(Action(verb if verb in legal else "hit", 1))
    return rnd


def play(rules: CasinoRules, order: list[str], pl: Play) -> Fraction:
    rnd = played(rules, order, pl)
    res = rnd.result()
    assert res.status == "settled", f"round void ({res.void_reason}) for shoe {' '.join(order)}"
    return Fraction(res.net["p"]["total"]) / 10


def engine_distribution(rules: CasinoRules, cards: list[str], basic: bool) -> dict[float, Fraction]:
    pl = Play(rules, shoe_values(cards), basic)
    counts: Counter[Fraction] = Counter()
    n = 0
    for order in distinct_orders(cards):
        counts[play(rules, order, pl)] += 1
        n += 1
    return {float(v): Fraction(c, n) for v, c in counts.items()}


def _compare(rules: CasinoRules, cards: list[str], basic: bool) -> float:
    """Asserts the distribution equals the engine's (1e-12); returns the approximation's largest gap."""
    shoe = shoe_values(cards)
    d = round_distribution(rules, basic, shoe=shoe)
    assert d["split_probability"] > 0.05
    assert d["exact_split_probability"] == d["split_probability"]
    engine = engine_distribution(rules, cards, basic)
    mine = {o["net"]: o["probability"] for o in d["outcomes"] if o["probability"] > 1e-15}
    assert set(mine) == set(engine)
    for v, p in engine.items():
        assert mine[v] == pytest.approx(float(p), abs=1e-12), v
    assert d["mean"] == pytest.approx(-d["house_edge"], abs=1e-12)
    old = round_distribution(rules, basic, shoe=shoe, work=0)
    approx = {o["net"]: o["probability"] for o in old["outcomes"]}
    return max(abs(approx.get(v, 0.0) - float(p)) for v, p in engine.items())


# 8-8 split and resplit to three hands; 8 3 doubled (a ten makes a doubled 21, paid at once);
# the box uses at most seven cards, the dealer at most four (3 K K .. bust): never short
MBS_SHOE = ["8S", "8S", "8S", "3H"] + ["KS"] * 7
# with an Ace: the dealer's natural (peeked for in blackjack: the hole card is dealt first and the
# split's weight is its chance with no natural), soft hands
ACE_SHOE = ["9S", "9S", "9S", "AS"] + ["KS"] * 7

CASES = {
    "mbs": ("mbs", {}, MBS_SHOE),
    "mbs-ace": ("mbs", {}, ACE_SHOE),
    "blackjack": ("blackjack", {"insurance": False}, ACE_SHOE),
    "blackjack-double": ("blackjack", {"insurance": False}, MBS_SHOE),
    "federal": ("federal", {}, ACE_SHOE),  # one wager in all to a dealer Pontoon (001 Splits)
}


@pytest.mark.parametrize("basic", [True, False], ids=["basic", "optimal"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_split_rounds_equal_the_engine(case: str, basic: bool) -> None:
    preset, sets, cards = CASES[case]
    rules = resolve_rules(preset, sets)
    if rules.is_pontoon:
        rules = rules.with_(**FLAT)
    gap = _compare(rules, cards, basic)
    assert gap > 1e-3  # what the exact path replaced: the hands taken independent given the dealer


def test_casino_shoe_split_aces_are_exact_and_said_so() -> None:
    """On a casino shoe the split Aces (one card each, not split again: 000 3.9.1) are worked out
    exactly and the rest of the split rounds approximated; the distribution's mean is still the
    exact edge, and ``method.approximations``' line bounds only the approximated part (the splits
    shipped exact, ``dist_store``, left out: tests/analysis/test_dist_store.py)."""
    from pontoon.analysis.distribution import approximation

    rules = resolve_rules("federal")
    d = round_distribution(rules, basic=True, stored=False)
    ur = solve(rules).upcards[0]
    n, aces = int(ur.detail["solver"].base.sum()) + 1, 4 * rules.decks  # 6 decks of 48 cards
    p_aa = aces / n * (aces - 1) / (n - 1)  # Aces dealt as a pair (each split; against an Ace less)
    assert 0.6 * p_aa < d["exact_split_probability"] < p_aa
    assert d["exact_split_probability"] < d["split_probability"]
    assert d["mean"] == pytest.approx(-d["house_edge"], abs=1e-12)
    line = approximation(d)
    rest = d["split_probability"] - d["exact_split_probability"]
    assert f"within {rest:.4%} of the exact one in total variation" in line
    small = round_distribution(resolve_rules("mbs").with_(**FLAT), basic=True, shoe=shoe_values(MBS_SHOE))
    assert approximation(small).endswith("the distribution is exact")
