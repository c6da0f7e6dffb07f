"""Split deltas (``?deltas=2``, web/frames.py, docs/server.md "Split deltas"): the public part of a change
made once for the whole table, each seat's own part apart. A client that joins them holds exactly the
state its kind's plain deltas (``?deltas=1``) give, key order included; the public text is the same for
every connection whose own part did not change; a seat's own part tells it nothing another seat holds face
down (ruling 35); a fresh connection and ``resync`` get the full state the deltas lead to."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import orjson
from websockets.sync.client import connect

from pontoon.rules import find_rules
from pontoon.web import frames
from pontoon.web.casino_host import CasinoHost
from pontoon.web.delta import apply
from pontoon.web.hosting import Settings
from pontoon.web.models import Envelope
from pontoon.web.persistence import MemoryPersistence
from tests.web.conftest import Client, LiveServer, bearer
from tests.web.play import casino_choice
from tests.web.test_british_ws import public_of, run_rounds
from tests.web.test_frames import _british, _same_state


def two_seated(table_id: str, seed: int, *, seeded: bool = False) -> tuple[CasinoHost, list[str]]:
    """A Marina Bay Sands table in one process with ann and bob seated (1,000 each)."""
    host = CasinoHost(
        table_id,
        "t",
        find_rules("mbs"),
        seed,
        Settings(),
        MemoryPersistence(),
        lambda n, a: None,
        seeded=seeded,
    )
    names = ["ann", "bob"]
    for i, n in enumerate(names):
        host.join(n, i + 1, None, Decimal(1000))
    return host, names


def moves_of(host: CasinoHost, names: list[str]) -> list[tuple[int, Any]]:
    """The next messages: both seats' bets between rounds, else the first seat that can act's pick."""
    if not host.table.in_round:
        bet = Envelope.model_validate({"msg": {"type": "bet", "amount": "10"}}).msg
        return [(0, bet), (1, bet)]
    for i, n in enumerate(names):
        pick = casino_choice(host.state_for(n, False))
        if pick is not None:
            return [(i, Envelope.model_validate({"msg": {"type": "act", "action": pick}}).msg)]
    raise AssertionError("no one can act")


class Joined:
    """What the page does with a socket's frames (static/js/delta.js ``splitOf``): the public state and the
    own part held apart, the state the public one with the own operations applied."""

    def __init__(self) -> None:
        self.pub: dict[str, Any] = {}
        self.own: list[Any] = []
        self.state: dict[str, Any] = {}
        self.deltas = self.owns = 0

    def take(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg["type"] == "state":
            self.pub = {k: v for k, v in msg.items() if k not in ("notice", "own")}
            self.own = msg.get("own", [])
        else:
            assert msg["base"] == self.pub["seq"], "a delta not based on the public state held"
            self.pub = dict(apply(msg["ops"], self.pub), seq=msg["seq"])
            if "own" in msg:
                self.own = apply(msg["own"], self.own)
                self.owns += 1
            self.deltas += 1
        self.state = apply(self.own, self.pub)
        return self.state


class Fake:
    """A connection in one process (no socket): the texts it is pushed, and the state they give."""

    def __init__(self, name: str | None, deltas: int) -> None:
        self.name, self.deltas, self.kind, self.seq, self.history_mark = name, deltas, None, -1, -1
        self.texts: list[str] = []
        self.joined = Joined()
        self.state: dict[str, Any] = {}

    def push(self, text: str) -> None:
        self.texts.append(text)
        msg = orjson.loads(text)
        if self.deltas == 2:
            self.state = self.joined.take(msg)
        elif msg["type"] == "state":
            self.state = {k: v for k, v in msg.items() if k != "notice"}
        else:
            assert msg["base"] == self.state["seq"]
            self.state = dict(apply(msg["ops"], self.state), seq=msg["seq"])


def test_own_delta_replaces_cuts_and_appends_whole_operations() -> None:
    a, b, c = '[["you"],"ann"]', '[["legal"],[]]', '[["legal"],[{"verb":"hit"}]]'
    assert frames.own_delta([a, b], [a, b]) == "[]"
    for old, new in ([[a, b], [a, c]], [[a, b, c], [a]], [[a], [a, b, c]], [[], [b]], [[b], []]):
        got = frames.own_delta(old, new)
        assert apply(json.loads(got), [json.loads(x) for x in old]) == [json.loads(x) for x in new]


def test_split_frames_give_each_kind_exactly_its_plain_deltas_state() -> None:
    """A casino table in one process, each kind (two seats, a spectator) with a plain-delta and a split
    connection: after every change both hold the very same JSON text (``own_ops`` made directly is what
    ``state_for`` makes), and the public text is shared where the own parts did not change."""
    host, names = two_seated("abcd0001", 7, seeded=True)
    conns = [Fake(n, d) for n in [*names, None] for d in (1, 2)]
    frames.broadcast(host, conns)
    changes = shared = 0
    while host.table.rounds_played < 12:
        for i, m in moves_of(host, names):
            host.handle(names[i], m)
            frames.broadcast(host, conns)
            changes += 1
            for plain, split in zip(conns[::2], conns[1::2], strict=True):
                assert orjson.dumps(split.state) == orjson.dumps(plain.state), split.name
            ann, bob, spec = conns[1], conns[3], conns[5]
            assert json.loads(spec.texts[-1]).get("own") is None  # a spectator: the public part only
            if ann.texts[-1] is spec.texts[-1]:
                shared += 1
            assert bob.texts[-1] is spec.texts[-1] or "own" in json.loads(bob.texts[-1])
    assert changes > 50 and shared >= 3
    assert conns[1].joined.owns > 10  # (the own part did change, and was sent as what changed)
    # a second split connection of a kind gets the held public state and own part: its state is the same
    late = Fake("ann", 2)
    frames.welcome(host, late, [*conns, late])
    assert _same_state(late.state, conns[1].state) and late.state["seq"] == conns[1].state["seq"]


class SplitClient(Client):
    """A client on a real socket asking for split deltas (``?deltas=2``), as the page does."""

    def __init__(self, live: LiveServer, tid: str, token: str | None = None) -> None:
        conn = connect(
            f"ws://127.0.0.1:{live.port}/ws/tables/{tid}?deltas=2",
            open_timeout=10,
            max_size=2**22,
            additional_headers=bearer(token) if token else None,
        )
        super().__init__(conn.__enter__())
        self.joined = Joined()
        self.texts: list[str] = []
        self.by_seq: dict[int, dict[str, Any]] = {}

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        text = self.conn.recv(timeout=timeout)
        assert isinstance(text, str)
        msg = json.loads(text)
        if msg.get("type") in ("state", "delta"):
            self.texts.append(text)
            self.state = self.joined.take(msg)
            self.by_seq[self.state["seq"]] = self.state
            msg = dict(self.state, type="state")
        self.received.append(msg)
        return msg


def test_british_split_frames_keep_each_seats_hidden_cards_its_own(live: LiveServer) -> None:
    """Ruling 35 in the split format: at a British table (a seat's own part made by comparing its view
    with the public one) the public part of every frame a seat is sent is the spectator's own frame's,
    and what the seat's state shows of the others is the public view's, frame by frame."""
    tid, names, tokens = _british(live)
    spec = SplitClient(live, tid)
    spec.recv()
    clients = [SplitClient(live, tid, t) for t in tokens]
    run_rounds(live, clients, 3, spec)
    for c in [*clients, spec]:
        c.drain(0.3)
    public = {json.loads(t)["seq"]: json.loads(t) for t in spec.texts}
    checked = 0
    for c, name in zip(clients, names, strict=True):
        assert c.joined.deltas > 10 and c.joined.owns > 5
        for text in c.texts[1:]:
            msg = json.loads(text)
            pub = public.get(msg["seq"])
            if pub is None or pub["type"] != "delta" or pub["base"] != msg["base"]:
                continue
            assert {k: v for k, v in msg.items() if k not in ("own", "notice")} == pub
        for seq, mine in c.by_seq.items():
            pub = spec.by_seq.get(seq)
            if pub is None:  # (a change sent to one kind only: a connection's welcome)
                continue
            differ = {k for k in mine.keys() | pub.keys() if mine.get(k) != pub.get(k)}
            assert differ <= {"you", "legal", "round", "history"}, differ
            assert mine["you"] == name and pub["you"] is None and pub["legal"] == []
            m, p = public_of(mine, name), public_of(pub, name)
            assert m["hands"].keys() == p["hands"].keys()
            for key, h in m["hands"].items():
                assert h["cards"] == p["hands"][key]["cards"], (name, key)
            if m["banker_cards"] is not None:
                assert m["banker_cards"] == p["banker_cards"]
            checked += 1
    assert checked > 30
    # after all the deltas each holds what a fresh split connection of its kind is sent in full, and
    # what a plain-delta one holds
    for c, tok in [*zip(clients, tokens, strict=True), (spec, None)]:
        fresh = SplitClient(live, tid, tok)
        assert _same_state(c.state, fresh.recv()), (c.state.get("you"), json.dumps(c.state)[:300])
        fresh.close()
    host = live.srv.lobby.tables[tid]
    for c, name in [*zip(clients, names, strict=True), (spec, None)]:
        assert _same_state(c.state, json.loads(frames.dumps(host.state_for(name))))
    for c in [*clients, spec]:
        c.close()


def test_split_resync_sends_the_full_state_and_the_deltas_go_on(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=3)
    tok = live.join(tid, live.account("ann"), box=1, buy_in="300")
    bob = live.join(tid, live.account("bob"), box=2, buy_in="300")
    c = SplitClient(live, tid, tok)
    c.recv()
    c.send({"type": "bet", "amount": "10"})
    c.until(lambda m: "ann" in m.get("bets", {}))
    c.drain(0.2)
    held = c.state
    c.send({"type": "resync"})
    c.until(lambda m: m.get("type") == "state")
    raw = json.loads(c.texts[-1])
    assert raw["type"] == "state" and raw["seq"] == held["seq"] and raw["own"]
    assert _same_state(c.state, held)
    r = live.http.post(
        f"/api/tables/{tid}/messages", json={"token": bob, "message": {"type": "bet", "amount": "10"}}
    )
    assert r.status_code == 200, r.text
    c.until(lambda m: "bob" in m.get("bets", {}) or m.get("phase") == "play")
    assert json.loads(c.texts[-1])["type"] == "delta"
    assert c.state["you"] == "ann" and c.joined.own  # (its own part held, applied to the public state)
    c.close()
