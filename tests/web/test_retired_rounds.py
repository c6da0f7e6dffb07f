"""``GET /api/rounds/{rid}`` of a British round once its pack is retired (a real server on loopback, a real
SQLite history): while the pack is in play the round's cards are withheld (ruling 35: no ``draw`` event, no
card field, ``withheld``); once the pack is retired (its seed revealed, ``/api/shoes/{sid}`` publishing its
order, the web export giving the round whole) the round is given whole, as a casino round is (every card
face up at its end, rul 4), and its draws are the pack's committed cards. The route withheld a British
round's cards always, even of a retired pack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST
from tests.web.test_british_durable import _one_more_round
from tests.web.test_table_host import host_do, made_by, play_alone

CARD_FIELDS = {"card", "cards", "burned", "ace"}


def _names_a_card(detail: dict[str, Any]) -> bool:
    return any(e["kind"] == "draw" or CARD_FIELDS & set(e["data"]) for e in detail["events"])


def test_a_british_round_is_given_whole_once_its_pack_is_retired(
    make_live: Any, tmp_path: Path, capsys: Any
) -> None:
    from pontoon.cli.app import run

    live = make_live(FAST, StorePersistence(open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")))
    ann = live.account("ann")
    tid = made_by(live, ann, preset="british", seats=3)  # a shared table: secret fair packs
    seat = live.join(tid, ann, buy_in="300")
    assert host_do(live, tid, ann, action="fill_bots", level="simple").status_code == 200
    c = live.ws(tid, seat)
    c.wait_state(lambda s: s["phase"] != "waiting")
    play_alone(live, c, 2, british=True)
    for _ in range(30):  # until the last finished round's pack is still in play (a Pontoon retires it)
        mid = live.http.get(f"/api/tables/{tid}/export.json").json()
        if mid["tables"][-1]["rounds"][-1].get("withheld"):
            break
        _one_more_round(c)
    held = {r["id"]: bool(r.get("withheld")) for t in mid["tables"] for r in t["rounds"]}
    assert any(held.values())
    for rid, withheld in held.items():  # as the export: in play, withheld; of a retired pack, whole
        d = live.http.get(f"/api/rounds/{rid}").json()
        assert bool(d.get("withheld")) is withheld and _names_a_card(d) is not withheld, d
    # ``pontoon verify`` reads the web's export: the retired packs checked, the withheld rounds said
    f = tmp_path / "mid.json"
    f.write_text(json.dumps(mid))
    some = any(not w for w in held.values())
    assert run(["verify", str(f)]) == (0 if some else 2)
    said = capsys.readouterr()
    assert ("withheld: table " in said.out) if some else ("nothing to verify" in said.err), said
    # the host closes the table: the last pack's seed is revealed; every round is given whole
    assert host_do(live, tid, ann, action="close").status_code == 200
    c.close()
    doc = live.http.get(f"/api/tables/{tid}/export.json").json()
    exported = {r["id"]: r["events"] for t in doc["tables"] for r in t["rounds"]}
    by_shoe: dict[int, list[str]] = {}
    for row in live.http.get(f"/api/tables/{tid}/rounds").json():
        r = live.http.get(f"/api/rounds/{row['id']}")
        assert r.status_code == 200, r.text
        d = r.json()
        assert not d.get("withheld") and any(e["kind"] == "draw" for e in d["events"]), d
        keep = ("seq", "kind", "data", "clause", "transfers")
        as_exported = [{k: e[k] for k in keep} for e in exported[row["id"]]]  # (the export adds table_seq)
        assert [{k: e[k] for k in keep} for e in d["events"]] == as_exported  # as the export gives it
        by_shoe.setdefault(int(d["shoe"]), []).extend(
            e["data"]["card"] for e in d["events"] if e["kind"] == "draw"
        )
    assert set(held) <= set(exported)
    f.write_text(json.dumps(doc))
    assert run(["verify", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    n = len(exported)
    assert "withheld" not in out[0] and f" of {n} rounds are their shoes' committed cards" in out[-1], out
    assert all(x.endswith(": verified") for x in out if x.startswith("checked: ")), out  # every pack retired
    for sid, draws in by_shoe.items():  # the round's cards are the retired pack's, in its committed order
        rec = live.http.get(f"/api/shoes/{sid}").json()
        assert rec["verified"]["ok"] is True, rec["verified"]
        n = min(len(draws), len(rec["dealt"]))
        assert n > 0 and draws[:n] == rec["dealt"][:n] == rec["cards"][:n]


def test_a_casino_round_is_given_whole_while_its_shoe_is_in_play(make_live: Any, tmp_path: Path) -> None:
    """The casino behaviour the British route now matches: every card of a finished round (rul 4)."""
    live = make_live(FAST, StorePersistence(open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")))
    ann = live.account("ann")
    tid = made_by(live, ann, preset="mbs")
    c = live.ws(tid, live.join(tid, ann, box=1, buy_in="300"))
    c.wait_state(lambda s: s["you"] == "ann")
    play_alone(live, c, 1, british=False)
    assert live.http.get(f"/api/tables/{tid}/shoes").json()["revealed"] == []  # the shoe is in play
    row = live.http.get(f"/api/tables/{tid}/rounds").json()[0]
    d = live.http.get(f"/api/rounds/{row['id']}").json()
    # at least the player's two cards and the dealer's first (no more when the player busts or has a Pontoon)
    assert not d.get("withheld") and sum(1 for e in d["events"] if e["kind"] == "card") >= 3
    c.close()
