"""A table's session over REST (web/routes/sessions.py, docs/export.md): the ledger, the JSON export
(a casino table's replays to the same result) and the CSV, from a real server on loopback with a
real SQLite history; without a store they are a clear 404."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.history.export import replay_export
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST
from tests.web.play import casino_choice


def _play(live: Any, tid: str, rounds: int) -> Any:
    c = live.ws(tid, live.join(tid, live.account("ann"), box=1, buy_in="300"))
    for _ in range(rounds):
        c.send({"type": "bet", "amount": "10"})
        c.wait_state(lambda m: m["phase"] == "play")
        while c.state["phase"] == "play":
            pick = casino_choice(c.state)
            if pick is not None:
                c.send({"type": "act", "action": pick})
                c.until(lambda m: m.get("type") in ("state", "error"))
            c.drain(0.05)
    c.drain(0.2)
    return c


def test_ledger_and_exports(make_live: Any, tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    live = make_live(FAST, StorePersistence(store))
    tid = live.table(preset="mbs", seed=12)
    c = _play(live, tid, 3)
    led = live.http.get(f"/api/tables/{tid}/ledger").json()
    ann = led["people"]["ann"]
    assert ann["buy_ins"] == ["300"] and ann["rounds"] == 3
    nets = [Decimal(h["net"]["ann"]["total"]) for h in c.state["history"]]
    assert Decimal(ann["net"]) == sum(nets, Decimal(0))
    r = live.http.get(f"/api/tables/{tid}/export.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    doc = r.json()
    assert replay_export(doc) == {
        "rounds": 3,
        "events": sum(len(x["events"]) for x in doc["tables"][0]["rounds"]),
        "transfers": sum(len(e["transfers"]) for x in doc["tables"][0]["rounds"] for e in x["events"]),
    }
    r = live.http.get(f"/api/tables/{tid}/export.csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert r.headers["content-type"].startswith("text/csv")
    assert [x["kind"] for x in rows].count("main") == 3 and {x["player"] for x in rows} == {"ann"}
    assert live.http.get("/api/tables/0000beef/ledger").status_code == 404
    assert live.http.get("/api/tables/NOT-AN-ID/export.csv").status_code == 422
    c.close()


def test_no_store_no_export(make_live: Any) -> None:
    live = make_live(FAST)
    tid = live.table(preset="mbs", seed=1)
    r = live.http.get(f"/api/tables/{tid}/export.json")
    assert r.status_code == 404 and "--memory" in r.json()["detail"]
