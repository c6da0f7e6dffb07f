"""The parts of a table's state every view kind shares (web/hosting.py ``_base_shared``) keep their
objects while they do not change: the live shoe's commitment (``fair``), the seat requests and the bot
levels are the same objects from one change's view to the next, so that the frames' ``diff`` passes
them by at once (``is``) instead of comparing and serializing them again; a new shoe, a seat request or
its answer makes a new object, and what every view says stays exactly what it was."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pontoon.rules import find_rules
from pontoon.web import frames
from pontoon.web.casino_host import CasinoHost
from pontoon.web.delta import apply, diff
from pontoon.web.hosting import Settings
from pontoon.web.models import Envelope
from pontoon.web.persistence import MemoryPersistence
from tests.web.play import casino_choice
from tests.web.test_frames_history import Conn
from tests.web.test_frames_split import two_seated

KEPT = ("fair", "requests", "bot_levels")


def _next_message(host: CasinoHost, names: list[str]) -> tuple[str, Any]:
    if not host.table.in_round:
        who = next(n for n in names if "main" not in host.bets.get(n, {}))
        return who, Envelope.model_validate({"msg": {"type": "bet", "amount": "10"}}).msg
    for n in names:
        pick = casino_choice(host.state_for(n, False))
        if pick is not None:
            return n, Envelope.model_validate({"msg": {"type": "act", "action": pick}}).msg
    raise AssertionError("no one can act")


def test_unchanged_shared_parts_keep_their_objects_and_diff_skips_them() -> None:
    host, names = two_seated("abcd0002", 11)
    conns = [Conn("ann"), Conn("bob"), Conn(None)]
    frames.broadcast(host, conns)
    tf = frames.frames_of(host)
    kept = new = 0
    shoes = set()
    while host.table.rounds_played < 40:  # past a shoe's end: a new commitment
        before = {k: s.view for k, s in tf.last.items()}
        fair_before = host.fair
        if host.table.rounds_played == 3 and not host.table.in_round and not host.requests:
            host.requests["cy"] = {"box": 3}  # a seat request (seat approval) arrives, then is answered
        elif host.table.rounds_played == 4 and host.requests:
            host.requests.clear()
        else:
            host.handle(*_next_message(host, names))
        host.bump()
        frames.broadcast(host, conns)
        shoes.add(None if host.fair is None else host.fair["shoe"])
        for kind, sent in tf.last.items():
            old, view = before[kind], sent.view
            ops = diff(old, view)
            assert apply(ops, old) == view  # the delta is still exact
            touched = {op[0][0] for op in ops if op[0]}
            for key in KEPT:
                if old[key] == view[key]:  # unchanged: the same object, and no operation for it
                    assert view[key] is old[key] or view[key] is None, key
                    assert key not in touched
                    kept += view[key] is not None
                else:
                    assert view[key] is not old[key]
                    new += 1
        if host.fair is not fair_before and fair_before is not None:
            assert tf.last["ann"].view["fair"]["commitment"] == host.fair["commitment"]
        # every kind shows the same shared objects (built once per change)
        assert all(tf.last[k].view["fair"] is tf.last[None].view["fair"] for k in names)
    assert len(shoes - {None}) >= 2  # a new shoe's commitment was shown (a new object then)
    assert kept > 100 and new >= 3 * 2  # the request came and went, the shoe changed, for each kind


def test_the_shared_parts_are_what_they_say() -> None:
    host = CasinoHost(
        "abcd0003", "t", find_rules("mbs"), 5, Settings(), MemoryPersistence(), lambda n, a: None
    )
    host.join("ann", 1, None, Decimal(1000))
    host.handle(*_next_message(host, ["ann"]))
    host.requests["zed"] = {}
    host.requests["amy"] = {}
    st = host.state_for("ann")
    assert st["requests"] == ["amy", "zed"]
    assert st["bot_levels"] == host.bot_levels()
    assert st["fair"] == dict(host.fair or {}, revealed=list(host.revealed)[-3:])
    host.requests.pop("zed")
    assert host.state_for("ann")["requests"] == ["amy"]
