"""A real uvicorn server on a loopback port (in a thread of the test process), and WebSocket clients."""

from __future__ import annotations

import gc
import json
import threading
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.sync.client import ClientConnection, connect

from pontoon.web.app import create_app
from pontoon.web.hosting import Settings
from pontoon.web.transport import untune_gc, uvicorn_options

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def browser() -> Iterator[Any]:
    """Debian's chromium through Playwright, one per test (the browser tests' only copy)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def gc_restored() -> Iterator[None]:
    """The collector's thresholds as they were before the test (the gc tests tune, untune and freeze it)."""
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        untune_gc(threshold)


FAST = Settings(
    turn_timeout_s=30.0,
    bet_timeout_s=30.0,
    grace_s=30.0,
    join_burst=1000,
    join_rate=1000,
    action_burst=1000,
    action_rate=1000,
    secret="test-secret",
    test_mode=True,  # the tests make seeded tables (ruling 36: only in test mode)
    custom_rules=True,
    result_pause_s=0.0,  # British rounds follow at once (the felt's pause: tests/web/test_table_host.py)
    max_player_edge=1.0,
    tables_per_address=10_000,
    tables_per_account=10_000,
    seats_per_account=10_000,
    seats_per_address=10_000,
)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class LiveServer:
    def __init__(self, settings: Settings, persistence: Any = None, log_level: str = "warning") -> None:
        self.settings = settings
        self.app = create_app(settings, persistence, tick_s=0.05)
        cfg = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=0,
            log_level=log_level,
            lifespan="on",
            **uvicorn_options(settings),
        )
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        t0 = time.monotonic()
        while not self.server.started:
            if time.monotonic() - t0 > 20 or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.url, timeout=10)

    @property
    def srv(self) -> Any:
        return self.app.state.server

    def stop(self) -> None:
        self.http.close()
        self.server.should_exit = True
        self.thread.join(10)

    # helpers ------------------------------------------------------------------------------
    def account(self, name: str) -> str:
        """A guest account; its session token (the client's cookie jar is left empty: each call names
        its account with ``Authorization: Bearer``)."""
        r = self.http.post("/api/accounts", json={"name": name})
        assert r.status_code == 201, r.text
        self.http.cookies.clear()
        return str(r.json()["token"])

    def balance(self, name: str, token: str) -> dict[str, Any]:
        """``GET /api/accounts/{name}`` as its owner (a balance is shown to its owner only)."""
        r = self.http.get(f"/api/accounts/{name}", headers=bearer(token))
        assert r.status_code == 200, r.text
        return dict(r.json())

    def table(self, **spec: Any) -> str:
        r = self.http.post("/api/tables", json=spec)
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def join(self, tid: str, account_token: str, **body: Any) -> str:
        r = self.http.post(
            f"/api/tables/{tid}/join", json=body, headers={"Authorization": f"Bearer {account_token}"}
        )
        assert r.status_code == 200, r.text
        return r.json()["token"]

    def ws(self, tid: str, token: str | None = None) -> Client:
        """A table socket: a seat (or session) token in the Authorization header; none: a spectator."""
        conn = connect(
            f"ws://127.0.0.1:{self.port}/ws/tables/{tid}",
            open_timeout=10,
            max_size=2**22,
            additional_headers=bearer(token) if token else None,
        )
        return Client(conn.__enter__())

    def total_money(self) -> Decimal:
        """Every account plus what sits at the tables (for conservation checks)."""
        lobby = self.srv.lobby
        total = sum(lobby.accounts.values(), Decimal(0))
        for t in lobby.tables.values():
            for n in t.members:
                total += t.balance(n)
        return total


class Client:
    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.received: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}

    def send(self, obj: Any) -> None:
        self.conn.send(obj if isinstance(obj, str | bytes) else json.dumps(obj))

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        msg = json.loads(self.conn.recv(timeout=timeout))
        self.received.append(msg)
        if msg.get("type") == "state":
            if "history" not in msg:  # sent only when it changes: keep the last one
                msg["history"] = self.state.get("history", [])
            self.state = msg
        return msg

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no message matched; last state: {json.dumps(self.state)[:800]}")
            msg = self.recv(left)
            if pred(msg):
                return msg

    def wait_state(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10) -> dict[str, Any]:
        """The latest state if it matches ``pred``, else the next state that does."""
        if self.state and pred(self.state):
            return self.state
        return self.until(lambda m: m.get("type") == "state" and pred(m), timeout)

    def drain(self, quiet: float = 0.15) -> None:
        """Read until nothing arrives for ``quiet`` seconds."""
        while True:
            try:
                self.recv(quiet)
            except TimeoutError:
                return

    def error(self, timeout: float = 10) -> str:
        return str(self.until(lambda m: m.get("type") == "error", timeout)["error"])

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def live() -> Iterator[LiveServer]:
    s = LiveServer(FAST)
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture
def make_live() -> Iterator[Callable[..., LiveServer]]:
    made: list[LiveServer] = []

    def make(settings: Settings, persistence: Any = None, **kw: Any) -> LiveServer:
        s = LiveServer(settings, persistence, **kw)
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()
