"""British Pontoon through a real server: several WebSocket clients on one table and a spectator.

No client ever receives another seat's hidden card: at every state version each client's view of the
hands it does not hold (and of the banker's cards, unless it is the banker) equals the spectator's view
of them at the same version, the round history of another's bought card never names the card, and
no message ever carries the log's ``draw`` events. All clients see the same public state.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from tests.web.conftest import Client, LiveServer
from tests.web.play import british_choice


def run_rounds(live: LiveServer, clients: list[Client], rounds: int, spectator: Client | None = None) -> None:
    everyone = clients + ([spectator] if spectator else [])
    for _ in range(2000):
        for c in everyone:
            c.drain(0.03)
        if len(clients[0].state.get("history", [])) >= rounds:
            return
        acted = False
        for c in clients:
            pick = british_choice(c.state)
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
                acted = True
        if not acted:
            for c in everyone:
                c.drain(0.1)
    raise AssertionError("the rounds did not finish")


def public_of(state: dict[str, Any], viewer: str | None) -> dict[str, Any]:
    rnd = state.get("round") or {}
    hands = {(h["owner"], h["hand"]): h for h in rnd.get("hands", []) if h["owner"] != viewer}
    return {
        "phase": state.get("phase"),
        "to_act": state.get("to_act"),
        "members": state.get("members"),
        "round_phase": rnd.get("phase"),
        "hands": hands,
        "banker": state.get("banker"),
        "banker_cards": rnd.get("banker_cards") if viewer != rnd.get("banker") else None,
    }


@pytest.mark.parametrize("preset", ["british", "shoot"])
def test_three_seats_no_hidden_card_leaks(live: LiveServer, preset: str) -> None:
    tid = live.table(preset=preset, seats=3, seed=11)
    names = ["ann", "bob", "cat"]
    tokens = [live.join(tid, live.account(n), buy_in="200") for n in names]
    before = live.total_money()
    spec = live.ws(tid)
    clients = [live.ws(tid, t) for t in tokens]
    run_rounds(live, clients, 5, spec)
    for c in clients + [spec]:
        c.drain(0.2)
    by_version = {m["version"]: m for m in spec.received if m.get("type") == "state"}
    checked = 0
    for c, name in zip(clients, names, strict=True):
        for m in c.received:
            assert '"draw' not in json.dumps(m)  # the log's card-by-card record is never sent
            if m.get("type") != "state" or m["version"] not in by_version:
                continue
            s = by_version[m["version"]]
            mine, pub = public_of(m, name), public_of(s, name)
            if mine["banker_cards"] is not None and pub["banker_cards"] is not None:
                assert mine["banker_cards"] == pub["banker_cards"]
            for key, h in mine["hands"].items():
                assert h["cards"] == pub["hands"][key]["cards"], (name, key)
            assert mine["phase"] == pub["phase"] and mine["to_act"] == pub["to_act"]
            assert mine["members"] == pub["members"]
            checked += 1
            for hm, hs in zip(m["history"], s["history"], strict=True):  # steps: only his own may say more
                for a, b in zip(hm["steps"], hs["steps"], strict=True):
                    own = a.startswith(f"{name} ") or (hm.get("banker") == name and a.startswith("banker "))
                    assert a == b or own, (name, a, b)
    assert checked > 50
    # some card was hidden from the spectator during play (the first cards are dealt face down)
    assert any("??" in json.dumps(m.get("round")) for m in spec.received if m.get("type") == "state")
    # money: the seats' balances move only by the rounds' nets (and in Shoot, the kitty is the banker's)
    st = clients[0].state
    assert st["round_no"] >= 5
    total_now = live.total_money()
    kitty = Decimal(st["kitty"]) if st.get("kitty") else Decimal(0)
    assert total_now + kitty == before
    for c in clients + [spec]:
        c.close()


def test_british_out_of_turn_refused_and_spectator_cannot_act(live: LiveServer) -> None:
    tid = live.table(preset="british", seats=2, seed=5)
    ta = live.join(tid, live.account("ann"))
    tb = live.join(tid, live.account("bob"))
    ca, cb, spec = live.ws(tid, ta), live.ws(tid, tb), live.ws(tid)
    ca.until(lambda m: m.get("type") == "state" and m["phase"] == "play")
    cb.until(lambda m: m.get("type") == "state" and m["phase"] == "play")
    waiting = cb if ca.state["to_act"] == "ann" else ca
    waiting.send({"type": "act", "action": {"verb": "stake", "amount": "1"}})
    err = waiting.error()
    assert "turn" in err and "not" in err, err
    spec.send({"type": "act", "action": {"verb": "stake", "amount": "1"}})
    assert "spectators cannot act" in spec.error()
    # a third person cannot join a started two-seat game
    r = live.http.post(
        f"/api/tables/{tid}/join", json={}, headers={"Authorization": f"Bearer {live.account('cat')}"}
    )
    assert r.status_code == 400 and "full" in r.json()["detail"]
    for c in (ca, cb, spec):
        c.close()
