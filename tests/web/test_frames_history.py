"""A kind's history in the state frames (web/frames.py ``shown``): when a round is booked only the new
entry is made for each view kind (the entries still kept keep the form made for that kind), and every
kind's history is exactly what ``history_for`` makes of the host's entries: in a casino table played
past its ``history_rounds`` (the oldest entries drop out), and at a British table, whose entries are
made per seat (ruling 35: a seat's steps name only what it saw)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pontoon.rules import find_rules
from pontoon.web import frames
from pontoon.web.casino_host import CasinoHost
from pontoon.web.hosting import Settings
from pontoon.web.models import Envelope
from pontoon.web.persistence import MemoryPersistence
from tests.web.conftest import LiveServer
from tests.web.play import casino_choice
from tests.web.test_british_ws import run_rounds
from tests.web.test_frames import DeltaClient, _british


class Conn:
    def __init__(self, name: str | None) -> None:
        self.name, self.deltas, self.kind, self.seq, self.history_mark = name, True, None, -1, -1

    def push(self, text: str) -> None:
        pass


def _fresh(host: Any, kind: str | None) -> list[dict[str, Any]]:
    return [host.history_for(e, kind) for e in host.history]


def test_a_booked_round_makes_one_entry_per_kind_and_the_history_stays_exact() -> None:
    settings = Settings(history_rounds=4)
    host = CasinoHost("abcd0001", "t", find_rules("mbs"), 7, settings, MemoryPersistence(), lambda n, a: None)
    names = ["ann", "bob"]
    for i, n in enumerate(names):
        host.join(n, i + 1, None, Decimal(1000))
    conns = [Conn("ann"), Conn("bob"), Conn(None)]
    made: list[Any] = []
    history_for = host.history_for

    def counted(entry: dict[str, Any], name: str | None) -> dict[str, Any]:
        made.append(name)
        return history_for(entry, name)

    host.history_for = counted  # type: ignore[method-assign]
    frames.broadcast(host, conns)
    bet = Envelope.model_validate({"msg": {"type": "bet", "amount": "10"}}).msg
    booked = 0
    while host.table.rounds_played < 9:  # past the 4 rounds kept: the oldest drop out
        if not host.table.in_round:
            msgs = [(0, bet), (1, bet)]
        else:
            msgs = []
            for i, n in enumerate(names):
                pick = casino_choice(host.state_for(n, False))
                if pick is not None:
                    msgs = [(i, Envelope.model_validate({"msg": {"type": "act", "action": pick}}).msg)]
                    break
        assert msgs, "no one can act"
        for i, m in msgs:
            mark = host.history_mark
            host.handle(names[i], m)
            made.clear()
            frames.broadcast(host, conns)
            if host.history_mark != mark:  # a round booked: one new entry for each of the 3 kinds
                booked += 1
                assert sorted(made, key=str) == sorted(["ann", "bob", None], key=str)
            else:
                assert made == []
            tf = frames.frames_of(host)
            for kind in ("ann", "bob", None):
                assert tf.history[kind][1] == _fresh(host, kind)
                assert tf.last[kind].view["history"] is tf.history[kind][1]
    assert booked == 9 and len(host.history) == 4


def test_a_british_seats_history_is_its_own_after_rounds(live: LiveServer) -> None:
    tid, names, tokens = _british(live)
    spec = DeltaClient(live, tid)
    spec.recv()
    clients = [DeltaClient(live, tid, t) for t in tokens]
    run_rounds(live, clients, 3, spec)
    for c in [*clients, spec]:
        c.drain(0.3)
    host = live.srv.lobby.tables[tid]
    tf = frames.frames_of(host)
    assert len(host.history) >= 3
    for kind in (*names, None):
        assert tf.history[kind][1] == _fresh(host, kind)
    for c, n in zip(clients, names, strict=True):  # what each client holds: its own steps
        assert c.state["history"] == _fresh(host, n)
    assert spec.state["history"] == _fresh(host, None)
