"""Two ``pontoon serve`` processes on one real PostgreSQL server, with table leases: each serves the
tables it holds (the other answers 409 / WebSocket close 4409 naming the owner); the owner of a table
is killed with SIGKILL mid-round; once its lease expires the other process takes the table over
(recovered from the store), the clients reconnect there with their seat tokens, see the state they
last saw and finish the round; no money lost or doubled."""

from __future__ import annotations

import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from pontoon.history import open_store
from pontoon.history.audit import audit
from tests.history.pg import cluster, create_db, pg_bin
from tests.web.test_serve_kill import Proc, _money, _play_until, _port, _strip, seat_and_bet

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin); run make sysdeps"
    ),
]
TTL = "2"


@pytest.fixture(scope="module")
def pg() -> Iterator[str]:
    try:
        with cluster() as base:
            yield base
    except (RuntimeError, OSError) as err:
        pytest.skip(f"cannot start a PostgreSQL cluster: {err}")


def test_two_servers_takeover(pg: str, tmp_path: Path) -> None:
    url = create_db(pg, "t_web_takeover")
    pa, pb = _port(), _port()
    a = Proc(url, pa, extra=("--lease-ttl", TTL))
    b = Proc(url, pb, extra=("--lease-ttl", TTL))
    names = ["ann", "bob"]
    try:
        toks = {n: a.http.post("/api/accounts", json={"name": n}).json()["token"] for n in names}
        t1 = a.http.post("/api/tables", json={"preset": "mbs", "seed": 3}).json()["id"]
        t2 = b.http.post("/api/tables", json={"preset": "mbs", "seed": 4}).json()["id"]
        # each serves its own tables; the other names the owner
        r = b.http.get(f"/api/tables/{t1}")
        assert r.status_code == 409 and r.json()["owner"] == f"http://127.0.0.1:{pa}"
        r = a.http.get(f"/api/tables/{t2}")
        assert r.status_code == 409 and r.json()["owner"] == f"http://127.0.0.1:{pb}"
        with pytest.raises(ConnectionClosed) as got:
            connect(f"ws://127.0.0.1:{pb}/ws/tables/{t1}", open_timeout=10).__enter__().recv(timeout=10)
        assert got.value.rcvd is not None and got.value.rcvd.code == 4409
        seat, cs = seat_and_bet(a, t1, toks, names)
        seen = {n: c.state for n, c in zip(names, cs, strict=True)}
        a.kill()  # the owner of t1 dies mid-round
        for c in cs:
            try:
                c.close()
            except Exception:
                pass
        t0 = time.monotonic()
        while b.http.get(f"/api/tables/{t1}").status_code != 200:
            assert time.monotonic() - t0 < 30, "the other process never took the table over"
            time.sleep(0.2)
        took = time.monotonic() - t0
        assert took < 3 * float(TTL) + 2
        cs = [b.ws(t1, seat[n]) for n in names]
        for n, c in zip(names, cs, strict=True):
            st = c.wait_state(lambda m: m["you"] is not None)
            assert _strip(st) == _strip(seen[n])
        _play_until(cs, lambda: cs[0].state["phase"] == "betting" and bool(cs[0].state["history"]))
        for c in cs:
            c.drain(0.2)
        assert cs[0].state["history"][-1]["status"] in ("settled", "void")
        assert _money(b, toks) == 2000 + sum(
            Decimal(v["total"]) for v in cs[0].state["history"][-1]["net"].values()
        )
        assert b.http.get(f"/api/tables/{t2}").status_code == 200  # its own table still served
        for c in cs:
            c.close()
    finally:
        a.kill()
        b.kill()
    store = open_store(url)
    try:
        assert audit(store)["integrity"] == "ok"
    finally:
        store.close()


def test_balances_and_lobby_shared_between_processes(pg: str) -> None:
    """An account's balance is read from the store (its ledger's sum): a buy-in, a round and a leave
    through process A are seen by process B at once, B refuses a buy-in the account no longer holds,
    and each process's lobby lists the other's tables with their owner and lease."""
    url = create_db(pg, "t_web_shared_balances")
    pa, pb = _port(), _port()
    a = Proc(url, pa, extra=("--lease-ttl", "30"))
    b = Proc(url, pb, extra=("--lease-ttl", "30"))
    try:
        tok = a.http.post("/api/accounts", json={"name": "ann"}).json()["token"]
        assert b.http.post("/api/accounts", json={"name": "ann"}).status_code == 409  # made through A
        assert (
            b.http.get("/api/accounts/ann", headers={"Authorization": f"Bearer {tok}"}).json()["balance"]
            == "1000"
        )
        t1 = a.http.post("/api/tables", json={"preset": "mbs", "seed": 5}).json()["id"]
        t2 = b.http.post("/api/tables", json={"preset": "mbs", "seed": 6}).json()["id"]
        seat = a.http.post(
            f"/api/tables/{t1}/join",
            json={"box": 2, "buy_in": "700"},
            headers={"Authorization": f"Bearer {tok}"},
        ).json()["token"]
        assert (
            b.http.get("/api/accounts/ann", headers={"Authorization": f"Bearer {tok}"}).json()["balance"]
            == "300"
        )  # A's buy-in, seen by B
        r = b.http.post(
            f"/api/tables/{t2}/join",
            json={"box": 1, "buy_in": "400"},
            headers={"Authorization": f"Bearer {tok}"},
        )  # the account token works on B too
        assert r.status_code == 400 and "more than the balance 300 of account ann" in r.json()["detail"]
        lobby = {t["id"]: t for t in b.http.get("/api/tables").json()}
        assert lobby[t2]["served_here"] is True
        assert lobby[t1]["served_here"] is False and lobby[t1]["owner"] == f"http://127.0.0.1:{pa}"
        assert lobby[t1]["lease_live"] is True and [m["name"] for m in lobby[t1]["members"]] == ["ann"]
        c = a.ws(t1, seat)
        c.wait_state(lambda m: m["you"] == "ann")
        c.send({"type": "bet", "amount": "10"})
        c.wait_state(lambda m: m["phase"] == "play")
        _play_until([c], lambda: c.state["phase"] == "betting" and bool(c.state["history"]))
        net = Decimal(c.state["history"][-1]["net"]["ann"]["total"])
        c.close()
        r = a.http.post(f"/api/tables/{t1}/leave", json={"token": seat})
        assert r.status_code == 200 and r.json()["left"]
        assert (
            Decimal(
                b.http.get("/api/accounts/ann", headers={"Authorization": f"Bearer {tok}"}).json()["balance"]
            )
            == 1000 + net
        )  # A's round and leave
        r = b.http.post(
            f"/api/tables/{t2}/join",
            json={"box": 1, "buy_in": "400"},
            headers={"Authorization": f"Bearer {tok}"},
        )
        assert r.status_code == 200, r.text
        assert (
            Decimal(
                a.http.get("/api/accounts/ann", headers={"Authorization": f"Bearer {tok}"}).json()["balance"]
            )
            == 600 + net
        )  # and B's, seen by A
    finally:
        a.kill()
        b.kill()
