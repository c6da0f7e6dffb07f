"""Two ``pontoon serve`` processes on one store (issue 25 item 2): a real SQLite file, and a real
PostgreSQL server, with table leases. Each process creates and serves its own tables (the other answers
409 naming the owner, and closes a WebSocket with 4409); people play rounds on all the tables of both
processes at once, so that both group-commit writers commit into the one database at the same time.
Every client gets only answers (no error), every table books its rounds, both processes read the same
balances, the money is conserved (the accounts' balances and their money at tables, each table's read
from its owner, are what they were opened with plus the players' results), and the audit of the store
is clean (every table's hash chain, ledger and balances)."""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from pontoon.history import open_store
from pontoon.history.audit import audit
from tests.history.pg import create_db, module_cluster
from tests.web.conftest import Client
from tests.web.play import casino_choice
from tests.web.test_serve_kill import Proc, _money, _port

ROUNDS = 3
TABLES_EACH = 2


def _completed(state: dict[str, Any]) -> int:
    n = int(state.get("round_no", 0))
    return n if state.get("phase") == "betting" else n - 1


def _play(cs: list[Client], errors: list[str]) -> None:
    """Both people of a table: bet the minimum, hit below 17, stand, for ``ROUNDS`` rounds."""
    end = time.monotonic() + 90
    while time.monotonic() < end:
        if all(_completed(c.state) >= ROUNDS for c in cs):
            return
        for c in cs:
            st = c.state
            if _completed(st) >= ROUNDS:
                continue
            if st["phase"] == "betting" and st["you"] not in st["bets"]:
                msg: dict[str, Any] | None = {"type": "bet", "amount": "10"}
            else:
                pick = casino_choice(st)
                msg = None if pick is None else {"type": "act", "action": pick}
            if msg is not None:
                c.send(msg)
                got = c.until(lambda m: m.get("type") in ("state", "error"), timeout=20)
                if got.get("type") == "error":
                    errors.append(got["error"])
        for c in cs:
            c.drain(0.05)
    errors.append(f"not done in time: {[c.state.get('round_no') for c in cs]}")


def _two_servers(url: str) -> None:
    procs = [Proc(url, _port(), extra=("--lease-ttl", "30")) for _ in range(2)]
    try:
        toks: dict[str, str] = {}
        tables: list[tuple[Proc, str, list[str]]] = []
        for i, p in enumerate(procs):
            for t in range(TABLES_EACH):
                tid = p.http.post("/api/tables", json={"preset": "mbs", "seed": 10 * i + t}).json()["id"]
                names = [f"p{i}t{t}n{k}" for k in range(2)]
                for n in names:
                    toks[n] = p.http.post("/api/accounts", json={"name": n}).json()["token"]
                tables.append((p, tid, names))
        opened = sum(
            Decimal(
                procs[0]
                .http.get(f"/api/accounts/{n}", headers={"Authorization": f"Bearer {t}"})
                .json()["balance"]
            )
            for n, t in toks.items()
        )
        for p, tid, _names in tables:  # the other process names the owner
            other = procs[1] if p is procs[0] else procs[0]
            r = other.http.get(f"/api/tables/{tid}")
            assert r.status_code == 409 and r.json()["owner"] == f"http://127.0.0.1:{p.port}", r.text
            with pytest.raises(ConnectionClosed) as got:
                connect(f"ws://127.0.0.1:{other.port}/ws/tables/{tid}", open_timeout=10).__enter__().recv(
                    timeout=10
                )
            assert got.value.rcvd is not None and got.value.rcvd.code == 4409
        clients: list[list[Client]] = []
        for p, tid, names in tables:
            seats = []
            for k, n in enumerate(names):
                r = p.http.post(
                    f"/api/tables/{tid}/join",
                    json={"box": k + 1, "buy_in": "200"},
                    headers={"Authorization": f"Bearer {toks[n]}"},
                )
                assert r.status_code == 200, r.text
                seats.append(r.json()["token"])
            cs = [p.ws(tid, s) for s in seats]
            for c in cs:
                c.wait_state(lambda m: m["you"] is not None)
            clients.append(cs)
        errors: list[str] = []
        threads = [threading.Thread(target=_play, args=(cs, errors)) for cs in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors[:5]
        net = Decimal(0)
        for cs in clients:
            for c in cs:
                c.drain(0.2)
            hist = cs[0].state["history"]
            assert _completed(cs[0].state) >= ROUNDS and len(hist) >= ROUNDS
            assert all(h["status"] in ("settled", "void") for h in hist)
            assert [h["round"] for h in hist] == [h["round"] for h in cs[1].state["history"]]
            net += sum(Decimal(v["total"]) for h in hist for v in h["net"].values())
            for c in cs:
                c.close()
        # each table's people: their balances and their money at that table, read from its owner (a
        # process's ``at_tables`` counts the tables it serves); their balances read alike by the other
        held = sum((_money(p, {n: toks[n] for n in names}) for p, _tid, names in tables), Decimal(0))
        assert held == opened + net
        for n, tok in toks.items():
            seen = {
                p.http.get(f"/api/accounts/{n}", headers={"Authorization": f"Bearer {tok}"}).json()["balance"]
                for p in procs
            }
            assert len(seen) == 1, (n, seen)
    finally:
        for p in procs:
            p.kill()
    store = open_store(url)
    try:
        checked = audit(store)
        assert checked["integrity"] == "ok", checked
        assert checked["checked"]["tables"] >= 2 * TABLES_EACH and checked["checked"]["events"] > 0
    finally:
        store.close()


def test_two_servers_on_one_sqlite_file(tmp_path: Path) -> None:
    _two_servers(f"sqlite:///{tmp_path / 'h.sqlite'}")


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.postgres
def test_two_servers_on_one_postgresql_database(pg: str) -> None:
    _two_servers(create_db(pg, "t_web_two_servers"))
