"""A host who is not seated, across a restart (a real server on loopback, a real SQLite history, a new
server on the same file): the table is still his, run with what he chose (seat approval, the turn timer,
the result pause, the pause); its bots at the level he added them with. His choices were kept only in his
entry of the people's snapshot, and a host not seated had none: after a restart the table had no host
(its first person to join took it) and his choices were the server's defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pontoon.history import open_store
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, bearer
from tests.web.test_table_host import host_do, made_by


@pytest.mark.parametrize("preset", ["mbs", "british"])
def test_a_host_not_seated_keeps_his_table_and_choices(make_live: Any, tmp_path: Path, preset: str) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    ann, bob = a.account("ann"), a.account("bob")
    tid = made_by(a, ann, preset=preset, **({"seats": 3} if preset == "british" else {}))
    if preset == "mbs":  # a casino table is recorded once someone has sat: bob plays, ann only hosts
        a.join(tid, bob, box=1, buy_in="100")
    r = host_do(a, tid, ann, action="settings", approval=True, turn_timeout_s=45, result_pause_s=1)
    assert r.status_code == 200, r.text
    assert host_do(a, tid, ann, action="pause").status_code == 200
    if preset == "british":
        r = host_do(a, tid, ann, action="add_bot", level="house")
        assert r.status_code == 200, r.text
    host = a.srv.lobby.tables[tid]
    assert "ann" not in host.members and host.host_name == "ann"
    a.stop()
    store_a.close()

    b = make_live(FAST, StorePersistence(open_store(url)))
    host = b.srv.lobby.tables[tid]
    assert host.host_name == "ann" and "ann" not in host.members  # his, and he is still not seated
    assert (host.approval, host.settings.turn_timeout_s, host.result_pause_s, host.paused) == (
        True,
        45,
        1,
        True,
    )
    if preset == "british":
        assert host.bot_level == "house" and sum(1 for m in host.members.values() if m.bot) == 1
    state = b.http.get(f"/api/tables/{tid}").json()["state"]
    assert state["approval"] is True and state["paused"] is True and state["turn_timeout_s"] == 45
    cy = b.account("cy")
    body = {"buy_in": "100"} | ({"box": 2} if preset == "mbs" else {})
    r = b.http.post(f"/api/tables/{tid}/join", json=body, headers=bearer(cy))
    assert r.status_code == 202 and r.json()["note"] == "asked ann for a seat", r.text  # seat approval
    r = host_do(b, tid, ann, action="approve", name="cy")
    assert r.status_code == 200, r.text  # the host's panel answers
    assert b.srv.lobby.tables[tid].host_name == "ann" and "cy" in b.srv.lobby.tables[tid].members
    assert host_do(b, tid, cy, action="resume").status_code == 403  # cy is not the host
