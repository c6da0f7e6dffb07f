"""A British round of the pack still in play, as the REST answers give it to anyone (a seat, a spectator, a
signed-out visitor): ``GET /api/rounds/{rid}`` and the session export leave out the ``draw`` events and
every card field (``withheld``, ruling 35). What is left must not tell a hidden card either:

- each event's chain ``hash`` (sha256 of the previous hash and the event's whole body, the card
  included: history/chain.py) let anyone recover a withheld draw by trying the 52 cards;
- the ``settled`` event's ``banker_outcome`` named the banker's total where his hand was never turned
  up (every player bust: 003, the banker does not play; the words and the view say only "settled").

A real server on loopback with a real SQLite history; ann stakes, buys and twists until she busts (a
bot plays the other seat), so rounds with a draw just before a buy or a twist, and rounds the banker
never plays, both come up."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.history.chain import chain_hash, event_body
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, Client
from tests.web.play import strip
from tests.web.test_table_host import host_do, made_by

CODES = [r + s for r in "A23456789TJQK" for s in "SHDC"]


def _reckless(state: dict[str, Any]) -> dict[str, Any] | None:
    """Stake the least; as a player buy once, then twist while she may; as the banker stick at once."""
    legal = {
        a["verb"]: a for a in state.get("legal", []) if a["verb"] not in ("sell_bank", "top_up", "buy_bank")
    }
    if not legal:
        return None
    if "kitty" in legal:
        return {"type": "kitty", "amount": legal["kitty"]["low"]}
    rnd = state.get("round") or {}
    for verb in ("stake", "pass") if state.get("you") == rnd.get("banker") else ("stake", "buy", "twist"):
        if verb in legal:
            return {"type": "act", "action": strip(legal[verb])}
    pick = legal.get("stick") or next(iter(legal.values()))
    return {"type": "act", "action": strip(pick)}


def _play(live: Any, c: Client, tid: str, rounds: int, budget: float = 60) -> list[dict[str, Any]]:
    """ann plays (a bot the other seat) until the store holds ``rounds`` finished rounds; their rows."""
    end = time.monotonic() + budget
    while True:
        rows: list[dict[str, Any]] = live.http.get(f"/api/tables/{tid}/rounds", params={"last": 500}).json()
        if len(rows) >= rounds:
            return rows
        assert time.monotonic() < end, f"the rounds did not finish: {str(c.state)[:600]}"
        for _ in range(20):
            pick = _reckless(c.state) if c.state.get("phase") in ("play", "kitty") else None
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
            else:
                c.drain(0.05)


def recovered(detail: dict[str, Any]) -> list[str]:
    """The withheld draws anyone recovers from the answer: a draw between two shown events is found by
    trying each card as the draw's body (and as the next event's ``card``) against the shown hashes."""
    ev = {int(e["seq"]): e for e in detail["events"]}
    out = []
    for s, e in ev.items():
        before = ev.get(s - 2)
        if s - 1 in ev or before is None or not e.get("hash") or not before.get("hash"):
            continue
        for x in CODES:
            h = chain_hash(before["hash"], event_body(detail["round"], s - 1, "draw", {"card": x}, "", []))
            for data in (e["data"], dict(e["data"], card=x)):
                body = event_body(detail["round"], s, e["kind"], data, e["clause"], e["transfers"])
                if chain_hash(h, body) == e["hash"]:
                    out.append(x)
    return out


def _banker_shown(events: list[dict[str, Any]]) -> bool:
    return any(e["kind"] in ("banker_turn", "banker_pontoon") for e in events)


def test_a_withheld_round_tells_no_hidden_card(make_live: Any, tmp_path: Path) -> None:
    live = make_live(FAST, StorePersistence(open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")))
    ann = live.account("ann")
    tid = made_by(live, ann, preset="british", seats=2)  # a shared table: secret fair packs
    c = live.ws(tid, live.join(tid, ann, buy_in="500"))
    assert host_do(live, tid, ann, action="fill_bots", level="simple").status_code == 200
    c.wait_state(lambda s: s["phase"] != "waiting")
    targets = unplayed = 0
    for n in range(6, 73, 6):  # until both kinds of target came up in rounds still withheld (rarely late)
        rows = _play(live, c, tid, n)
        details = [live.http.get(f"/api/rounds/{r['id']}").json() for r in rows]
        held = [d for d in details if d.get("withheld")]
        targets = sum(1 for d in held for e in d["events"] if e["kind"] in ("buy", "twist"))
        unplayed = sum(1 for d in held if not _banker_shown(d["events"]))
        if targets and unplayed:
            break
    assert targets and unplayed, (targets, unplayed)
    export = live.http.get(f"/api/tables/{tid}/export.json").json()
    answers = held + [r for t in export["tables"] for r in t["rounds"] if r.get("withheld")]
    for d in answers:
        assert recovered(d) == [], (d["round"], recovered(d))  # the chain's hashes give no draw away
        if not _banker_shown(d["events"]):  # the banker never turned up: his total is nobody's to read
            settled = [e["data"] for e in d["events"] if e["kind"] == "settled"]
            assert all(s.get("banker_outcome", "") in ("", "pontoon") for s in settled), settled
    c.close()
