"""The page's accounts in a real browser (Debian's chromium through Playwright; issue 28, item 4): a
guest plays, keeps the account by setting a password, logs out; a second device (another browser
context) logs in with the name and password and sees the same balance and the same seat. The session
cookie is HttpOnly (the page's script never sees it), the page runs under its CSP with no violation,
and no request the page makes carries a token in its URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pontoon.web.auth import COOKIE
from tests.web.conftest import LiveServer
from tests.web.test_browser import CHROMIUM

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]
PW = "a long enough password"


def _device(browser: Any, live: LiveServer, seen: dict[str, list[str]]) -> Any:
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    page.on("console", lambda m: seen["console"].append(m.text))
    page.on("request", lambda r: seen["urls"].append(r.url))
    page.on("websocket", lambda ws: seen["urls"].append(ws.url))
    page.goto(live.url + "/")
    return page


def test_a_guest_keeps_the_account_and_logs_in_on_another_device(browser: Any, live: LiveServer) -> None:
    seen: dict[str, list[str]] = {"console": [], "urls": []}
    tid = live.table(preset="mbs", seed=4)
    phone = _device(browser, live, seen)
    phone.fill("#account-name", "ivy")
    phone.click("#account-create")  # a guest: a name only
    phone.wait_for_selector("#account-info:not([hidden])")
    assert phone.is_visible("#account-guest") and phone.is_visible("#claim-form")
    cookies = {c["name"]: c for c in phone.context.cookies()}
    assert cookies[COOKIE]["httpOnly"] and cookies[COOKIE]["sameSite"] == "Lax"
    assert COOKIE not in phone.evaluate("document.cookie")  # the script cannot read the session
    phone.fill("#buy-in", "1000")  # the buy-in asked on joining: the whole account here
    phone.click(f'#table-list tr[data-table="{tid}"] .join-sit')  # sit at box 1 with 1000
    phone.wait_for_selector("#table:not([hidden])")
    phone.wait_for_selector('#members tr[data-name="ivy"]')
    phone.fill("#claim-password", PW)
    phone.click("#claim")  # keep the account: a password
    phone.wait_for_selector("#account-guest", state="hidden")
    phone.click("#logout")
    phone.wait_for_selector("#account-form:not([hidden])")
    assert phone.context.cookies() == [] or COOKIE not in {c["name"] for c in phone.context.cookies()}

    laptop = _device(browser, live, seen)
    laptop.fill("#account-name", "IVY")  # any case of the name
    laptop.fill("#account-password", "a wrong password")
    laptop.click("#account-login")
    laptop.wait_for_selector("#notice:has-text('wrong name or password')")
    laptop.fill("#account-password", PW)
    laptop.click("#account-login")
    laptop.wait_for_selector("#account-info:not([hidden])")
    assert laptop.text_content("#account-label") == "ivy" and laptop.is_hidden("#account-guest")
    assert laptop.text_content("#account-balance") == "0"  # all 1000 went to the table
    laptop.click(f'#table-list tr[data-table="{tid}"] .watch')  # her seat, from the new device
    laptop.wait_for_selector("#table:not([hidden])")
    laptop.wait_for_selector("#actions button[data-verb='bet']")  # she may bet: the socket is her seat
    laptop.click("#leave")
    laptop.wait_for_selector("#lobby:not([hidden])")
    laptop.wait_for_selector("#account-balance:has-text('1000')")
    violations = [t for t in seen["console"] if "Content Security Policy" in t]
    assert violations == [], violations
    assert all("token" not in u for u in seen["urls"]), [u for u in seen["urls"] if "token" in u]
    assert any("/ws/tables/" in u for u in seen["urls"])
