"""British seats during a game, through a real server on loopback: a person joins a running game (dealt
in from the next round, his buy-in out of his account at once), a person leaves between rounds with
his buy-in plus net while two or more remain (a leaving banker passes the bank to his left), the bank
is sold at an agreed price (003 The New Deal) and a Shoot kitty topped up (003 Shoot), all with money
conserved: every account plus every seat's balance (plus the kitty, the banker's money) is constant."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.history.accounts import WebRecords
from pontoon.history.audit import audit
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, Client, LiveServer
from tests.web.play import british_choice


def _play(clients: list[Client], stop: Any, limit: int = 400) -> None:
    """Play the British policy on every client until ``stop()``."""
    for _ in range(limit):
        for c in clients:
            c.drain(0.02)
        if stop():
            return
        acted = False
        for c in clients:
            pick = british_choice(c.state)
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
                acted = True
        if not acted:
            for c in clients:
                c.drain(0.1)
    raise AssertionError(f"not reached; last state {clients[0].state}")


def _kitty(live: LiveServer, tid: str) -> Decimal:
    g = live.srv.lobby.tables[tid].game_obj
    return Decimal(0) if g is None else g.kitty


def _leave(live: LiveServer, tid: str, token: str) -> dict[str, Any]:
    r = live.http.post(f"/api/tables/{tid}/leave", json={"token": token})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_join_and_leave_a_running_game_banker_passes(live: LiveServer) -> None:
    tid = live.table(preset="british", seats=3, seed=21)
    names = ["ann", "bob", "cat"]
    acct = {n: live.account(n) for n in names + ["dan"]}
    tok = {n: live.join(tid, acct[n], buy_in="200") for n in names}
    start = live.total_money()
    cs = {n: live.ws(tid, tok[n]) for n in names}
    host = live.srv.lobby.tables[tid]
    _play(list(cs.values()), lambda: len(cs["ann"].state.get("history", [])) >= 1)
    # the table is full: dan cannot join; once a seat is given up he can
    r = live.http.post(
        f"/api/tables/{tid}/join", json={"buy_in": "150"}, headers={"Authorization": f"Bearer {acct['dan']}"}
    )
    assert r.status_code == 400 and "full" in r.json()["detail"]
    player = next(n for n in names if n != host.game_obj.banker)
    out = _leave(live, tid, tok[player])
    if out.get("left"):  # a point between rounds: gone at once
        assert player not in host.members
    cs[player].close()
    rest = [n for n in names if n != player]
    _play([cs[n] for n in rest], lambda: player not in host.members)
    assert player not in host.game_obj.seats and len(host.game_obj.seats) == 2  # the game goes on with two
    assert live.srv.lobby.accounts[player] == 1000 - 200 + host.game_obj.left[player] + 200
    assert live.total_money() + _kitty(live, tid) == start
    # dan joins the running game: his buy-in leaves his account now; he is dealt in from the next round
    tok["dan"] = live.join(tid, acct["dan"], buy_in="150")
    assert live.srv.lobby.accounts["dan"] == 850
    cs["dan"] = live.ws(tid, tok["dan"])
    st = cs["dan"].wait_state(lambda m: m["you"] == "dan")
    me = next(m for m in st["members"] if m["name"] == "dan")
    assert me["balance"] == "150"
    everyone = [cs[n] for n in rest + ["dan"]]
    _play(
        everyone,
        lambda: (
            "dan" in host.game_obj.seats
            and host.game_obj.rounds_played >= 1
            and any(h["owner"] == "dan" for h in (cs["dan"].state.get("round") or {}).get("hands", []))
        ),
    )
    assert live.total_money() + _kitty(live, tid) == start  # dan was counted from the start (his account)
    # the banker leaves between rounds: the bank passes to the player on his left; the game goes on
    banker = host.game_obj.banker
    left_of = host.game_obj.players[0]
    _leave(live, tid, tok[banker])
    cs[banker].close()
    stay = [n for n in rest + ["dan"] if n != banker]
    _play([cs[n] for n in stay], lambda: banker not in host.members)
    g = host.game_obj
    assert g is not None and g.banker == left_of and sorted(g.seats) == sorted(stay)
    assert any(e.kind == "bank_passes" and e.data["old"] == banker for e in g.log.events)
    assert live.total_money() + _kitty(live, tid) == start
    _play([cs[n] for n in stay], lambda: g.rounds_played >= 4)  # two seats still play on
    for c in cs.values():
        c.close()


def test_sell_the_bank_and_top_up_the_kitty(live: LiveServer) -> None:
    tid = live.table(preset="shoot", seats=2, seed=8)
    tok = {n: live.join(tid, live.account(n), buy_in="300") for n in ("ann", "bob")}
    start = live.total_money()
    cs = {n: live.ws(tid, tok[n]) for n in tok}
    host = live.srv.lobby.tables[tid]
    _play(
        list(cs.values()),
        lambda: host.game_obj is not None and host.game_obj.round is not None and host.game_obj.kitty > 0,
    )
    g = host.game_obj
    banker = g.banker
    other = next(n for n in tok if n != banker)
    for c in cs.values():
        c.drain(0.1)
    assert {"sell_bank", "top_up"} <= {a["verb"] for a in cs[banker].state["legal"]}
    # refusals: only the banker sells or tops up; a player buys only what is offered, at its price
    cs[other].send({"type": "sell_bank", "buyer": banker, "price": "5"})
    assert "only the banker" in cs[other].error()
    cs[other].send({"type": "buy_bank", "price": "5"})
    assert "not offered" in cs[other].error()
    cs[other].send({"type": "top_up", "amount": "5"})
    assert "only the banker" in cs[other].error()
    for _ in range(5):  # top up (a Pontoon may pass the bank first: then the new banker tries)
        _play(list(cs.values()), lambda: g.round is not None and g.kitty > 0)  # not waiting for a new kitty
        banker = g.banker
        cs[banker].send({"type": "top_up", "amount": "3"})
        got = cs[banker].until(
            lambda m: m.get("type") == "error" or (m.get("type") == "state" and m["top_up"] == "3")
        )
        assert got["type"] == "state", got
        _play(
            list(cs.values()),
            lambda b=banker: any(e.kind == "kitty_top_up" for e in g.log.events) or g.banker != b,
        )
        if any(e.kind == "kitty_top_up" for e in g.log.events):
            break
    other = next(n for n in tok if n != g.banker)
    assert live.total_money() + _kitty(live, tid) == start
    cs[banker].send({"type": "sell_bank", "buyer": other, "price": "7.50"})
    offer = cs[other].wait_state(lambda m: any(a["verb"] == "buy_bank" for a in m["legal"]))
    assert offer["bank_offer"]["price"] == "7.5"
    cs[other].send({"type": "buy_bank", "price": "7"})
    assert "asking price is 7.5" in cs[other].error()
    cs[other].send({"type": "buy_bank", "price": "7.50"})
    _play(list(cs.values()), lambda: host.game_obj.banker == other)
    kinds = [(e.kind, dict(e.data)) for e in g.log.events]
    ups = [d for k, d in kinds if k == "kitty_top_up"]
    assert ups and ups[0]["amount"] == "3"
    assert any(k == "bank_passes" and d["new"] == other for k, d in kinds)
    sale = [e for e in g.log.events if e.kind == "bank_passes" and "sell" in e.clause]
    assert len(sale) == 1
    # money: the sale moved 7.50 from the buyer to the seller; accounts + seats + kitty unchanged
    assert live.total_money() + _kitty(live, tid) == start
    _play(list(cs.values()), lambda: g.rounds_played >= 3)  # the new banker put up a kitty and play goes on
    assert live.total_money() + _kitty(live, tid) == start
    for c in cs.values():
        c.close()


def test_leave_and_join_survive_a_restart(make_live: Any, tmp_path: Path) -> None:
    """A seat that joined and one that left during the game: after a restart the game has the same
    seats, the leaver was paid exactly once and the newcomer is dealt in; the accounts are the ledger's."""
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    tid = a.table(preset="british", seats=3, seed=4)
    acct = {n: a.account(n) for n in ("ann", "bob", "cat", "dan")}
    tok = {n: a.join(tid, acct[n], buy_in="100") for n in ("ann", "bob", "cat")}
    host = a.srv.lobby.tables[tid]
    cs = {n: a.ws(tid, tok[n]) for n in ("ann", "bob", "cat")}
    _play(list(cs.values()), lambda: host.game_obj.rounds_played >= 1)
    _leave(a, tid, tok["cat"])
    cs["cat"].close()
    _play([cs["ann"], cs["bob"]], lambda: "cat" not in host.members)
    tok["dan"] = a.join(tid, acct["dan"], buy_in="100")
    cs["dan"] = a.ws(tid, tok["dan"])
    _play([cs["ann"], cs["bob"], cs["dan"]], lambda: "dan" in host.game_obj.seats)
    seats = list(host.game_obj.seats)
    money = a.total_money()
    for n in ("ann", "bob", "dan"):
        cs[n].close()
    a.stop()
    store_a.close()

    store_b = open_store(url)
    b = make_live(FAST, StorePersistence(store_b))
    host = b.srv.lobby.tables[tid]
    assert list(host.game_obj.seats) == seats and sorted(host.members) == ["ann", "bob", "dan"]
    assert b.total_money() == money
    moves = [m for m in _moves(store_b) if m[0] == "cat"]
    assert [r for _, _, r in moves] == ["buy_in", "paid_back"]  # paid once
    cs = {n: b.ws(tid, tok[n]) for n in ("ann", "bob", "dan")}
    _play(
        list(cs.values()),
        lambda: (
            host.game_obj.rounds_played >= host.game_obj.rounds_played
            and any(h["owner"] == "dan" for h in (cs["dan"].state.get("round") or {}).get("hands", []))
        ),
    )
    for c in cs.values():
        c.close()
    assert b.srv.lobby.accounts == WebRecords(store_b).balances()
    assert audit(store_b)["integrity"] == "ok"


def _moves(store: Any) -> list[tuple[str, Decimal, str]]:
    from sqlalchemy import select

    from pontoon.history.accounts import web_moves

    with store.reader.connect() as conn:
        return [
            (str(r.name), Decimal(r.amount), str(r.reason))
            for r in conn.execute(select(web_moves).order_by(web_moves.c.id))
        ]


def test_bank_sale_over_rest(live: LiveServer) -> None:
    """The same messages over REST (``POST /api/tables/{id}/messages`` with the seat token): the
    banker offers the bank, the other buys it; refusals are 4xx with one line."""
    tid = live.table(preset="british", seats=2, seed=30)
    tok = {n: live.join(tid, live.account(n), buy_in="100") for n in ("ann", "bob")}
    host = live.srv.lobby.tables[tid]
    banker = host.game_obj.banker
    other = next(n for n in tok if n != banker)

    def post(who: str, message: dict[str, Any]) -> Any:
        return live.http.post(f"/api/tables/{tid}/messages", json={"token": tok[who], "message": message})

    r = post(other, {"type": "sell_bank", "price": "4"})
    assert r.status_code == 400 and "only the banker" in r.json()["detail"]
    r = live.http.post(
        f"/api/tables/{tid}/messages", json={"token": "forged.token", "message": {"type": "deal"}}
    )
    assert r.status_code == 401
    r = post(banker, {"type": "hints"})
    assert r.status_code == 400 and "only on the WebSocket" in r.json()["detail"]
    r = post(banker, {"type": "sell_bank", "price": "4", "buyer": other})
    assert r.status_code == 200 and r.json()["bank_offer"]["price"] == "4"
    r = post(other, {"type": "buy_bank", "price": "4"})
    assert r.status_code == 200 and r.json()["bank_offer"]["accepted"] == other
    before = host.balance(banker) + host.balance(other)
    cs = [live.ws(tid, tok[n]) for n in tok]
    _play(cs, lambda: host.game_obj.banker == other)
    assert any(
        e.kind == "bank_passes" and "sell" in e.clause and e.data["new"] == other
        for e in host.game_obj.log.events
    )
    assert host.balance(banker) + host.balance(other) == before == 200
    for c in cs:
        c.close()
