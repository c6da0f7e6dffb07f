"""The state's ``members`` (web/casino_host.py ``_shared_state``) keeps its list from one change to the
next while its JSON text is the same (``HostedTable._kept_text``), so that the frames' ``diff`` passes it
by at once (``is``) instead of comparing it and serializing both sides again; what it says stays
exactly ``Member.public`` with the balance, key order included, at every change. And the fair shuffle's
commitments and reveals are still followed now that the other events' data is no longer copied
(``HostedTable.watch``)."""

from __future__ import annotations

from typing import Any

import orjson

from pontoon.money import fmt
from pontoon.rules import find_rules
from pontoon.web import frames
from pontoon.web.casino_host import CasinoHost
from pontoon.web.delta import apply, diff
from pontoon.web.hosting import Settings
from pontoon.web.persistence import MemoryPersistence
from tests.web.test_frames_history import Conn
from tests.web.test_frames_kept import _next_message
from tests.web.test_frames_split import two_seated


def _as_public(host: CasinoHost) -> bytes:
    """What ``members`` said before it was kept: each member's ``public()`` with his balance."""
    return orjson.dumps([dict(m.public(), balance=fmt(host.balance(m.name))) for m in host.members.values()])


def test_members_kept_while_the_same_text_and_always_what_they_say() -> None:
    host, names = two_seated("abcd0004", 11)
    conns = [Conn("ann"), Conn("bob"), Conn(None)]
    frames.broadcast(host, conns)
    tf = frames.frames_of(host)
    kept = made = 0
    while host.table.rounds_played < 40:  # past a shoe's end: a reveal and a new commitment
        old = tf.last[None].view
        if host.table.rounds_played == 5 and not host.table.in_round and host.members["bob"].connections == 0:
            host.connected("bob")  # a member's own field changes (not his balance): a new list
        else:
            host.handle(*_next_message(host, names))
        host.bump()
        frames.broadcast(host, conns)
        view = tf.last[None].view
        assert orjson.dumps(view["members"]) == _as_public(host)  # exact, in key order, never stale
        ops = diff(old, view)
        assert apply(ops, old) == view
        if orjson.dumps(old["members"]) == orjson.dumps(view["members"]):
            assert view["members"] is old["members"]  # kept: no operation for it
            assert all(op[0][:1] != ["members"] for op in ops)
            kept += 1
        else:
            assert view["members"] is not old["members"]
            assert any(op[0][:1] == ["members"] for op in ops)
            made += 1
        assert all(tf.last[n].view["members"] is view["members"] for n in names)  # one list a change
    assert kept > 100 and made >= 20  # most changes keep it; every settled round makes a new one
    # the fair shuffle followed from the table's own log: the live shoe's commitment, the seeds revealed
    events = [e for e in host.table.log.events if e.kind in ("new_shoe", "shoe_retired")]
    shoes = [e.data for e in events if e.kind == "new_shoe" and "commitment" in e.data]
    reveals = [e.data for e in events if e.kind == "shoe_retired" and "server_seed" in e.data]
    assert len(shoes) >= 2 and reveals
    assert host.fair is not None and host.fair["commitment"] == shoes[-1]["commitment"]
    assert [r["server_seed"] for r in host.revealed] == [r["server_seed"] for r in reveals][
        -len(host.revealed) :
    ]
    assert tf.last[None].view["fair"]["revealed"][-1]["server_seed"] == reveals[-1]["server_seed"]


def test_kept_text_keeps_only_the_same_json_text() -> None:
    host = CasinoHost(
        "abcd0005", "t", find_rules("mbs"), 3, Settings(), MemoryPersistence(), lambda n, a: None
    )
    first: Any = [{"a": 1, "b": "x"}]
    assert host._kept_text("k", first) is first
    again = [{"a": 1, "b": "x"}]
    assert host._kept_text("k", again) is first  # the same text: the last object
    # ``==`` takes 1, 1.0 and True alike, and objects in any key order: the texts do not
    for other in (
        [{"a": 1.0, "b": "x"}],
        [{"a": True, "b": "x"}],
        [{"b": "x", "a": 1}],
        [{"a": 1, "b": "y"}],
    ):
        assert host._kept_text("k", other) is other  # another text: the new object, kept from now on
        first = other
