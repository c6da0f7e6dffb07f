"""A British shared table restored from the history store (a real SQLite file, a new server on it) plays as
before: its bots at the level its host chose (the level was not saved: a restored table's bots played
``simple`` whatever the host had asked for)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pontoon.analysis.british.bots import LevelBots
from pontoon.history import open_store
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, bearer
from tests.web.test_table_host import host_do, made_by, play_alone


def test_a_restored_british_table_keeps_its_bots_level(make_live: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    ann = a.account("ann")
    tid = made_by(a, ann, preset="british", seats=3, seed=7)
    seat = a.join(tid, ann, buy_in="300")
    r = host_do(a, tid, ann, action="fill_bots", level="solved")
    assert r.status_code == 200 and len(r.json()["bots"]) == 2, r.text
    r = host_do(a, tid, ann, action="add_bot", level="house")  # refused (the seats are full) ...
    assert r.status_code == 400 and "no seat is free" in r.json()["detail"], r.text
    assert a.srv.lobby.tables[tid].bot_level == "solved"  # ... so the bots' level is unchanged
    c = a.ws(tid, seat)
    c.wait_state(lambda s: s["phase"] != "waiting")
    c.close()
    a.stop()
    store_a.close()

    b = make_live(FAST, StorePersistence(open_store(url)))
    host = b.srv.lobby.tables[tid]
    assert host.bot_level == "solved"
    assert isinstance(host.bots, LevelBots) and host.bots.level == "solved"  # the policies the bots play
    assert sum(1 for m in host.members.values() if m.bot) == 2 and host.host_name == "ann"
    c = b.ws(tid, seat)
    c.wait_state(lambda s: s["you"] == "ann")
    st = play_alone(b, c, 2, british=True)  # the restored bots play on
    assert len(st["history"]) >= 2
    c.close()
    r = b.http.post(f"/api/tables/{tid}/leave", headers=bearer(ann))
    assert r.status_code == 200, r.text
