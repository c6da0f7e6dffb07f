"""SIGKILL the store's writer process (the child ``pontoon.history.writer_child`` of a real ``pontoon
serve`` on a SQLite file) while clients play, the server left running (web/respawn.py).

- Mid-round, with a write in flight (the child stopped first, then an action sent, then the kill): the
  table's clients get the 1011 close; the same server rebuilds the table in place from its committed
  records once the new child is up; the clients reconnect with their seat tokens, see the state they
  last saw (the unacknowledged action was never shown and is not in the database) and finish the
  round; no money lost or doubled (the audit is clean, every account's balance is its ledger's, and
  accounts plus the table's balances equal what the accounts were opened with).
- Idle (nothing in flight): no table is dropped, the connections stay open and play goes on.
- (slow) A fair table; several tables, two in flight and one idle; a British game (paid back once at
  its close after the rebuild).
"""

from __future__ import annotations

import signal
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import psutil
import pytest
from websockets.exceptions import ConnectionClosed

from pontoon.history import open_store
from pontoon.history.accounts import WebRecords
from pontoon.history.audit import audit
from tests.history.pg import create_db, module_cluster, pg_bin
from tests.web.conftest import Client
from tests.web.play import british_choice, casino_choice
from tests.web.test_serve_kill import Proc, _continues, _money, _play_until, _port, _strip, seated_round

NAMES = ["ann", "bob"]


def _writer(proc: Proc, not_pid: int = 0, timeout: float = 20) -> psutil.Process:
    """The serve process's writer child (one other than ``not_pid``: the new one after a death)."""
    end = time.monotonic() + timeout
    while True:
        for ch in psutil.Process(proc.p.pid).children(recursive=True):
            try:
                if ch.pid != not_pid and "pontoon.history.writer_child" in " ".join(ch.cmdline()):
                    return ch
            except psutil.NoSuchProcess:
                continue
        if time.monotonic() > end:
            raise AssertionError("no writer child of pontoon serve")
        time.sleep(0.05)


def _closed_code(c: Client, timeout: float = 10) -> int | None:
    """Read until the server closes the connection; its close code (None: still open at ``timeout``)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            c.recv(max(0.01, end - time.monotonic()))
        except TimeoutError:
            return None
        except ConnectionClosed as closed:
            return None if closed.rcvd is None else int(closed.rcvd.code)
    return None


def _table(
    a: Proc, seed: int | None, names: list[str] = NAMES
) -> tuple[dict[str, str], str, dict[str, str], list[Client]]:
    """Two accounts seated at a casino table, each with a wager of 10 down, the round in play."""
    return seated_round(a, seed, names)


def _back(a: Proc, tid: str) -> None:
    t0 = time.monotonic()  # rebuilt in place by the same server (not restarted)
    while a.http.get(f"/api/tables/{tid}").status_code != 200:
        assert time.monotonic() - t0 < 20, f"table {tid} was not rebuilt"
        time.sleep(0.05)


def _finish(a: Proc, cs: list[Client], toks: dict[str, str]) -> None:
    """Play the round to its end; the money the page shows is the accounts' opening plus the nets."""
    _play_until(cs, lambda: cs[0].state["phase"] == "betting" and bool(cs[0].state["history"]))
    for c in cs:
        c.drain(0.2)
    assert cs[0].state["phase"] == "betting", cs[0].state
    assert cs[0].state["history"][-1]["status"] in ("settled", "void")
    assert _money(a, toks) == len(toks) * 1000 + sum(
        Decimal(v["total"]) for h in cs[0].state["history"] for v in h["net"].values()
    )


def _stop(a: Proc) -> str:
    """The server killed; what it logged."""
    if a.p.poll() is None:
        a.p.send_signal(signal.SIGKILL)
    a.p.wait(10)
    text = a.p.stderr.read().decode(errors="replace") if a.p.stderr else ""
    a.kill()
    return text


def _audited(db: str) -> None:
    store = open_store(db)
    try:
        assert audit(store)["integrity"] == "ok"  # raises naming the first discrepancy
        bal = WebRecords(store).balances()
        assert bal and all(b <= 1000 for b in bal.values())
    finally:
        store.close()


def _acting(cs: list[Client]) -> tuple[Client, dict[str, Any]]:
    for c in cs:
        pick = casino_choice(c.state)
        if pick is not None:
            return c, pick
    raise AssertionError(f"nobody to act: {cs[0].state}")


@pytest.mark.parametrize(
    "seed", [11, pytest.param(None, marks=pytest.mark.slow)]
)  # None: a fair table (its shoe's commitments restored too)
def test_writer_killed_mid_round_table_rebuilt_in_place(tmp_path: Path, seed: int | None) -> None:
    _mid_round(f"sqlite:///{tmp_path / 'h.sqlite'}", seed)


def _mid_round(db: str, seed: int | None, extra: tuple[str, ...] = ()) -> None:
    a = Proc(db, _port(), extra=extra)
    log = ""
    try:
        server_pid = a.p.pid
        toks, tid, seat, cs = _table(a, seed)
        seen = {n: c.state for n, c in zip(NAMES, cs, strict=True)}
        child = _writer(a)
        child.send_signal(signal.SIGSTOP)  # its next write stays in flight, unacknowledged
        actor, pick = _acting(cs)
        actor.send({"type": "act", "action": pick})
        time.sleep(0.5)  # the action's write sent to the stopped child
        child.send_signal(signal.SIGKILL)
        for c in cs:  # every connection of the table: closed 1011
            assert _closed_code(c) == 1011
        for n, c in zip(NAMES, cs, strict=True):  # nothing of the unacknowledged action was shown
            assert _strip(c.state) == _strip(seen[n])
        new = _writer(a, not_pid=child.pid)
        assert new.pid != child.pid
        _back(a, tid)
        assert a.p.poll() is None and a.p.pid == server_pid
        cs = [a.ws(tid, seat[n]) for n in NAMES]
        for n, c in zip(NAMES, cs, strict=True):
            st = c.wait_state(lambda m: m["you"] is not None)
            assert _strip(st) == _strip(seen[n]) or _continues(seen[n], st), (seen[n], st)
        _finish(a, cs, toks)
        for c in cs:  # the next round too, on the new writer
            c.send({"type": "bet", "amount": "10"})
        for c in cs:
            c.wait_state(lambda m: m["phase"] == "play")
        _finish(a, cs, toks)
        for c in cs:
            c.close()
    finally:
        log = _stop(a)
    assert f"table {tid}: rebuilt in place" in log, log[-2000:]
    _audited(db)


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.skipif(
    pg_bin() is None, reason="no PostgreSQL binaries (/usr/lib/postgresql/*/bin); run make sysdeps"
)
def test_writer_killed_mid_round_postgresql_with_leases(pg: str) -> None:
    """On PostgreSQL, the server holding table leases (its writer child fences every write with their
    epochs): the table rebuilt in place under its lease, the same way."""
    _mid_round(create_db(pg, "t_writer_respawn"), 11, ("--lease-ttl", "30"))


def test_writer_killed_idle_nothing_dropped(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    a = Proc(db, _port())
    try:
        toks, tid, _seat, cs = _table(a, 11)
        child = _writer(a)
        child.send_signal(signal.SIGKILL)  # nothing in flight: every write so far acknowledged
        child.wait(10)
        _writer(a, not_pid=child.pid)
        for c in cs:  # the connections stay open: no table dropped
            assert _closed_code(c, 0.5) is None
        assert a.http.get(f"/api/tables/{tid}").status_code == 200
        _finish(a, cs, toks)
        for c in cs:
            c.close()
    finally:
        log = _stop(a)
    assert "could not be committed" not in log, log[-2000:]
    _audited(db)


@pytest.mark.slow
def test_writer_killed_with_several_tables_in_flight(tmp_path: Path) -> None:
    """Two tables' actions in flight and a third table idle at the death: the two are rebuilt in place
    and play on; the third's connection is never closed (one player a table: the REST writes' burst)."""
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    a = Proc(db, _port())
    try:
        tables = [_table(a, 11 + i, [f"p{i}"]) for i in range(3)]
        seen = [[c.state for c in t[3]] for t in tables]
        child = _writer(a)
        child.send_signal(signal.SIGSTOP)
        for _toks, _tid, _seat, cs in tables[:2]:
            actor, pick = _acting(cs)
            actor.send({"type": "act", "action": pick})
        time.sleep(0.5)
        child.send_signal(signal.SIGKILL)
        for _toks, _tid, _seat, cs in tables[:2]:
            assert [_closed_code(c) for c in cs] == [1011]
        assert [_closed_code(c, 0.3) for c in tables[2][3]] == [None]
        _writer(a, not_pid=child.pid)
        for i, (toks, tid, seat, cs) in enumerate(tables):
            if i < 2:
                _back(a, tid)
                cs[:] = [a.ws(tid, seat[n]) for n in seat]
                for old, c in zip(seen[i], cs, strict=True):
                    st = c.wait_state(lambda m: m["you"] is not None)
                    assert _strip(st) == _strip(old) or _continues(old, st), (old, st)
            _finish(a, cs, toks)
            for c in cs:
                c.close()
    finally:
        log = _stop(a)
    assert log.count("rebuilt in place") == 2, log[-2000:]
    _audited(db)


def _british_turn(cs: list[Client]) -> tuple[Client, dict[str, Any]]:
    for _ in range(200):
        for c in cs:
            pick = british_choice(c.state) if c.state.get("phase") in ("play", "kitty") else None
            if pick is not None:
                return c, pick
        for c in cs:
            c.drain(0.05)
    raise AssertionError(f"nobody to act: {cs[0].state}")


@pytest.mark.slow
def test_writer_killed_mid_round_british_game_rebuilt_in_place(tmp_path: Path) -> None:
    """A British game (its engine table one game of the web table) rebuilt in place the same way; the
    round finished, both leave: the game closes and pays each back once; the money is conserved."""
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    a = Proc(db, _port())
    try:
        acct = {n: a.http.post("/api/accounts", json={"name": n}).json()["token"] for n in NAMES}
        tid = a.http.post("/api/tables", json={"preset": "british", "seats": 2, "seed": 3}).json()["id"]
        seat = {
            n: a.http.post(
                f"/api/tables/{tid}/join",
                json={"buy_in": "200"},
                headers={"Authorization": f"Bearer {acct[n]}"},
            ).json()["token"]
            for n in NAMES
        }
        cs = [a.ws(tid, seat[n]) for n in NAMES]
        for c in cs:
            c.wait_state(lambda s: s["you"] is not None and s["phase"] != "waiting")
        actor, pick = _british_turn(cs)
        for c in cs:
            c.drain(0.2)
        seen = {n: c.state for n, c in zip(NAMES, cs, strict=True)}
        child = _writer(a)
        child.send_signal(signal.SIGSTOP)
        actor.send(pick)
        time.sleep(0.5)
        child.send_signal(signal.SIGKILL)
        for c in cs:
            assert _closed_code(c) == 1011
        _writer(a, not_pid=child.pid)
        _back(a, tid)
        cs = [a.ws(tid, seat[n]) for n in NAMES]
        for n, c in zip(NAMES, cs, strict=True):
            st = c.wait_state(lambda m: m["you"] is not None)
            assert _strip(st) == _strip(seen[n]), (seen[n], st)
        rounds = len(cs[0].state.get("history") or [])
        end = time.monotonic() + 60
        while len(cs[0].state.get("history") or []) == rounds:  # the round finished on the new writer
            assert time.monotonic() < end, "the round did not finish"
            c, pick = _british_turn(cs)
            c.send(pick)
            c.until(lambda m: m.get("type") in ("state", "error"))
        for c in cs:
            c.close()
        for n in NAMES:
            r = a.http.post(f"/api/tables/{tid}/leave", json={"token": seat[n]})
            assert r.status_code == 200, r.text
        bal = {
            n: a.http.get(f"/api/accounts/{n}", headers={"Authorization": f"Bearer {acct[n]}"}).json()
            for n in NAMES
        }
    finally:
        log = _stop(a)
    assert f"table {tid}: rebuilt in place" in log, log[-2000:]
    assert all(Decimal(bal[n]["at_tables"]) == 0 for n in NAMES)
    assert sum(Decimal(bal[n]["balance"]) for n in NAMES) == 2000
    store = open_store(db)
    try:
        assert audit(store)["integrity"] == "ok"
        assert {n: str(v) for n, v in WebRecords(store).balances().items()} == {
            n: bal[n]["balance"] for n in NAMES
        }
    finally:
        store.close()


def _play_for(cs: list[Client], seconds: float) -> None:
    """Both play for ``seconds`` (a wager of 10 a round, hit below 17, stand), each message answered
    before the next and at most 8 a second each (under the action rate limit); a connection closed
    stops it."""
    end = time.monotonic() + seconds
    last = [0.0 for _ in cs]
    try:
        while time.monotonic() < end:
            for i, c in enumerate(cs):
                st = c.state
                pick = casino_choice(st)
                if time.monotonic() - last[i] < 0.125:
                    c.drain(0.01)
                    continue
                if st.get("phase") == "betting" and st["you"] not in (st.get("bets") or {}):
                    c.send({"type": "bet", "amount": "10"})
                elif pick is not None:
                    c.send({"type": "act", "action": pick})
                else:
                    c.drain(0.02)
                    continue
                last[i] = time.monotonic()
                c.until(lambda m: m.get("type") in ("state", "error"), timeout=5)
    except (ConnectionClosed, TimeoutError):
        return


@pytest.mark.slow
def test_writer_killed_again_and_again_while_clients_play(tmp_path: Path) -> None:
    """Killed with no stop first, at moments as they come, three times while both play: whatever the
    kill finds (nothing in flight, a call sent, a commit made but not acknowledged), the table either
    plays on or comes back showing what was shown or its continuation; no money lost or doubled."""
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    a = Proc(db, _port())
    rebuilt = 0
    try:
        toks, tid, seat, cs = _table(a, 11)
        child = _writer(a)
        for k in range(3):
            _play_for(cs, 0.3 + 0.2 * k)
            seen = [c.state for c in cs]
            child.send_signal(signal.SIGKILL)
            child.wait(10)
            codes = [_closed_code(c, 1.0) for c in cs]
            child = _writer(a, not_pid=child.pid)
            if 1011 in codes:
                rebuilt += 1
                _back(a, tid)
                cs = [a.ws(tid, seat[n]) for n in NAMES]
                for old, c in zip(seen, cs, strict=True):
                    st = c.wait_state(lambda m: m["you"] is not None)
                    assert (
                        _strip(st) == _strip(old)
                        or _continues(old, st)
                        or (st["round_no"] > old["round_no"] and st["phase"] == "betting")
                    ), (old, st)
            else:
                assert codes == [None, None], codes
        _play_until(cs, lambda: cs[0].state["phase"] == "betting")
        for c in cs:  # one more round, whole
            if c.state["you"] not in (c.state.get("bets") or {}):
                c.send({"type": "bet", "amount": "10"})
        for c in cs:
            c.wait_state(lambda m: m["phase"] == "play")
        rounds = cs[0].state["round_no"]
        _play_until(
            cs,
            lambda: (
                cs[0].state["phase"] == "betting"
                and bool(cs[0].state["history"])
                and cs[0].state["history"][-1]["round"] >= rounds
            ),
        )
        assert cs[0].state["phase"] == "betting" and cs[0].state["history"][-1]["round"] == rounds
        money = _money(a, toks)  # (every round's net from the store: the page keeps the last ten)
        for c in cs:
            c.close()
    finally:
        log = _stop(a)
    store = open_store(db)
    try:
        nets = sum(
            (
                Decimal(v["total"])
                for t in store.tables_(label="web")
                for r in store.rounds_(table_id=int(t["id"]))
                for v in ((r["result"] or {}).get("net") or {}).values()
            ),
            Decimal(0),
        )
    finally:
        store.close()
    assert money == 2 * 1000 + nets
    assert log.count(f"table {tid}: rebuilt in place") == rebuilt, log[-2000:]
    _audited(db)
