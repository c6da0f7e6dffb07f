"""Cross-site and transport hardening (issue 28, item 7), through a real server on loopback and raw
sockets: the Host header (DNS rebinding), the Origin of sockets and writes (cross-site WebSocket
hijacking, CSRF), the security headers (CSP without inline script, no framing, nosniff, referrer),
and slow clients (a half-sent request is closed within the request timeout)."""

from __future__ import annotations

import re
import socket
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from pontoon.cli.app import run
from pontoon.web.site import Security
from tests.web.conftest import FAST, Client, LiveServer

STATIC = Path(__file__).parents[2] / "src/pontoon/web/static"


def test_security_headers_on_the_page_and_the_api(live: LiveServer) -> None:
    for path in ("/", "/static/app.js", "/api/tables", "/api/nothing-here"):
        r = live.http.get(path)
        h = r.headers
        csp = h.get("content-security-policy", "")
        directives = {d.split()[0]: d.split()[1:] for d in csp.split(";") if d.strip()}
        assert directives.get("script-src") == ["'self'"], (path, csp)  # no inline script, no eval
        assert directives.get("frame-ancestors") == ["'none'"] and directives.get("object-src", ["x"]) != [
            "*"
        ]
        assert h.get("x-frame-options") == "DENY" and h.get("x-content-type-options") == "nosniff"
        assert h.get("referrer-policy") == "no-referrer"
        if path.startswith("/api/"):
            assert h.get("cache-control") == "no-store"
    # the page keeps to its CSP: no inline script, no inline handler, no inline style
    html = (STATIC / "index.html").read_text()
    assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", html))
    assert not re.search(r"\son[a-z]+=", html) and "style=" not in html
    assert "eval(" not in (STATIC / "app.js").read_text()


@pytest.mark.parametrize(
    "host,ok",
    [
        ("127.0.0.1:{port}", True),
        ("localhost:{port}", True),
        ("[::1]:{port}", True),
        ("10.1.2.3", True),  # an IP address: no DNS name an attacker could rebind
        ("evil.example:{port}", False),  # DNS rebinding: the attacker's name resolved to 127.0.0.1
        ("127.0.0.1.evil.example", False),
        ("", False),
        ("a b", False),
    ],
)
def test_the_host_header_must_be_the_site_s(live: LiveServer, host: str, ok: bool) -> None:
    r = live.http.get("/api/tables", headers={"Host": host.format(port=live.port)})
    if ok:
        assert r.status_code == 200, r.text
    else:
        assert r.status_code in (400, 421) and "host" in r.json()["detail"].lower(), r.text


def test_a_configured_site_is_accepted_in_host_and_origin(make_live: Any) -> None:
    live = make_live(replace(FAST, security=Security(sites=("https://pontoon.example",))))
    r = live.http.get("/api/tables", headers={"Host": "pontoon.example"})
    assert r.status_code == 200
    r = live.http.post(
        "/api/accounts",
        json={"name": "ann"},
        headers={"Host": "pontoon.example", "Origin": "https://pontoon.example"},
    )
    assert r.status_code == 201
    cookie = r.headers["set-cookie"].lower()
    assert "; secure" in cookie  # an https site: the cookie is Secure though the proxy spoke http
    assert live.http.get("/api/tables", headers={"Host": "other.example"}).status_code == 421


@pytest.mark.parametrize("trusted", ["", "127.0.0.1"])
def test_forwarded_headers_only_from_a_trusted_proxy(make_live: Any, trusted: str) -> None:
    """X-Forwarded-Proto makes the cookie Secure only when the peer is a --trusted-proxy (by default
    none: uvicorn alone would believe 127.0.0.1, so any local process could claim TLS)."""
    live = make_live(replace(FAST, security=Security(trusted_proxies=trusted)))
    r = live.http.post(
        "/api/accounts",
        json={"name": "ann"},
        headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "1.2.3.4"},
    )
    assert r.status_code == 201
    assert ("; secure" in r.headers["set-cookie"].lower()) == bool(trusted)
    assert ("strict-transport-security" in r.headers) == bool(trusted)


def test_a_socket_from_another_origin_is_refused(live: LiveServer) -> None:
    tid = live.table(preset="mbs", seed=1)
    tok = live.join(tid, live.account("ann"), box=1)
    url = f"ws://127.0.0.1:{live.port}/ws/tables/{tid}"
    for origin in ("http://evil.example", "null", f"http://localhost:{live.port}", "http://127.0.0.1"):
        with pytest.raises(InvalidStatus) as refused:
            connect(url, origin=origin, additional_headers={"Authorization": f"Bearer {tok}"})  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403, origin
    # the page's own origin, and a script that sends none, are accepted
    own = f"http://127.0.0.1:{live.port}"
    c = Client(connect(url, origin=own, additional_headers={"Authorization": f"Bearer {tok}"}).__enter__())  # type: ignore[arg-type]
    assert c.wait_state(lambda m: True)["you"] == "ann"
    c.close()
    # a cross-site write is refused too (a form or fetch from another site: CSRF), a read is not
    r = live.http.post("/api/tables", json={"preset": "mbs"}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "origin" in r.json()["detail"]
    assert live.http.get("/api/tables", headers={"Origin": "http://evil.example"}).status_code == 200


def _closed_within(sock: socket.socket, limit: float) -> tuple[float, bytes]:
    """Read until the server closes; (seconds it took, what it sent). Fails past ``limit``."""
    t0 = time.monotonic()
    sock.settimeout(limit)
    got = b""
    try:
        while chunk := sock.recv(4096):
            got += chunk
    except TimeoutError:
        raise AssertionError(f"the server still held the connection after {limit} s (sent {got!r})") from None
    except ConnectionResetError:
        pass
    return time.monotonic() - t0, got


@pytest.mark.parametrize(
    "sent",
    [
        b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",  # headers never finished
        b"POST /api/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"name": ',  # a body never finished
        b"",  # a connection that sends nothing
    ],
    ids=["half-headers", "half-body", "silent"],
)
def test_a_slow_client_is_closed_within_the_request_timeout(make_live: Any, sent: bytes) -> None:
    live = make_live(replace(FAST, security=Security(request_timeout_s=1.0)))
    with socket.create_connection(("127.0.0.1", live.port), timeout=5) as sock:
        if sent:
            sock.sendall(sent)
        took, got = _closed_within(sock, 6.0)
    assert 0.8 <= took <= 4.0, took  # the 1 s deadline (and a loaded machine's event-loop delay)
    assert got.startswith(b"HTTP/1.1 408"), got
    assert live.http.get("/healthz").status_code == 200  # the server serves on


def test_the_deadline_spares_kept_alive_requests_and_open_sockets(make_live: Any) -> None:
    live = make_live(replace(FAST, security=Security(request_timeout_s=1.0)))
    tid = live.table(preset="mbs", seed=3)
    with socket.create_connection(("127.0.0.1", live.port), timeout=5) as sock:
        for _ in range(2):  # two whole requests on one connection, 0.7 s apart: both answered
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            time.sleep(0.7)
    c = live.ws(tid)  # a table socket outlives the deadline many times over
    c.wait_state(lambda m: True)
    time.sleep(2.5)
    c.send({"type": "ping"})
    assert c.until(lambda m: m.get("type") == "pong", timeout=5)
    c.close()


@pytest.mark.parametrize(
    "args,want",
    [
        (["--site", "ftp://x"], "--site 'ftp://x'"),
        (["--cookie-secure", "maybe"], "--cookie-secure 'maybe'"),
        (["--request-timeout", "0"], "--request-timeout 0"),
    ],
)
def test_serve_refuses_a_bad_site_option(
    capsys: pytest.CaptureFixture[str], args: list[str], want: str
) -> None:
    assert run(["serve", "--memory", *args]) == 2
    err = capsys.readouterr().err
    assert want in err and err.count("\n") == 1 and err.startswith("error: ")
