"""The public round view and the state's ``shoe`` (web/casino_host.py ``_round_shown``, ``_shoe_shown``)
keep their objects from one change to the next while what they are made from is the same (the round's
log count and phase; the shoe's numbers), so that the frames' ``diff`` passes them by at once (``is``);
what they say is always exactly a view made afresh (``rnd.view(SPECTATOR)``, the shoe's numbers), and
the booked round's words read the same view."""

from __future__ import annotations

import orjson

from pontoon.casino.seats import SPECTATOR
from pontoon.web import frames
from pontoon.web.delta import apply, diff
from tests.web.test_frames_history import Conn
from tests.web.test_frames_kept import _next_message
from tests.web.test_frames_split import two_seated


def test_round_view_and_shoe_kept_while_unchanged_and_never_stale() -> None:
    host, names = two_seated("abcd0006", 13)
    conns = [Conn("ann"), Conn("bob"), Conn(None)]
    frames.broadcast(host, conns)
    tf = frames.frames_of(host)
    kept = made = shoe_kept = shoe_made = 0
    while host.table.rounds_played < 30:
        old = tf.last[None].view
        rnd_before = host.table.round
        count_before = None if rnd_before is None else rnd_before.log.count
        host.handle(*_next_message(host, names))
        host.bump()
        frames.broadcast(host, conns)
        view = tf.last[None].view
        rnd = host.table.round
        fresh = None if rnd is None else rnd.view(SPECTATOR)
        assert orjson.dumps(view["round"]) == orjson.dumps(fresh)  # exact, key order included
        shoe = host.table.shoe
        used = host.table.shoes_used
        assert view["shoe"] == {
            "number": used,
            "cards_left": shoe.remaining if used else None,
            "size": host._shoe_size,
            "needs_shuffle": bool(used) and shoe.needs_shuffle,
        }
        ops = diff(old, view)
        assert apply(ops, old) == view
        if rnd is not None and rnd is rnd_before and rnd.log.count == count_before:
            assert view["round"] is old["round"]  # the round did not change (a wager between rounds)
            assert all(op[0][:1] != ["round"] for op in ops)
            kept += 1
        elif rnd is not None:
            assert view["round"] is not old["round"]
            made += 1
        if orjson.dumps(view["shoe"]) == orjson.dumps(old["shoe"]):
            assert view["shoe"] is old["shoe"]
            shoe_kept += 1
        else:
            assert view["shoe"] is not old["shoe"]
            assert any(op[0][:1] == ["shoe"] for op in ops)
            shoe_made += 1
        for n in names:  # a seat's round view: the public one's copy with its seat and legal actions
            if rnd is not None:
                mine = host.state_for(n, False)["round"]
                assert mine is not view["round"]
                assert orjson.dumps(mine) == orjson.dumps(rnd.view(n))
    assert kept >= 25 and made >= 60 and shoe_kept >= 25 and shoe_made >= 60  # (a wager a round kept)
    # the booked rounds' words: as from a fresh view of each round
    assert all(len(h["steps"]) > 3 and h["steps"][-1].startswith("result: ") for h in host.history)
