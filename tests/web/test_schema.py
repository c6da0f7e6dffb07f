"""schemathesis against the server's /openapi.json on a real uvicorn: no operation answers 5xx.

schemathesis's Python API (each operation's hypothesis strategy, a bounded number of examples) so
that the run stays well under a minute."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from tests.web.conftest import FAST, LiveServer


def test_no_operation_answers_a_server_error(live: LiveServer) -> None:
    _check_all(live)


def test_on_the_history_store(tmp_path: Path) -> None:
    """The same with the store on (the rounds, round and shoe endpoints read it)."""
    from pontoon.history import open_store
    from pontoon.web.store_persistence import StorePersistence

    live = LiveServer(
        FAST, StorePersistence(open_store(f"sqlite:///{tmp_path / 'h.sqlite'}", synchronous="OFF"))
    )
    try:
        _check_all(live)
    finally:
        live.stop()


def _check_all(live: LiveServer) -> None:
    live.table(preset="mbs", seed=1)  # something for the table routes to find
    live.account("someone")
    schema = schemathesis.openapi.from_url(live.url + "/openapi.json")
    ops = [r.ok() for r in schema.get_all_operations()]
    assert {op.path for op in ops} >= {
        "/api/tables",
        "/api/accounts",
        "/api/tables/{tid}/join",
        "/api/verify",
        "/api/auth/register",
        "/api/auth/login",
        "/api/auth/claim",
    }
    calls = 0
    for op in ops:

        @given(case=op.as_strategy())
        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case: Any) -> None:
            nonlocal calls
            calls += 1
            case.call_and_validate(base_url=live.url, checks=[not_a_server_error])

        run()
    assert calls >= 10 * len(ops) // 2
    assert live.http.get("/healthz").status_code == 200
