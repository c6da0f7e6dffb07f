"""The page's "last rounds" panel is read from the history store's REST endpoints: rounds played
(here through WebSocket clients) are listed on a page opened afterwards, each round's steps fetched
when it is opened, and the same rounds are there after the server restarts on the same file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pontoon.history import open_store
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, LiveServer
from tests.web.play import casino_choice
from tests.web.test_browser import CHROMIUM, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]


def _watch(browser: Any, live: LiveServer, tid: str) -> Any:
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.locator(f'#table-list tr[data-table="{tid}"] button.watch').click()
    page.wait_for_selector('#history[data-source="store"] details.round')
    return page


def _rounds(page: Any) -> list[str]:
    return [
        page.locator("#history details.round summary").nth(i).inner_text()
        for i in range(page.locator("#history details.round").count())
    ]


def test_last_rounds_from_the_store_survive_reload_and_restart(
    browser: Any,
    make_live: Any,
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    store_a = open_store(url)
    a = make_live(FAST, StorePersistence(store_a))
    tid = a.table(preset="mbs", seed=12)
    c = a.ws(tid, a.join(tid, a.account("ann"), box=1, buy_in="300"))
    for _ in range(3):
        c.send({"type": "bet", "amount": "10"})
        c.wait_state(lambda m: m["phase"] == "play")
        while c.state["phase"] == "play":
            pick = casino_choice(c.state)
            if pick is not None:
                c.send({"type": "act", "action": pick})
                c.until(lambda m: m.get("type") in ("state", "error"))
            c.drain(0.05)
    c.drain(0.2)
    want = [f"Round {h['round']}: {h['status']}" for h in reversed(c.state["history"])]
    page = _watch(browser, a, tid)
    got = _rounds(page)
    assert [g.split(" · ")[0] for g in got] == want
    page.locator("#history details.round").first.click()
    page.wait_for_selector("#history details.round[data-steps]")
    text = page.inner_text("#history")  # the round in words, cards as symbols (history/words.py)
    assert "card=" not in text and re.search(r"dealer shows (10|[AJQK2-9])[♠♥♦♣]", text), text
    page.reload()  # a reload (the page goes back to the table it watched) reads them again
    page.wait_for_selector('#history[data-source="store"] details.round')
    assert _rounds(page) == got
    c.close()
    a.stop()
    store_a.close()

    store_b = open_store(url)
    b = make_live(FAST, StorePersistence(store_b))  # a restart: the same rounds, from the store
    page = _watch(browser, b, tid)
    assert _rounds(page) == got
    shot(page, "history-after-restart.png")
