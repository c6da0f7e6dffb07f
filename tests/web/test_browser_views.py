"""The page's views in a real browser (Debian's chromium through Playwright): going back to the lobby
and moving from one table to another leave no button of the table left behind, and the table left
sends the page nothing more (its socket is closed).

The old page kept the left table's buttons in ``#actions`` (hidden in the lobby, but still in the page
and clicked by the keys once another table was open), showed them on the next table until its first
state came, and on a move between two tables' links (back and forward) never closed the first table's
socket: its frames went on drawing the first table (title, felt and buttons) over the second."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import LiveServer, bearer
from tests.web.test_browser import CHROMIUM, open_person

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (make sysdeps)"
    ),
]


# what the page offers: every button in #actions (shown or not) and whether the amount box shows
OFFERED = """() => ({
  title: document.querySelector('#table-title').textContent,
  table: !document.querySelector('#table').hidden,
  buttons: [...document.querySelectorAll('#actions button')].map((b) => b.dataset.verb),
  amount: !document.querySelector('#amount-label').hidden,
})"""


def until(page: Any, js: str, what: str, timeout: float = 15) -> None:
    """Poll ``js`` (a function) on the page till it is true (the page's CSP refuses
    ``wait_for_function``'s text predicates)."""
    end = time.monotonic() + timeout
    while not page.evaluate(js):
        assert time.monotonic() < end, f"{what}: not seen on the page in {timeout} s"
        page.wait_for_timeout(50)


def lobby_row(page: Any, tid: str) -> Any:
    page.wait_for_selector(f'#table-list tr[data-table="{tid}"]')  # (the lobby refreshes every 3 s)
    return page.locator(f'#table-list tr[data-table="{tid}"]')


def sit_with_a_bet_button(page: Any, tid: str) -> None:
    lobby_row(page, tid).locator("button.join-sit").click()
    page.wait_for_selector('#actions button[data-verb="bet"][data-kind="main"]')
    assert page.is_visible("#amount")


def connections(live: LiveServer, tid: str, name: str) -> int:
    return sum(1 for c in list(live.srv.conns.get(tid, ())) if c.name == name)


def test_back_to_the_lobby_leaves_no_button(browser: Any, live: LiveServer) -> None:
    first = live.table(preset="mbs", name="first")
    second = live.table(preset="federal", name="second")
    ann = open_person(browser, live, "ann")
    sit_with_a_bet_button(ann, first)
    ann.evaluate("() => history.back()")  # the browser's back: to the lobby, the seat kept
    ann.wait_for_selector("#lobby:not([hidden])")
    shown = ann.evaluate(OFFERED)
    assert not shown["table"] and shown["buttons"] == [] and not shown["amount"], shown
    ann.keyboard.press("b")  # the key of the bet button left behind: nothing to press
    assert ann.evaluate(OFFERED)["buttons"] == []

    # watching another table: no button at any moment (a spectator has none), not even before its state
    ann.evaluate(
        """() => { window.seenButtons = [];
          new MutationObserver(() => { for (const b of document.querySelectorAll('#actions button'))
            window.seenButtons.push(b.dataset.verb); })
          .observe(document.querySelector('#table'), {subtree: true, childList: true, attributes: true}); }"""
    )
    lobby_row(ann, second).locator("button.watch").click()
    until(ann, "() => document.querySelector('#table-title').textContent === 'second'", "the second table")
    ann.wait_for_timeout(300)
    assert ann.evaluate("() => window.seenButtons") == []
    assert ann.evaluate(OFFERED)["buttons"] == []


def test_moving_between_two_tables_shows_only_the_table_on_screen(browser: Any, live: LiveServer) -> None:
    first = live.table(preset="mbs", name="first")
    second = live.table(preset="federal", name="second")
    bob_token = live.account("bob")
    bob = live.ws(first, live.join(first, bob_token, box=3))
    ann = open_person(browser, live, "ann")
    lobby_row(ann, second).locator("button.watch").click()  # /t/second
    until(ann, "() => document.querySelector('#table-title').textContent !== ''", "the second table")
    second_title = ann.text_content("#table-title")
    ann.click("#leave")  # a spectator: back to the lobby (/)
    ann.wait_for_selector("#lobby:not([hidden])")
    sit_with_a_bet_button(ann, first)  # /t/first: history is /, /t/second, /, /t/first
    first_title = ann.text_content("#table-title")
    assert first_title != second_title
    assert connections(live, first, "ann") == 1

    # back two steps: from the first table's link straight to the second's (the page's popstate);
    # what the page offers is read at once, after the page's own handler, before any frame can come
    shown = ann.evaluate(
        f"""() => new Promise((done) => {{
          addEventListener('popstate', () => done(({OFFERED})()), {{ once: true }});
          history.go(-2);
        }})"""
    )
    assert shown["buttons"] == [] and not shown["amount"], shown
    until(ann, f"() => document.querySelector('#table-title').textContent === {second_title!r}", "the title")
    assert ann.url.endswith(f"/t/{second}")

    # the first table's socket is closed: the server counts no connection of ann's there ...
    end = time.monotonic() + 10
    while connections(live, first, "ann"):
        assert time.monotonic() < end, "the first table's socket stayed open after moving to the second"
        time.sleep(0.05)
    # ... and a change at the first table draws nothing on the second's view
    bob.send({"type": "bet", "kind": "main", "amount": "10"})
    bob.wait_state(lambda s: "bob" in s.get("bets", {}))
    carl = live.account("carl")
    live.join(second, carl, box=2)  # a change at the second table, after bob's wager at the first
    ann.wait_for_selector('#members tr[data-name="carl"]')
    ann.wait_for_timeout(300)
    shown = ann.evaluate(OFFERED)
    assert shown["title"] == second_title and shown["buttons"] == [] and not shown["amount"], shown
    bob.close()


def test_an_ended_table_shows_no_button_when_the_page_draws_it_again(browser: Any, live: LiveServer) -> None:
    """The table's end (here the host closes it) clears its buttons for good: the page draws the felt
    again when the account changes (a guest keeping his account), and drew the last state's buttons
    back on the ended table then."""
    bob = live.account("bob")
    r = live.http.post("/api/tables", json={"preset": "mbs", "name": "closing"}, headers=bearer(bob))
    assert r.status_code == 201, r.text
    live.http.cookies.clear()
    tid = r.json()["id"]
    ann = open_person(browser, live, "ann")
    sit_with_a_bet_button(ann, tid)
    body = {"msg": {"action": "close"}}
    assert live.http.post(f"/api/tables/{tid}/host", json=body, headers=bearer(bob)).status_code == 200
    ann.wait_for_selector("#end-panel:not([hidden])")
    assert ann.evaluate(OFFERED)["buttons"] == []
    ann.fill("#claim-password", "a long password")  # the guest keeps the account: the page draws again
    ann.click("#claim")
    ann.wait_for_selector("#claim-form", state="hidden")
    shown = ann.evaluate(OFFERED)
    assert shown["buttons"] == [] and not shown["amount"], shown
