"""SIGKILL a real ``pontoon serve`` (a subprocess on loopback with a SQLite file) mid-round, from
outside and with ``PONTOON_CRASH_AT`` inside a write transaction; restart it on the same file: the
clients reconnect with their seat tokens, see the state they last saw and finish the round; no money
lost or doubled (the audit is clean, every account's balance is its ledger's, and accounts plus the
table's balances equal what the accounts were opened with)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from pontoon.history import open_store
from pontoon.history.accounts import WebRecords
from pontoon.history.audit import audit
from tests.web.conftest import Client
from tests.web.play import casino_choice

ROOT = Path(__file__).resolve().parents[2]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    def __init__(self, db: str, port: int, crash_at: str | None = None, extra: tuple[str, ...] = ()) -> None:
        env = dict(os.environ, PONTOON_SECRET="kill-test-secret", PYTHONPATH=str(ROOT / "src"))
        env.pop("PONTOON_CRASH_AT", None)
        if crash_at:
            env["PONTOON_CRASH_AT"] = crash_at
        self.port = port
        self.p = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pontoon.cli.app",
                "serve",
                "--db",
                db,
                "--port",
                str(port),
                "--grace",
                "120",
                "--test-mode",  # seeded tables (ruling 36)
                *("--tables-per-address", "100000", "--seats-per-account", "100000"),
                *("--seats-per-address", "100000"),
                *extra,
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
        t0 = time.monotonic()
        while True:
            try:
                if self.http.get("/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.p.poll() is not None or time.monotonic() - t0 > 30:
                raise RuntimeError(
                    f"pontoon serve did not start: {self.p.stderr.read().decode()[-800:] if self.p.stderr else ''}"
                )
            time.sleep(0.1)

    def ws(self, tid: str, token: str) -> Client:
        return Client(
            connect(
                f"ws://127.0.0.1:{self.port}/ws/tables/{tid}",
                open_timeout=10,
                additional_headers={"Authorization": f"Bearer {token}"},
            ).__enter__()
        )

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGKILL)
        self.p.wait(10)
        self.http.close()
        if self.p.stderr:
            self.p.stderr.close()


def seat_and_bet(
    a: Proc, tid: str, toks: dict[str, str], names: list[str]
) -> tuple[dict[str, str], list[Client]]:
    """``names`` seated at table ``tid`` (boxes 1, 3, ...; 300 each), each with a wager of 10 down, the
    round in play: their seat tokens and their connections."""
    seat = {}
    for i, n in enumerate(names):
        r = a.http.post(
            f"/api/tables/{tid}/join",
            json={"box": 1 + 2 * i, "buy_in": "300"},
            headers={"Authorization": f"Bearer {toks[n]}"},
        )
        seat[n] = r.json()["token"]
    cs = [a.ws(tid, seat[n]) for n in names]
    for c in cs:
        c.wait_state(lambda m: m["you"] is not None)
        c.send({"type": "bet", "amount": "10"})
    for c in cs:
        c.wait_state(lambda m: m["phase"] == "play")
        c.drain(0.2)
    return seat, cs


def seated_round(
    a: Proc, seed: int | None, names: list[str]
) -> tuple[dict[str, str], str, dict[str, str], list[Client]]:
    """Accounts for ``names`` and a casino table (``seed``: seeded; None: fair) with them seated and
    betting (``seat_and_bet``): their account tokens, the table, their seat tokens, their connections."""
    toks = {n: a.http.post("/api/accounts", json={"name": n}).json()["token"] for n in names}
    tid = a.http.post(
        "/api/tables", json={"preset": "mbs"} | ({} if seed is None else {"seed": seed})
    ).json()["id"]
    seat, cs = seat_and_bet(a, tid, toks, names)
    return toks, tid, seat, cs


def _strip(state: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v for k, v in state.items() if k not in ("version", "timer_s", "notice", "history_mark", "members")
    }


def _continues(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """``new`` is the round ``old`` showed, carried on: the same round, every card shown still there first."""
    a, b = old["round"], new["round"]
    if (
        old["round_no"] != new["round_no"]
        or a is None
        or b is None
        or b["dealer"][: len(a["dealer"])] != a["dealer"]
    ):
        return False
    hands = {(bx["box"], h["hand"]): h["cards"] for bx in b["boxes"] for h in bx["hands"]}
    return all(
        hands.get((bx["box"], h["hand"]), [])[: len(h["cards"])] == h["cards"]
        for bx in a["boxes"]
        for h in bx["hands"]
    )


def _money(proc: Proc, toks: dict[str, str]) -> Decimal:
    """Every account's balance plus its money at tables (each asked by its owner's session)."""
    total = Decimal(0)
    for n, tok in toks.items():
        d = proc.http.get(f"/api/accounts/{n}", headers={"Authorization": f"Bearer {tok}"}).json()
        total += Decimal(d["balance"]) + Decimal(d["at_tables"])
    return total


def _play_until(cs: list[Client], stop: Any, limit: int = 200) -> None:
    for _ in range(limit):
        if stop():
            return
        for c in cs:
            pick = casino_choice(c.state)
            if pick is not None:
                c.send({"type": "act", "action": pick})
                try:
                    c.until(lambda m: m.get("type") in ("state", "error"), timeout=5)
                except Exception:  # the server died under us
                    return
            try:
                c.drain(0.05)
            except Exception:
                return


# inside:11 is the first action's write; inside:12 the last action's (the dealer's turn and the settlement
# with it: one table call, one transaction); the transactions before them include the host's own entry,
# written when he makes the table (a host not seated keeps his table across a restart). None: killed from
# outside; seed None: a fair table.
@pytest.mark.parametrize("crash_at,seed", [(None, 11), ("inside:11", 11), ("inside:12", 11), (None, None)])
def test_sigkill_mid_round_and_restart(tmp_path: Path, crash_at: str | None, seed: int | None) -> None:
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    names = ["ann", "bob"]
    a = Proc(db, _port(), crash_at)
    try:
        toks, tid, seat, cs = seated_round(a, seed, names)
        if crash_at is None:
            # one action each where it is theirs, then the kill from outside
            _play_until(cs, lambda: False, 1)
            for c in cs:
                c.drain(0.2)
            a.kill()
        else:  # the server kills itself inside a write transaction, during play
            _play_until(cs, lambda: a.p.poll() is not None)
            assert a.p.wait(20) == -signal.SIGKILL
            a.kill()
        seen = {n: c.state for n, c in zip(names, cs, strict=True)}
        for c in cs:
            try:
                c.close()
            except Exception:
                pass
    finally:
        a.kill()

    b = Proc(db, _port())
    try:
        cs = [b.ws(tid, seat[n]) for n in names]
        for n, c in zip(names, cs, strict=True):
            st = c.wait_state(lambda m: m["you"] is not None)
            if crash_at is None:
                assert _strip(st) == _strip(seen[n])  # exactly what each saw before the kill
            else:  # killed inside a table call: what it committed before the kill goes on (nothing shown is lost)
                assert _strip(st) == _strip(seen[n]) or _continues(seen[n], st), (seen[n], st)
        _play_until(cs, lambda: cs[0].state["phase"] == "betting" and bool(cs[0].state["history"]))
        for c in cs:
            c.drain(0.2)
        assert cs[0].state["phase"] == "betting" and cs[0].state["history"][-1]["status"] in (
            "settled",
            "void",
        )
        assert _money(b, toks) == 2 * 1000 + sum(
            Decimal(v["total"]) for h in cs[0].state["history"] for v in h["net"].values()
        )
        for c in cs:
            c.close()
    finally:
        b.kill()
    store = open_store(db)
    try:
        assert audit(store)["integrity"] == "ok"  # raises naming the first discrepancy
        bal = WebRecords(store).balances()  # opening + the cashier rows: what the server showed
        at = {
            n: sum((Decimal(v) for k, v in store.balances(t["id"]).items() if k == f'"{n}"'), Decimal(0))
            for n in names
            for t in store.tables_(label="web")
        }
        assert all(bal[n] <= 1000 for n in names) and set(at) == set(names)
    finally:
        store.close()
