"""A socket the server closes gets the frames queued before the close first (web/app.py
``Conn.close_after``: the sender sends what is queued, then closes with the code and reason).

Closed at once, the close overtook the queued frame: a person the host removed never got the state that
says so (his notice "the host removed you: <reason>"), and the page could only guess from the close."""

from __future__ import annotations

from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.web.conftest import Client, LiveServer, bearer


def _until_closed(c: Client, timeout: float = 10) -> tuple[list[dict[str, Any]], Any]:
    """Every frame up to the close, and the close frame received."""
    got: list[dict[str, Any]] = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            got.append(c.recv(timeout))
    return got, closed.value.rcvd


@pytest.mark.parametrize("deltas", [False, True], ids=["plain", "deltas"])
def test_a_removed_person_gets_his_last_frame_then_the_close(live: LiveServer, deltas: bool) -> None:
    ann, bob = live.account("ann"), live.account("bob")
    r = live.http.post("/api/tables", json={"preset": "mbs", "seed": 2}, headers=bearer(ann))
    assert r.status_code == 201, r.text
    live.http.cookies.clear()
    tid = r.json()["id"]
    live.join(tid, ann, box=1, buy_in="100")
    seat = live.join(tid, bob, box=2, buy_in="100")
    c = live.ws(tid, seat) if not deltas else _deltas_socket(live, tid, seat)
    c.wait_state(lambda s: s["you"] == "bob")
    c.drain()
    r = live.http.post(
        f"/api/tables/{tid}/host",
        json={"msg": {"action": "kick", "name": "bob", "reason": "spamming the chat"}},
        headers=bearer(ann),
    )
    assert r.status_code == 200 and r.json()["removed"] == "bob", r.text
    frames, close = _until_closed(c)
    assert (
        close is not None and close.code == 4403 and close.reason == "the host removed you: spamming the chat"
    )
    assert frames, "the close came with no frame before it"
    last = frames[-1]
    assert last["type"] == "state" and last["notice"] == "the host removed you: spamming the chat", last
    assert last["you"] is None and "bob" not in [m["name"] for m in last["members"]]
    assert "bob" not in live.srv.lobby.tables[tid].notices  # nothing of his left behind


def _deltas_socket(live: LiveServer, tid: str, token: str) -> Client:
    """The page's kind of socket (``?deltas=1``): its first frame is a full state, then deltas."""
    from websockets.sync.client import connect

    conn = connect(
        f"ws://127.0.0.1:{live.port}/ws/tables/{tid}?deltas=1",
        open_timeout=10,
        max_size=2**22,
        additional_headers=bearer(token),
    )
    return _DeltaClient(conn.__enter__())


class _DeltaClient(Client):
    """A client that applies the deltas (web/delta.py) to the state it holds, as the page does."""

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        from pontoon.web.delta import apply

        msg = super().recv(timeout)
        if msg.get("type") == "delta":
            assert self.state.get("seq") == msg["base"], (self.state.get("seq"), msg["base"])
            held = {k: v for k, v in self.state.items() if k not in ("notice", "type")}
            st = dict(apply(held, msg["ops"]), seq=msg["seq"])
            out = dict(st, type="state", **({"notice": msg["notice"]} if "notice" in msg else {}))
            self.state = st
            self.received[-1] = out
            return out
        return msg
