"""Provably fair shoes through the server (when this build has ``pontoon.fair``): the commitment is
shown before a shoe is used, the seed revealed when it retires, and /api/verify accepts the record
built from the table's own events."""

from __future__ import annotations

import hashlib

import pytest

from tests.web.conftest import LiveServer
from tests.web.play import casino_choice


def test_commitment_then_reveal_then_verify(live: LiveServer) -> None:
    pytest.importorskip("pontoon.fair", reason="this build has no provably fair shuffle (pontoon.fair)")
    toml = 'preset = "blackjack"\ndecks = 1\npenetration = 0.5\n'
    tid = live.table(rules_toml=toml, seed=5)
    c = live.ws(tid, live.join(tid, live.account("ann"), box=1))
    c.send({"type": "bet", "amount": "10"})
    first = c.wait_state(lambda m: m["phase"] == "play")
    commit = first["fair"]["commitment"]
    assert len(commit) == 64 and first["fair"]["revealed"] == []
    for _ in range(400):  # play until the cut card retires the first shoe
        c.drain(0.02)
        st = c.state
        if st["fair"] and st["fair"]["revealed"]:
            break
        pick = casino_choice(st)
        if pick is not None:
            c.send({"type": "act", "action": pick})
        elif st["phase"] == "betting":
            c.send({"type": "bet", "amount": "10"})
        c.until(lambda m: m.get("type") in ("state", "error"))
    shoes = live.http.get(f"/api/tables/{tid}/shoes").json()
    rev = shoes["revealed"][0]
    assert rev["commitment"] == commit
    assert (
        hashlib.sha256(bytes.fromhex(rev["server_seed"])).hexdigest() == commit
    )  # the seed matches the commitment
    # the record from the table's own events: the cards dealt from shoe 1, in order
    recs = live.srv.lobby.store.records[tid]
    new = next(r.event.data for r in recs if r.event.kind == "new_shoe")
    dealt, shoe_no = [], 0
    for r in recs:
        if r.event.kind == "new_shoe":
            shoe_no += 1
        elif r.event.kind == "card" and shoe_no == 1:
            dealt.append(r.event.data["card"])
    record = {
        "scheme": new["scheme"],
        "server_seed": rev["server_seed"],
        "client_seed": new["client_seed"],
        "nonce": new["nonce"],
        "commitment": commit,
        "pack": new["pack"],
        "decks": new["decks"],
        "dealt": dealt,
    }
    ok = live.http.post("/api/verify", json=record).json()
    assert ok["ok"] is True, ok
    record["dealt"] = (
        dealt[:-2] + dealt[-1:] + dealt[-2:-1]
    )  # two cards swapped: refused, the difference named
    bad = live.http.post("/api/verify", json=record).json()
    assert bad["ok"] is False and bad["difference"]
    c.close()
