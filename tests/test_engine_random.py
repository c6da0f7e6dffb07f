"""Random legal play on every casino preset, checking the engine's contract after every step.

Invariants (issue 2): money conserved (every account together sums to zero, the layout never goes
negative and is empty when the round is over, a void round nets zero for everyone), every card
dealt exactly once from the shoe, ``legal_actions()`` non-empty whenever someone must act, and
every illegal action refused without changing the state.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.casino.actions import Action
from pontoon.casino.round import CasinoRound
from pontoon.errors import IllegalAction
from pontoon.rules import apply_overrides, find_rules
from pontoon.shoe import Shoe

PRESETS = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]
PLAYERS = ["ann", "bob", "cat", "dan", "eve"]
VERBS = ["insure", "surrender", "hit", "stand", "split", "double", "rescue"]


def snapshot(rnd: CasinoRound) -> tuple:
    return (
        rnd.phase,
        rnd.shoe.dealt,
        len(rnd.ledger.transfers),
        len(rnd.log),
        tuple(str(c) for c in rnd.cards_in_play()),
        rnd.hand_to_act,
        tuple(str(a) for a in rnd.legal_actions()),
    )


def check_invariants(rnd: CasinoRound) -> None:
    assert rnd.ledger.total() == 0
    assert rnd.ledger.on_layout() >= 0
    dealt = rnd.shoe.dealt_cards()[rnd.first_dealt :]
    assert Counter(map(str, dealt)) == Counter(map(str, rnd.cards_in_play())), "cards not accounted for"
    if rnd.is_over():
        assert rnd.ledger.on_layout() == 0, "a wager was left on the layout"
        res = rnd.result()
        assert res.house == -sum(d["total"] for d in res.net.values())
        if res.status == "void":
            assert all(v == 0 for d in res.net.values() for v in d.values())
    else:
        assert rnd.legal_actions(), "someone must act but no action is legal"


def random_bets(draw, rnd: CasinoRound) -> None:
    r = rnd.rules
    n_boxes = draw(st.integers(1, 4))
    boxes = draw(st.lists(st.integers(1, r.max_boxes), min_size=n_boxes, max_size=n_boxes, unique=True))
    for box in boxes:
        n = draw(st.integers(1, min(3, r.max_bettors_per_box)))
        for player in draw(st.permutations(PLAYERS))[:n]:
            amount = draw(
                st.sampled_from([r.table_min, r.table_min * 2, Decimal(25), Decimal(100), Decimal("12.5")])
            )
            if rnd.can_place_bet(box, player, "main", amount):
                rnd.place_bet(box, player, "main", amount)
            for kind in r.side_bets:
                if draw(st.booleans()) and rnd.can_place_bet(box, player, kind, r.side_min):
                    rnd.place_bet(box, player, kind, r.side_min)


def random_variant(draw, action: Action, rnd: CasinoRound) -> Action:
    """Sometimes replace a default action by a legal variation (partial double, decline, subset)."""
    h = rnd.current
    if h is None or not draw(st.booleans()):
        return action
    players = list(h.stakes)
    if action.verb == "double":
        frac = draw(st.sampled_from([Decimal("0.5"), Decimal(1)]))
        decline = tuple(p for p in players[1:] if draw(st.booleans()))
        cand = Action("double", action.box, amount=h.stakes[players[0]] * frac, decline=decline)
    elif action.verb == "split":
        cand = Action("split", action.box, decline=tuple(p for p in players[1:] if draw(st.booleans())))
    elif action.verb in ("rescue", "surrender"):
        b = rnd.boxes[action.box or 0].hands[0] if action.verb == "surrender" else h
        pool = list(b.doubles) if action.verb == "rescue" else list(b.stakes)
        sub = tuple(p for p in pool if draw(st.booleans())) or tuple(pool[:1])
        cand = Action(action.verb, action.box, players=sub)
    else:
        return action
    return cand if rnd.can(cand) else action


def random_illegal(draw, rnd: CasinoRound) -> Action:
    verb = draw(st.sampled_from(VERBS))
    box = draw(st.integers(0, 8))
    amount = draw(st.sampled_from([None, Decimal(-5), Decimal(0), Decimal(1), Decimal(10000)]))
    player = draw(st.sampled_from(PLAYERS))
    return Action(
        verb, box, player if verb == "insure" else None, amount if verb in ("insure", "double") else None
    )


def play_random_round(draw, preset: str) -> CasinoRound:
    rules = find_rules(preset)
    decks = draw(st.sampled_from([4, 6, 8] if rules.pack == "pontoon48" else [1, 2, 6]))
    rules = apply_overrides(rules, {"decks": decks})
    seed = draw(st.integers(0, 2**32 - 1))
    shoe = Shoe.shuffled(decks, seed, pack=rules.pack)
    if draw(st.integers(0, 9)) == 0:  # sometimes a short shoe, sometimes a foreign card: void rounds
        cards = shoe.remaining_cards()[: draw(st.integers(3, 12))]
        if rules.pack == "pontoon48" and draw(st.booleans()):
            from pontoon.cards import Card

            cards.insert(draw(st.integers(0, len(cards))), Card.parse("TD"))
        shoe = Shoe(cards, pack=rules.pack, stacked=True)
    rnd = CasinoRound(rules, shoe, rng=seed)
    random_bets(draw, rnd)
    if not any(b.has_main for b in rnd.boxes.values()):
        rnd.place_bet(1, "ann", "main", rules.table_min)
    rnd.close_bets()
    check_invariants(rnd)
    steps = 0
    while not rnd.is_over():
        steps += 1
        assert steps < 200
        legal = rnd.legal_actions()
        bad = random_illegal(draw, rnd)
        if not rnd.can(bad):
            before = snapshot(rnd)
            with pytest.raises(IllegalAction):
                rnd.act(bad)
            assert snapshot(rnd) == before, f"refused action {bad} changed the state"
        action = random_variant(draw, draw(st.sampled_from(legal)), rnd)
        rnd.act(action)
        check_invariants(rnd)
    return rnd


@pytest.mark.parametrize("preset", PRESETS)
@settings(max_examples=1000)
@given(data=st.data())
def test_random_legal_rounds(preset: str, data: st.DataObject) -> None:
    play_random_round(data.draw, preset)
