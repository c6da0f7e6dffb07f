"""Invite links, hosts, bots in empty seats, the felt's state and the chat, through a real server on
loopback (issue 26: items 1, 2, 4, the chat of 6)."""

from __future__ import annotations

import dataclasses
import re
import time
from decimal import Decimal
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from pontoon.web.hosting import Settings
from tests.web.conftest import FAST, Client, LiveServer, bearer
from tests.web.play import british_choice, casino_choice


def host_do(live: LiveServer, tid: str, token: str, **msg: Any) -> Any:
    return live.http.post(f"/api/tables/{tid}/host", json={"msg": msg}, headers=bearer(token))


def made_by(live: LiveServer, token: str, **spec: Any) -> str:
    r = live.http.post("/api/tables", json=spec, headers=bearer(token))
    assert r.status_code == 201, r.text
    live.http.cookies.clear()
    return str(r.json()["id"])


def play_alone(live: LiveServer, c: Client, rounds: int, british: bool, budget: float = 60) -> dict[str, Any]:
    """One person plays (the bots play the other seats) until ``rounds`` rounds are booked."""
    end = time.monotonic() + budget
    while len(c.state.get("history", [])) < rounds:
        assert time.monotonic() < end, f"the rounds did not finish: {str(c.state)[:600]}"
        st = c.state
        if british:
            pick = british_choice(st) if st.get("phase") in ("play", "kitty") else None
        elif st.get("phase") == "betting" and any(a["verb"] == "bet" for a in st.get("legal", [])):
            pick = {"type": "bet", "kind": "main", "amount": st["limits"]["table_min"]}
        else:
            act = casino_choice(st)
            pick = None if act is None else {"type": "act", "action": act}
        if pick is not None:
            c.send(pick)
            c.until(lambda m: m.get("type") in ("state", "error"))
        else:
            c.drain(0.05)
    return c.state


def test_invite_link_opens_the_page_and_its_qr_code_is_served(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=1)
    page = live.http.get(f"/t/{tid}")
    assert page.status_code == 200 and '<script type="module" src="/static/app.js">' in page.text
    qr = live.http.get(f"/api/tables/{tid}/qr.svg")
    assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
    assert qr.text.lstrip().startswith("<svg") and "<path" in qr.text
    missing = live.http.get("/api/tables/0badc0de/qr.svg")
    assert missing.status_code == 404 and missing.json()["detail"] == "no table 0badc0de"
    assert live.http.get("/t/not-a-table").status_code == 422


def test_the_creator_hosts_others_get_403_and_a_kick_names_its_reason(live: LiveServer) -> None:
    ann, bob = live.account("ann"), live.account("bob")
    tid = made_by(live, ann, preset="mbs", seed=2)
    assert live.http.get(f"/api/tables/{tid}").json()["host"] == "ann"
    live.join(tid, ann, box=1, buy_in="100")
    seat = live.join(tid, bob, box=2, buy_in="100")
    for msg in (
        {"action": "kick", "name": "ann"},
        {"action": "pause"},
        {"action": "close"},
        {"action": "settings", "approval": True},
        {"action": "add_bot"},  # bob is not alone at the table
    ):
        r = host_do(live, tid, bob, **msg)
        assert r.status_code == 403, r.text
        detail = r.json()["detail"]
        assert "\n" not in detail and "only the table's host (ann)" in detail
    c = live.ws(tid, seat)
    c.wait_state(lambda s: s["you"] == "bob")
    r = host_do(live, tid, ann, action="kick", name="bob", reason="spamming the chat")
    assert r.status_code == 200 and r.json()["returned"] == "100", r.text
    with pytest.raises(ConnectionClosed) as closed:
        c.until(lambda m: False, timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    assert "spamming the chat" in closed.value.rcvd.reason
    again = live.http.post(f"/api/tables/{tid}/join", json={"box": 2}, headers=bearer(bob))
    assert again.status_code == 403 and "spamming the chat" in again.json()["detail"]
    assert live.balance("bob", bob)["balance"] == "1000"  # his buy-in came back


def test_seat_approval_pause_and_close(live: LiveServer) -> None:
    ann, cat = live.account("ann"), live.account("cat")
    tid = made_by(live, ann, preset="mbs", seed=3)
    live.join(tid, ann, box=1, buy_in="100")
    assert host_do(live, tid, ann, action="settings", approval=True, turn_timeout_s=12).status_code == 200
    r = live.http.post(f"/api/tables/{tid}/join", json={"box": 3, "buy_in": "50"}, headers=bearer(cat))
    assert r.status_code == 202 and r.json()["waiting"] is True
    state = live.http.get(f"/api/tables/{tid}").json()["state"]
    assert state["requests"] == ["cat"] and state["turn_timeout_s"] == 12
    assert [m["name"] for m in state["members"]] == ["ann"]
    assert host_do(live, tid, cat, action="approve", name="cat").status_code == 403
    assert host_do(live, tid, ann, action="approve", name="cat").json()["done"] == "approved"
    members = live.http.get(f"/api/tables/{tid}").json()["state"]["members"]
    assert [(m["name"], m["box"], m["balance"]) for m in members] == [("ann", 1, "100"), ("cat", 3, "50")]
    # paused: no round is dealt; resumed: it is
    assert host_do(live, tid, ann, action="pause").json()["done"] == "paused"
    a = live.ws(tid, ann)
    a.wait_state(lambda s: s["paused"] is True)
    a.send({"type": "bet", "kind": "main", "amount": "10"})
    a.send({"type": "deal"})
    assert "paused" in a.error()
    assert host_do(live, tid, ann, action="resume").json()["done"] == "resumed"
    a.send({"type": "deal"})
    a.wait_state(lambda s: s["phase"] == "play")
    # closed by the host: everyone's socket ends with the reason; the money is back in the accounts
    assert host_do(live, tid, ann, action="close").json()["done"] == "closed"
    with pytest.raises(ConnectionClosed) as closed:
        a.until(lambda m: False, timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4410
    assert "the host (ann) closed this table" in closed.value.rcvd.reason
    assert tid not in live.srv.lobby.tables
    assert live.balance("cat", cat)["balance"] == "1000"  # no wager: her buy-in back whole
    ann_now = live.balance("ann", ann)
    assert ann_now["at_tables"] == "0" and abs(Decimal(ann_now["balance"]) - 1000) <= 30  # the round's result


@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"])
def test_a_lone_player_and_exact_strategy_bots_at_every_casino_preset(live: LiveServer, preset: str) -> None:
    ann = live.account("ann")
    tid = live.table(preset=preset, seed=5)  # made without a session: the first to join hosts it
    seat = live.join(tid, ann, box=1, buy_in="200")
    r = host_do(live, tid, ann, action="add_bot")
    assert r.status_code == 200, r.text
    bot = r.json()["bots"][0]
    assert bot.startswith("bot-")
    c = live.ws(tid, seat)
    c.wait_state(lambda s: s["host"] == "ann")
    st = c.state
    assert st["shoe"]["cards_left"] is None and st["shoe"]["size"] > 0  # no shoe before round 1
    st = play_alone(live, c, 3, british=False)
    size = st["shoe"]["size"]
    assert st["shoe"]["number"] == 1 and 0 < st["shoe"]["cards_left"] < size  # the undealt cards
    for h in st["history"]:
        assert bot in h["net"]  # the bot wagered and played every round
    assert any(f"seat={bot}" in s or f"player={bot}" in s or bot in s for s in st["history"][-1]["steps"])
    assert st["history_store"] is False  # --memory: the page reads the socket's history (no 404s)
    nets = sum((Decimal(n["total"]) for h in st["history"] for n in h["net"].values()), Decimal(0))
    assert live.total_money() == Decimal(2000) + nets  # ann's and the bot account's 1000, plus the rounds


def test_a_casino_bot_plays_the_exact_verb_from_its_own_view() -> None:
    from pontoon.analysis.hints import best_action
    from pontoon.analysis.seat_view import view_hint
    from pontoon.casino.seats import shown_before
    from pontoon.casino.table import CasinoTable
    from pontoon.rules import find_rules
    from pontoon.web.bots import casino_decision

    rules = find_rules("mbs")
    checked = 0
    for seed in range(40):
        t = CasinoTable(rules, rng=seed)
        t.join("bot-1", Decimal(100))
        t.new_round()
        t.place_bet(1, "bot-1", "main", rules.table_min)
        t.deal()
        rnd = t.round
        assert rnd is not None
        if not t.in_round or rnd.is_over() or rnd.to_act() != "bot-1":
            continue
        view = rnd.view("bot-1")
        a = casino_decision(rules, view, shown_before(rnd), rnd.legal_actions("bot-1"))
        values = view_hint(rules, view, shown_before(rnd))
        if values:
            assert a.verb == best_action(values)
            checked += 1
    assert checked >= 20


@pytest.mark.parametrize("preset", ["british", "shoot"])
def test_british_and_shoot_alone_against_bots(live: LiveServer, preset: str) -> None:
    ann = live.account("ann")
    tid = made_by(live, ann, preset=preset, seats=3, seed=7)
    seat = live.join(tid, ann, buy_in="300")
    c = live.ws(tid, seat)
    c.wait_state(lambda s: s["phase"] == "waiting")
    assert c.state["bot_levels"] == [
        "simple",
        "house",
        "solved",
        "best",
    ]  # a solution is shipped for the preset
    r = host_do(live, tid, ann, action="add_bot", level="expert")
    assert r.status_code == 400 and "accepted simple, house, solved" in r.json()["detail"], r.text
    r = host_do(live, tid, ann, action="fill_bots", level="solved")  # the British analysis's solution
    assert r.status_code == 200 and len(r.json()["bots"]) == 2, r.text
    st = play_alone(live, c, 3, british=True)
    assert len({m["name"] for m in st["members"] if m["bot"]}) == 2
    assert all(set(h["net"]) == {m["name"] for m in st["members"]} for h in st["history"])
    shown = [h for h in (st["round"] or {}).get("hands", []) if h["owner"] == "ann"]
    assert all(h["total"] is not None for h in shown)  # his own hand's total from his view
    c.wait_state(lambda s: s["phase"] == "play")  # the next round at once (no result pause here)
    assert host_do(live, tid, ann, action="pause").status_code == 200  # the bots wait: the round stays open
    r = live.http.post(f"/api/tables/{tid}/leave", headers=bearer(ann))
    note = r.json()["note"]  # held by the round in play: the British document, never casino 004 5.3
    assert r.json()["left"] is False and "003" in note and "004" not in note


def test_british_results_stay_on_the_felt_for_the_pause(make_live: Any) -> None:
    live = make_live(dataclasses.replace(FAST, result_pause_s=1.0))
    ann = live.account("ann")
    tid = made_by(live, ann, preset="british", seats=2, seed=9)
    c = live.ws(tid, live.join(tid, ann, buy_in="300"))
    host_do(live, tid, ann, action="add_bot")
    c.wait_state(lambda s: s["phase"] in ("play", "kitty"))
    end = time.monotonic() + 30
    while c.state.get("phase") != "result":
        assert time.monotonic() < end
        pick = british_choice(c.state) if c.state.get("phase") == "play" else None
        if pick is not None:
            c.send(pick)
        c.recv(5)
    shown = c.state
    assert shown["round"] is not None and shown["round"]["banker_total"] is not None
    t0 = time.monotonic()
    c.wait_state(lambda s: s["phase"] == "play", timeout=10)
    assert time.monotonic() - t0 >= 0.5  # the next round waited for the pause


def test_chat_is_data_bounded_rate_limited_and_for_the_people_at_the_table(live: LiveServer) -> None:
    ann, bob = live.account("ann"), live.account("bob")
    tid = live.table(preset="mbs", seed=4)
    a = live.ws(tid, live.join(tid, ann, box=1, buy_in="50"))
    b = live.ws(tid, live.join(tid, bob, box=2, buy_in="50"))
    spy = live.ws(tid)
    for c in (a, b, spy):
        c.wait_state(lambda s: len(s["members"]) == 2)
    hostile = "<img src=x onerror=alert(1)> & <b>hi</b>"
    b.send({"type": "chat", "text": hostile})
    got = a.until(lambda m: m.get("type") == "chat")
    assert got["from"] == "bob" and got["text"] == hostile  # sent as data; the page shows it as text
    spy.send({"type": "chat", "text": "hello"})
    assert "spectators" in spy.error()
    spy.drain(0.2)
    assert not any(m.get("type") == "chat" for m in spy.received)  # spectators read no chat
    b.send({"type": "chat", "text": "x" * 201})
    assert "200" in b.error()
    for i in range(8):
        b.send({"type": "chat", "text": f"line {i}"})
    assert "chat: at most" in b.error()
    r = live.http.post(
        f"/api/tables/{tid}/messages",
        json={"message": {"type": "chat", "text": "hi"}},
        headers=bearer(bob),
    )
    assert r.status_code == 400 and "only on the WebSocket" in r.json()["detail"]


def test_serve_refuses_a_result_pause_out_of_range(capsys: pytest.CaptureFixture[str]) -> None:
    from pontoon.cli.app import run

    assert run(["serve", "--memory", "--result-pause", "99"]) == 2
    err = capsys.readouterr().err
    assert err == "error: --result-pause 99: accepted 0 to 30 seconds\n"
    assert Settings().result_pause_s == 3.0


def test_shoot_with_two_people_and_a_bot(live: LiveServer) -> None:
    from tests.web.test_british_ws import run_rounds

    ann, bob = live.account("ann"), live.account("bob")
    tid = made_by(live, ann, preset="shoot", seats=3, seed=12)
    a = live.ws(tid, live.join(tid, ann, buy_in="300"))
    b = live.ws(tid, live.join(tid, bob, buy_in="300"))
    r = host_do(live, tid, ann, action="add_bot")
    assert r.status_code == 200, r.text
    a.wait_state(lambda s: s["phase"] != "waiting")
    run_rounds(live, [a, b], 3)
    st = a.state
    assert {m["name"] for m in st["members"]} == {"ann", "bob", r.json()["bots"][0]}
    assert all(len(h["net"]) == 3 for h in st["history"])


def test_the_felt_says_when_the_timer_acted_for_someone(make_live: Any) -> None:
    live = make_live(dataclasses.replace(FAST, turn_timeout_s=0.3))
    ann, bob = live.account("ann"), live.account("bob")
    tid = live.table(preset="mbs", seed=6)
    a = live.ws(tid, live.join(tid, ann, box=1, buy_in="100"))
    b = live.ws(tid, live.join(tid, bob, box=2, buy_in="100"))
    for c in (a, b):
        c.send({"type": "bet", "kind": "main", "amount": "10"})
    st = b.wait_state(lambda s: bool(s.get("note")), timeout=10)  # nobody acts: the timer stands
    assert st["note"].startswith("time ran out: the server stood for ")
    assert re.fullmatch(r"(soft )?\d+( showing)?", st["dealer_total"] or "")  # the dealer's face-up total


@pytest.mark.parametrize("preset", ["mbs", "shoot"])
def test_bots_with_the_history_store_survive_a_restart(make_live: Any, tmp_path: Any, preset: str) -> None:
    from pontoon.history import open_store
    from pontoon.history.audit import audit
    from pontoon.web.store_persistence import StorePersistence

    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    ann = a.account("ann")
    british = preset == "shoot"
    tid = made_by(a, ann, preset=preset, seed=8, **({"seats": 2} if british else {}))
    c = a.ws(tid, a.join(tid, ann, buy_in="300", **({} if british else {"box": 1})))
    assert host_do(a, tid, ann, action="add_bot").status_code == 200
    st = play_alone(a, c, 2, british=british)
    assert st["history_store"] is True
    c.close()
    a.stop()
    store_a.close()
    store_b = open_store(url)
    b = make_live(FAST, StorePersistence(store_b))
    members = {m["name"]: m["bot"] for m in b.http.get(f"/api/tables/{tid}").json()["state"]["members"]}
    assert members == {"ann": False, "bot-1": True}  # the bot is still a bot after the restart
    assert audit(store_b)["integrity"] == "ok"


def test_hostile_host_messages_get_one_line_4xx_and_never_move_money(live: LiveServer) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as hs

    ann, bob = live.account("ann"), live.account("bob")
    tid = made_by(live, ann, preset="mbs", seed=13)
    live.join(tid, ann, box=1, buy_in="100")
    live.join(tid, bob, box=2, buy_in="100")
    value = hs.one_of(
        hs.none(),
        hs.booleans(),
        hs.integers(-5, 1000),
        hs.floats(allow_nan=False, allow_infinity=False),
        hs.text(max_size=300),
    )
    msg = hs.fixed_dictionaries(
        {"action": hs.sampled_from(["kick", "approve", "settings", "add_bot", "remove_bot", "nope", ""])},
        optional={
            k: value for k in ("name", "reason", "allow", "box", "level", "turn_timeout_s", "approval")
        },
    )

    def people() -> Decimal:  # the people's money (a bot's new account brings its own start balance)
        lobby, host = live.srv.lobby, live.srv.lobby.tables[tid]
        return sum(
            (lobby.accounts[n] + (host.balance(n) if n in host.members else 0) for n in ("ann", "bob")),
            Decimal(0),
        )

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(msg=msg, as_host=hs.booleans())
    def check(msg: dict[str, Any], as_host: bool) -> None:
        before = people()
        r = host_do(live, tid, ann if as_host else bob, **msg)
        assert r.status_code < 500, r.text
        if r.status_code >= 400:
            detail = r.json()["detail"]
            assert isinstance(detail, str) and "\n" not in detail and len(detail) <= 500
        if not as_host and msg["action"] not in ("add_bot", "remove_bot"):
            assert r.status_code in (403, 422), r.text
        assert people() == before  # no round is played here: a kick pays back, nothing else moves

    check()
