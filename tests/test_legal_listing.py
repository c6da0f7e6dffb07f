"""The casino legal-action listing is exactly the set of actions the verifier accepts (issue 11, speed).

``legal_actions(seat)`` is worked out in one pass over the state (``verbs.legal_play``) and cached per
state version, and ``act`` takes a listed action without checking it twice; these tests prove that
this changes nothing: over random play on every casino preset (several bettors per box, standing
bettors' decline orders, insurance, splits, doubles, rescues, surrenders), at every step

- the one-pass listing equals trying each candidate through its verb's check (the old listing);
- every action listed for a seat (or the table) passes ``verify`` for that seat;
- every candidate action that ``can(seat, action)`` accepts is listed for that seat;
- a listed action taken from the cache logs the same events as the same action made afresh.
"""

from __future__ import annotations

from decimal import ROUND_DOWN

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.casino.actions import PLAY_VERBS, Action
from pontoon.casino.round import CasinoRound
from pontoon.casino.seats import seated_of
from pontoon.casino.table import CasinoTable
from pontoon.errors import PontoonError
from pontoon.money import CENT
from pontoon.protocol import TABLE, Actor
from pontoon.rules import find_rules

PRESETS = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]
NAMES = ["ann", "bob", "cat"]
WHATS = ("split", "double", "surrender", "rescue")


def key(a: Action) -> tuple[object, ...]:
    """An action as the listing and a hand-made candidate both spell it (insurance: any amount)."""
    return (a.verb, a.box, a.player, a.players, a.decline, a.what)


def candidates(rnd: CasinoRound, seat: Actor) -> list[Action]:
    """Every action a seat could try now, legal or not, in the forms the listing uses."""
    out: list[Action] = []
    for n in sorted(rnd.boxes):
        out += [Action(v, n) for v in PLAY_VERBS]
        for x in rnd.boxes[n].bettors:
            out.append(Action("insure", n, x.player, (x.main / 2).quantize(CENT, rounding=ROUND_DOWN)))
        if isinstance(seat, str):
            if seat != seated_of(
                rnd, n
            ):  # a standing bettor's own rescue (rul 27); the seated one's is the plain one
                out.append(Action("rescue", n, players=(seat,)))
            out += [Action("decline", n, seat, what=w) for w in WHATS]
    return out


def check_listing(rnd: CasinoRound) -> None:
    fast = rnd._legal_actions_all()
    slow = rnd._legal_actions_all(by_checks=True)
    assert fast == slow, f"one-pass listing {fast} differs from the checks' {slow}"
    seats: list[Actor] = [*rnd.seats(), TABLE]
    for seat in seats:
        listed = rnd.legal_actions(seat)
        for a in listed:
            rnd.verify(seat, a if a.low is None else a.with_amount(a.high))  # raises if not legal
        keys = {key(a) for a in listed}
        for c in candidates(rnd, seat):
            if rnd.can(seat, c):
                assert key(c) in keys, f"{seat} may take {c} but it is not listed: {listed}"


def play(preset: str, seed: int, rounds: int) -> None:
    rules = find_rules(preset)
    pick = np.random.default_rng(seed)
    table = CasinoTable(rules, rng=seed)
    for n in NAMES:
        table.join(n, 10**6)
    for _ in range(rounds):
        rnd = table.new_round()
        for box in range(1, int(pick.integers(1, 4)) + 1):
            p = NAMES[int(pick.integers(3))]
            table.place_bet(box, p, "main", rules.table_min * int(pick.integers(1, 4)))
            q = NAMES[int(pick.integers(3))]
            if q != p and pick.random() < 0.5:
                table.place_bet(box, q, "main", rules.table_min)
            for kind in rules.side_bets:
                if pick.random() < 0.3:
                    table.place_bet(box, p, kind, rules.side_min)
        table.deal()
        while not rnd.is_over():
            check_listing(rnd)
            who = rnd.to_act()
            options = [(s, a) for s in rnd.seats() for a in rnd.legal_actions(s)]
            mine = [o for o in options if o[0] == who]
            pool = mine if mine and pick.random() < 0.8 else options
            seat, a = pool[int(pick.integers(len(pool)))]
            if a.low is not None:
                a = a.with_amount(a.low)
            # the same action made afresh (not the cached record) must do exactly the same
            fresh = Action.from_json(a.to_json())
            assert fresh == a
            table.act(seat, a if pick.random() < 0.5 else fresh)
        table.end_round()


@pytest.mark.parametrize("preset", PRESETS)
@settings(max_examples=8)
@given(seed=st.integers(0, 2**32 - 1))
def test_listing_is_what_verify_accepts(preset: str, seed: int) -> None:
    play(preset, seed, rounds=15)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_listing_is_what_verify_accepts_long(preset: str) -> None:
    for seed in range(20):
        play(preset, seed, rounds=100)


def test_listed_and_fresh_actions_log_the_same() -> None:
    """Two tables on the same seed: one takes the listing's shared records, one equal fresh ones."""
    rules = find_rules("mbs")
    logs = []
    for fresh in (False, True):
        table = CasinoTable(rules, rng=7)
        table.join("ann", 10**6)
        pick = np.random.default_rng(7)
        events = []
        for _ in range(60):
            rnd = table.new_round()
            table.place_bet(1, "ann", "main", rules.table_min)
            table.deal()
            while not rnd.is_over():
                listed = rnd.legal_actions("ann")
                a = listed[int(pick.integers(len(listed)))]
                if a.low is not None:
                    a = a.with_amount(a.low)
                table.act("ann", Action.from_json(a.to_json()) if fresh else a)
            table.end_round()
            events += [(e.kind, e.data, e.clause) for e in rnd.events()]
        logs.append(events)
    assert logs[0] == logs[1]
    assert any(k == "action" for k, _, _ in logs[0])


def test_unlisted_action_still_verified() -> None:
    """An action that is not in the listing goes through the verifier (and is refused when illegal)."""
    rules = find_rules("mbs")
    table = CasinoTable(rules, rng=3)
    table.join("ann", 10**6)
    table.join("bob", 10**6)
    for _ in range(50):
        rnd = table.new_round()
        table.place_bet(1, "ann", "main", rules.table_min)
        table.deal()
        if not rnd.is_over():
            with pytest.raises(PontoonError, match="played by its seated bettor ann"):
                table.act("bob", Action("stand", 1))
            listed = rnd.legal_actions("ann")
            illegal = [Action(v, 1) for v in PLAY_VERBS if all(a.verb != v for a in listed)]
            for a in illegal:
                with pytest.raises(PontoonError, match="illegal action"):
                    table.act("ann", a)
        while not rnd.is_over():
            table.act("ann", rnd.legal_actions("ann")[0])
        table.end_round()
