"""``BritishGame.join_seat`` / ``leave_seat`` (the server's seats during a game) under random legal
play (hypothesis): money is conserved (seats + kitty + what leavers took == 0), every card is
accounted for, the banker is always seated, a leaver takes exactly his balance, and the history
store's recovery re-makes the seat events: the recovered game equals the played one."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from tempfile import mkdtemp

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.british.table import BritishGame
from pontoon.errors import IllegalAction
from pontoon.history import Recorder, open_store, recover_table
from pontoon.protocol import Action
from pontoon.rules import find_rules

NAMES = [f"p{i}" for i in range(7)]


def _round(g: BritishGame, data: st.DataObject) -> None:
    g.new_round()
    rnd = g.round
    assert rnd is not None
    while not rnd.is_over():
        who = rnd.to_act()
        assert who is not None
        legal = rnd.legal_actions(who)
        a = data.draw(st.sampled_from(legal), label="action")
        g.act(who, Action(a.verb, amount=a.low) if a.low is not None else Action(a.verb))
    g.end_round()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), preset=st.sampled_from(["british", "shoot"]), seed=st.integers(0, 2**31))
def test_random_seats_money_cards_and_recovery(data: st.DataObject, preset: str, seed: int) -> None:
    rules = find_rules(preset)
    store = open_store(f"sqlite:///{Path(mkdtemp()) / 'h.sqlite'}")
    g = BritishGame(rules, NAMES[:3], rng=seed)
    rec = Recorder(store, g, label="test")
    cards = len(g.cards_accounted())
    for _ in range(data.draw(st.integers(1, 12), label="steps")):
        if g.needs_kitty:
            g.put_kitty(rules.kitty_min)
        op = data.draw(st.sampled_from(["round", "round", "join", "leave", "sell", "top_up"]), label="op")
        if op == "round":
            _round(g, data)
        elif op == "join":
            free = [n for n in NAMES if n not in g.seats]
            if len(g.seats) < 6 and free:
                n = data.draw(st.sampled_from(free), label="joiner")
                g.join_seat(n)
                assert (
                    g.balance(n) == 0 and g.seats[g.seats.index(g.banker) - 1] == n
                )  # to the banker's right
        elif op == "leave":
            if len(g.seats) > 2:
                n = data.draw(st.sampled_from(g.seats), label="leaver")
                was_banker, left_of = n == g.banker, g.players[0]
                had = g.balance(n) + (
                    g.kitty if was_banker else 0
                )  # a leaving banker takes the kitty back first
                assert g.leave_seat(n) == had and n not in g.seats
                assert not was_banker or g.banker == left_of
            else:
                try:
                    g.leave_seat(g.seats[0])
                except IllegalAction as err:
                    assert "two or more" in str(err)
                else:
                    raise AssertionError("a table of two let a seat go")
        elif op == "sell":
            buyer = data.draw(st.sampled_from([s for s in g.seats if s != g.banker]), label="buyer")
            g.sell_bank(buyer, Decimal("2.5"))
            assert g.banker == buyer
        elif op == "top_up" and rules.shoot and g.kitty > 0:
            g.top_up_kitty(Decimal(3))
        assert g.total_money() == 0
        assert len(g.cards_accounted()) == cards
        assert g.banker in g.seats
    rec.close(status="kept")
    got = recover_table(store, rec.table_id).table
    a, b = g.snapshot(), got.snapshot()  # type: ignore[union-attr]
    for k in ("seats", "banker", "balances", "kitty", "departed", "left", "pack", "rounds_played"):
        assert a[k] == b[k], k
    store.close()
