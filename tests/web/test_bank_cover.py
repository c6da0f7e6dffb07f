"""Rulings 33 (bank cover) through a real server: a banker who bought in for 1 faced a stake of 100
and ended at -100 while the player gained 101. The engine now refuses the stake, naming what the bank
still covers, and lists only the stakes it covers."""

from __future__ import annotations

from decimal import Decimal

from tests.web.conftest import LiveServer


def test_a_bank_of_1_refuses_a_stake_of_100(live: LiveServer) -> None:
    for attempt in range(30):  # the first banker is drawn at random (003): until the bank is the 1
        names = (f"poor{attempt}", f"rich{attempt}")
        tid = live.table(preset="british", seats=2)
        toks = {
            n: live.join(tid, live.account(n), buy_in=b) for n, b in zip(names, ("1", "500"), strict=True)
        }
        host = live.srv.lobby.tables[tid]
        if host.game_obj.banker == names[0]:
            break
    else:
        raise AssertionError("the bank never fell to the buy-in of 1")
    poor, rich = names
    before = live.total_money()
    c = live.ws(tid, toks[rich])
    st = c.wait_state(lambda m: m.get("to_act") == rich)
    assert [a["verb"] for a in st["legal"]] == ["pass"]  # no stake is covered
    c.send({"type": "act", "action": {"verb": "stake", "amount": "100"}})
    err = c.error()
    assert "covers only 0.5" in err and "rulings 33" in err, err
    c.send({"type": "act", "action": {"verb": "pass"}})
    st = c.wait_state(lambda m: len(m.get("history", [])) >= 1 or m.get("to_act") == poor, timeout=20)
    b = live.ws(tid, toks[poor])
    for _ in range(20):  # the banker finishes the round: nothing is at stake
        st = b.wait_state(lambda m: True)
        if st.get("history"):
            break
        verbs = {a["verb"] for a in st.get("legal", [])}
        if verbs:
            b.send({"type": "act", "action": {"verb": "stick" if "stick" in verbs else sorted(verbs)[0]}})
        b.drain(0.1)
    assert host.balance(poor) == Decimal(1) and host.balance(rich) == Decimal(500)
    assert all(host.balance(n) >= 0 for n in names)
    assert live.total_money() == before
    b.close()
    c.close()
