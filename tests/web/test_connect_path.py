"""A table socket's connect, made cheaper (docs/scale.md, "connectburst"), keeps every check:

- ``SiteGuard`` hands ``/ws/tables/{tid}`` straight to ``table_socket`` (no router, no dependencies)
  only after its own checks (Host, Origin, no token in the URL), and only that path's one segment;
- the accepted ``Host`` values and (``Origin``, ``Host``) pairs it keeps are only accepted ones, a
  bounded number, each pair as checked (an origin good for one host is not for another);
- the query is parsed where it may name a secret (an escaped key included);
- the session read on the driver's own connection (``LoginRecords.session_get``) answers as before:
  a live session, none, an expired one (deleted); a seat token whose session ended is refused at the
  socket on a real store (SQLite), and a seat's first state is its own view (ruling 35).

Through a real server on loopback and real SQLite, no mocks."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import socket
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from starlette.datastructures import Headers
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from pontoon.history import open_store
from pontoon.history.logins import LoginRecords
from pontoon.web.site import Security
from pontoon.web.store_persistence import StorePersistence
from pontoon.web.transport import SiteGuard
from tests.history.pg import create_db, module_cluster
from tests.web.conftest import FAST, Client, LiveServer, bearer


async def _nothing(scope: Any, receive: Any, send: Any) -> None:
    return None


async def _handler(scope: Any, receive: Any, send: Any, tid: str) -> None:
    return None


def _scope(path: str, *, host: str = "127.0.0.1:8000", origin: str | None = None, qs: bytes = b"") -> Any:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin else [])
    return {"type": "websocket", "path": path, "query_string": qs, "headers": headers, "root_path": ""}


def test_only_the_route_s_one_segment_goes_straight_to_its_handler() -> None:
    g = SiteGuard(_nothing, Security(), sockets={"/ws/tables/": _handler})
    assert g.socket_route(_scope("/ws/tables/abcd1234")) == (_handler, "abcd1234")
    for path in ("/ws/tables/", "/ws/tables/a/b", "/ws/table/abcd", "/api/tables/abcd", "/ws/tables"):
        assert g.socket_route(_scope(path)) is None, path  # the app's router (a 404 close, another route)
    under = dict(_scope("/ws/tables/abcd1234"), root_path="/pontoon")  # behind a prefix: the router's
    assert g.socket_route(under) is None
    assert SiteGuard(_nothing, Security()).socket_route(_scope("/ws/tables/abcd1234")) is None


def test_hosts_and_origins_kept_are_accepted_ones_bounded_and_per_pair() -> None:
    g = SiteGuard(_nothing, Security(sites=("https://pontoon.example",)))
    ok = _scope("/ws/tables/t", host="pontoon.example", origin="https://pontoon.example")
    assert g.refusal(ok, Headers(scope=ok)) is None
    assert g.ok_hosts == {"pontoon.example"}
    for i in range(3 * SiteGuard.KEEP):  # made-up hosts: refused every time, never kept
        bad = _scope("/ws/tables/t", host=f"evil{i}.example")
        assert g.refusal(bad, Headers(scope=bad)) is not None
    assert g.ok_hosts == {"pontoon.example"}
    for i in range(
        3 * SiteGuard.KEEP
    ):  # IP hosts (all accepted): kept up to KEEP, the rest checked each time
        ip = _scope("/ws/tables/t", host=f"10.0.{i // 250}.{i % 250}")
        assert g.refusal(ip, Headers(scope=ip)) is None
    assert len(g.ok_hosts) == SiteGuard.KEEP
    # an origin accepted as the host's own is not accepted for another host
    own = _scope("/ws/tables/t", host="10.9.9.9", origin="http://10.9.9.9")
    assert g.refusal(own, Headers(scope=own)) is None
    other = _scope("/ws/tables/t", host="10.9.9.8", origin="http://10.9.9.9")
    assert g.refusal(other, Headers(scope=other)) == (
        403,
        "requests from the origin 'http://10.9.9.9' are refused: this site's own page only",
    )
    assert ("http://10.9.9.9", "10.9.9.8") not in g.ok_origins
    assert g.refusal(own, Headers(scope=own)) is None  # (kept, or checked again: the same answer)


@pytest.mark.parametrize(
    "qs,refused",
    [
        (b"deltas=2", False),
        (b"deltas=2&x=1", False),
        (b"token=abc", True),
        (b"deltas=2&Token=abc", True),
        (b"%74oken=abc", True),  # an escaped key: parse_qsl decodes it to "token"
        (b"ses+sion=1&session=2", True),
        (b"seatbelt=1", False),  # a key that only contains a secret's name is not one
    ],
)
def test_a_token_in_the_query_is_still_refused(qs: bytes, refused: bool) -> None:
    g = SiteGuard(_nothing, Security())
    s = _scope("/ws/tables/t", qs=qs)
    got = g.refusal(s, Headers(scope=s))
    assert (got is not None and got[0] == 400) == refused, got


def test_the_direct_socket_keeps_the_guard_s_refusals(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=3)
    tok = live.join(tid, live.account("ann"), box=1)
    url = f"ws://127.0.0.1:{live.port}/ws/tables/{tid}"
    auth = bearer(tok)
    # each refused before it is accepted (uvicorn answers 403 to a close before the accept), where the
    # same seat token with the guard's checks passed is accepted and sent its state (below)
    with pytest.raises(InvalidStatus) as refused:  # another site's page
        connect(url, origin="http://evil.example", additional_headers=auth)  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    with pytest.raises(InvalidStatus) as refused:  # a token in the URL (logged): refused before any route
        connect(url + f"?seat={tok}", additional_headers=auth)  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    path = f"/ws/tables/{tid}"
    assert _handshake(live.port, path, f"127.0.0.1:{live.port}", tok).startswith(b"HTTP/1.1 101 ")
    # DNS rebinding: a host not the site's
    assert _handshake(live.port, path, "evil.example", tok).startswith(b"HTTP/1.1 403 ")
    with pytest.raises((InvalidStatus, ConnectionClosed)):  # no such table: closed (4404)
        Client(connect(url + "zz/x", additional_headers=auth).__enter__()).recv(timeout=5)  # type: ignore[arg-type]
    c = live.ws(tid, tok)  # and the seat itself: its own view first
    first = c.wait_state(lambda m: True)
    assert first["you"] == "ann" and first["version"] >= 1
    # served by the direct route: the app's router, which names the route's endpoint in the scope,
    # never saw it
    (conn,) = live.srv.conns[tid]
    assert conn.ws.scope["path"] == f"/ws/tables/{tid}" and "endpoint" not in conn.ws.scope
    c.close()


def _handshake(port: int, path: str, host: str, token: str) -> bytes:
    """A WebSocket handshake with this ``Host`` on a raw socket: the server's answer's first line."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
                f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n"
            ).encode()
        )
        got = b""
        while b"\r\n" not in got:
            chunk = sock.recv(4096)
            if not chunk:
                break
            got += chunk
    return got.split(b"\r\n")[0] + b"\r\n"


@pytest.fixture
def stored_live(tmp_path: Path, make_live: Any) -> Iterator[tuple[LiveServer, Any]]:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    persist = StorePersistence(store)
    live = make_live(FAST, persist)
    try:
        yield live, store
    finally:
        live.stop()
        persist.group.close()
        store.close()


def test_a_seat_on_a_store_connects_with_its_own_view_and_not_once_its_session_ended(
    stored_live: tuple[LiveServer, Any],
) -> None:
    live, _ = stored_live
    tid = live.table(preset="mbs", seed=4)
    ann, bob = live.account("ann"), live.account("bob")
    sa, sb = live.join(tid, ann, box=1), live.join(tid, bob, box=2)
    a, b = live.ws(tid, sa), live.ws(tid, sb)
    first_a, first_b = a.wait_state(lambda m: True), b.wait_state(lambda m: True)
    assert first_a["you"] == "ann" and first_b["you"] == "bob"  # each seat's own view (ruling 35)
    a.close()
    r = live.http.post("/api/auth/logout", headers=bearer(bob))
    assert r.status_code in (200, 204), r.text
    with pytest.raises(ConnectionClosed) as closed:  # his open socket closed by the logout
        b.until(lambda m: False, timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    with pytest.raises(InvalidStatus) as refused:  # his seat token: its session is gone (closed unaccepted)
        connect(f"ws://127.0.0.1:{live.port}/ws/tables/{tid}", additional_headers=bearer(sb))  # type: ignore[arg-type]
    assert refused.value.response.status_code == 403
    again = live.ws(tid, sa)  # ann's session lives: she connects again
    assert again.wait_state(lambda m: True)["you"] == "ann"
    again.close()


pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The store's URL: a SQLite file, or a database on a real PostgreSQL server (its driver's own
    placeholder, ``%s``, and its own types: the session's read is the driver's, not SQLAlchemy's)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'h.sqlite'}"
    return str(create_db(request.getfixturevalue("pg"), "sessions"))


def test_the_session_read_answers_live_none_and_expired(store_url: str) -> None:
    store = open_store(store_url)
    try:
        lr = LoginRecords(store)
        lr.create("ann", "ann", Decimal(100), None)
        live_sid, old_sid = (hashlib.sha256(x).hexdigest() for x in (b"live", b"old"))
        now = time.time()
        lr.session_add(live_sid, "ann", now + 60)
        lr.session_add(old_sid, "ann", now - 1)
        assert lr.session_get(live_sid, now) == "ann"
        assert lr.session_get("0" * 64, now) is None
        assert lr.session_get(old_sid, now) is None
        assert lr.session_get(old_sid, now - 10) is None  # the expired row was deleted when seen
        assert lr.session_get(live_sid, now + 61) is None  # expired by the clock given
        lr.session_drop(live_sid)
        assert lr.session_get(live_sid, now) is None

        async def many() -> list[str | None]:  # from worker threads at once, as the sockets read it
            return await asyncio.gather(*(asyncio.to_thread(lr.session_get, s, now) for s in [live_sid] * 8))

        lr.session_add(live_sid, "ann", now + 60)
        assert asyncio.run(many()) == ["ann"] * 8
    finally:
        store.close()
