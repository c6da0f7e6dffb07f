"""The page's send path in a real browser (Debian's chromium through Playwright) against a real server on
loopback: what is clicked while the table's socket reconnects is sent once it opens, and a page that
lost the thread of its deltas asks for the full state again until it comes.

Both were ways for a bet to go unanswered (the browser tests' flake: a bet the page never saw
answered, seen only under load): ``send`` dropped a message while the socket was connecting with a
"not connected yet" notice that the socket's opening erased at once, and a page whose one ``resync``
got no answer (or whose delta did not fit: an exception in the socket's handler) dropped every later
delta without asking again."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pontoon.web import app as app_mod
from tests.web.conftest import LiveServer
from tests.web.test_browser import CHROMIUM, open_person

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]
STAND = '#actions button[data-verb="stand"]'
BET = '#actions button[data-verb="bet"][data-kind="main"]'


def test_a_bet_clicked_while_the_socket_reconnects_is_sent_once_it_opens(
    browser: Any, live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    loops: list[asyncio.AbstractEventLoop] = []
    real_sender, real_identity = app_mod.sender, app_mod.socket_identity
    hold, entered = threading.Event(), threading.Event()

    async def sender(conn: Any) -> None:  # (the server's event loop, to close a socket on it)
        loops.append(asyncio.get_running_loop())
        await real_sender(conn)

    def identity(*args: Any) -> Any:  # a connect the server takes 4 s to accept (a loaded server)
        if hold.is_set():
            entered.set()
            time.sleep(4)
        return real_identity(*args)

    monkeypatch.setattr(app_mod, "sender", sender)
    monkeypatch.setattr(app_mod, "socket_identity", identity)
    page = open_person(browser, live, "ann")
    page.select_option("#preset", "mbs")
    page.fill("#seed", "7")
    page.click("#create-table")
    row = page.locator("#table-list tbody tr").first
    row.wait_for()
    tid = str(row.get_attribute("data-table"))
    row.locator("button.join-sit").click()
    page.wait_for_selector(BET)
    rounds = page.locator("#history details.round").count()
    hold.set()  # the server restarts the page's socket (1012): the page reconnects, the server is slow
    (conn,) = [c for c in live.srv.conns[tid] if c.name == "ann"]
    loops[-1].call_soon_threadsafe(conn.close_after, 1012, "the server restarts")
    assert entered.wait(15)  # the page's new socket is connecting (held by the server for 4 s)
    assert page.evaluate("() => document.querySelector('#notice').textContent").startswith("connection lost")
    page.fill("#amount", "10")
    page.click(BET)  # the button of the state before (the same choices): clicked while connecting
    said = page.inner_text("#notice")  # (the old page: "not connected yet", erased once the socket opened)
    page.wait_for_function(
        "([stand, n]) => document.querySelector(stand) !== null"
        " || document.querySelectorAll('#history details.round').length > n",
        arg=[STAND, rounds],
        timeout=20_000,
    )  # the bet reached the server once the socket opened: its round was dealt
    assert said == "connecting: sent once the connection is open"
    assert live.srv.lobby.tables[tid].table.round is not None  # (none before: a fresh table)


def test_the_page_asks_the_full_state_again_until_it_comes(browser: Any, live: LiveServer) -> None:
    page = browser.new_context(bypass_csp=True).new_page()
    page.goto(live.url + "/")
    got = page.evaluate(
        """async () => {
        const { follower } = await import("/static/js/delta.js");
        let asks = 0;
        const f = follower(() => { asks += 1; return true; }, 200);
        const pause = (ms) => new Promise((r) => setTimeout(r, ms));
        const out = {};
        out.first = f({ type: "state", seq: 1, a: { b: 1 } }).a.b;
        out.delta = f({ type: "delta", seq: 2, base: 1, ops: [[["a", "b"], 2]] }).a.b;
        out.gap = f({ type: "delta", seq: 4, base: 3, ops: [] });  // a frame lost: asked once
        out.asksAtGap = asks;
        out.still = f({ type: "delta", seq: 5, base: 4, ops: [] });  // dropped, not asked twice at once
        out.asksAfterDrop = asks;
        await pause(450);
        out.reasked = asks > 1;  // no answer: asked again (every 200 ms here)
        out.full = f({ type: "state", seq: 6, a: { b: 3 } }).a.b;
        const settled = asks;
        await pause(450);
        out.asksAfterFull = asks - settled;  // the full state came: no more asking
        out.misfit = f({ type: "delta", seq: 7, base: 6, ops: [[["a", "b", "c"], 1]] });  // does not fit
        out.asksAtMisfit = asks - settled;
        out.after = f({ type: "state", seq: 8, a: { b: 4 } }).a.b;
        let stops = 0;  // a socket gone: ask() says false, and the asking stops
        const g = follower(() => { stops += 1; return false; }, 100);
        g({ type: "delta", seq: 3, base: 2, ops: [] });
        await pause(350);
        out.stops = stops;
        return out;
    }"""
    )
    assert got == {
        "first": 1,
        "delta": 2,
        "gap": None,
        "asksAtGap": 1,
        "still": None,
        "asksAfterDrop": 1,
        "reasked": True,
        "full": 3,
        "asksAfterFull": 0,
        "misfit": None,
        "asksAtMisfit": 1,
        "after": 4,
        "stops": 1,
    }, got
