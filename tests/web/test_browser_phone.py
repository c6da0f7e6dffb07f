"""The page on a phone and a desktop in Debian's chromium (issue 26 items 3, 5, 6): no horizontal
scroll from 360 px up, touch targets of at least 44 px, the table above "Last rounds" on a phone,
axe-core (bundled by the axe-playwright-python package: nothing downloaded) with no serious or
critical violation on the lobby and a table in play; the history in words, the session panel's
ledger and export (replayed), cards dealt with an animation that prefers-reduced-motion turns off,
and sounds off by default with a toggle. A real server on loopback with a real SQLite history."""

from __future__ import annotations

import json
import re
import warnings
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from pontoon.history import open_store
from pontoon.history.export import replay_export
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST, LiveServer
from tests.web.test_browser import CHROMIUM, play, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
NARROW = {"width": 360, "height": 740}
TARGETS = (
    "button:visible, select:visible, summary:visible, input:visible:not([type=checkbox]), #session a:visible"
)


@pytest.fixture
def store_live(make_live: Any, tmp_path: Path) -> LiveServer:
    return make_live(FAST, StorePersistence(open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")))  # type: ignore[no-any-return]


def person(browser: Any, live: LiveServer, name: str, viewport: dict[str, int], **ctx: Any) -> Any:
    phone = viewport["width"] < 600
    context = browser.new_context(
        viewport=viewport, is_mobile=phone, has_touch=phone, bypass_csp=True, **ctx
    )  # bypass_csp: axe's script is injected by evaluate (the page's CSP refuses eval)
    page = context.new_page()
    page.wire = deque(maxlen=12)  # the socket's last frames, for an unanswered bet's failure message
    page.on("websocket", lambda ws: wire(ws, page.wire))
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.fill("#account-name", name)
    page.click("#account-create")
    page.wait_for_selector("#account-info:not([hidden])")
    return page


def wire(ws: Any, seen: deque[str]) -> None:
    """Keep a short line for each frame the page's socket sends and receives (what a failure shows)."""

    def brief(way: str, payload: Any) -> None:
        try:
            m = json.loads(payload)
            seen.append(f"{way}{m.get('type')} seq={m.get('seq')} base={m.get('base')} v={m.get('version')}")
        except (TypeError, ValueError, AttributeError):
            seen.append(f"{way}{str(payload)[:60]}")

    seen.append(f"open {ws.url.rsplit('/', 1)[-1]}")
    ws.on("framesent", lambda p: brief("> ", p))
    ws.on("framereceived", lambda p: brief("< ", p))
    ws.on("close", lambda _w: seen.append("closed"))


def no_overflow(page: Any) -> None:
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"the page is {width} px wide on a {inner} px screen"


def touch_targets(page: Any) -> int:
    small = []
    loc = page.locator(TARGETS)
    for i in range(loc.count()):
        box = loc.nth(i).bounding_box()
        if box is None or box["width"] == 0:
            continue
        if box["height"] < 44 or box["width"] < 44:
            small.append((loc.nth(i).evaluate("e => e.outerHTML.slice(0, 80)"), box))
        inner = page.evaluate("() => window.innerWidth")
        assert box["x"] >= -1 and box["x"] + box["width"] <= inner + 1, "a control lies off the screen"
    assert not small, f"touch targets under 44 px: {small}"
    return int(loc.count())


def axe_clean(page: Any, where: str) -> int:
    from axe_playwright_python.sync_playwright import Axe

    res = Axe().run(page)
    bad = [v for v in res.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, f"{where}: " + "; ".join(
        f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}" for v in bad
    )
    return len(res.response["violations"])


def sit(page: Any) -> str:
    page.select_option("#preset", "mbs")
    page.fill("#seed", "7")
    page.click("#create-table")
    row = page.locator("#table-list tbody tr").first
    row.wait_for()
    no_overflow(page)  # the lobby with a table listed: every button on the screen
    touch_targets(page)
    axe_clean(page, "the lobby")
    tid = str(row.get_attribute("data-table"))
    page.fill("#buy-in", "1000")  # the buy-in asked on joining: the whole account, as the ledger test reads
    row.locator("button.join-sit").click()
    page.wait_for_selector("#table:not([hidden])")
    return tid


STAND = '#actions button[data-verb="stand"]'


def bet_until_a_decision(page: Any, tries: int = 8) -> None:
    """Bet until a round asks for a decision: a dealt Pontoon (the shoe is random, ruling 36) settles
    the round at once with no stand offered, so that round is counted and the next one dealt. A bet the
    page shows no answer to within 10 s (seen twice in full ``-n 2`` runs, never alone: the cause is not
    found) is placed again, its notice line and the socket's last frames kept for the failure message, and
    said in the warnings summary when a later bet passes (the server logs an answer later than 2 s with
    its waits: web/app.py ``SLOW_S``)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    unanswered: list[str] = []
    for _ in range(tries):
        page.wait_for_selector(f'{STAND}, #actions button[data-verb="bet"][data-kind="main"]')
        if page.locator(STAND).count():  # a late answer to the bet before: its round asks
            warnings.warn(f"a bet answered after more than 10 s: {unanswered}", stacklevel=2)
            return
        rounds = page.locator("#history details.round").count()
        page.fill("#amount", "10")
        page.click('#actions button[data-verb="bet"][data-kind="main"]')
        try:
            page.wait_for_function(
                "([stand, n]) => document.querySelector(stand) !== null"
                " || document.querySelectorAll('#history details.round').length > n",
                arg=[STAND, rounds],
                timeout=10_000,
            )
        except PlaywrightTimeout:
            unanswered.append(f"notice {page.locator('#notice').inner_text()!r}; frames {list(page.wire)}")
            continue
        if page.locator(STAND).count():
            if unanswered:  # passed, but said in the warnings summary: the evidence for the cause
                warnings.warn(f"bets unanswered for 10 s before this one: {unanswered}", stacklevel=2)
            return
    raise AssertionError(
        f"no round asked for a decision in {tries} deals; unanswered bets' notices: {unanswered}"
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE, NARROW], ids=["desktop", "phone", "360"])
def test_layout_touch_targets_and_axe(browser: Any, store_live: LiveServer, viewport: dict[str, int]) -> None:
    page = person(browser, store_live, "ann", viewport)
    no_overflow(page)
    sit(page)
    bet_until_a_decision(page)  # a round in play
    no_overflow(page)
    assert touch_targets(page) >= 3
    axe_clean(page, "a table in play")
    felt = page.locator("#felt").bounding_box()
    hist = page.locator("#history").bounding_box()
    if viewport["width"] < 600:  # the table first, the last rounds below it
        assert hist["y"] > felt["y"] + felt["height"]
    page.keyboard.press("s")  # keyboard play kept: s stands
    page.wait_for_selector("#history details.round")
    no_overflow(page)
    name = {1280: "desktop", 390: "phone", 360: "phone-360"}[viewport["width"]]
    shot(page, f"table-{name}.png")


def test_words_ledger_export_motion_and_sound(browser: Any, store_live: LiveServer) -> None:
    page = person(browser, store_live, "ann", DESKTOP)
    tid = sit(page)
    assert page.get_attribute("body", "data-sound") == "off"  # sounds are off by default
    page.click("#sound-toggle")
    assert page.get_attribute("#sound-toggle", "aria-pressed") == "true"
    play([page], 2, british=False)
    assert int(page.get_attribute("body", "data-tones") or "0") > 1  # a card and a result asked for a tone
    # the history in words
    page.locator("#history details.round").first.click()
    page.wait_for_selector("#history details.round[data-steps]")
    text = page.inner_text("#history")
    assert "ann bets 10 on box 1" in text and re.search(r"dealer shows (10|[AJQK2-9])[♠♥♦♣]", text), text
    assert "=" not in text and "{" not in text
    # the session: ledger and export
    page.click("#session summary")
    page.wait_for_selector("#session[data-loaded='1']")
    row = page.locator("#ledger tbody tr").first.inner_text()
    assert row.split("\t")[:3] == ["ann", "1000", "2"], row
    href = page.get_attribute("#export-json", "href")
    assert href == f"/api/tables/{tid}/export.json"
    doc = page.request.get(store_live.url + href).json()
    assert replay_export(doc)["rounds"] == 2
    # a card dealt slides in; with reduced motion nothing moves
    before = int(page.get_attribute("body", "data-dealt") or "0")
    page.fill("#amount", "10")
    page.click('#actions button[data-verb="bet"][data-kind="main"]')
    page.wait_for_selector(f"body:not([data-dealt='{before}'])")
    assert (
        int(page.get_attribute("body", "data-dealt") or "0") >= before + 3
    )  # two to the box, one to the dealer
    assert probe(page) == "deal-in"
    calm = person(browser, store_live, "bob", DESKTOP, reduced_motion="reduce")
    calm.locator(f'#table-list tr[data-table="{tid}"] button.watch').click()
    calm.wait_for_selector("#felt svg.card")
    assert probe(calm) == "none"


def probe(page: Any) -> str:
    """The animation a dealt card gets on this page (a card marked as motion.js marks it)."""
    return str(
        page.evaluate(
            """() => {
        const ns = "http://www.w3.org/2000/svg";
        const svg = document.createElementNS(ns, "svg");
        svg.setAttribute("class", "card deal-in");
        document.getElementById("felt").appendChild(svg);
        const name = getComputedStyle(svg).animationName;
        svg.remove();
        return name;
    }"""
        )
    )


def test_british_table_on_a_phone(browser: Any, store_live: LiveServer) -> None:
    """A British table with a seat taken (waiting for the second person): the same checks at 360 px."""
    page = person(browser, store_live, "ann", NARROW)
    page.select_option("#preset", "british")
    page.click("#create-table")
    row = page.locator("#table-list tbody tr").first
    row.wait_for()
    no_overflow(page)
    touch_targets(page)
    row.locator("button.join-seat").click()
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_selector('#members tr[data-name="ann"]')
    no_overflow(page)
    touch_targets(page)
    axe_clean(page, "a British table")
