"""A casino person who joined mid-round (a next-round seat, or a standing bettor on a box whose round
is under way) is restored after a restart, still pending, with his buy-in still out of his account;
he sits down when the round ends (the deposit then booked in the ledger) and no money is lost or
doubled."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST
from tests.web.play import casino_choice


def test_pending_casino_joiners_survive_a_restart(make_live: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    tid = a.table(preset="mbs", seed=17)
    acct = {n: a.account(n) for n in ("ann", "carl", "dan")}
    ta = a.join(tid, acct["ann"], box=1, buy_in="300")
    ca = a.ws(tid, ta)
    ca.send({"type": "bet", "amount": "10"})
    ca.wait_state(lambda m: m["phase"] == "play")
    tc = a.join(tid, acct["carl"], box=2, buy_in="100")  # mid-round: a seat from the next round
    td = a.join(tid, acct["dan"], stand_on=1, buy_in="50")  # mid-round: standing behind box 1
    host = a.srv.lobby.tables[tid]
    assert host.members["carl"].pending and host.members["dan"].pending
    money = a.total_money()
    assert a.srv.lobby.accounts["carl"] == 900 and a.srv.lobby.accounts["dan"] == 950
    ca.close()
    a.stop()
    store_a.close()

    store_b = open_store(url)
    b = make_live(FAST, StorePersistence(store_b))
    host = b.srv.lobby.tables[tid]
    assert host.members["carl"].pending and host.members["carl"].box == 2
    assert host.members["dan"].pending and host.members["dan"].role == "standing"
    assert b.total_money() == money
    got = b.balance("carl", acct["carl"])  # the session survives the restart (the store)
    assert (got["balance"], got["at_tables"]) == ("900", "100")
    ca, cc, cd = b.ws(tid, ta), b.ws(tid, tc), b.ws(tid, td)
    ca.wait_state(lambda m: m["you"] == "ann")
    while ca.state["phase"] == "play":
        pick = casino_choice(ca.state)
        if pick is not None:
            ca.send({"type": "act", "action": pick})
            ca.until(lambda m: m.get("type") in ("state", "error"))
        ca.drain(0.05)
    st = cc.wait_state(lambda m: m["phase"] == "betting" and not any(x["pending"] for x in m["members"]))
    assert {m["name"]: (m["role"], m["box"]) for m in st["members"]} == {
        "ann": ("seated", 1),
        "carl": ("seated", 2),
        "dan": ("standing", 1),
    }
    assert set(host.table.seats()) >= {"carl", "dan"}
    net = ca.state["history"][-1]["net"]
    assert b.total_money() == 3000 + sum(Decimal(v["total"]) for v in net.values())
    # the sit-downs are the ledger's deposits now: the live balances equal the store's
    assert b.srv.lobby.accounts == StorePersistence(store_b).load_accounts()
    for c in (ca, cc, cd):
        c.close()
    assert audit(store_b)["integrity"] == "ok"
