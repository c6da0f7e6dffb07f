"""One generic random-play test over every preset, through the table protocol only (issue: one protocol).

At every step: the person to act has at least one legal action; a legal action drawn at random is
accepted; a sample of actions that are not legal for the chosen person is refused and changes nothing;
views never show a hidden card to another seat; money is conserved; every card is accounted for; and
replaying the event log reproduces the round (events, money and views).
"""

from __future__ import annotations

import json
from decimal import ROUND_DOWN, Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.round import BritishRound
from pontoon.british.table import BritishGame
from pontoon.casino.round import CasinoRound
from pontoon.casino.table import CasinoTable
from pontoon.errors import IllegalAction
from pontoon.protocol import BETTING, SPECTATOR, TABLE, Action, TableRound
from pontoon.replay import ReplayMismatch, replay
from pontoon.rules import find_rules
from pontoon.rules.model import CasinoRules
from pontoon.shoe import Shoe

CASINO = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]
BRITISH = ["british", "shoot"]
NAMES = ["ann", "bob", "cat"]


def _amount(data: st.DataObject, a: Action) -> Action:
    if a.low is None:
        return a
    assert a.high is not None and a.low <= a.high
    pick = data.draw(st.sampled_from(["low", "high", "mid"]), label="amount")
    amt = (
        a.low
        if pick == "low"
        else a.high
        if pick == "high"
        else ((a.low + a.high) / 2).quantize(Decimal("0.01"), ROUND_DOWN)
    )
    return a.with_amount(amt)


def _views_json(rnd: TableRound, seats: tuple[str, ...]) -> list[str]:
    return [json.dumps(rnd.view(s), sort_keys=True) for s in (*seats, SPECTATOR)]


ILLEGAL = [
    Action("hit", 9),
    Action("split", 1),
    Action("stand", 2),
    Action("twist"),
    Action("buy", amount=Decimal(1)),
    Action("insure", 1, "zed", Decimal(1)),
    Action("decline", 1, what="split"),
    Action("stake", amount=Decimal(0)),
]


def _step(data: st.DataObject, rnd: TableRound, seats: tuple[str, ...]) -> Action:
    who = rnd.to_act()
    assert isinstance(who, str), f"to_act() is {who!r} during play"
    assert rnd.legal_actions(who), f"{who} is to act with no legal action"
    # anyone may act who has a legal action (standing bettors' own choices included)
    actors = [s for s in seats if rnd.legal_actions(s)]
    assert who in actors
    seat = data.draw(st.sampled_from(actors), label="seat")
    # a refused action changes nothing
    bad = data.draw(st.sampled_from(ILLEGAL), label="illegal")
    bad_seat = data.draw(st.sampled_from(seats), label="bad_seat")
    if not rnd.can(bad_seat, bad):
        before = _views_json(rnd, seats), len(rnd.events())
        with pytest.raises(IllegalAction):
            rnd.act(bad_seat, bad)
        assert (_views_json(rnd, seats), len(rnd.events())) == before
    a = _amount(data, data.draw(st.sampled_from(rnd.legal_actions(seat)), label="action"))
    assert rnd.can(seat, a), f"{seat} {a} listed as legal but refused"
    evs = rnd.act(seat, a)
    assert evs and evs[0].kind == "action"
    return a


def _check_casino_views(rnd: CasinoRound) -> None:
    spec = rnd.view(SPECTATOR)
    # the cards to come never appear in any view
    assert "remaining_cards" not in json.dumps(spec)
    if rnd.rules.dealer_hole_card and not rnd.is_over() and rnd.current is not None and len(rnd.dealer) > 1:
        assert spec["dealer"][1] == "??", "the hole card shown before the dealer's turn"


@pytest.mark.parametrize("preset", CASINO)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_casino_random_play_through_the_protocol(preset: str, data: st.DataObject) -> None:
    rules = find_rules(preset)
    assert isinstance(rules, CasinoRules)
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    table = CasinoTable(rules, rng=seed)
    for n in NAMES:
        table.join(n, 10_000)
    records = []
    table.subscribe(records.append)
    rnd = table.new_round()
    assert rnd.to_act() is BETTING
    lo = rules.table_min
    table.place_bet(1, "ann", "main", lo)
    if data.draw(st.booleans(), label="standing"):
        table.place_bet(1, "bob", "main", lo)  # a standing bettor on box 1
    if rules.max_boxes >= 2:
        table.place_bet(2, "cat", "main", lo * 2)
    for kind in rules.side_bets[:1]:
        table.place_bet(1, "ann", kind, rules.side_min)
    table.deal()
    assert isinstance(rnd, TableRound)
    seats = rnd.seats()
    steps = 0
    while not rnd.is_over():
        steps += 1
        assert steps < 200
        a = _step(data, rnd, seats)
        table._flush()  # the table publishes what the round logged
        assert a.verb
        _check_casino_views(rnd)
        assert rnd.ledger.total() == 0
    assert rnd.to_act() is None and rnd.legal_actions(seats[0]) == []
    net = rnd.ledger.net(rnd.players())
    assert sum(d["total"] for d in net.values()) == -rnd.result().house
    assert rnd.ledger.on_layout() == 0
    summary = table.end_round()
    assert sum(table.balances().values()) == 30_000 - Decimal(summary["house"])
    # every event was published once, in order, with every transfer
    round_recs = [r for r in records if r.round_no == 1]
    assert [r.event for r in round_recs] == list(rnd.events())
    assert sum(len(r.transfers) for r in round_recs) == len(rnd.ledger.transfers)
    # replay reproduces events, money and views
    again = replay(
        rules, [{"seq": e.seq, "kind": e.kind, "data": e.data, "clause": e.clause} for e in rnd.events()]
    )
    assert isinstance(again, CasinoRound)
    assert again.ledger.net(again.players()) == net
    assert _views_json(again, seats) == _views_json(rnd, seats)


@pytest.mark.parametrize("preset", BRITISH)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_british_random_play_through_the_protocol(preset: str, data: st.DataObject) -> None:
    rules = find_rules(preset)
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    seats = ("ann", "bob", "cat", "dan")
    game = BritishGame(rules, list(seats), banker="dan", rng=seed)
    if game.needs_kitty:
        game.put_kitty(rules.kitty_min)
    rnd = game.new_round()
    assert isinstance(rnd, TableRound)
    assert set(rnd.seats()) == set(seats)
    while not rnd.is_over():
        who = rnd.to_act()
        assert isinstance(who, str)
        legal = rnd.legal_actions(who)
        assert legal
        for other in seats:
            if other != who:
                assert rnd.legal_actions(other) == []
                assert not rnd.can(other, legal[0])
        a = _amount(data, data.draw(st.sampled_from(legal), label="action"))
        game.act(who, a)
        # no view shows another seat's face-down card
        for s in (*seats, SPECTATOR):
            v = rnd.view(s)
            for h, hv in zip(rnd.hands, v["hands"], strict=True):
                for i, c in enumerate(hv["cards"]):
                    if h.owner != s and not h.up[i] and not rnd.is_over():
                        assert c == "??", f"{s} sees {h.owner}'s face-down card"
        assert rnd.ledger.total() == 0
    assert isinstance(rnd, BritishRound)
    again = replay(rules, rnd.events())
    assert again.net() == rnd.net()  # type: ignore[union-attr]
    assert _views_json(again, seats) == _views_json(rnd, seats)
    game.end_round()


def test_an_action_for_another_persons_box_is_refused() -> None:
    rules = find_rules("mbs")
    assert isinstance(rules, CasinoRules)
    rnd = CasinoRound(rules, Shoe.stacked_from("KS 5H 6C 9D 8S 2C"))
    rnd.place_bet(1, "ann", "main", 10)
    rnd.place_bet(1, "bob", "main", 10)  # standing on ann's box
    rnd.place_bet(2, "house", "main", 10)  # a name that is only data (rulings 32)
    rnd.close_bets()
    assert rnd.to_act() == "ann"
    with pytest.raises(IllegalAction, match="played by its seated bettor ann, not bob"):
        rnd.act("bob", Action("hit", 1))
    with pytest.raises(IllegalAction, match="seated bettor ann, not house"):
        rnd.verify("house", Action("stand", 1))
    assert not rnd.can(TABLE.value, Action("stand", 1))  # the string "table" is just a name
    rnd.act("ann", Action("stand", 1))
    assert rnd.to_act() == "house"


def test_a_standing_bettor_declines_a_split_himself() -> None:
    rules = find_rules("rws-plus")  # 004 3.24.1: standing bettors may decline a split
    assert isinstance(rules, CasinoRules)
    rnd = CasinoRound(rules, Shoe.stacked_from("8S 9H 8C 7D 9S JC 4D 5S 8H"))
    rnd.place_bet(1, "ann", "main", 20)
    rnd.place_bet(1, "bob", "main", 20)
    rnd.close_bets()
    assert Action("decline", 1, "bob", what="split") in rnd.legal_actions("bob")
    assert not rnd.can("ann", Action("decline", 1, "ann", what="split"))
    rnd.act("bob", Action("decline", 1, "bob", what="split"))
    rnd.act("ann", Action("split", 1))
    split = [e for e in rnd.events() if e.kind == "split"]
    assert split and split[0].data["declined"] == ["bob"]


def test_replay_names_the_first_difference() -> None:
    rules = find_rules("mbs")
    assert isinstance(rules, CasinoRules)
    table = CasinoTable(rules, rng=5)
    table.join("ann", 100)
    rnd = table.new_round()
    table.place_bet(1, "ann", "main", 10)
    table.deal()
    while not rnd.is_over():
        who = rnd.to_act()
        assert isinstance(who, str)
        table.act(who, rnd.legal_actions(who)[-1])
    evs = [{"seq": e.seq, "kind": e.kind, "data": dict(e.data), "clause": e.clause} for e in rnd.events()]
    bet = next(e for e in evs if e["kind"] == "bet")
    bet["data"]["amount"] = "11"
    with pytest.raises(ReplayMismatch, match="differs"):
        replay(rules, evs)


@pytest.mark.parametrize("direct", [True, False])
def test_replay_of_an_interrupted_round(direct: bool) -> None:
    rules = find_rules("rws-plus")  # 004 5.4 technical interruption
    assert isinstance(rules, CasinoRules)
    table = CasinoTable(rules, rng=11)
    table.join("ann", 1000)
    rnd = table.new_round()
    table.place_bet(1, "ann", "main", rules.table_min)
    table.deal()
    if rnd.is_over():
        return
    if direct:
        table.interrupt()
    else:
        table.act(TABLE, Action("interrupt"))
    while not rnd.is_over():
        who = rnd.to_act()
        assert isinstance(who, str)
        table.act(who, rnd.legal_actions(who)[0])
    again = replay(rules, rnd.events())
    assert again.ledger.net(again.players()) == rnd.ledger.net(rnd.players())
    assert [e.kind for e in rnd.events()].count("interrupted") == 1
