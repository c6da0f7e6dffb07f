"""A closed table socket is forgotten under its own session only (web/auth.py ``Auth.forget`` with the
session id; web/app.py): the sessions' other sockets stay watched, nothing is left behind once all are
closed, and a logout still closes exactly its session's sockets. Before, each closed socket was looked
for in every session's set (2,000 people leaving: 4 million look-ups on the event loop). Through a
real server on loopback."""

from __future__ import annotations

import time

import pytest
from websockets.exceptions import ConnectionClosed

from tests.web.conftest import LiveServer, bearer


def _watched(live: LiveServer) -> dict[str, int]:
    return {sid: len(socks) for sid, socks in live.srv.auth.sockets.items()}


def _until(pred, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "the server did not get there in time"
        time.sleep(0.02)


def test_closed_sockets_are_forgotten_under_their_session_and_logout_still_closes_its_own(
    live: LiveServer,
) -> None:
    tid = live.table(preset="mbs", seed=5)
    ann, bob = live.account("ann"), live.account("bob")
    sa, sb = live.join(tid, ann, box=1), live.join(tid, bob, box=2)
    a1, a2, b1 = live.ws(tid, sa), live.ws(tid, sa), live.ws(tid, sb)  # ann in two tabs
    for c in (a1, a2, b1):
        c.wait_state(lambda m: True)
    _until(lambda: sorted(_watched(live).values()) == [1, 2])
    a1.close()
    _until(lambda: sorted(_watched(live).values()) == [1, 1])  # ann's other tab, bob's: still watched
    r = live.http.post("/api/auth/logout", headers=bearer(ann))
    assert r.status_code in (200, 204), r.text
    with pytest.raises(ConnectionClosed) as closed:  # her remaining tab is closed by the logout
        a2.until(lambda m: False, timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    _until(lambda: list(_watched(live).values()) == [1])  # bob's alone
    b1.send({"type": "ping"})
    assert b1.until(lambda m: m.get("type") == "pong")  # bob's socket untouched by her logout
    b1.close()
    _until(lambda: _watched(live) == {})  # nothing left behind
