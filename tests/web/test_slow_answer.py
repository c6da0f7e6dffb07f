"""A table message answered late is logged with what it waited for (web/app.py ``SLOW_S``): the table's
lock, the move, its commit. An operator's (and a flaky test's) clue; a real server and socket."""

from __future__ import annotations

import logging
from typing import Any

import pytest

import pontoon.web.app as app_module
from tests.web.conftest import LiveServer


def test_a_late_answer_names_its_waits(
    live: LiveServer, caplog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = live.table(preset="mbs", seed=7)
    c = live.ws(tid, live.join(tid, live.account("ann"), box=1, buy_in="100"))
    c.recv()
    c.send({"type": "ping"})
    c.until(lambda m: m.get("type") == "pong")
    with caplog.at_level(logging.WARNING, logger="pontoon.web"):
        monkeypatch.setattr(app_module, "SLOW_S", 3600.0)  # (a loaded machine takes seconds too)
        c.send({"type": "bet", "amount": "10"})  # answered in time: nothing said
        c.wait_state(lambda s: s.get("phase") == "play")
        assert not [r for r in caplog.records if "answered after" in r.getMessage()]
        monkeypatch.setattr(app_module, "SLOW_S", 0.0)  # every answer is late now
        c.send({"type": "act", "action": {"verb": "stand", "box": 1}})
        c.wait_state(lambda s: s.get("phase") == "betting")
    said = [r.getMessage() for r in caplog.records if "answered after" in r.getMessage()]
    assert len(said) == 1, said
    assert said[0].startswith(f"table {tid}: ann's act answered after ")
    assert "the table's lock" in said[0] and "the move" in said[0] and "its commit" in said[0]
    c.close()
