"""The recovery seam: a second server adopts a table as the history store's recovery will hand it
over (the engine table, the people's last snapshot from ``member_changed``, the accounts); the
players reconnect with their seat tokens, see the same state and finish the round; no money is lost
or doubled. (The store itself, issue 12, rebuilds the table from disk; here the table object stands
in for it, so this checks the server's half of restart and SIGKILL.)"""

from __future__ import annotations

from decimal import Decimal

from pontoon.web.british_host import BritishHost
from pontoon.web.casino_host import CasinoHost
from pontoon.web.persistence import MemoryPersistence
from tests.web.conftest import FAST
from tests.web.play import british_choice, casino_choice


def _strip(state: dict) -> dict:
    return {
        k: v for k, v in state.items() if k not in ("version", "timer_s", "notice", "history_mark", "members")
    }


def test_casino_table_adopted_mid_round(make_live) -> None:
    store_a = MemoryPersistence()
    a = make_live(FAST, store_a)
    tid = a.table(preset="mbs", seed=17)
    ta = a.join(tid, a.account("ann"), box=1, buy_in="300")
    tb = a.join(tid, a.account("bob"), box=3, buy_in="200")
    ca, cb = a.ws(tid, ta), a.ws(tid, tb)
    ca.send({"type": "bet", "amount": "10"})
    cb.send({"type": "bet", "amount": "10"})
    ca.wait_state(lambda m: m["phase"] == "play")
    cb.wait_state(lambda m: m["phase"] == "play")
    ca.drain(0.2)
    cb.drain(0.2)
    before = {"ann": ca.state, "bob": cb.state}
    money = a.total_money()
    host_a = a.srv.lobby.tables[tid]
    snapshot = store_a.members[tid][-1][1]["members"]  # the last member_changed record's snapshot
    ca.close()
    cb.close()
    a.stop()  # the first server is gone

    store_b = MemoryPersistence()
    store_b.accounts = dict(store_a.accounts)  # the accounts as the store keeps them
    b = make_live(FAST, store_b)
    b.srv.auth.backend = a.srv.auth.backend  # and the logins: the seat tokens' sessions live on
    host = CasinoHost(
        tid, host_a.title, host_a.rules, 17, b.settings, store_b, b.srv.lobby.credit, table=host_a.table
    )
    host.restore_members(snapshot)
    b.srv.lobby.adopt(host)
    assert b.total_money() == money
    ca, cb = b.ws(tid, ta), b.ws(tid, tb)  # the same seat tokens (the same secret)
    for c, name in ((ca, "ann"), (cb, "bob")):
        st = c.wait_state(lambda m: m["you"] is not None)
        assert _strip(st) == _strip(before[name])
    while ca.state["round_no"] == 1 and ca.state["phase"] == "play":
        for c in (ca, cb):
            pick = casino_choice(c.state)
            if pick is not None:
                c.send({"type": "act", "action": pick})
                c.until(lambda m: m.get("type") in ("state", "error"))
            c.drain(0.05)
    net = ca.state["history"][-1]["net"]
    assert b.total_money() == money + 20 + sum(
        Decimal(v["total"]) for v in net.values()
    )  # the stakes were out
    ca.close()
    cb.close()


def test_british_game_adopted_and_played_on(make_live) -> None:
    store_a = MemoryPersistence()
    a = make_live(FAST, store_a)
    tid = a.table(preset="shoot", seats=2, seed=4)
    toks = [a.join(tid, a.account(n)) for n in ("ann", "bob")]
    cs = [a.ws(tid, t) for t in toks]
    for c in cs:
        c.wait_state(lambda m: m["phase"] != "waiting")
    for _ in range(3):  # a few actions into the game
        for c in cs:
            c.drain(0.05)
            pick = british_choice(c.state)
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
    for c in cs:
        c.drain(0.2)
    seen = [c.state for c in cs]
    host_a = a.srv.lobby.tables[tid]
    snapshot = store_a.members[tid][-1][1]["members"]
    for c in cs:
        c.close()
    a.stop()

    store_b = MemoryPersistence()
    store_b.accounts = dict(store_a.accounts)
    b = make_live(FAST, store_b)
    b.srv.auth.backend = a.srv.auth.backend
    host = BritishHost(
        tid, host_a.title, host_a.rules, 4, 2, b.settings, store_b, b.srv.lobby.credit, game=host_a.game_obj
    )
    host.restore_members(snapshot)
    b.srv.lobby.adopt(host)
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
    assert len(cs[0].state["history"]) > start  # a round finished on the second server
    for c in cs:
        c.close()
