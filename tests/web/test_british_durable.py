"""A British shared table on the history store (a real SQLite file, a real server on loopback):

- restored by a new server on the same file, it plays as before: its bots at the level its host chose
  (the level was not saved: a restored table's bots played ``simple`` whatever the host had asked for),
  with the host's other choices (seat approval, turn timer, result pause, pause, whom he removed);
- its web export (``GET /api/tables/{id}/export.json``, what the page's Session panel links) replays with
  ``pontoon replay --export``: a round is exported whole once its pack is retired (its seed revealed,
  its order public, as ``GET /api/shoes/{id}`` shows it); a round of the pack still in play leaves out its
  cards (ruling 35) and says ``withheld``. The web export left out every British card, always: no British
  web export could be replayed."""

from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from pontoon.analysis.british.bots import LevelBots
from pontoon.history import HistoryError, open_store
from pontoon.history.recover import shoe_record_of
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, bearer
from tests.web.play import british_choice
from tests.web.test_table_host import host_do, made_by, play_alone


def test_a_restored_british_table_keeps_its_bots_level_and_host_choices(
    make_live: Any, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    ann, cy = a.account("ann"), a.account("cy")
    tid = made_by(a, ann, preset="british", seats=3, seed=7)
    seat = a.join(tid, ann, buy_in="300")
    a.join(tid, cy, buy_in="300")
    assert host_do(a, tid, ann, action="kick", name="cy", reason="rude").status_code == 200
    r = host_do(a, tid, ann, action="settings", approval=True, turn_timeout_s=45, result_pause_s=1)
    assert r.status_code == 200, r.text
    r = host_do(a, tid, ann, action="fill_bots", level="solved")
    assert r.status_code == 200 and len(r.json()["bots"]) == 2, r.text
    r = host_do(a, tid, ann, action="add_bot", level="house")  # refused (the seats are full) ...
    assert r.status_code == 400 and "no seat is free" in r.json()["detail"], r.text
    assert a.srv.lobby.tables[tid].bot_level == "solved"  # ... so the bots' level is unchanged
    c = a.ws(tid, seat)
    c.wait_state(lambda s: s["phase"] != "waiting")
    assert host_do(a, tid, ann, action="pause").status_code == 200
    c.close()
    a.stop()
    store_a.close()

    b = make_live(FAST, StorePersistence(open_store(url)))
    host = b.srv.lobby.tables[tid]
    assert host.bot_level == "solved"
    assert isinstance(host.bots, LevelBots) and host.bots.level == "solved"  # the policies the bots play
    assert sum(1 for m in host.members.values() if m.bot) == 2 and host.host_name == "ann"
    # the host's choices: seat approval, the turn timer, the result pause, the pause, whom he removed
    c = b.ws(tid, seat)
    st = c.wait_state(lambda s: s["you"] == "ann")
    assert (st["approval"], st["turn_timeout_s"], st["result_pause_s"], st["paused"]) == (True, 45, 1, True)
    r = b.http.post(f"/api/tables/{tid}/join", json={"buy_in": "300"}, headers=bearer(cy))
    assert r.status_code == 403 and "rude" in r.json()["detail"], r.text
    assert host_do(b, tid, ann, action="resume").status_code == 200
    st = play_alone(b, c, 2, british=True)  # the restored bots play on
    assert len(st["history"]) >= 2
    c.close()
    r = b.http.post(f"/api/tables/{tid}/leave", headers=bearer(ann))
    assert r.status_code == 200, r.text


def _words_of_cards(doc: dict[str, Any]) -> list[str]:
    """Every draw event or card field of the export's withheld rounds (none may be there: ruling 35)."""
    out = []
    for t in doc["tables"]:
        for r in t["rounds"]:
            if r.get("withheld"):
                for e in r["events"]:
                    if e["kind"] == "draw" or {"card", "cards", "burned", "ace"} & set(e["data"]):
                        out.append(f"round {r['round']}: {e['kind']} {e['data']}")
    return out


def _one_more_round(c: Any, budget: float = 30) -> None:
    """ann plays (the bots play the other seats) until one more round is booked."""
    last = c.state["history"][-1]["round"]
    end = time.monotonic() + budget
    while c.state["history"][-1]["round"] == last:
        assert time.monotonic() < end, "the round did not finish"
        pick = british_choice(c.state) if c.state.get("phase") in ("play", "kitty") else None
        if pick is not None:
            c.send(pick)
            c.until(lambda m: m.get("type") in ("state", "error"))
        else:
            c.drain(0.05)


def test_a_british_tables_web_export_replays(make_live: Any, tmp_path: Path, capsys: Any) -> None:
    from pontoon.cli.app import run

    db = tmp_path / "h.sqlite"
    live = make_live(FAST, StorePersistence(open_store(f"sqlite:///{db}")))
    ann = live.account("ann")
    tid = made_by(live, ann, preset="british", seats=3)  # a shared table: secret fair packs
    seat = live.join(tid, ann, buy_in="300")
    assert host_do(live, tid, ann, action="fill_bots", level="simple").status_code == 200
    c = live.ws(tid, seat)
    c.wait_state(lambda s: s["phase"] != "waiting")
    play_alone(live, c, 3, british=True)
    for _ in range(30):  # until a finished round's pack is still in play (a Pontoon reshuffles it)
        mid = live.http.get(f"/api/tables/{tid}/export.json").json()
        if mid["tables"][0]["rounds"][-1].get("withheld"):
            break
        _one_more_round(c)
    # in play: the rounds of the pack still in play leave out its cards; those of a retired pack are whole
    assert _words_of_cards(mid) == []
    rounds = mid["tables"][0]["rounds"]
    assert rounds[-1].get("withheld") and mid["tables"][0]["replayable"] is False
    store = live.srv.lobby.store.store
    retired = set()
    for shoe in range(1, 100):  # the packs' own records (what GET /api/shoes/{id} shows)
        try:
            rec = shoe_record_of(store, int(mid["tables"][0]["id"]), shoe)
        except HistoryError:
            break
        retired |= set(rec["rounds"]) if rec["retired"] else set()
    assert {r["round"] for r in rounds if not r.get("withheld")} == retired & {r["round"] for r in rounds}
    f = tmp_path / "mid.json"
    f.write_text(json.dumps(mid))
    whole = sum(1 for r in rounds if not r.get("withheld"))
    assert run(["replay", "--export", str(f)]) == (0 if whole else 1)
    said = capsys.readouterr()
    if whole:
        assert f"{whole} rounds replayed" in said.out and "left out" in said.out
    else:
        assert "until its pack is retired" in said.err
    # the host closes the table: the pack's seed is revealed, every round is exported whole and replays
    assert host_do(live, tid, ann, action="close").status_code == 200
    c.close()
    doc = live.http.get(f"/api/tables/{tid}/export.json").json()
    t = doc["tables"][0]
    assert t["replayable"] is True and not any(r.get("withheld") for r in t["rounds"])
    assert any(e["kind"] == "draw" for r in t["rounds"] for e in r["events"])
    n = len(t["rounds"])
    assert n >= len(rounds)
    f = tmp_path / "web.json"
    f.write_text(json.dumps(doc))
    assert run(["replay", "--export", str(f)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{n} rounds replayed from web.json:") and "left out" not in out, out
    # each pack's record from the history API verifies (``pontoon verify``), and the export deals its cards
    shoes = sorted({r["shoe"] for r in live.http.get(f"/api/tables/{tid}/rounds").json()})
    draws = [e["data"]["card"] for r in t["rounds"] for e in r["events"] if e["kind"] == "draw"]
    for sid in shoes:
        rec = live.http.get(f"/api/shoes/{sid}").json()
        assert rec["verified"]["ok"] is True, rec["verified"]
        (tmp_path / f"shoe{sid}.json").write_text(json.dumps(rec["fair_record"]))
        assert run(["verify", str(tmp_path / f"shoe{sid}.json")]) == 0
        assert capsys.readouterr().out.rstrip().endswith("verified")
        if sid == shoes[0]:
            assert draws[: len(rec["dealt"])] == rec["dealt"]
    # an altered payment is caught (the replay settles the exported cards through the engine)
    ev = next(e for r in t["rounds"] for e in r["events"] if e["transfers"])
    ev["transfers"][0]["amount"] = str(Decimal(ev["transfers"][0]["amount"]) + 1)
    f.write_text(json.dumps(doc))
    assert run(["replay", "--export", str(f)]) == 1
    assert "replay differs" in capsys.readouterr().err
    # the operator's export of the same game (``pontoon history --export``) holds the same rounds
    assert run(["history", "--db", f"sqlite:///{db}", "--table", str(t["id"]), "--export", "json"]) == 0
    op = json.loads(capsys.readouterr().out)["tables"][0]["rounds"]
    again = live.http.get(f"/api/tables/{tid}/export.json").json()["tables"][0]["rounds"]
    assert [r["events"] for r in op] == [r["events"] for r in again]
