"""One broadcast per table per turn of the event loop (web/coalesce.py): two changes of a table handled
in one turn (the two players' wagers read together) make one set of frames carrying both; a frame for
one connection (an error) is never sent before the state frames due before it; a table whose lock is
held when its broadcast is due (a later change awaiting its commit) is broadcast only once the lock is
free, its state then all committed. Driven through the app's own message path (``_one_message``) on a
real event loop; the connections record what they are sent."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.web import app as web_app
from pontoon.web.app import Server, _one_message
from pontoon.web.delta import apply
from pontoon.web.frames import dumps
from pontoon.web.persistence import MemoryPersistence
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST
from tests.web.play import casino_choice
from tests.web.test_frames_split import SplitClient, _same_state, two_seated


class Rec:
    """A table connection as the server sees it (web/conns.py ``Conn``'s fields), its frames kept."""

    def __init__(self, name: str | None, deltas: int = 1) -> None:
        self.name, self.deltas, self.kind, self.seq, self.history_mark = name, deltas, None, -1, -1
        self.resynced, self.dropped, self.overflow = -1, 0, False
        self.out: list[dict[str, Any]] = []

    def push(self, text: str) -> None:
        self.out.append(json.loads(text))

    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.out if m.get("type") in ("state", "delta")]


def _table() -> tuple[Server, Any, Rec, Rec, Rec]:
    srv = Server(FAST, MemoryPersistence())
    host, _ = two_seated("abcd00b1", 5)
    srv.lobby.tables[host.id] = host
    ann, bob, watcher = Rec("ann"), Rec("bob"), Rec(None)
    srv.conns[host.id] = {ann, bob, watcher}  # type: ignore[arg-type]
    srv.broadcast(host)  # everyone's first frame: the full state
    return srv, host, ann, bob, watcher


def _raw(msg: Any) -> dict[str, Any]:
    return {"type": "websocket.receive", "text": msg if isinstance(msg, str) else json.dumps(msg)}


BET = {"type": "bet", "amount": "10"}


async def _turns(n: int = 3) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def test_two_wagers_in_one_turn_make_one_broadcast_carrying_both() -> None:
    srv, host, ann, bob, watcher = _table()
    firsts = {id(c): c.out[-1] for c in (ann, bob, watcher)}
    v0 = host.version

    async def play() -> None:  # both wagers read in the same turn, as a closed loop of clients sends them
        await asyncio.gather(
            _one_message(srv, host, ann, "k:ann", _raw(BET)),  # type: ignore[arg-type]
            _one_message(srv, host, bob, "k:bob", _raw(BET)),  # type: ignore[arg-type]
        )
        await _turns()

    asyncio.run(play())
    assert host.version >= v0 + 2 and host.table.in_round  # both wagers taken: the round dealt
    for c in (ann, bob, watcher):
        assert len(c.states()) == 2, c.out  # the first frame, then ONE frame for both changes
        first, delta = firsts[id(c)], c.out[-1]
        assert delta["type"] == "delta" and delta["base"] == first["seq"] and delta["seq"] == first["seq"] + 1
        shown = apply(
            delta["ops"], {k: v for k, v in first.items() if k not in ("seq", "type")} | {"type": "state"}
        )
        want = host.state_for(c.name if c.name in host.members else None, False)
        assert shown["version"] == want["version"] == host.version
        assert shown["round"] == want["round"]  # the dealt round, as each kind may see it (ruling 35)
    assert (srv.soon.asked, srv.soon.sent) == (2, 2)  # two asked; made: the first frame and one more


def test_an_error_does_not_overtake_the_state_due_before_it() -> None:
    srv, host, ann, bob, watcher = _table()

    async def play() -> None:
        await asyncio.gather(
            _one_message(srv, host, ann, "k:ann", _raw(BET)),  # type: ignore[arg-type]
            _one_message(srv, host, ann, "k:ann", _raw("not json")),  # type: ignore[arg-type]
            _one_message(srv, host, bob, "k:bob", _raw({"type": "bet", "amount": "-5"})),  # type: ignore[arg-type]
            _one_message(srv, host, ann, "k:ann", _raw({"type": "ping"})),  # type: ignore[arg-type]
        )
        await _turns()

    asyncio.run(play())
    assert [m["type"] for m in ann.out] == ["state", "delta", "error", "pong"], ann.out
    assert "not JSON" in ann.out[2]["error"]
    assert [m["type"] for m in bob.out] == ["state", "delta", "error"], bob.out
    assert [m["type"] for m in watcher.out] == ["state", "delta"]


def test_a_held_lock_holds_the_broadcast_till_the_change_under_it_is_done() -> None:
    """The table's lock held when its broadcast is due (a change made, its commit awaited: a store's
    group commit): nothing is built from the table till the lock is free; then one frame, with the
    change the holder finished."""
    srv, host, ann, bob, watcher = _table()

    async def play() -> None:
        await _one_message(srv, host, ann, "k:ann", _raw(BET))  # type: ignore[arg-type]
        lock = srv.lock(host.id)
        await lock.acquire()
        try:
            before = host.version
            host.handle("bob", web_app.parse_client(json.dumps(BET)))  # made, not yet committed
            assert host.version > before
            await _turns(5)
            assert [len(c.out) for c in (ann, bob, watcher)] == [1, 1, 1]  # not shown: not committed
        finally:
            lock.release()  # (committed: its settle done)
        await _turns(5)

    asyncio.run(play())
    for c in (ann, bob, watcher):
        assert len(c.states()) == 2, c.out
        assert c.out[-1]["seq"] == c.out[0]["seq"] + 1
    assert host.table.in_round
    assert srv.soon.due == {} and not srv.soon.tasks


def test_a_table_closed_sends_its_due_frames_before_the_close() -> None:
    srv, host, ann, bob, watcher = _table()
    closed: list[Any] = []
    for c in (ann, bob, watcher):
        c.close_after = lambda code, reason, c=c: closed.append((c.name, len(c.out)))  # type: ignore[attr-defined]

    async def play() -> None:
        await _one_message(srv, host, ann, "k:ann", _raw(BET))  # type: ignore[arg-type]
        await srv.close_table(host, "closed by a test")
        await _turns()

    asyncio.run(play())
    assert sorted(closed, key=str) == sorted([("ann", 2), ("bob", 2), (None, 2)], key=str)
    assert all(c.out[1]["type"] == "delta" for c in (ann, bob, watcher))
    assert srv.soon.due == {}


def test_split_deltas_stay_versioned_with_a_store_while_both_bet_at_once(
    make_live: Any, tmp_path: Path
) -> None:
    """A real server on SQLite, the page's split deltas: both players send their wagers before reading
    (answered in one turn, or one waiting for the other's commit), then play; every delta each
    connection gets applies to the state it holds (``Joined`` asserts its ``base``), no error comes, at
    the end each holds what a fresh connection of its kind is sent (and the host's view of its kind),
    the money is conserved over the four booked rounds and the audit agrees."""
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    live = make_live(FAST, StorePersistence(store))
    tid = live.table(preset="mbs", seed=21)
    toks = [live.join(tid, live.account(n), box=i + 1, buy_in="300") for i, n in enumerate(("ann", "bob"))]
    clients = [SplitClient(live, tid, t) for t in toks]
    spec = SplitClient(live, tid)
    for c in [*clients, spec]:
        c.recv()
    for rnd in range(1, 5):
        for c in clients:  # both wagers on the wire before either is read
            c.send({"type": "bet", "amount": "10"})
        for c in clients:
            c.wait_state(lambda m, rnd=rnd: m["round_no"] == rnd and m["phase"] == "play")
        for _ in range(200):
            if clients[0].state["round_no"] == rnd and clients[0].state["phase"] != "play":
                break
            for c in clients:
                pick = casino_choice(c.state)
                if pick is not None:
                    c.send({"type": "act", "action": pick})
                    c.until(lambda m: m.get("type") in ("state", "error"))
                c.drain(0.02)
        for c in [*clients, spec]:
            c.wait_state(lambda m, rnd=rnd: len(m.get("history", [])) >= rnd)
    for c in [*clients, spec]:
        c.drain(0.2)
        assert not [m for m in c.received if m.get("type") == "error"], c.received
        assert c.joined.deltas > 10
    host = live.srv.lobby.tables[tid]
    for c, tok, name in [(clients[0], toks[0], "ann"), (clients[1], toks[1], "bob"), (spec, None, None)]:
        fresh = SplitClient(live, tid, tok)
        assert _same_state(c.state, fresh.recv())
        assert _same_state(c.state, json.loads(dumps(host.state_for(name))))
        fresh.close()
    booked = clients[0].state["history"]
    assert len(booked) == 4  # two accounts of 1,000 and what the house paid or took in each round
    assert live.total_money() == 2000 + sum(Decimal(v["total"]) for h in booked for v in h["net"].values())
    for c in [*clients, spec]:
        c.close()
    assert audit(store)["integrity"] == "ok"
