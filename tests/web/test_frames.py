"""State frames built once per view kind, and deltas (web/frames.py, docs/server.md "State frames and
deltas"), through a real server: two spectators get the very same bytes; a seat's state differs from the
public one only as ruling 35 allows (his own hidden cards, his name, his choices); a client that applies
the deltas holds exactly the state a fresh connection is sent in full; ``resync`` sends the full state."""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import connect

from pontoon.web.delta import apply
from tests.web.conftest import Client, LiveServer, bearer
from tests.web.test_british_ws import public_of, run_rounds


class DeltaClient(Client):
    """A client that asks for deltas (as the page does) and applies them; ``texts`` keeps every frame."""

    def __init__(self, live: LiveServer, tid: str, token: str | None = None) -> None:
        conn = connect(
            f"ws://127.0.0.1:{live.port}/ws/tables/{tid}?deltas=1",
            open_timeout=10,
            max_size=2**22,
            additional_headers=bearer(token) if token else None,
        )
        super().__init__(conn.__enter__())
        self.texts: list[str] = []
        self.by_seq: dict[int, dict[str, Any]] = {}
        self.deltas = 0

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        text = self.conn.recv(timeout=timeout)
        assert isinstance(text, str)
        msg = json.loads(text)
        if msg.get("type") == "delta":
            assert self.state and msg["base"] == self.state["seq"], "a delta not based on the state held"
            self.state = dict(apply(msg["ops"], self.state), seq=msg["seq"])
            self.deltas += 1
        elif msg.get("type") == "state":
            self.state = {k: v for k, v in msg.items() if k != "notice"}
        if msg.get("type") in ("state", "delta"):
            self.texts.append(text)
            self.by_seq[self.state["seq"]] = self.state
            msg = dict(self.state, type="state")  # the callers see states
        self.received.append(msg)
        return msg


def _same_state(a: dict[str, Any], b: dict[str, Any]) -> bool:
    drop = ("seq", "timer_s", "type", "notice")
    return {k: v for k, v in a.items() if k not in drop} == {k: v for k, v in b.items() if k not in drop}


def _british(live: LiveServer) -> tuple[str, list[str], list[str]]:
    tid = live.table(preset="british", seats=3, seed=11)
    names = ["ann", "bob", "cat"]
    return tid, names, [live.join(tid, live.account(n), buy_in="200") for n in names]


def test_spectators_share_bytes_and_a_seat_differs_only_as_ruling_35_allows(live: LiveServer) -> None:
    tid, names, tokens = _british(live)
    spec_a, spec_b = DeltaClient(live, tid), DeltaClient(live, tid)
    spec_a.recv(), spec_b.recv()
    clients = [DeltaClient(live, tid, t) for t in tokens]
    run_rounds(live, clients, 3, spec_a)
    for c in [*clients, spec_a, spec_b]:
        c.drain(0.3)
    assert len(spec_a.texts) > 20 and spec_a.deltas > 20
    assert spec_a.texts[1:] == spec_b.texts[1:]  # the same bytes, frame for frame
    first_a, first_b = (json.loads(c.texts[0]) for c in (spec_a, spec_b))  # B's: A's with the timer now
    assert _same_state(first_a, first_b) and first_a["seq"] == first_b["seq"]
    checked = 0
    for c, name in zip(clients, names, strict=True):
        assert c.deltas > 10
        for seq, mine in c.by_seq.items():
            pub = spec_a.by_seq.get(seq)
            if pub is None:  # (a change sent to one kind only: a connection's welcome)
                continue
            differ = {k for k in mine.keys() | pub.keys() if mine.get(k) != pub.get(k)}
            assert differ <= {"you", "legal", "round", "history"}, differ
            assert mine["you"] == name and pub["you"] is None and pub["legal"] == []
            m, p = public_of(mine, name), public_of(pub, name)  # what is not his: the public view's
            assert m["hands"].keys() == p["hands"].keys()
            for key, h in m["hands"].items():
                assert h["cards"] == p["hands"][key]["cards"], (name, key)
            if m["banker_cards"] is not None:
                assert m["banker_cards"] == p["banker_cards"]
            checked += 1
    assert checked > 30
    # after all the deltas, each holds what a fresh connection of its kind is sent in full
    for c, tok in [*zip(clients, tokens, strict=True), (spec_a, None)]:
        fresh = DeltaClient(live, tid, tok)
        first = fresh.recv()
        assert _same_state(c.state, first), (c.state.get("you"), json.dumps(c.state)[:300])
        fresh.close()
    for c in [*clients, spec_a, spec_b]:
        c.close()


def test_resync_sends_the_full_state_and_the_deltas_go_on(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=3)
    tok = live.join(tid, live.account("ann"), box=1, buy_in="300")
    bob = live.join(tid, live.account("bob"), box=2, buy_in="300")
    c = DeltaClient(live, tid, tok)
    c.recv()
    c.send({"type": "bet", "amount": "10"})
    c.until(lambda m: "ann" in m.get("bets", {}))
    c.drain(0.2)
    held = c.state
    c.send({"type": "resync"})
    c.until(lambda m: m.get("type") == "state")
    raw = json.loads(c.texts[-1])
    assert raw["type"] == "state" and raw["seq"] == held["seq"] and _same_state(raw, held)
    r = live.http.post(
        f"/api/tables/{tid}/messages", json={"token": bob, "message": {"type": "bet", "amount": "10"}}
    )
    assert r.status_code == 200, r.text
    c.until(lambda m: "bob" in m.get("bets", {}) or m.get("phase") == "play")
    assert json.loads(c.texts[-1])["type"] == "delta"
    c.close()


def test_a_client_without_deltas_gets_full_states(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=3)
    tok = live.join(tid, live.account("ann"), box=1, buy_in="300")
    bob = live.join(tid, live.account("bob"), box=2, buy_in="300")
    full, delta = live.ws(tid, tok), DeltaClient(live, tid, tok)
    full.recv(), delta.recv()
    full.send({"type": "bet", "amount": "10"})
    full.until(lambda m: "ann" in m.get("bets", {}))
    delta.wait_state(lambda s: "ann" in s.get("bets", {}))
    msg = {"token": bob, "message": {"type": "bet", "amount": "10"}}
    assert live.http.post(f"/api/tables/{tid}/messages", json=msg).status_code == 200
    full.wait_state(lambda s: "bob" in s.get("bets", {}) or s.get("phase") == "play")
    full.drain(0.3), delta.drain(0.3)
    assert all(m["type"] in ("state", "error") for m in full.received)
    assert not any("seq" in m for m in full.received)  # the protocol as before
    assert delta.deltas >= 2
    assert _same_state(full.state, delta.state)
    full.close(), delta.close()


def test_a_notice_goes_beside_the_view_to_its_person_only(make_live: Any) -> None:
    """The turn timer stands for the person to act: the line goes to his frames only, never into the
    view the deltas apply to, never to the others or the spectators."""
    import dataclasses
    import time

    from tests.web.conftest import FAST

    live = make_live(dataclasses.replace(FAST, turn_timeout_s=0.6))
    tid = live.table(preset="mbs", seed=3)
    toks = [live.join(tid, live.account(n), box=i + 1, buy_in="300") for i, n in enumerate(("ann", "bob"))]
    people = [DeltaClient(live, tid, t) for t in toks]
    spec = DeltaClient(live, tid)
    for c in [*people, spec]:
        c.recv()
    for t in toks:
        msg = {"token": t, "message": {"type": "bet", "amount": "10"}}
        assert live.http.post(f"/api/tables/{tid}/messages", json=msg).status_code == 200
    end = time.monotonic() + 20
    while not any('"notice"' in t for c in people for t in c.texts):
        assert time.monotonic() < end, "the timer did not act"
        for c in [*people, spec]:
            c.drain(0.1)
    for c in [*people, spec]:
        c.drain(0.3)
    told = [c for c in people if any('"notice"' in t for t in c.texts)]
    assert told and not any('"notice"' in t for t in spec.texts)
    for c in told:
        raw = [json.loads(t) for t in c.texts if '"notice"' in t]
        assert all("time ran out" in m["notice"] for m in raw)
        assert "notice" not in c.state
        seqs = {m["seq"] for m in raw}  # the others were sent the same change without it
        for other in [p for p in people if p is not c]:
            assert not any(json.loads(t).get("notice") for t in other.texts if json.loads(t)["seq"] in seqs)
    fresh = DeltaClient(live, tid, toks[0])
    first = fresh.recv()  # the timer may act again meanwhile: compare the same change (seq)
    end = time.monotonic() + 10
    while first["seq"] not in people[0].by_seq:
        assert time.monotonic() < end, "the person's deltas never reached the fresh client's change"
        people[0].drain(0.1)
    assert _same_state(people[0].by_seq[first["seq"]], first)
    for c in [*people, spec, fresh]:
        c.close()


def test_a_resync_past_the_rate_limit_is_still_answered_once_per_change(make_live: Any) -> None:
    """The page asks for the full state once per gap and drops every delta until it comes: a resync
    refused by the action rate limit left it showing a stale table for good (its bet never answered).
    Past the limit a resync is answered once per change of the table; a second one at the same change is
    refused as any message over the limit is, and the deltas go on from the full state sent."""
    import dataclasses

    from tests.web.conftest import FAST

    live = make_live(dataclasses.replace(FAST, action_burst=3, action_rate=0.01))
    tid = live.table(preset="mbs", seed=3)
    tok = live.join(tid, live.account("ann"), box=1, buy_in="300")
    bob = live.join(tid, live.account("bob"), box=2, buy_in="300")
    c = DeltaClient(live, tid, tok)
    c.recv()
    for _ in range(3):  # the burst spent
        c.send({"type": "ping"})
        c.until(lambda m: m.get("type") == "pong")
    c.send({"type": "ping"})
    assert "rate limit" in c.error()
    held = c.state
    c.send({"type": "resync"})
    msg = c.until(lambda m: m.get("type") in ("state", "error"))
    assert msg.get("type") == "state", msg
    raw = json.loads(c.texts[-1])
    assert raw["type"] == "state" and raw["seq"] == held["seq"] and _same_state(raw, held)
    c.send({"type": "resync"})  # nothing changed since: a flood, refused
    assert "rate limit" in c.error()
    r = live.http.post(
        f"/api/tables/{tid}/messages", json={"token": bob, "message": {"type": "bet", "amount": "10"}}
    )
    assert r.status_code == 200, r.text
    c.until(lambda m: "bob" in m.get("bets", {}))
    assert json.loads(c.texts[-1])["type"] == "delta"
    c.send({"type": "resync"})  # the table changed: owed again
    assert c.until(lambda m: m.get("type") in ("state", "error")).get("type") == "state"
    assert json.loads(c.texts[-1])["type"] == "state"
    c.close()
