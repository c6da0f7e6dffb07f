"""Issue 27: resplits (003 Split: "If either of the new cards dealt is equal to the first two you may choose to
split again, creating three or even (theoretically) four separate hands") are not in the analysis; the report
says how often the player's best response with splits would be offered one (split_banker.resplit_chances). The
chance is checked against the engine's pack card by card, and the engine offers the resplit exactly there."""

from __future__ import annotations

from itertools import permutations

from pontoon.analysis.british import game
from pontoon.analysis.british import values as V
from pontoon.analysis.british.split_banker import resplit_chances
from pontoon.analysis.british.splits import split_deviation
from pontoon.british.pack import BritishPack, one_pack
from pontoon.british.round import BritishRound
from pontoon.rules.british import BRITISH

RULES = BRITISH.with_(pack_ranks="A5T", pack_suits=4)


def test_resplit_chances_count_the_pack_card_by_card() -> None:
    """A 12-card pack: for each pair the best response splits, the chance per round of a pair of that rank with
    a second card of the rank, over every ordered deal of the player's two cards and the split hands' second
    cards (the banker's two between them: exchangeable, left out), equals resplit_chances."""
    g = game.build(RULES)
    tb = V.tables(g)
    dev = split_deviation(g, tb, V.house_banker(g))
    got = resplit_chances(g, dev)
    split = {k for k, d in dev["pairs"].items() if d["split"] > d["no_split"]}
    assert set(got["pairs"]) == split and split  # 5-5 and T-T split against the house banker here
    pack = one_pack(RULES) * RULES.packs_for(2)
    for name, chance in got["pairs"].items():
        rank = "5" if name == "55" else name[0]
        hits = total = 0
        for a, b, c, d in permutations(range(len(pack)), 4):
            total += 1
            if pack[a].rank == pack[b].rank == rank and rank in (pack[c].rank, pack[d].rank):
                hits += 1
        assert abs(chance - hits / total) < 1e-15
    assert abs(got["per_round"] - sum(got["pairs"].values())) < 1e-15


def test_the_engine_offers_a_resplit_exactly_on_a_second_card_of_the_rank() -> None:
    """Dealt player, banker, player, banker, then the split hands' second cards: 5-5 split, the first hand's
    second card a five (split again offered: three hands, 003) or not (no split offered)."""
    for second, other, offered in (("5D", "TD", True), ("TD", "5D", False)):
        order = f"5S TC 5H TS {second} TH AS AH AD AC 5C {other}"  # the banker on T-T
        rnd = BritishRound(RULES, ["p"], "b", BritishPack.stacked_from(order, packs=1))
        rnd.act("p", "stake", "1")
        rnd.act("p", "split")
        assert rnd.can_split("p") is offered
        if offered:
            rnd.act("p", "split")
            assert len(rnd.view("p")["hands"]) == 3
