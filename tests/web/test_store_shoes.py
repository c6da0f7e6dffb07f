"""A retired shoe served from the store (``GET /api/shoes/{id}``): its full order and every card dealt,
the fair record checked; a live shoe refused (409); hostile ids refused (4xx)."""

from __future__ import annotations

from pathlib import Path

from pontoon.casino.table import CasinoTable
from pontoon.history import Recorder, open_store
from pontoon.rules import find_rules
from pontoon.web.hosting import fair_shuffler
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST


def test_retired_shoe_record(make_live, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store = open_store(url, synchronous="OFF")
    rules = find_rules("mbs")
    fair = fair_shuffler(5)
    table = CasinoTable(rules, rng=5, **({} if fair is None else {"fair": fair}))
    rec = Recorder(store, table, label="web", meta={"web_id": "0000abcd"})
    table.join("ann", 100000)
    while table.shoes_used < 2:  # play until the first shoe is retired: stand every hand
        table.new_round()
        table.place_bet(1, "ann", "main", rules.table_min)
        table.deal()
        rnd = table.round
        assert rnd is not None
        while not rnd.is_over():
            acts = rnd.legal_actions(rnd.to_act())
            pick = next((a for a in acts if a.verb == "stand"), acts[0])
            table.act(rnd.to_act(), pick)
        table.end_round()
    rec.detach()
    store.close()
    live = make_live(FAST, StorePersistence(open_store(url)))
    shoes = {int(s["number"]): int(s["id"]) for s in live.srv.lobby.store.store.shoes_(rec.table_id)}
    r = live.http.get(f"/api/shoes/{shoes[1]}")
    assert r.status_code == 200, r.text
    got = r.json()
    assert (
        got["retired"]
        and len(got["cards"]) == 6 * 48
        and len(got["dealt"]) > 0
        and got["dealt"] == got["cards"][: len(got["dealt"])]
    )
    if fair is not None:
        assert got["verified"]["ok"] is True, got["verified"]
    r = live.http.get(f"/api/shoes/{shoes[2]}")  # the live shoe: never its order
    assert r.status_code == 409 and "still in play" in r.json()["detail"]
    for bad in ("0", "-1", "abc", "99999999999999999999999", "1e3"):
        assert 400 <= live.http.get(f"/api/shoes/{bad}").status_code < 500
    assert live.http.get("/api/shoes/777").status_code == 404
