"""A casino wager that comes after its round was dealt (under load: sent on a state the table had
just left, as the betting timer dealt) is refused with a message naming the round, how its betting
closed and the documents' rule (000 5.3, 002 5.2, 004 5.8: after "No more bets" every wager is
refused), and is never placed on another round: a bet names the round it is for (the page names the
round it shows open), and a bet for a round dealt and over is not moved to the next one."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from tests.web.conftest import FAST, Client, LiveServer

RULE = "no more bets, 000 5.3, 002 5.2, 004 5.8"


def _table(
    make_live: Callable[..., LiveServer], bet_timeout_s: float
) -> tuple[LiveServer, str, Client, Client]:
    live = make_live(dataclasses.replace(FAST, bet_timeout_s=bet_timeout_s, turn_timeout_s=600.0))
    tid = live.table(preset="mbs", seed=11)
    ann = live.ws(tid, live.join(tid, live.account("ann"), box=1, buy_in="500"))
    bob = live.ws(tid, live.join(tid, live.account("bob"), box=2, buy_in="500"))
    for c in (ann, bob):
        c.wait_state(lambda s: len(s["members"]) == 2 and s["round_no"] == 0)
    return live, tid, ann, bob


def _in_play(s: dict[str, Any]) -> bool:
    return s["phase"] == "play"


def test_a_bet_after_the_betting_timer_dealt_is_refused_naming_the_round(make_live: Any) -> None:
    live, tid, ann, bob = _table(make_live, bet_timeout_s=0.3)
    ann.send({"type": "bet", "kind": "main", "amount": "10", "round": 1})
    bob.wait_state(_in_play)  # the betting timer dealt round 1 with ann's wager alone
    for late in (
        {"type": "bet", "kind": "main", "amount": "10", "round": 1},  # the round bob's page showed open
        {"type": "bet", "kind": "main", "amount": "10"},  # a client that names no round
    ):
        bob.send(late)
        assert bob.error() == (
            f"main wager not placed: round 1 was dealt before it came (the betting timer ran out; {RULE}); "
            "nothing was taken from your balance: bet again for round 2 when round 1 is over"
        )
    bob.send({"type": "bet", "kind": "main", "amount": "10", "round": 2})
    assert bob.error() == (
        "main wager not placed: round 2 is not open for betting (round 1 is in play; bets for round 2 "
        "open when it is over)"
    )
    bob.send({"type": "deal"})
    assert bob.error() == "deal: round 1 was dealt already (the betting timer ran out)"
    host = live.srv.lobby.tables[tid]
    assert host.balance("bob") == 500 and host.bets == {}
    rnd = host.table.round
    assert rnd is not None and set(rnd.boxes) == {1}  # bob's box is not in the round


def test_a_bet_for_a_round_dealt_and_over_is_not_placed_on_the_next(make_live: Any) -> None:
    live, tid, ann, bob = _table(make_live, bet_timeout_s=30.0)
    ann.send({"type": "bet", "kind": "main", "amount": "10", "round": 1})
    ann.wait_state(lambda s: "ann" in s["bets"])
    ann.send({"type": "deal"})  # ann deals round 1 without bob
    state = ann.wait_state(_in_play)
    assert state["round_no"] == 1
    bob.send({"type": "bet", "kind": "main", "amount": "10", "round": 1})
    assert "round 1 was dealt before it came (ann pressed Deal; " in bob.error()
    while ann.state["phase"] == "play":  # ann plays round 1 out (stand on every hand of hers)
        if ann.state["to_act"] == "ann":
            ann.send({"type": "act", "action": {"verb": "stand", "box": 1}})
        ann.recv()
    ann.wait_state(lambda s: s["phase"] != "play" and s["round_no"] == 1)
    # bob's bet for round 1 comes now, with betting open for round 2: refused, not moved to round 2
    bob.send({"type": "bet", "kind": "main", "amount": "10", "round": 1})
    assert bob.error() == (
        f"main wager not placed: round 1 was dealt before it came ({RULE}) and is over; betting is "
        "open for round 2: bet again to play it"
    )
    bob.send({"type": "bet", "kind": "pair", "amount": "5", "round": 3})
    assert (
        bob.error() == "pair wager not placed: round 3 is not open for betting; betting is open for round 2"
    )
    host = live.srv.lobby.tables[tid]
    assert "bob" not in host.bets and host.balance("bob") == 500
    bob.send({"type": "bet", "kind": "main", "amount": "10", "round": 2})  # the round open: placed
    bob.wait_state(lambda s: s["bets"].get("bob") == {"main": "10"})
