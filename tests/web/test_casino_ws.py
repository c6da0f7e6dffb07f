"""Casino play end to end through a real uvicorn server: REST to join, one WebSocket per person."""

from __future__ import annotations

from decimal import Decimal

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
                pick = "hit" if total < 17 and "hit" in verbs else ("stand" if "stand" in verbs else next(iter(verbs)))
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
    assert Decimal(live.http.get("/api/accounts/ann").json()["balance"]) == 500 + bal["ann"]
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
