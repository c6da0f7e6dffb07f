"""Issue 28 items 2, 5, 6 and 8 on a real server on loopback: no predictable shoe outside test mode
(ruling 36) and test tables marked; members who never connect, buy-ins below the minimum, limits per
account and address, idle tables; custom rules refused unless allowed and within the operator's
bound, marked with their differences and exact house edge, their texts bounded; no frames to others
when a spectator connects or closes."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import pytest
from websockets.exceptions import ConnectionClosed

from pontoon.analysis.strategy import solve
from pontoon.rules import apply_overrides, find_rules
from tests.web.conftest import FAST, LiveServer

MakeLive = Callable[..., LiveServer]


def _until(pred: Callable[[], bool], timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "the condition did not come true in time"
        time.sleep(0.05)


# ------------------------------------------------------------------ item 2: ruling 36
def test_a_seed_is_refused_outside_test_mode(make_live: MakeLive) -> None:
    live = make_live(replace(FAST, test_mode=False))
    r = live.http.post("/api/tables", json={"preset": "mbs", "seed": 3})
    assert r.status_code == 400 and "ruling 36" in r.json()["detail"] and "--test-mode" in r.json()["detail"]
    r = live.http.post("/api/tables", json={"preset": "british", "seats": 2, "seed": 3})
    assert r.status_code == 400
    assert live.srv.lobby.tables == {}
    row = live.http.post("/api/tables", json={"preset": "mbs"}).json()  # a fair, secret shuffle
    assert row["marks"] == {"test_mode": False, "custom": None}


def test_a_test_table_says_so_in_the_lobby_and_at_the_table(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=3)
    fair = live.table(preset="mbs")
    rows = {t["id"]: t for t in live.http.get("/api/tables").json()}
    assert rows[tid]["marks"]["test_mode"] is True and rows[fair]["marks"]["test_mode"] is False
    assert live.http.get(f"/api/tables/{tid}").json()["state"]["marks"]["test_mode"] is True
    c = live.ws(tid, live.join(tid, live.account("ann"), box=1))
    assert c.wait_state(lambda m: True)["marks"]["test_mode"] is True
    s = live.ws(tid)
    assert s.wait_state(lambda m: True)["marks"]["test_mode"] is True
    c.close()
    s.close()


# ------------------------------------------------------------------ item 5: exhausting the server
def test_a_member_who_never_connects_is_played_out_after_the_grace_period(make_live: MakeLive) -> None:
    live = make_live(replace(FAST, grace_s=0.5))
    tid = live.table(preset="mbs")
    ann = live.account("ann")
    live.join(tid, ann, box=1, buy_in="300")
    assert live.balance("ann", ann)["balance"] == "700"
    _until(lambda: "ann" not in live.srv.lobby.tables[tid].members, timeout=8)
    assert live.balance("ann", ann)["balance"] == "1000"


def test_a_buy_in_below_the_table_minimum_is_refused(live: LiveServer) -> None:
    tok = live.account("ann")
    for spec, body in (({"preset": "mbs"}, {"box": 1}), ({"preset": "british", "seats": 2}, {})):
        tid = live.table(**spec)
        r = live.http.post(
            f"/api/tables/{tid}/join",
            json=dict(body, buy_in="0.01"),
            headers={"Authorization": f"Bearer {tok}"},
        )
        assert r.status_code == 400 and "below this table's minimum" in r.json()["detail"], r.text
        assert live.srv.lobby.tables[tid].members == {}
    assert live.balance("ann", tok)["balance"] == "1000"


def test_tables_and_seats_are_limited_per_account_and_per_address(make_live: MakeLive) -> None:
    live = make_live(
        replace(FAST, tables_per_address=3, tables_per_account=2, seats_per_account=2, seats_per_address=3)
    )
    ann, bob = live.account("ann"), live.account("bob")
    mine = []
    for _ in range(2):
        r = live.http.post("/api/tables", json={"preset": "mbs"}, headers={"Authorization": f"Bearer {ann}"})
        assert r.status_code == 201
        mine.append(r.json()["id"])
    r = live.http.post("/api/tables", json={"preset": "mbs"}, headers={"Authorization": f"Bearer {ann}"})
    assert r.status_code == 400 and "account ann already made 2 open tables" in r.json()["detail"]
    third = live.table(preset="mbs")  # the address's third
    r = live.http.post("/api/tables", json={"preset": "mbs"})
    assert r.status_code == 400 and "per address" in r.json()["detail"]
    assert len(live.srv.lobby.tables) == 3
    live.join(mine[0], ann, box=1, buy_in="10")
    live.join(mine[1], ann, box=1, buy_in="10")
    r = live.http.post(
        f"/api/tables/{third}/join",
        json={"box": 1, "buy_in": "10"},
        headers={"Authorization": f"Bearer {ann}"},
    )
    assert r.status_code == 400 and "sits at 2 tables" in r.json()["detail"]
    live.join(third, bob, box=1, buy_in="10")  # the address's third seat
    r = live.http.post(
        f"/api/tables/{mine[0]}/join",
        json={"box": 2, "buy_in": "10"},
        headers={"Authorization": f"Bearer {bob}"},
    )
    assert r.status_code == 400 and "holds 3 seats" in r.json()["detail"]


def test_an_idle_table_with_people_and_spectators_is_closed(make_live: MakeLive) -> None:
    live = make_live(replace(FAST, idle_table_s=0.6))
    tid = live.table(preset="mbs")
    ann = live.account("ann")
    c = live.ws(tid, live.join(tid, ann, box=1, buy_in="200"))
    s = live.ws(tid)
    c.wait_state(lambda m: True)
    _until(lambda: tid not in live.srv.lobby.tables)
    for conn in (c, s):
        with pytest.raises(ConnectionClosed) as got:
            while True:
                conn.recv(5)
        assert got.value.rcvd is not None and got.value.rcvd.code == 4410
    assert live.balance("ann", ann)["balance"] == "1000"


# ------------------------------------------------------------------ item 6: custom rules
PRINTER = 'preset = "mbs"\nregular_pays = 10000\n'


def test_custom_rules_are_refused_unless_the_operator_allows_them(make_live: MakeLive) -> None:
    live = make_live(replace(FAST, custom_rules=False))
    r = live.http.post("/api/tables", json={"rules_toml": 'preset = "mbs"\ntable_max = 500\n'})
    assert r.status_code == 400 and "--custom-rules" in r.json()["detail"]
    r = live.http.post("/api/tables", json={"rules_toml": 'preset = "mbs"\n'})  # the preset itself
    assert r.status_code == 201 and r.json()["marks"]["custom"] is None


def test_rules_that_print_money_are_refused_by_the_bound(make_live: MakeLive) -> None:
    live = make_live(replace(FAST, custom_rules=True, max_player_edge=0.0))
    r = live.http.post("/api/tables", json={"rules_toml": PRINTER})
    assert r.status_code == 400, r.text
    assert "player's exact edge on the main game" in r.json()["detail"]
    assert live.srv.lobby.tables == {}


def test_a_custom_table_shows_its_rules_and_exact_edge(make_live: MakeLive) -> None:
    live = make_live(replace(FAST, custom_rules=True, max_player_edge=0.0))
    row = live.http.post("/api/tables", json={"rules_toml": 'preset = "mbs"\ntable_max = 500\n'}).json()
    rules = apply_overrides(find_rules("mbs"), {"table_max": 500}, source="t")
    want = -float(solve(rules, None).ev_optimal)
    custom = row["marks"]["custom"]
    assert custom["based_on"] == "mbs" and custom["differs"] == {"table_max": "500"}
    assert custom["house_edge"] == pytest.approx(want, abs=1e-8) and custom["house_edge"] > 0
    assert set(custom["side_bets"]) >= {"pair", "insurance"}
    lobby = {t["id"]: t for t in live.http.get("/api/tables").json()}
    assert lobby[row["id"]]["marks"]["custom"] == custom
    assert live.http.get(f"/api/tables/{row['id']}").json()["state"]["marks"]["custom"] == custom
    from pontoon.web import marks

    hits = marks._edge_of.cache_info().hits
    live.http.post("/api/tables", json={"rules_toml": 'preset = "mbs"\ntable_max = 500\n'})
    assert marks._edge_of.cache_info().hits == hits + 1  # the same rules are solved once


@pytest.mark.parametrize(
    "toml",
    [
        'preset = "mbs"\nname = "' + "<b>" * 66 + '"\n',  # the 200 characters with <>
        'preset = "british"\nname = "MBS<script>"\n',
        'preset = "mbs"\nname = "' + "x" * 41 + '"\n',
    ],
)
def test_displayed_texts_are_bounded(live: LiveServer, toml: str) -> None:
    r = live.http.post("/api/tables", json={"rules_toml": toml})
    assert r.status_code == 400 and "displayed text" in r.json()["detail"], r.text
    r = live.http.post("/api/tables", json={"preset": "mbs", "name": "n" * 41})
    assert r.status_code == 422


def test_a_renamed_preset_is_marked_custom(live: LiveServer) -> None:
    row = live.http.post("/api/tables", json={"rules_toml": 'preset = "mbs"\nname = "MBS"\n'}).json()
    assert row["marks"]["custom"]["differs"] == {"name": "MBS"}


# ------------------------------------------------------------------ item 8: fan-out
def test_spectators_coming_and_going_send_nothing_to_the_others(live: LiveServer) -> None:
    tid = live.table(preset="mbs")
    players = [live.ws(tid, live.join(tid, live.account(n), box=b)) for n, b in (("ann", 1), ("bob", 2))]
    watcher = live.ws(tid)
    for c in [*players, watcher]:
        c.wait_state(lambda m: len(m["members"]) == 2 and all(x["connected"] for x in m["members"]))
        c.drain(0.3)
    before = [len(c.received) for c in (*players, watcher)]
    for _ in range(25):
        s = live.ws(tid)
        first = s.recv(5)  # the joiner gets its own state at once
        assert first["type"] == "state" and first["you"] is None and "history" in first
        s.close()
    for c in (*players, watcher):
        c.drain(0.5)
    after = [len(c.received) for c in (*players, watcher)]
    assert after == before  # no frame at all to the existing connections
    for c in (*players, watcher):
        c.close()


def test_another_process_s_test_and_custom_tables_are_marked_in_this_lobby(
    make_live: MakeLive, tmp_path
) -> None:
    """Two processes on one store (leases): b's lobby lists a's tables with their marks."""
    from pontoon.history import open_store
    from pontoon.history.leases import Leases
    from pontoon.web.store_persistence import StorePersistence

    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    sa, sb = open_store(url), open_store(url)
    a = make_live(FAST, StorePersistence(sa, leases=Leases(sa, "proc-a", "http://127.0.0.1:1", ttl=600)))
    b = make_live(FAST, StorePersistence(sb, leases=Leases(sb, "proc-b", "http://127.0.0.1:2", ttl=600)))
    test_table = a.table(preset="mbs", seed=9)
    custom = a.table(rules_toml='preset = "mbs"\ntable_max = 500\n')
    b.table(rules_toml='preset = "mbs"\ntable_max = 500\n')  # solved in b too: b shows its edge
    rows = {t["id"]: t for t in b.http.get("/api/tables").json()}
    assert rows[test_table]["served_here"] is False and rows[test_table]["marks"]["test_mode"] is True
    mark = rows[custom]["marks"]["custom"]
    assert mark["differs"] == {"table_max": "500"} and mark["house_edge"] > 0


def test_a_recovered_test_or_custom_table_stays_marked(make_live: MakeLive, tmp_path) -> None:
    from pontoon.history import open_store
    from pontoon.web.store_persistence import StorePersistence

    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    a = make_live(FAST, StorePersistence(open_store(url)))
    seeded = a.table(preset="mbs", seed=4)
    custom = a.table(rules_toml='preset = "mbs"\ntable_max = 400\n')
    a.stop()
    b = make_live(FAST, StorePersistence(open_store(url)))  # a restart: the tables recovered from the store
    assert b.http.get(f"/api/tables/{seeded}").json()["marks"]["test_mode"] is True
    _until(lambda: (b.http.get(f"/api/tables/{custom}").json()["marks"]["custom"] or {}).get("house_edge"))
    mark = b.http.get(f"/api/tables/{custom}").json()["marks"]["custom"]
    assert mark["differs"] == {"table_max": "400"} and mark["house_edge"] > 0
