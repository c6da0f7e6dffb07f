"""A buy-in can never overdraw an account, even from two ``pontoon serve`` processes at once.

Two real server processes on loopback share one history (a real PostgreSQL server; one SQLite
file). One account, and at once through both processes many buy-ins whose sum exceeds its balance:
casino seats (the snapshot holds the buy-in, the table's deposit books it), casino joins while a
round is in play (pending: the snapshot holds the buy-in until the round ends) and British seats
(a web move). Each process checks the balance inside the transaction that writes the buy-in, with the
account locked (PostgreSQL ``FOR UPDATE``; SQLite's write lock taken at BEGIN IMMEDIATE), so exactly
as many are accepted as the balance covers, the others are refused with a 400 naming the balance and
leave their table unchanged, and the audit is clean. Before the fix (the balance read, then the buy-in
written in separate statements) both processes read the same balance and the account went negative.
"""

from __future__ import annotations

import threading
from decimal import Decimal
from itertools import count
from pathlib import Path
from typing import Any

import httpx
import pytest

from pontoon.history import open_store
from pontoon.history.audit import audit
from tests.history.pg import create_db, module_cluster
from tests.web.test_serve_kill import Proc, _port

_addr = count(2)  # every request from its own loopback address: the join rate limit is per address


def _client(port: int) -> httpx.Client:
    i = next(_addr)
    local = f"127.0.{(i // 250) % 250 + 1}.{i % 250 + 2}"
    return httpx.Client(
        base_url=f"http://127.0.0.1:{port}", timeout=60, transport=httpx.HTTPTransport(local_address=local)
    )


def _post(port: int, path: str, body: dict[str, Any], token: str | None = None) -> httpx.Response:
    with _client(port) as c:
        return c.post(path, json=body, headers={"Authorization": f"Bearer {token}"} if token else {})


def _in_play(port: int, tid: str, name: str) -> None:
    """Another account sits at casino table ``tid`` and deals a round: a join now is pending."""
    tok = _post(port, "/api/accounts", {"name": name}).json()["token"]
    seat = _post(port, f"/api/tables/{tid}/join", {"box": 1, "buy_in": "50"}, tok).json()["token"]
    for msg in ({"type": "bet", "amount": "10"}, {"type": "deal"}):
        _post(port, f"/api/tables/{tid}/messages", {"token": seat, "message": msg})


def _targets(procs: tuple[Proc, Proc], burst: int, each: int) -> list[tuple[int, str, dict[str, Any]]]:
    """``each`` tables on each process: a casino seat, a British seat, a casino join mid-round, ..."""
    out = []
    for p in procs:
        for k in range(each):
            kind = k % 3
            if kind == 1:
                tid = _post(p.port, "/api/tables", {"preset": "british", "seats": 3, "seed": k}).json()["id"]
                out.append((p.port, tid, {}))
                continue
            tid = _post(p.port, "/api/tables", {"preset": "mbs", "seed": k}).json()["id"]
            if kind == 2:
                _in_play(p.port, tid, f"bob{burst}x{p.port}x{k}")
                out.append((p.port, tid, {"box": 2}))
            else:
                out.append((p.port, tid, {"box": 1}))
    return out


def _burst(procs: tuple[Proc, Proc], burst: int, each: int, amount: str) -> None:
    a, b = procs
    name = f"ann{burst}"
    tok = _post(a.port, "/api/accounts", {"name": name}).json()["token"]
    opening = Decimal(
        _client(b.port)
        .get(f"/api/accounts/{name}", headers={"Authorization": f"Bearer {tok}"})
        .json()["balance"]
    )
    targets = _targets(procs, burst, each)
    clients = [_client(port) for port, _, _ in targets]
    for c in clients:
        assert c.get("/healthz").status_code == 200  # the connections open before the start
    go = threading.Barrier(len(targets))
    got: list[httpx.Response | None] = [None] * len(targets)

    def fire(i: int) -> None:
        _, tid, body = targets[i]
        go.wait()
        got[i] = clients[i].post(
            f"/api/tables/{tid}/join",
            json=dict(body, buy_in=amount),
            headers={"Authorization": f"Bearer {tok}"},
        )

    threads = [threading.Thread(target=fire, args=(i,)) for i in range(len(targets))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    for c in clients:
        c.close()
    want = Decimal(amount)
    assert all(r is not None and r.status_code in (200, 400) for r in got), [r and r.text for r in got]
    taken = want * sum(1 for r in got if r is not None and r.status_code == 200)
    for p in procs:  # both processes read one balance: never below zero, exactly what was taken
        acct = _client(p.port).get(f"/api/accounts/{name}", headers={"Authorization": f"Bearer {tok}"}).json()
        assert Decimal(acct["balance"]) >= 0, (acct, taken)
        assert Decimal(acct["balance"]) == opening - taken, (acct, taken)
    # never more than the balance, and every buy-in it covered was taken (they queue, none is lost)
    assert taken == want * min(len(targets), int(opening // want)), (taken, opening)
    for (port, tid, _), r in zip(targets, got, strict=True):
        assert r is not None
        if r.status_code == 200:
            continue
        detail = r.json()["detail"]
        assert f"buy-in {amount} is more than the balance " in detail and f"of account {name}" in detail, (
            detail
        )
        table = _client(port).get(f"/api/tables/{tid}").json()  # refused: the table is as it was
        assert name not in [m["name"] for m in table["state"]["members"]], table


def _run(url: str, bursts: int, each: int) -> None:
    procs = (Proc(url, _port(), extra=("--lease-ttl", "30")), Proc(url, _port(), extra=("--lease-ttl", "30")))
    try:
        for burst in range(bursts):
            _burst(procs, burst, each, "300")
    finally:
        for p in procs:
            p.kill()
    store = open_store(url)
    try:
        got = audit(store)
        assert got["integrity"] == "ok", got  # audit raises at the first problem
    finally:
        store.close()


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.postgres
def test_buy_ins_race_postgres(pg: str) -> None:
    _run(create_db(pg, "t_web_overdraw"), bursts=2, each=5)


def test_buy_ins_race_sqlite(tmp_path: Path) -> None:
    _run(f"sqlite:///{tmp_path / 'h.sqlite'}", bursts=2, each=5)


@pytest.mark.slow
@pytest.mark.postgres
def test_buy_ins_race_postgres_many(pg: str) -> None:
    _run(create_db(pg, "t_web_overdraw_many"), bursts=15, each=9)
