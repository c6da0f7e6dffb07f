"""Casino play end to end through a real uvicorn server: REST to join, one WebSocket per person."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.web.conftest import Client, LiveServer


def _mine(c: Client) -> bool:
    return c.state.get("phase") == "play" and c.state.get("to_act") == c.state.get("you")


def play_round(clients: list[Client], bet: str = "10") -> None:
    """Every client bets, then each plays its hands (stand on 17+, else hit) until the round is booked."""
    start = clients[0].state.get("round_no", 0)
    for c in clients:
        c.send({"type": "bet", "kind": "main", "amount": bet})
    while True:
        for c in clients:
            c.drain(0.05)
        st = clients[0].state
        if st.get("phase") == "betting" and st.get("round_no", 0) > start:
            return
        for c in clients:
            if _mine(c):
                legal = c.state["legal"]
                hand = c.state["round"]["hand_to_act"]
                box = next(b for b in c.state["round"]["boxes"] if b["box"] == hand["box"])
                total = box["hands"][hand["hand"] - 1 if hand["hand"] >= 1 else 0]["total"]
                verbs = {a["verb"]: a for a in legal if a.get("box") == hand["box"]}
                pick = (
                    "hit"
                    if total < 17 and "hit" in verbs
                    else ("stand" if "stand" in verbs else next(iter(verbs)))
                )
                a = dict(verbs[pick])
                a.pop("low", None), a.pop("high", None)
                c.send({"type": "act", "action": a})
                c.until(lambda m: m.get("type") in ("state", "error"))


def test_two_players_play_casino_rounds_money_conserved(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=7)
    ann, bob = live.account("ann"), live.account("bob")
    ta = live.join(tid, ann, box=1, buy_in="500")
    tb = live.join(tid, bob, box=3, buy_in="300")
    before = live.total_money()
    assert before == Decimal(2000)
    ca, cb = live.ws(tid, ta), live.ws(tid, tb)
    ca.until(lambda m: m.get("type") == "state")
    cb.until(lambda m: m.get("type") == "state")
    for _ in range(4):
        play_round([ca, cb])
    st = ca.state
    assert st["round_no"] == 4 and len(st["history"]) == 4
    assert all(h["steps"] for h in st["history"])
    # balances: each table balance moved by exactly its rounds' nets
    net = {"ann": Decimal(0), "bob": Decimal(0)}
    for h in st["history"]:
        for p, d in h["net"].items():
            net[p] += Decimal(d["total"])
    bal = {m["name"]: Decimal(m["balance"]) for m in st["members"]}
    assert bal == {"ann": 500 + net["ann"], "bob": 300 + net["bob"]}
    assert live.total_money() == before + sum(net.values(), Decimal(0))  # the house's side of each round
    r = live.http.post(f"/api/tables/{tid}/leave", json={"token": ta})
    assert r.json()["left"] is True and Decimal(r.json()["returned"]) == bal["ann"]
    assert Decimal(live.balance("ann", ann)["balance"]) == 500 + bal["ann"]
    ca.close()
    cb.close()


def test_out_of_turn_and_foreign_box_refused(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=3)
    ta = live.join(tid, live.account("ann"), box=1)
    tb = live.join(tid, live.account("bob"), box=2)
    ca, cb = live.ws(tid, ta), live.ws(tid, tb)
    ca.send({"type": "bet", "amount": "10"})
    cb.send({"type": "bet", "amount": "10"})
    cb.until(lambda m: m.get("type") == "state" and m["phase"] == "play")
    st = cb.state
    waiting, other_box = (cb, 1) if st["to_act"] == "ann" else (ca, 2)  # the one whose turn it is not
    me_box = 3 - other_box
    waiting.send({"type": "act", "action": {"verb": "stand", "box": other_box}})
    assert f"box {other_box} is played by its seated bettor" in waiting.error()
    waiting.send({"type": "act", "action": {"verb": "hit", "box": me_box}})
    assert "illegal action" in waiting.error()
    ca.close()
    cb.close()


def test_blackjack_hole_card_hidden_and_public_state_shared(live: LiveServer) -> None:
    """Three clients and a spectator: the same public round at every version, the hole card hidden
    while hands are to play, and never a card to come (no message names more cards than were dealt)."""
    import json

    from tests.web.play import casino_choice

    tid = live.table(preset="blackjack", seed=21)
    toks = [
        live.join(tid, live.account(n), box=b, buy_in="300") for n, b in (("ann", 1), ("bob", 2), ("cat", 4))
    ]
    spec = live.ws(tid)
    cs = [live.ws(tid, t) for t in toks]
    for c in cs:
        c.send({"type": "bet", "amount": "10"})
    rounds_seen = 0
    for _ in range(3000):
        for c in cs + [spec]:
            c.drain(0.03)
        rounds_seen = len(spec.state.get("history", []))
        if rounds_seen >= 3:
            break
        for c in cs:
            pick = casino_choice(c.state)
            if pick is not None:
                c.send({"type": "act", "action": pick})
                c.until(lambda m: m.get("type") in ("state", "error"))
            elif c.state.get("phase") == "betting" and not c.state["bets"].get(c.state["you"]):
                c.send({"type": "bet", "amount": "10"})
                c.until(lambda m: m.get("type") in ("state", "error"))
    assert rounds_seen >= 3
    by_version = {m["version"]: m for m in spec.received if m.get("type") == "state"}
    hidden_seen = 0
    for c in cs:
        for m in c.received:
            if m.get("type") != "state" or m["version"] not in by_version or m["round"] is None:
                continue
            pub = dict(by_version[m["version"]]["round"])
            mine = dict(m["round"])
            for k in ("seat", "spectator", "legal_actions"):
                pub.pop(k), mine.pop(k)
            assert mine == pub
            if (
                m["phase"] == "play"
                and m["round"]["hand_to_act"] is not None
                and len(m["round"]["dealer"]) == 2
            ):
                assert m["round"]["dealer"][1] == "??"
                hidden_seen += 1
            text = json.dumps(m)
            assert "remaining" not in text and "cards_to_come" not in text
    assert hidden_seen > 0
    for c in cs + [spec]:
        c.close()


def test_exact_ev_hints_for_the_hand_to_act(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=12)
    ta = live.join(tid, live.account("ann"), box=1)
    tb = live.join(tid, live.account("bob"), box=2)
    ca, cb = live.ws(tid, ta), live.ws(tid, tb)
    ca.send({"type": "bet", "amount": "10"})
    cb.send({"type": "bet", "amount": "10"})
    st = ca.wait_state(lambda m: m["phase"] == "play")
    me, other = (ca, cb) if st["to_act"] == "ann" else (cb, ca)
    other.send({"type": "hints"})
    assert "not your hand" in other.error()
    me.send({"type": "hints"})
    h = me.until(lambda m: m.get("type") == "hints", timeout=120)
    box = me.state["round"]["hand_to_act"]["box"]
    listed = {a["verb"] for a in me.state["legal"] if a.get("box") == box} & {
        "hit",
        "stand",
        "double",
        "split",
        "surrender",
    }
    assert set(h["values"]) == listed and "stand" in listed
    assert all(v is None or -2.0 <= v <= 2.0 for v in h["values"].values())
    ca.close()
    cb.close()


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"])
def test_every_casino_preset_to_the_end_of_a_shoe(make_live, preset: str) -> None:
    """Two players play until the cut card has come out and the next shoe is in use."""
    from dataclasses import replace

    from tests.web.conftest import FAST
    from tests.web.play import casino_choice

    live = make_live(replace(FAST, history_rounds=500))  # every round's net stays in the window
    tid = live.table(preset=preset, seed=31)
    cs = [
        live.ws(tid, live.join(tid, live.account(n), box=b, buy_in="1000"))
        for n, b in (("ann", 1), ("bob", 2))
    ]
    before = live.total_money()
    host = live.srv.lobby.tables[tid]
    for _ in range(20_000):
        if host.table.shoes_used >= 2:
            break
        for c in cs:
            c.drain(0.01)
            st = c.state
            pick = casino_choice(st) if st else None
            if pick is not None:
                c.send({"type": "act", "action": pick})
                c.until(lambda m: m.get("type") in ("state", "error"))
            elif st and st["phase"] == "betting" and st["you"] not in st["bets"]:
                c.send({"type": "bet", "amount": "10"})
                c.until(lambda m: m.get("type") in ("state", "error"))
    assert host.table.shoes_used >= 2 and host.table.rounds_played > 10
    nets = sum((Decimal(h["net"][p]["total"]) for h in host.table.window for p in h["net"]), Decimal(0))
    assert host.table.rounds_played == len(host.table.window)  # the window holds every round played here
    open_round = (
        sum(host.table.round.ledger.balances[n] for n in ("ann", "bob")) if host.table.in_round else 0
    )
    assert live.total_money() == before + nets + open_round
    for c in cs:
        c.close()


def test_standing_bettor_wagers_after_the_seated_and_never_plays_the_box(live: LiveServer) -> None:
    """004 3.3: the box is played by its seated bettor; a standing bettor's wager waits for his."""
    tid = live.table(preset="mbs", seed=40)
    ta = live.join(tid, live.account("ann"), box=2, buy_in="200")
    tc = live.join(tid, live.account("cat"), stand_on=2, buy_in="200")
    r = live.http.post(
        f"/api/tables/{tid}/join",
        json={"stand_on": 5},
        headers={"Authorization": f"Bearer {live.account('dan')}"},
    )
    assert r.status_code == 400 and "nobody sits at box 5" in r.json()["detail"]
    ca, cc = live.ws(tid, ta), live.ws(tid, tc)
    cc.send({"type": "bet", "amount": "10"})
    assert "seated bettor's main wager comes first" in cc.error()
    ca.send({"type": "bet", "amount": "10"})
    ca.wait_state(lambda m: "ann" in m["bets"])
    cc.send({"type": "bet", "amount": "20"})  # everyone present has bet: dealt
    st = cc.wait_state(lambda m: m["phase"] == "play")
    box = st["round"]["boxes"][0]
    assert box["seated"] == "ann" and [b["player"] for b in box["bettors"]] == ["ann", "cat"]
    assert not [a for a in st["legal"] if a["verb"] in ("hit", "stand")]  # cat never plays the box
    if st["to_act"] == "ann":
        cc.send({"type": "act", "action": {"verb": "stand", "box": 2}})
        assert "played by its seated bettor ann" in cc.error()
    ca.close()
    cc.close()
