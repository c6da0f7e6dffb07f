"""Group commit under SIGKILL: a real ``pontoon serve`` on a SQLite file, four tables played at once by
four clients, killed (``PONTOON_CRASH_AT=shared:3``) inside the first transaction that writes the calls
of three or more tables. Restarted on the same file, every client sees the state it last saw or its
continuation (no event any client was shown is lost), every card shown before the kill is among the
committed events (none shown that was not committed), the rounds finish, and the audit is clean."""

from __future__ import annotations

import signal
import threading
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.history.store import CASHIER, account_key
from tests.web.conftest import Client
from tests.web.play import casino_choice
from tests.web.test_serve_kill import Proc, _continues, _money, _play_until, _port, _strip

TABLES = 4


def _cards_shown(state: dict[str, Any]) -> list[str]:
    rnd = state.get("round") or {}
    out = [str(c) for c in rnd.get("dealer", [])]
    for bx in rnd.get("boxes", []):
        for h in bx["hands"]:
            out += [str(c) for c in h["cards"]]
    return [c for c in out if c not in ("??", "", "None")]


def _committed_cards(store: Any, table_id: int, round_no: int) -> str:
    return " ".join(str(e["data"]) for e in store.events_(table_id, round_no=round_no))


def _post(proc: Proc, path: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    """A REST write, waiting out the per-address rate limit (10 writes at once, then one a second)."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    for _ in range(30):
        r = proc.http.post(path, json=body, headers=headers)
        if r.status_code != 429:
            assert r.status_code in (200, 201), r.text
            return dict(r.json())
        time.sleep(0.5)
    raise AssertionError(f"{path}: still rate limited")


def _burst(cs: list[Client]) -> None:
    """Every client plays its round to its end at once (a thread each)."""
    threads = [
        threading.Thread(target=_play_until, args=([c], lambda c=c: c.state["phase"] == "betting", 200))
        for c in cs
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)


def test_sigkill_inside_a_commit_shared_by_several_tables(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    names = [f"p{i}" for i in range(TABLES)]
    a = Proc(db, _port(), "shared:3")
    try:
        toks = {n: _post(a, "/api/accounts", {"name": n})["token"] for n in names}
        tids, seat = {}, {}
        for i, n in enumerate(names):
            tids[n] = _post(a, "/api/tables", {"preset": "mbs", "seed": 100 + i}, toks[n])["id"]
            r = _post(a, f"/api/tables/{tids[n]}/join", {"box": 1, "buy_in": "300"}, toks[n])
            seat[n] = r["token"]
        cs = [a.ws(tids[n], seat[n]) for n in names]
        for c in cs:
            c.wait_state(lambda m: m["you"] is not None)

        def bet_and_play(c: Client) -> None:  # rounds until the server is gone
            for _ in range(120):
                if a.p.poll() is not None:
                    return
                try:
                    if c.state["phase"] == "betting" and c.state["you"] not in c.state["bets"]:
                        c.send({"type": "bet", "amount": "10"})
                        c.until(lambda m: m.get("type") in ("state", "error"), timeout=5)
                    elif casino_choice(c.state) is None:
                        c.drain(0.05)
                    _play_until([c], lambda: a.p.poll() is not None or c.state["phase"] == "betting", 50)
                except Exception:  # the server died under us, or (a loaded machine) an answer came late
                    if a.p.poll() is not None:
                        return

        threads = [threading.Thread(target=bet_and_play, args=(c,)) for c in cs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert a.p.wait(30) == -signal.SIGKILL  # it killed itself inside a shared commit
        seen = {n: c.state for n, c in zip(names, cs, strict=True)}
        for c in cs:
            try:
                c.close()
            except Exception:
                pass
    finally:
        a.kill()

    # none shown that was not committed: every card a client saw is in its table's committed events
    store = open_store(db, readonly=True)
    try:
        by_web = {t["id"]: store.table(int(t["id"]))["meta"]["web_id"] for t in store.tables_(label="web")}
        for n in names:
            sid = next(i for i, w in by_web.items() if w == tids[n])
            st = seen[n]
            if st.get("round"):
                committed = _committed_cards(store, int(sid), int(st["round_no"]))
                for card in _cards_shown(st):
                    assert card in committed, (n, card, st["round_no"])
    finally:
        store.close()

    b = Proc(db, _port())
    try:
        cs = [b.ws(tids[n], seat[n]) for n in names]
        for n, c in zip(names, cs, strict=True):
            st = c.wait_state(lambda m: m["you"] is not None)
            # no event shown is lost: the state seen, or (committed but not yet shown) its continuation
            assert (
                _strip(st) == _strip(seen[n])
                or _continues(seen[n], st)
                or (st["round_no"] > seen[n]["round_no"])
            ), (seen[n], st)
        _burst(cs)  # every round in play finishes
        total = _money(b, toks)
        for c in cs:
            c.close()
    finally:
        b.kill()
    store = open_store(db)
    try:
        assert (
            audit(store)["integrity"] == "ok"
        )  # raises naming the first discrepancy (balances: ledger sums)
        people = {account_key(n) for n in names} | {account_key(CASHIER)}
        house = sum(
            (
                v
                for t in store.tables_(label="web")
                for k, v in store.balances(int(t["id"])).items()
                if k not in people
            ),
            Decimal(0),
        )
        # money neither made nor lost: the accounts and their money at the tables are what they were opened
        # with, less what the house won
        assert total == TABLES * 1000 - house
    finally:
        store.close()
