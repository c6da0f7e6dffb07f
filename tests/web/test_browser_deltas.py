"""The page on deltas (docs/server.md "State frames and deltas") in a real browser (Debian's chromium
through Playwright): two people play casino rounds while their pages and a spectator's apply the
server's split deltas (``?deltas=2``: the public part, and a seat's own part apart); then each page,
reloaded (a fresh connection: a full state), shows the same table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import LiveServer
from tests.web.test_browser import CHROMIUM, _casino_table, play

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (make sysdeps)"
    ),
]
SHOWN = ("#table-title", "#felt", "#members", "#shoe-info", "#history")


def _count_frames(page: Any) -> dict[str, int]:
    """How many frames of each type the page's sockets receive."""
    seen: dict[str, int] = {}

    def on_socket(ws: Any) -> None:
        seen["split"] = seen.get("split", 0) + ws.url.endswith("?deltas=2")

        def got(payload: Any) -> None:
            msg = json.loads(payload) if isinstance(payload, str) else {"type": "binary"}
            kind = msg.get("type", "?")
            seen[kind] = seen.get(kind, 0) + 1
            if "own" in msg:  # a seat's own part (its legal actions, its seat): on its page only
                seen["own"] = seen.get("own", 0) + 1

        ws.on("framereceived", got)

    page.on("websocket", on_socket)
    return seen


def _shown(page: Any) -> dict[str, str]:
    return {sel: page.inner_text(sel) for sel in SHOWN}


def test_the_page_after_deltas_shows_what_a_fresh_full_state_shows(browser: Any, live: LiveServer) -> None:
    ann, bob, tid = _casino_table(browser, live, "mbs", "5")
    spec = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    spec.set_default_timeout(20_000)
    frames = [_count_frames(p) for p in (ann, bob, spec)]
    ann.reload()  # (the counters see the socket from its start)
    bob.reload()
    spec.goto(f"{live.url}/t/{tid}")
    for p in (ann, bob, spec):
        p.wait_for_selector('#members tr[data-name="bob"]')
    play([ann, bob], 2, british=False)
    for p in (ann, bob, spec):  # the last round booked on every page, nothing moving
        p.wait_for_function("document.querySelectorAll('#history details.round').length >= 2")
    ann.wait_for_timeout(800)
    for p in (ann, bob, spec):
        before = _shown(p)
        p.reload()
        p.wait_for_selector('#members tr[data-name="bob"]')
        p.wait_for_function("document.querySelectorAll('#history details.round').length >= 2")
        p.wait_for_timeout(300)
        assert _shown(p) == before
    assert all(f.get("delta", 0) >= 5 and f.get("state", 0) >= 1 and f["split"] >= 1 for f in frames), frames
    assert frames[0].get("own", 0) >= 3 and frames[1].get("own", 0) >= 3 and "own" not in frames[2], frames
