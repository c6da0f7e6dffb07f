"""The British bots' shipped solution read for a host (``POST /api/tables/{id}/host`` adding a ``solved``
bot) on the bots' lane (web/workers.py), once for every host asking meanwhile: the loop's default
threads, which a socket's sign-in and the store's reads use, stay free while it loads.

The route read it with ``asyncio.to_thread``: each request read it again on a default thread (a few
seconds each, the first time), so hosts asking at once held every default thread and a table socket's
sign-in waited behind them. The load is held here by a gate (the real function runs once the gate
opens) so that "while it loads" is a state the test controls, not a timing."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from pontoon.web.routes import host as host_route
from tests.web.conftest import LiveServer, bearer

ASKERS = 40  # more than the loop's default threads anywhere (min(32, cores + 4))


def test_hosts_asking_for_solved_bots_at_once_read_the_solution_once_off_the_default_threads(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    calls: list[str] = []
    real = host_route.british_bots

    def gated(rules: Any, level: str = "simple") -> Any:
        calls.append(level)
        gate.wait(60)
        return real(rules, level)

    monkeypatch.setattr(host_route, "british_bots", gated)
    ann = live.account("ann")
    r = live.http.post("/api/tables", json={"preset": "british", "seats": 3}, headers=bearer(ann))
    assert r.status_code == 201, r.text
    live.http.cookies.clear()
    tid = r.json()["id"]
    live.join(tid, ann, buy_in="300")

    def ask(_: int) -> int:
        with httpx.Client(base_url=live.url, timeout=90) as c:
            body = {"msg": {"action": "add_bot", "level": "solved"}}
            return c.post(f"/api/tables/{tid}/host", json=body, headers=bearer(ann)).status_code

    pool = ThreadPoolExecutor(ASKERS)
    try:
        answers = [pool.submit(ask, i) for i in range(ASKERS)]
        end = time.monotonic() + 20
        while not calls:
            assert time.monotonic() < end, "no host request reached the solution's load"
            time.sleep(0.02)
        time.sleep(0.5)  # (every request has come in and waits for the load)
        # while the solution loads: a table socket signs in (on the loop's default threads) and is served
        spectator = live.ws(tid)
        assert spectator.wait_state(lambda s: s["table"] == tid, timeout=5)["game"] == "british"
        spectator.close()
        assert not any(a.done() for a in answers)  # (the load was still held: the hosts still wait)
    finally:
        gate.set()
        codes = [a.result(timeout=90) for a in answers]
        pool.shutdown()
    assert calls == ["solved"], f"the solution was read {len(calls)} times"
    assert codes.count(200) == 2 and codes.count(400) == ASKERS - 2, codes  # two seats free, then full
    st = live.srv.lobby.tables[tid]
    assert st.bot_level == "solved" and sum(1 for m in st.members.values() if m.bot) == 2
