"""A change's frames go out as soon as its own commit is acknowledged (web/coalesce.py ``TableLock``),
never before; a hint's answer (an error, the hints) never overtakes the state due before it
(web/hint_asks.py through ``Server.push``). Driven through the app's own message path
(``_one_message``) on a real event loop, with the real SQLite store and its group commit; the
connections record what they are sent and, at each frame, whether the table had a write in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.web import host_actions
from pontoon.web.app import Server, _one_message
from pontoon.web.delta import apply
from pontoon.web.models import JoinIn, TableIn
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST
from tests.web.test_one_broadcast import BET, Rec, _raw, _table, _turns


class Seen(Rec):
    """A connection that notes, with each frame, whether its table's newest write was still in flight
    (its commit not acknowledged) when the frame was pushed: nothing uncommitted may be shown."""

    def __init__(self, name: str | None, srv: Server, tid: str) -> None:
        super().__init__(name)
        self.srv, self.tid = srv, tid
        self.hint = None
        self.in_flight: list[bool] = []

    def push(self, text: str) -> None:
        store: Any = self.srv.lobby.store
        rec = store.recorders.get(self.tid)
        fut = None if rec is None else store.group.pending(rec.table_id)
        self.in_flight.append(fut is not None and not fut.done())
        super().push(text)


@pytest.fixture(params=["thread", "process"])
def stored(request: Any, tmp_path: Path) -> Iterator[tuple[Server, Any, Seen, Seen, Seen]]:
    """A casino table on SQLite (synchronous FULL; the group commit's writer thread, or its writer
    process as ``pontoon serve`` runs it) with ann and bob seated, a spectator watching; everyone
    sent the first full state."""
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    persist = StorePersistence(store, writer=request.param)
    srv = Server(FAST, persist)
    for n in ("ann", "bob"):
        srv.lobby.credit(n, Decimal(1000))
    host = srv.lobby.create_table(TableIn(preset="mbs", seed=7))
    for i, n in enumerate(("ann", "bob")):
        srv.lobby.join(host, n, JoinIn(box=i + 1, buy_in="300"))
    persist.group.drain()
    ann, bob, watcher = Seen("ann", srv, host.id), Seen("bob", srv, host.id), Seen(None, srv, host.id)
    srv.conns[host.id] = {ann, bob, watcher}  # type: ignore[arg-type]
    srv.broadcast(host)
    try:
        yield srv, host, ann, bob, watcher
    finally:
        persist.group.drain()
        assert audit(store)["integrity"] == "ok"
        persist.group.close()
        store.close()


def test_a_wager_is_shown_at_its_own_commit_not_the_next_wager_s(
    stored: tuple[Server, Any, Seen, Seen, Seen],
) -> None:
    """ann's wager committed; bob's read in the turn before ann's broadcast is made (the callback of
    the next turn), so bob takes the table's free lock and awaits his own commit under it. ann's
    wager is still shown at once, before bob's commit (on the old code it waited for bob's commit
    and went out with it, one frame for both); then bob's in a frame of its own; every frame pushed
    with no write of the table in flight, the versions in order, each kind's view as ``state_for``."""
    srv, host, ann, bob, watcher = stored
    v0 = host.version
    marks: dict[str, Any] = {}

    async def bob_right_after_ann() -> None:
        while host.id not in srv.soon.due:  # ann's wager committed and its broadcast asked for
            await asyncio.sleep(0)
        marks["ann_version"] = host.version
        await _one_message(srv, host, bob, "k:bob", _raw(BET))  # type: ignore[arg-type]

    async def play() -> None:
        await asyncio.gather(
            _one_message(srv, host, ann, "k:ann", _raw(BET)),  # type: ignore[arg-type]
            bob_right_after_ann(),
        )
        await _turns(5)

    asyncio.run(play())
    assert host.table.in_round  # both wagers taken: the round dealt
    assert v0 < marks["ann_version"] < host.version
    for c in (ann, bob, watcher):
        states = c.states()
        assert [s["seq"] for s in states] == list(range(states[0]["seq"], states[0]["seq"] + 3)), c.out
        assert not any(c.in_flight), c.in_flight  # nothing shown while a write of the table was in flight
        held = {k: v for k, v in states[0].items() if k not in ("seq", "type")} | {"type": "state"}
        versions = []
        for delta in states[1:]:  # each delta applies to the state before it
            assert delta["type"] == "delta" and delta["base"] == delta["seq"] - 1
            held = apply(delta["ops"], held)
            versions.append(held["version"])
        assert versions == [marks["ann_version"], host.version]  # ann's wager alone, then bob's
        want = host.state_for(c.name if c.name in host.members else None, False)
        assert held["round"] == want["round"] and held["bets"] == want["bets"]  # ruling 35: its own view


@pytest.mark.parametrize("stored", ["thread"], indirect=True)
def test_a_change_under_a_held_store_lock_still_shows_nothing_uncommitted(
    stored: tuple[Server, Any, Seen, Seen, Seen],
) -> None:
    """The broadcast due while another change holds the lock awaiting its commit (a REST route, the
    timer): it is made by the next taker of the lock, or by its own task once the lock is free,
    never from a state with a write in flight; one frame per committed step, the seqs in order."""
    srv, host, ann, bob, watcher = stored

    async def play() -> None:
        await _one_message(srv, host, ann, "k:ann", _raw(BET))  # type: ignore[arg-type]
        await _one_message(srv, host, bob, "k:bob", _raw(BET))  # type: ignore[arg-type]
        await _turns(5)

    asyncio.run(play())
    assert host.table.in_round
    for c in (ann, bob, watcher):
        assert not any(c.in_flight)
        seqs = [s["seq"] for s in c.states()]
        assert seqs == sorted(seqs) and len(seqs) == len(set(seqs)) >= 2
    assert srv.soon.due == {} and not srv.soon.tasks


def test_a_hints_refusal_does_not_overtake_the_state_due_before_it() -> None:
    """A seat's wager and then a ``hints`` refused at once (its last hint still being worked out), read
    in one turn: the refusal goes out after the wager's frame (on the old code before it)."""
    srv, host, ann, bob, watcher = _table()
    for c in (ann, bob, watcher):
        c.hint = None  # type: ignore[attr-defined]

    async def play() -> None:
        ann.hint = asyncio.get_running_loop().create_future()  # type: ignore[attr-defined]
        await asyncio.gather(
            _one_message(srv, host, ann, "k:ann", _raw(BET)),  # type: ignore[arg-type]
            _one_message(srv, host, ann, "k:ann", _raw({"type": "hints"})),  # type: ignore[arg-type]
        )
        await _turns()
        ann.hint.cancel()  # type: ignore[attr-defined]

    asyncio.run(play())
    assert [m["type"] for m in ann.out] == ["state", "delta", "error"], ann.out
    assert ann.out[2]["error"].startswith("hints busy"), ann.out[2]


def test_a_hint_answered_while_a_broadcast_is_due_waits_for_it() -> None:
    """A hint's answer (here: refused by the table, no hand to act on between rounds) pushed while the
    table's broadcast is due goes out after that broadcast's frames."""
    srv, host, ann, bob, watcher = _table()
    for c in (ann, bob, watcher):
        c.hint = None  # type: ignore[attr-defined]

    async def play() -> None:
        await _one_message(srv, host, ann, "k:ann", _raw({"type": "hints"}))  # type: ignore[arg-type]
        task = ann.hint  # type: ignore[attr-defined]
        await _one_message(srv, host, bob, "k:bob", _raw(BET))  # type: ignore[arg-type]
        assert host.id in srv.soon.due  # bob's wager's broadcast due; ann's hint task runs first
        await task
        await _turns()

    asyncio.run(play())
    types = [m["type"] for m in ann.out]
    assert types[:2] == ["state", "delta"] and types[2] in ("error", "hints"), ann.out


def test_the_bots_wagers_are_shown_only_once_committed(tmp_path: Path) -> None:
    """A casino bot's wager (``Server.bots``: it may deal the round) on SQLite: its frames are pushed
    with no write of the table in flight (on the old code the bots' change was broadcast before its
    commit: the dealt cards shown while their events were still queued for the writer)."""
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    persist = StorePersistence(store)
    srv = Server(FAST, persist)
    srv.lobby.credit("ann", Decimal(1000))
    host = srv.lobby.create_table(TableIn(preset="mbs", seed=11))
    srv.lobby.join(host, "ann", JoinIn(box=1, buy_in="300"))
    host_actions.do(srv, host, "ann", host_actions.AddBotMsg(action="add_bot", box=2))
    persist.group.drain()
    ann, watcher = Seen("ann", srv, host.id), Seen(None, srv, host.id)
    srv.conns[host.id] = {ann, watcher}  # type: ignore[arg-type]
    srv.broadcast(host)

    async def play() -> None:
        await _one_message(srv, host, ann, "k:ann", _raw(BET))  # type: ignore[arg-type]
        await _turns(3)
        before = host.version
        await srv.bots(host)
        assert host.version > before  # the bot wagered (and the round was dealt)
        await _turns(5)

    try:
        asyncio.run(play())
        assert host.table.in_round
        for c in (ann, watcher):
            assert len(c.states()) >= 3, c.out
            assert not any(c.in_flight), c.in_flight
    finally:
        persist.group.drain()
        assert audit(store)["integrity"] == "ok"
        persist.group.close()
        store.close()
