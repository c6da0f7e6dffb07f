"""A British game's close pays every seat back in ONE store transaction: SIGKILL the server
(``PONTOON_CRASH_AT``) inside that transaction (between two pay-backs), right before it and right
after it; restart on the same SQLite file: each person is paid back exactly once, the accounts are
the ledger's and sum to what they were opened with (a British game moves money only between seats),
and the audit is clean."""

from __future__ import annotations

import signal
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from pontoon.history import open_store
from pontoon.history.accounts import WebRecords, web_moves
from pontoon.history.audit import audit
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, LiveServer, bearer
from tests.web.test_serve_kill import Proc, _port

NAMES = ("ann", "bob")


def _drive(http: httpx.Client) -> dict[str, str]:
    """Two seats, one round under way; both leave: the server plays their turns by the defaults, the
    round ends and the game closes (fewer than two seats would remain), paying both back."""
    acct = {n: http.post("/api/accounts", json={"name": n}).json()["token"] for n in NAMES}
    tid = http.post("/api/tables", json={"preset": "british", "seats": 2, "seed": 3}).json()["id"]
    seat = {}
    for n in NAMES:
        r = http.post(
            f"/api/tables/{tid}/join", json={"buy_in": "200"}, headers={"Authorization": f"Bearer {acct[n]}"}
        )
        seat[n] = r.json()["token"]
    for n in NAMES:
        try:
            http.post(f"/api/tables/{tid}/leave", json={"token": seat[n]})
        except httpx.HTTPError:
            return acct  # the server killed itself inside the close
    return acct


def _close_count(tmp_path: Path) -> int:
    """The write transactions up to the end of the close, counted in-process on the same flow."""
    store = open_store(f"sqlite:///{tmp_path / 'dry.sqlite'}")
    live = LiveServer(FAST, StorePersistence(store))
    try:
        _drive(live.http)
        assert not live.srv.lobby.tables[next(iter(live.srv.lobby.tables))].members  # both paid, gone
        return int(store._crash.count)
    finally:
        live.stop()
        store.close()


def _paid(db: str) -> dict[str, list[str]]:
    store = open_store(db)
    try:
        with store.reader.connect() as conn:
            rows = conn.execute(select(web_moves.c.name, web_moves.c.reason).order_by(web_moves.c.id)).all()
        return {n: [str(r.reason) for r in rows if r.name == n] for n in NAMES}
    finally:
        store.close()


@pytest.mark.parametrize("where,back", [("inside", 1), ("after", 2), ("after", 0)])
def test_kill_in_the_close_pays_once(tmp_path: Path, where: str, back: int) -> None:
    """inside:N-1 is the close transaction between its two pay-backs; after:N-2 the commit before it
    (the fair pack's reveal); after:N the close committed."""
    n = _close_count(tmp_path) - back
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    a = Proc(db, _port(), f"{where}:{n}")
    try:
        acct = _drive(a.http)
        assert a.p.wait(20) == -signal.SIGKILL
    finally:
        a.kill()
    paid = _paid(db)
    if where == "inside" or back:
        assert paid == {
            "ann": ["buy_in"],
            "bob": ["buy_in"],
        }  # killed before the close committed: nothing paid
    b = Proc(db, _port())  # the restart finishes the close (or finds it done)
    try:
        bal = {nm: b.http.get(f"/api/accounts/{nm}", headers=bearer(acct[nm])).json() for nm in NAMES}
    finally:
        b.kill()
    assert _paid(db) == {"ann": ["buy_in", "paid_back"], "bob": ["buy_in", "paid_back"]}  # exactly once
    assert all(Decimal(bal[nm]["at_tables"]) == 0 for nm in NAMES)
    assert sum(Decimal(bal[nm]["balance"]) for nm in NAMES) == 2000
    store = open_store(db)
    try:
        assert {nm: str(v) for nm, v in WebRecords(store).balances().items()} == {
            nm: bal[nm]["balance"] for nm in NAMES
        }
        assert audit(store)["integrity"] == "ok"
        assert all(t["status"] == "closed" for t in store.tables_(label="web"))
    finally:
        store.close()


def _drive3(http: httpx.Client) -> dict[str, str]:
    """Three seats; all three leave during the first round: the server plays it out, then between
    rounds ann (first at the table) leaves alone with her pay-back while two remain, then the game
    closes paying bob and cat."""
    names = ("ann", "bob", "cat")
    acct = {n: http.post("/api/accounts", json={"name": n}).json()["token"] for n in names}
    tid = http.post("/api/tables", json={"preset": "british", "seats": 3, "seed": 8}).json()["id"]
    seat = {
        n: http.post(
            f"/api/tables/{tid}/join", json={"buy_in": "200"}, headers={"Authorization": f"Bearer {acct[n]}"}
        ).json()["token"]
        for n in names
    }
    for n in ("cat", "bob", "ann"):
        try:
            http.post(f"/api/tables/{tid}/leave", json={"token": seat[n]})
        except httpx.HTTPError:
            return acct
    return acct


def test_kill_between_a_seat_leaving_and_its_pay_back(tmp_path: Path) -> None:
    """SIGKILL inside the transaction of ann's pay-back, after the game committed her ``seat_leaves``:
    the restart finds her no longer seated in the recovered game and pays her buy-in plus the net the
    game recorded, once; the game then closes and pays the other two, once each."""
    store = open_store(f"sqlite:///{tmp_path / 'dry.sqlite'}")
    live = LiveServer(FAST, StorePersistence(store))
    try:
        _drive3(live.http)
        end = int(store._crash.count)
    finally:
        live.stop()
        store.close()
    # the last transactions: ann's pay-back, the fair pack's reveal, then the close's two pay-backs
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    a = Proc(db, _port(), f"inside:{end - 3}")
    try:
        acct = _drive3(a.http)
        assert a.p.wait(20) == -signal.SIGKILL
    finally:
        a.kill()
    names = ("ann", "bob", "cat")
    st = open_store(db)
    try:
        (tid,) = [int(t["id"]) for t in st.tables_(label="web")]
        left = [e["data"] for e in st.events_(tid) if e["kind"] == "seat_leaves"]
        assert [d["seat"] for d in left] == ["ann"]  # committed
        assert (
            Decimal(left[0]["net"]) != 0
        )  # (this seed: she won or lost in round 1, so a wrong pay-back shows)
    finally:
        st.close()
    with_moves = _paid3(db)
    assert with_moves == {n: ["buy_in"] for n in names}  # ... and her pay-back was not
    b = Proc(db, _port())
    try:
        bal = {nm: b.http.get(f"/api/accounts/{nm}", headers=bearer(acct[nm])).json() for nm in names}
    finally:
        b.kill()
    assert _paid3(db) == {n: ["buy_in", "paid_back"] for n in names}  # each exactly once
    assert sum(Decimal(bal[nm]["balance"]) for nm in names) == 3000
    assert all(Decimal(bal[nm]["at_tables"]) == 0 for nm in names)
    st = open_store(db)
    try:
        assert {nm: str(v) for nm, v in WebRecords(st).balances().items()} == {
            nm: bal[nm]["balance"] for nm in names
        }
        assert audit(st)["integrity"] == "ok"
    finally:
        st.close()


def _paid3(db: str) -> dict[str, list[str]]:
    store = open_store(db)
    try:
        with store.reader.connect() as conn:
            rows = conn.execute(select(web_moves.c.name, web_moves.c.reason).order_by(web_moves.c.id)).all()
        return {n: [str(r.reason) for r in rows if r.name == n] for n in ("ann", "bob", "cat")}
    finally:
        store.close()
