"""Hostile input, floods, vanishing clients, the turn timer and the grace period, on a real server."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from tests.web.conftest import FAST, LiveServer
from tests.web.play import casino_choice

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4),
    max_leaves=12,
)
messages = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["act", "bet", "deal", "kitty", "hints", "ping", "x"])},
        optional={"action": json_values, "amount": json_values, "kind": json_values, "extra": json_values},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("act"),
            "action": st.fixed_dictionaries(
                {
                    "verb": st.sampled_from(
                        ["hit", "stand", "split", "double", "insure", "stake", "twist", "walk", "interrupt"]
                    )
                },
                optional={
                    "box": st.integers(-2, 12),
                    "amount": st.text(max_size=12),
                    "player": st.text(max_size=8),
                    "players": st.lists(st.text(max_size=5), max_size=3),
                    "low": st.just("1"),
                },
            ),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("act"),
            "action": st.fixed_dictionaries({"verb": st.sampled_from(["hit", "stand"]), "box": st.just(2)}),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("bet"),
            "amount": st.sampled_from(["10", "20", "0", "99999", "1.5"]),
            "kind": st.sampled_from(["main", "pair", "bonus", "nope"]),
        }
    ),
)


def alive(live: LiveServer) -> None:
    assert live.http.get("/healthz").json()["ok"] is True


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    msgs=st.lists(
        st.one_of(messages.map(json.dumps), st.text(max_size=60), st.binary(max_size=40)),
        min_size=1,
        max_size=6,
    )
)
def test_hostile_frames_get_an_error_and_the_round_stays_consistent(shared_table: dict, msgs: list) -> None:
    live, c = shared_table["live"], shared_table["client"]
    for m in msgs:
        c.send(m)
    c.send({"type": "ping"})
    c.until(lambda m: m.get("type") == "pong")  # the connection is still served, in order
    for m in c.received:
        assert m.get("type") in ("state", "error", "pong", "hints"), m
        if m.get("type") == "error":
            assert isinstance(m["error"], str) and "\n" not in m["error"] and "Traceback" not in m["error"]
    c.received.clear()
    host = live.srv.lobby.tables[shared_table["tid"]]
    rnd = host.table.round
    assert not (host.table.in_round and rnd.is_over())  # never a finished round left unbooked
    assert host.table.rounds_played <= len(host.history)  # every round's net is in the window below
    nets = sum((Decimal(h["net"]["ann"]["total"]) for h in host.history), Decimal(0))
    open_round = rnd.ledger.balances["ann"] if host.table.in_round else Decimal(0)
    assert live.total_money() == shared_table["money"] + nets + open_round
    alive(live)


@pytest.fixture(scope="module")
def shared_table() -> dict:
    live = LiveServer(FAST)
    tid = live.table(preset="rws-plus", seed=1)
    tok = live.join(tid, live.account("ann"), box=2)
    c = live.ws(tid, tok)
    c.until(lambda m: m.get("type") == "state")
    money = live.total_money()
    c.send({"type": "bet", "amount": "10"})
    c.until(lambda m: m.get("type") == "state" and m["phase"] == "play")
    yield {"live": live, "client": c, "tid": tid, "money": money}
    print("rounds played by the hostile stream:", live.srv.lobby.tables[tid].table.rounds_played)
    c.close()
    live.stop()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    path=st.sampled_from(
        ["/api/accounts", "/api/tables", "/api/tables/00000000/join", "/api/tables/00000000/leave"]
    ),
    body=json_values,
)
def test_hostile_json_bodies_get_4xx(shared_table: dict, path: str, body: object) -> None:
    live = shared_table["live"]
    r = live.http.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})
    assert 400 <= r.status_code < 500 or (
        r.status_code == 201 and path in ("/api/tables", "/api/accounts")
    ), r.text
    assert "detail" in r.json()
    alive(live)


def test_oversized_frames_and_bodies(live: LiveServer) -> None:
    tid = live.table(preset="mbs")
    c = live.ws(tid, live.join(tid, live.account("ann"), box=1))
    c.send("x" * 5000)  # over the app's cap: an error, the connection stays
    assert "at most 4096" in c.error()
    c.send({"type": "ping"})
    c.until(lambda m: m.get("type") == "pong")
    c.send("y" * 100_000)  # over uvicorn's frame cap: this connection is closed (1009), the server lives
    with pytest.raises(ConnectionClosed):
        for _ in range(50):
            c.recv(5)
    r = live.http.post(
        "/api/tables", content=b"{" + b" " * 70_000 + b"}", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413
    alive(live)
    c2 = live.ws(tid)  # a new connection is served
    assert c2.until(lambda m: m.get("type") == "state")["table"] == tid
    c2.close()


def test_rate_limits_joins_and_actions(make_live) -> None:
    live = make_live(replace(FAST, join_burst=3, join_rate=0.01, action_burst=5, action_rate=0.01))
    codes = [live.http.post("/api/accounts", json={"name": f"p{i}"}).status_code for i in range(6)]
    assert codes[:3] == [201, 201, 201] and 429 in codes[3:]
    assert "too many requests" in live.http.post("/api/tables", json={"preset": "mbs"}).json()["detail"]
    from pontoon.web.models import JoinIn, TableIn

    srv = live.srv  # the REST joins are spent: make the table and the seat directly
    t = srv.lobby.create_table(TableIn(preset="mbs"))
    tok = srv.lobby.join(t, "p0", JoinIn(box=1))["token"]
    c = live.ws(t.id, tok)
    for _ in range(12):
        c.send({"type": "ping"})
    texts = [c.recv(5) for _ in range(13)]
    assert sum(1 for m in texts if m.get("type") == "pong") <= 5
    assert any("rate limit" in m.get("error", "") for m in texts)
    c.close()
    alive(live)


def test_turn_timer_stands_for_an_idle_player(make_live) -> None:
    live = make_live(replace(FAST, turn_timeout_s=0.4, bet_timeout_s=0.4))
    tid = live.table(preset="mbs", seed=2)
    ta = live.join(tid, live.account("ann"), box=1, buy_in="100")
    tb = live.join(tid, live.account("bob"), box=2, buy_in="100")
    ca, cb = live.ws(tid, ta), live.ws(tid, tb)
    ca.send({"type": "bet", "amount": "10"})  # bob does not bet: betting closes when its timer runs out
    st = ca.until(lambda m: m.get("type") == "state" and m["phase"] == "play")
    assert [b["box"] for b in st["round"]["boxes"]] == [1]
    # nobody acts: the timer stands for ann, the round is booked
    st = ca.until(lambda m: m.get("type") == "state" and len(m["history"]) == 1, timeout=15)
    steps = " ".join(st["history"][0]["steps"])
    assert "ann stands on box 1" in steps and "result: ann" in steps
    assert any("time ran out" in m.get("notice", "") for m in ca.received)
    before = Decimal(100) + Decimal(st["history"][0]["net"]["ann"]["total"])
    assert Decimal(next(m["balance"] for m in st["members"] if m["name"] == "ann")) == before
    ca.close()
    cb.close()


def test_vanished_player_kept_for_grace_then_played_out_004_5_3(make_live) -> None:
    live = make_live(replace(FAST, grace_s=0.6, turn_timeout_s=60))
    tid = live.table(preset="mbs", seed=8)
    ann = live.account("ann")
    ta = live.join(tid, ann, box=1, buy_in="100")
    tb = live.join(tid, live.account("bob"), box=2, buy_in="100")
    money = live.total_money()
    ca, cb = live.ws(tid, ta), live.ws(tid, tb)
    ca.send({"type": "bet", "amount": "10"})
    cb.send({"type": "bet", "amount": "10"})
    cb.until(lambda m: m.get("type") == "state" and m["phase"] == "play")
    # ann vanishes without a close frame; her seat is kept within the grace period ...
    ca.conn.socket.shutdown(socket.SHUT_RDWR)
    st = cb.until(
        lambda m: (
            m.get("type") == "state" and any(x["name"] == "ann" and not x["connected"] for x in m["members"])
        )
    )
    assert any(x["name"] == "ann" and not x["absent"] for x in st["members"])
    # ... then she is absent: her hand is drawn to 12 or more and stood by the House (004 5.3)
    end = time.monotonic() + 20
    while len(cb.state.get("history", [])) < 1:
        assert time.monotonic() < end
        pick = casino_choice(cb.state)
        if pick:
            cb.send({"type": "act", "action": pick})
        cb.drain(0.1)
    hist = cb.state["history"][0]
    assert "ann" in hist["net"]
    # after the round she is gone and her balance is back in her account; no money made or lost
    cb.wait_state(lambda m: all(x["name"] != "ann" for x in m["members"]))
    ann_acct = Decimal(live.balance("ann", ann)["balance"])
    assert ann_acct == 900 + 100 + Decimal(hist["net"]["ann"]["total"])
    assert live.total_money() == money + sum(Decimal(v["total"]) for v in hist["net"].values())
    cb.close()


def test_reconnect_within_grace_keeps_the_seat(make_live) -> None:
    live = make_live(replace(FAST, grace_s=5))
    tid = live.table(preset="british", seats=2, seed=3)
    ta = live.join(tid, live.account("ann"))
    tb = live.join(tid, live.account("bob"))
    ca = live.ws(tid, ta)
    first = ca.until(lambda m: m.get("type") == "state" and m["phase"] == "play")
    ca.close()
    ca2 = live.ws(tid, ta)
    again = ca2.until(lambda m: m.get("type") == "state")
    assert again["you"] == "ann" and again["round"]["hands"] == first["round"]["hands"]
    assert all(not x["absent"] for x in again["members"])
    ca2.close()
    del tb


def test_a_deal_that_cannot_go_through_opens_no_round() -> None:
    """Wagers are tried on a scratch round first: a refused deal leaves the table between rounds."""
    from pontoon.rules import find_rules
    from pontoon.web.casino_host import CasinoHost
    from pontoon.web.hosting import HostError, Settings
    from pontoon.web.persistence import MemoryPersistence

    paid: list[tuple[str, Decimal]] = []
    h = CasinoHost(
        "t1", "t", find_rules("mbs"), 1, Settings(), MemoryPersistence(), lambda n, a: paid.append((n, a))
    )
    h.join("ann", 1, None, Decimal(1000))
    h.bets["ann"] = {"main": Decimal(5)}  # below the minimum (the bet message refuses it; forced here)
    with pytest.raises(HostError, match="below the table minimum"):
        h._deal()
    assert not h.table.in_round and h.bets == {} and "not dealt" in h.notices["ann"]
    assert h.leave("ann") == Decimal(1000) and paid == [("ann", Decimal(1000))]


def test_an_idle_empty_table_is_closed(make_live) -> None:
    live = make_live(replace(FAST, idle_table_s=0.3))
    tid = live.table(preset="british")
    kept = live.table(preset="mbs")
    ann = live.account("ann")
    live.join(kept, ann, box=1)
    end = time.monotonic() + 10
    while tid in live.srv.lobby.tables:
        assert time.monotonic() < end
        time.sleep(0.1)
    assert live.http.get(f"/api/tables/{tid}").status_code == 404
    # a table where someone sits but nobody joins, wagers or acts is closed too (issue 28 item 5):
    # his buy-in back in his account
    while kept in live.srv.lobby.tables:
        assert time.monotonic() < end
        time.sleep(0.1)
    assert live.balance("ann", ann)["balance"] == "1000"
