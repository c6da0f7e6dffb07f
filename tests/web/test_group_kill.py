"""Group commit under SIGKILL: a real ``pontoon serve`` on a SQLite file (``shared_kill``: any store), four tables played at once by
four clients, killed (``PONTOON_CRASH_AT=shared:3``) inside the first transaction that writes the calls
of three or more tables. Restarted on the same file, every client sees the state it last saw or its
continuation (no event any client was shown is lost), every card shown before the kill is among the
committed events (none shown that was not committed), the rounds finish, and the audit is clean."""

from __future__ import annotations

import signal
import subprocess
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
SHARED = 3  # killed inside the first commit that writes the calls of this many tables
STEP_S = 0.15  # a step's least length: each seat sends at most 1/STEP_S messages a second
KILL_WITHIN_S = 60.0  # the shared commit is reached in the first steps; a bound, not a wait


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


def _move(c: Client) -> dict[str, Any] | None:
    """The message ``c`` sends next: its bet in the betting, else its move where the turn is its own."""
    st = c.state
    if st["phase"] == "betting" and st["you"] not in st["bets"]:
        return {"type": "bet", "amount": "10"}
    pick = casino_choice(st)
    return None if pick is None else {"type": "act", "action": pick}


def _lockstep(proc: Proc, cs: list[Client], seconds: float) -> int:
    """The clients play in steps until the server is gone (or ``seconds`` pass; returns the steps): in a
    step every client with a message sends it before any answer is read, so the calls of several tables
    reach the server together and share a commit. A step lasts at least ``STEP_S``: no client sends more
    than the server's message rate (10 a second per seat, ``Settings.action_rate``), which drops the
    messages past it (a client that ran into it would bet again and again and fall out of step)."""
    end = time.monotonic() + seconds
    steps = 0
    while proc.p.poll() is None and time.monotonic() < end:
        t0 = time.monotonic()
        steps += 1
        try:
            sent = []
            for c in cs:
                msg = _move(c)
                if msg is not None:
                    c.send(msg)
                    sent.append(c)
            for c in sent:
                c.until(lambda m: m.get("type") in ("state", "error"), timeout=10)
            for c in cs:
                c.drain(0.01)  # a later state of the same call (the dealer's turn, the result)
        except Exception:  # the server died under us, or (a loaded machine) an answer came late
            if proc.p.poll() is not None:
                break
        time.sleep(max(0.0, STEP_S - (time.monotonic() - t0)))
    return steps


def test_sigkill_inside_a_commit_shared_by_several_tables(tmp_path: Path) -> None:
    shared_kill(f"sqlite:///{tmp_path / 'h.sqlite'}")


def shared_kill(db: str) -> None:
    """The test on the store at ``db`` (SQLite here; PostgreSQL: tests/history/test_pg_group_kill.py)."""
    names = [f"p{i}" for i in range(TABLES)]
    a = Proc(db, _port(), f"shared:{SHARED}")
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

        steps = _lockstep(a, cs, KILL_WITHIN_S)
        try:
            rc = a.p.wait(10)
        except subprocess.TimeoutExpired:
            rc = None
        assert rc == -signal.SIGKILL, f"no commit shared by {SHARED} tables in {steps} steps of play"
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
