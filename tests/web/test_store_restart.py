"""The server on the history store (a real SQLite file): every event recorded, accounts derived from
the ledger, and a restart (a new server on the same file) rebuilds every open table: the players
reconnect with their seat tokens, see the same state and finish the round; no money lost or doubled."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST
from tests.web.play import british_choice, casino_choice


def _strip(state: dict) -> dict:
    return {
        k: v for k, v in state.items() if k not in ("version", "timer_s", "notice", "history_mark", "members")
    }


def _members(state: dict) -> list:
    return [{k: v for k, v in m.items() if k != "connected"} for m in state["members"]]


@pytest.mark.parametrize("seed", [17, None])  # None: a provably fair table with secret server seeds
def test_casino_restart_mid_round(make_live, tmp_path: Path, seed: int | None) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    tid = a.table(preset="mbs", **({} if seed is None else {"seed": seed}))
    ta = a.join(tid, a.account("ann"), box=1, buy_in="300")
    tb = a.join(tid, a.account("bob"), box=3, buy_in="200")
    a.account("cy")  # an account that never sits down
    ca, cb = a.ws(tid, ta), a.ws(tid, tb)
    ca.send({"type": "bet", "amount": "10"})
    cb.send({"type": "bet", "amount": "10"})
    ca.wait_state(lambda m: m["phase"] == "play")
    cb.wait_state(lambda m: m["phase"] == "play")
    ca.drain(0.2)
    cb.drain(0.2)
    before = {"ann": ca.state, "bob": cb.state}
    money = a.total_money()
    if seed is not None:  # this shoe has no Pontoon or 21 at the deal: the two stakes are on the layout
        assert money + 20 == 3000
    # (a secret fair shoe may pay a Pontoon at the interim settlement: the end-of-round check below
    # holds either way)
    ca.close()
    cb.close()
    a.stop()
    store_a.close()

    store_b = open_store(url)
    b = make_live(FAST, StorePersistence(store_b))
    assert tid in b.srv.lobby.tables
    assert b.total_money() == money  # accounts (derived from the ledger) plus the table's balances
    assert b.srv.lobby.accounts["cy"] == 1000
    ca, cb = b.ws(tid, ta), b.ws(tid, tb)  # the same seat tokens (the same secret)
    for c, name in ((ca, "ann"), (cb, "bob")):
        st = c.wait_state(lambda m: m["you"] is not None)
        assert _strip(st) == _strip(before[name])
        assert _members(st) == _members(before[name])
    while ca.state["round_no"] == 1 and ca.state["phase"] == "play":
        for c in (ca, cb):
            pick = casino_choice(c.state)
            if pick is not None:
                c.send({"type": "act", "action": pick})
                c.until(lambda m: m.get("type") in ("state", "error"))
            c.drain(0.05)
    net = ca.state["history"][-1]["net"]
    assert b.total_money() == 3000 + sum(Decimal(v["total"]) for v in net.values())  # 3 accounts of 1000
    r = b.http.post(f"/api/tables/{tid}/leave", json={"token": ta})
    assert r.status_code == 200 and r.json()["left"]
    ca.close()
    cb.close()
    assert audit(store_b)["integrity"] == "ok"  # audit raises naming the first discrepancy
    # the account balances are the ledger's: opening + cashier rows
    assert b.srv.lobby.accounts == StorePersistence(store_b).load_accounts()
    # REST: the table's rounds and a round's every step from the store
    rounds = b.http.get(f"/api/tables/{tid}/rounds").json()
    assert [r["round"] for r in rounds] == [1] and rounds[0]["status"] == "settled"
    detail = b.http.get(f"/api/rounds/{rounds[0]['id']}").json()
    assert detail["events"][0]["kind"] == "round_start" and any(e["kind"] == "card" for e in detail["events"])
    assert b.http.get("/api/rounds/999999").status_code == 404


def test_british_restart_mid_game(make_live, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    tid = a.table(preset="shoot", seats=2, seed=4)
    toks = [a.join(tid, a.account(n), buy_in="500") for n in ("ann", "bob")]
    cs = [a.ws(tid, t) for t in toks]
    for c in cs:
        c.wait_state(lambda m: m["phase"] != "waiting")
    for _ in range(3):
        for c in cs:
            c.drain(0.05)
            pick = british_choice(c.state)
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
    for c in cs:
        c.drain(0.2)
    seen = [c.state for c in cs]
    money = a.total_money()
    for c in cs:
        c.close()
    a.stop()
    store_a.close()

    b = make_live(FAST, StorePersistence(open_store(url)))
    assert b.total_money() == money  # accounts (opening + moves) plus buy-ins plus the game's nets
    cs = [b.ws(tid, t) for t in toks]
    for c, old in zip(cs, seen, strict=True):
        st = c.wait_state(lambda m: m["you"] is not None)
        assert _strip(st) == _strip(old)
    start = len(cs[0].state["history"])
    for _ in range(500):
        if len(cs[0].state["history"]) > start:
            break
        for c in cs:
            c.drain(0.03)
            pick = british_choice(c.state)
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
    assert len(cs[0].state["history"]) > start
    assert audit(b.srv.lobby.store.store)["integrity"] == "ok"  # conserved, balances = ledger, chain unbroken
    for c in cs:
        c.close()
