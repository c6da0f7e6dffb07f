"""The kernel against the round engine: same stacked shoes, same strategy table, same net result
per box and wager kind, round by round (the engine is the single truth about the rules)."""

from __future__ import annotations

import os
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pontoon.cards import Card, pack_cards
from pontoon.rules import resolve_rules
from pontoon.sim import _kernels as K
from pontoon.sim.api import build_spec, run_stacked
from pontoon.sim.reference import KINDS, play_engine_round
from pontoon.sim.tables import load_chart

DATA = Path(__file__).parent / "data"
ROUNDS = int(os.environ.get("PONTOON_DIFF_ROUNDS", "3000"))  # per preset


def _shoes(rules, rng: np.random.Generator, n: int) -> list[list[Card]]:
    """A mix: prefixes of shuffled shoes, card-rich shoes (pairs, 7s, naturals), short shoes (void)."""
    full = list(pack_cards(rules.pack)) * rules.decks
    rich_ranks = "A5678JK" + ("T" if rules.pack == "standard52" else "")
    rich = [c for c in pack_cards(rules.pack) if c.rank in rich_ranks]
    # Super Bonus / 7-7-7 / 6-7-8 rich: many 7 of spades
    sevens = [Card.parse(c) for c in "7S 7S 7S 7S 7S 7S 7H 7D 8S 6S AS KS".split()]
    out = []
    for i in range(n):
        mode = i % 10
        if mode < 5:
            idx = rng.permutation(len(full))[:60]
            out.append([full[j] for j in idx])
        elif mode < 9:
            pool = rich if mode < 8 else sevens
            out.append([pool[j] for j in rng.integers(0, len(pool), 60)])
        else:
            idx = rng.permutation(len(full))[: int(rng.integers(4, 13))]
            out.append([full[j] for j in idx])
    return out


def _to_money(quanta: int, q: Fraction) -> Decimal:
    f = quanta * q
    return Decimal(f.numerator) / Decimal(f.denominator)


CASES = [
    ("mbs", {}),
    ("federal", {}),
    ("rws-pandemonium", {}),
    ("rws-plus", {}),
    ("blackjack", {}),
    ("blackjack", {"surrender": "late", "hits_soft_17": True, "resplit_aces": True}),
    ("blackjack", {"dealer_peeks": False}),
    ("mbs", "optimal"),
    ("federal", "optimal"),
    ("blackjack", "optimal"),
    ("rws-pandemonium", "optimal"),
]


def _case_id(p: str, o: dict | str) -> str:
    return p + ("-optimal" if o == "optimal" else "+" if o else "")


@pytest.mark.parametrize("preset,overrides", CASES, ids=[_case_id(p, o) for p, o in CASES])
def test_kernel_matches_engine(preset: str, overrides: dict | str) -> None:
    """``overrides == "optimal"``: the preset with ``--strategy optimal`` (composition table)."""
    optimal = overrides == "optimal"
    if optimal:
        overrides = {}
    rules = resolve_rules(preset, overrides or None)
    chart: Any = "optimal" if optimal else load_chart(DATA / "wild_chart.json")
    rng = np.random.default_rng(12345 + len(preset) + len(overrides))
    per_spec = ROUNDS // 6
    checked = 0
    for boxes in (1, 2, 3):
        for insurance in ("never", "always"):
            if insurance == "always" and not rules.insurance:
                continue
            spec = build_spec(
                rules, boxes=boxes, strategy=chart, side_bets=rules.side_bets, insurance=insurance
            )
            shoes = _shoes(rules, rng, per_spec)
            ju = rng.random(per_spec * boxes + 1)
            rec = run_stacked(spec, shoes, ju)
            mults = rules.pandemonium_multipliers
            for i, cards in enumerate(shoes):
                jackpot = [mults[int(rec[i, b, K.NK])] for b in range(boxes) if rec[i, b, K.NK] >= 0]
                status, net = play_engine_round(
                    rules,
                    cards,
                    spec.strat,
                    boxes=boxes,
                    bet=spec.bet,
                    side_bet=spec.side_bet,
                    side_bets=spec.side_bets,
                    insurance=insurance == "always",
                    jackpot=jackpot,
                    comp=spec.comp,
                )
                kvoid = bool(rec[i, 0, K.NK + 1])
                where = f"{preset} boxes={boxes} insurance={insurance} shoe={' '.join(map(str, cards))}"
                assert (status == "void") == kvoid, where
                for b in range(boxes):
                    for k, kind in enumerate(KINDS):
                        got = _to_money(int(rec[i, b, k]), spec.quantum)
                        assert got == net[b + 1][kind], (
                            f"{where}: box {b + 1} {kind}: kernel {got}, engine {net[b + 1][kind]}"
                        )
                checked += 1
    assert checked >= ROUNDS // 2


def test_engine_peeks_before_a_double() -> None:
    rules = resolve_rules("blackjack")
    chart = load_chart(DATA / "wild_chart.json")
    spec = build_spec(rules, strategy=chart)
    cards = [Card.parse(c) for c in "AC AD 2D KS 5H 6H 7H 8H 9H".split()]
    status, net = play_engine_round(rules, cards, spec.strat, bet=spec.bet)
    rec = run_stacked(spec, [cards])
    assert _to_money(int(rec[0, 0, K.K_MAIN]), spec.quantum) == Decimal(-10)
    assert net[1]["main"] == Decimal(-10)


def _fed_split_shoes(rules, rng: np.random.Generator, n: int) -> list[list[Card]]:  # type: ignore[no-untyped-def]
    """Stacked shoes of a pair against an Ace or a picture, then cards rich in the up card's
    complement (a dealer Pontoon often comes as the dealer's second card) and in small cards
    (split hands that bust, make 21, double and are rescued, or stand)."""
    pack = pack_cards(rules.pack)
    out = []
    for _ in range(n):
        pair_pts = int(rng.integers(1, 11))
        pairs = [c for c in pack if c.points == pair_pts]
        up = Card.parse("AC") if rng.random() < 0.5 else Card.parse(str(rng.choice(["KD", "QH", "JS"])))
        comp = [c for c in pack if (c.points == 10 if up.points == 1 else c.points == 1)]
        other = [c for c in pack if c.points not in (1, 10)]
        rest = [comp[int(rng.integers(len(comp)))] if rng.random() < 0.35 else other[int(rng.integers(len(other)))]
                for _ in range(16)]  # fmt: skip
        a, b = (pairs[int(rng.integers(len(pairs)))] for _ in range(2))
        out.append([a, up, b, *rest])
    return out


@pytest.mark.parametrize("strategy", ["wild", "optimal"])
def test_federal_split_boxes_against_a_dealer_pontoon(strategy: str) -> None:
    """001 Splits (rulings 6, 26): against a dealer Pontoon a split box loses one wager in all;
    a busted hand was lost at once and a 21 paid at once. The kernel and the engine settle the
    same shoes alike, round by round, with many split boxes facing a dealer Pontoon with hands
    alive, busted, at 21, doubled and rescued (counted from the engine's rounds)."""
    rules = resolve_rules("federal")
    chart: Any = "optimal" if strategy == "optimal" else load_chart(DATA / "wild_chart.json")
    spec = build_spec(rules, strategy=chart)
    rng = np.random.default_rng(2026 + len(strategy))
    shoes = _fed_split_shoes(rules, rng, 1500 if strategy == "wild" else 4500)  # optimal splits less
    rec = run_stacked(spec, shoes)
    seen = {"split v Pontoon": 0, "live and dead hands": 0, "doubled": 0, "rescued": 0, "3 hands": 0}
    for i, cards in enumerate(shoes):
        keep: list[Any] = []
        status, net = play_engine_round(rules, cards, spec.strat, bet=spec.bet, comp=spec.comp, keep=keep)
        assert (status == "void") == bool(rec[i, 0, K.NK + 1])
        got = _to_money(int(rec[i, 0, K.K_MAIN]), spec.quantum)
        assert got == net[1]["main"], (
            f"shoe {' '.join(map(str, cards))}: kernel {got}, engine {net[1]['main']}"
        )
        rnd = keep[0]
        hands = rnd.boxes[1].hands
        d = rnd.dealer_cards
        if status == "void" or len(hands) < 2 or len(d) < 2 or {d[0].points, d[1].points} != {1, 10}:
            continue
        seen["split v Pontoon"] += 1
        dead = [h.total()[0] >= 21 or getattr(h, "rescued", False) for h in hands]
        seen["live and dead hands"] += any(dead) and not all(dead)
        seen["doubled"] += any(getattr(h, "doubled", False) for h in hands)
        seen["rescued"] += any(getattr(h, "rescued", False) for h in hands)
        seen["3 hands"] += len(hands) == 3
    print(strategy, seen)
    need = (300, 150, 40) if strategy == "wild" else (100, 25, 5)
    keys = ("split v Pontoon", "live and dead hands", "3 hands")
    assert all(seen[k] >= n for k, n in zip(keys, need, strict=True)), seen
