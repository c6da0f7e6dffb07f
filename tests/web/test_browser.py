"""A real browser (Debian's chromium through Playwright) plays through the page: two people at one
table, on a casino preset and on British; balances and history checked on the page; screenshots in
tests/artifacts/ (copied to docs/img/ for the docs when PONTOON_DOCS_SHOTS=1)."""

from __future__ import annotations

import os
import re
import shutil
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import CHROMIUM, LiveServer

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(),
        reason="Debian's chromium is not installed (make sysdeps, or apt-get install chromium)",
    ),
]


def open_person(browser: Any, live: LiveServer, name: str) -> Any:
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.fill("#account-name", name)
    page.click("#account-create")
    page.wait_for_selector("#account-info:not([hidden])")
    assert page.text_content("#account-label") == name
    page.fill("#buy-in", "1000")  # the buy-in asked on joining (these tests bring the whole account)
    return page


def rounds_on_page(page: Any) -> int:
    return int(page.locator("#history details.round").count())


def balance_on_page(page: Any, name: str) -> Decimal:
    return Decimal(page.text_content(f'#members tr[data-name="{name}"] .balance') or "nan")


def click(page: Any, selector: str) -> None:
    """Click a button read a moment ago; if the table moved on meanwhile (a twist's card made the hand
    bust, a bot acted, the timer) the button may be gone: then nothing is clicked and the caller's loop
    reads the page again (a page that stops offering buttons still fails ``play``'s budget)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.click(selector, timeout=5_000)
    except PlaywrightTimeout:
        return


MAIN_BET = '#actions button[data-verb="bet"][data-kind="main"]'


def fill_amount(page: Any, text: str) -> bool:
    """Type the amount for the main wager; False when the table moved on meanwhile (the round was dealt:
    the main wager's button is gone, and the amount box with it where no move of the hand takes an
    amount). If the box stays hidden while the button is there, fail naming what the page shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    end = time.monotonic() + 15
    while True:
        try:
            page.fill("#amount", text, timeout=1_000)
            return True
        except PlaywrightTimeout:
            if not page.locator(MAIN_BET).count():
                return False
            if time.monotonic() < end:
                continue
        shown = page.evaluate(
            """() => ({path: location.pathname, table: !document.querySelector('#table').hidden,
                lobby: !document.querySelector('#lobby').hidden,
                end: document.querySelector('#end-panel').hidden ? null : document.querySelector('#end-reason').textContent,
                label: !document.querySelector('#amount-label').hidden,
                notice: (document.querySelector('#notice') || {}).textContent || null})"""
        )
        raise AssertionError(f"the amount box stayed hidden with a bet button on the page: {shown}")


def step(page: Any, state: dict[str, Any], british: bool) -> bool:
    """One action through the page's buttons and keys; False when this page has nothing to do."""
    mine = (
        "#actions button.action-btn:not([data-verb=sell_bank]):not([data-verb=buy_bank])"
        ":not([data-verb=top_up])"
    )  # the bank's sale and the top-up: tested on their own
    # the verbs read in one go (counting and then reading each button raced with the bots' moves)
    offered = page.locator(mine).evaluate_all(
        "els => els.map(e => [e.getAttribute('data-verb'), e.getAttribute('data-kind')])"
    )
    verbs = [verb for verb, _ in offered]
    if not verbs:
        return False
    if british:
        for verb in ("stake", "pass", "kitty"):
            if verb in verbs:
                click(page, f'#actions button[data-verb="{verb}"]')
                return True
        cards = state.setdefault("twists", 0)
        if "twist" in verbs and cards < 1:
            state["twists"] = cards + 1
            page.keyboard.press("t")  # the key for twist
            return True
        for verb in ("stick", "twist"):
            if verb in verbs:
                click(page, f'#actions button[data-verb="{verb}"]')
                return True
    else:
        if ["bet", "main"] in offered:
            if fill_amount(page, "10"):
                click(page, MAIN_BET)
                state["hit"] = False
            return True
        if "deal" in verbs:
            # the main wager placed, the others' still to come: wait (the side wagers offered now were
            # read as the main one: the step then waited 15 s for a main button gone, or for the amount
            # box the round's deal had hidden meanwhile, with this person to act first: the CI flake)
            return False
        if "stand" in verbs and page.is_checked("#hints") and not state.get("hinted"):
            # the exact-EV hints toggle: the analyser's value of each legal verb, the best in bold
            # (a locator wait: the page's CSP refuses eval, which wait_for_function's text predicate uses)
            page.wait_for_selector("#hint-values:has-text('stand')", timeout=90_000)
            state["hinted"] = True
            state["hint_text"] = page.text_content("#hint-values")
        if "hit" in verbs and not state.get("hit"):
            state["hit"] = True
            page.keyboard.press("h")  # the key for hit
            return True
        if "stand" in verbs:
            page.keyboard.press("s")
            return True
    click(page, f"{mine} >> nth=0")
    return True


def play(
    pages: list[Any], rounds: int, british: bool, *, until: Any = None, budget: float = 150
) -> list[dict[str, Any]]:
    """Play through the pages until the first shows ``rounds`` finished rounds (or ``until(page)``)."""
    states: list[dict[str, Any]] = [{} for _ in pages]
    end = time.monotonic() + budget
    while (rounds_on_page(pages[0]) < rounds) if until is None else not until(pages[0]):
        assert time.monotonic() < end, "the rounds did not finish through the page"
        acted = False
        for page, st in zip(pages, states, strict=True):
            if step(page, st, british):
                acted = True
                page.wait_for_timeout(120)
            if british and rounds_on_page(page) != st.get("seen"):
                st["seen"], st["twists"] = rounds_on_page(page), 0
        if not acted:
            pages[0].wait_for_timeout(150)
    return states


def shot(page: Any, name: str, docs: bool = False) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    if docs and os.environ.get("PONTOON_DOCS_SHOTS") == "1":  # refresh docs/img only when asked
        (ROOT / "docs" / "img").mkdir(parents=True, exist_ok=True)
        shutil.copy(path, ROOT / "docs" / "img" / name)


def _casino_table(browser: Any, live: LiveServer, preset: str, seed: str) -> tuple[Any, Any, str]:
    ann = open_person(browser, live, "ann")
    bob = open_person(browser, live, "bob")
    ann.select_option("#preset", preset)
    ann.fill("#seed", seed)
    ann.click("#create-table")
    row = ann.locator("#table-list tbody tr").first
    row.wait_for()
    tid = row.get_attribute("data-table")
    row.locator("button.join-sit").click()  # box 1
    ann.wait_for_selector("#table:not([hidden])")
    bob.wait_for_selector(f'#table-list tr[data-table="{tid}"]')
    brow = bob.locator(f'#table-list tr[data-table="{tid}"]')
    brow.locator("select.box-select").select_option("3")
    brow.locator("button.join-sit").click()
    bob.wait_for_selector("#table:not([hidden])")
    bob.wait_for_selector('#members tr[data-name="ann"]')
    return ann, bob, str(tid)


def _check_casino(live: LiveServer, tid: str, pages: tuple[Any, Any], rounds: int) -> None:
    ann = pages[0]
    ann.wait_for_timeout(300)
    host = live.srv.lobby.tables[tid]
    for page, name in zip(pages, ("ann", "bob"), strict=True):
        assert rounds_on_page(page) >= rounds
        # the page's balance is the server's, and it is the buy-in plus the nets the page's history shows
        assert balance_on_page(page, name) == host.balance(name)
        if host.history_mark <= 10:  # (the page lists the last 10 rounds)
            nets = [Decimal(m) for m in re.findall(r"you (-?[\d.]+)", page.inner_text("#history"))]
            assert balance_on_page(page, name) == Decimal(1000) + sum(nets, Decimal(0))
    ann.locator("#history details.round").first.click()
    ann.wait_for_selector("#history details.round[data-steps]")
    text = ann.inner_text("#history")  # every step of the round, in words (history/words.py)
    assert re.search(r"dealer shows (10|[AJQK2-9])[♠♥♦♣]", text) and "ann bets 10 on box 1" in text, text


@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium"])
def test_two_people_play_casino_through_the_page(browser: Any, live: LiveServer, preset: str) -> None:
    ann, bob, tid = _casino_table(browser, live, preset, "4")
    hints = preset == "mbs"
    if hints:
        ann.check("#hints")
    rounds = 3 if hints else 2
    states = play([ann, bob], rounds, british=False)
    if hints:
        assert states[0].get("hinted") and re.search(r"stand [+-]\d\.\d{4}", states[0]["hint_text"])
    _check_casino(live, tid, (ann, bob), rounds)
    shot(ann, "table-casino.png" if hints else f"table-{preset}.png", docs=hints)
    shot(bob, f"table-{preset}-bob.png")


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium"])
def test_casino_to_the_end_of_a_shoe_through_the_page(browser: Any, live: LiveServer, preset: str) -> None:
    """Every casino preset played through the page until the cut card has come out and a new shoe is
    dealt (000 3.2, 004 3.6)."""
    ann, bob, tid = _casino_table(browser, live, preset, "6")
    play(
        [ann, bob],
        0,
        british=False,
        until=lambda p: "shoe 2:" in (p.text_content("#shoe-info") or ""),
        budget=900,
    )
    _check_casino(live, tid, (ann, bob), 1)
    shot(ann, f"table-{preset}-shoe-end.png")


@pytest.mark.parametrize("preset", ["british", "shoot"])
def test_two_people_play_british_through_the_page(browser: Any, live: LiveServer, preset: str) -> None:
    ann = open_person(browser, live, "ann")
    bob = open_person(browser, live, "bob")
    ann.select_option("#preset", preset)
    ann.fill("#seats", "2")
    ann.fill("#seed", "9")
    ann.click("#create-table")
    row = ann.locator("#table-list tbody tr").first
    row.wait_for()
    tid = row.get_attribute("data-table")
    row.locator("button.join-seat").click()
    ann.wait_for_selector("#table:not([hidden])")
    bob.wait_for_selector(f'#table-list tr[data-table="{tid}"] button.join-seat')
    bob.locator(f'#table-list tr[data-table="{tid}"] button.join-seat').click()
    bob.wait_for_selector("#table:not([hidden])")
    if preset == "shoot":  # the banker puts up a kitty first (003 Shoot), through his page
        play(
            [ann, bob],
            0,
            british=True,
            until=lambda p: (
                p.locator('#spots svg.card[data-card="??"], #dealer-cards svg.card[data-card="??"]').count()
                > 0
            ),
        )
    ann.wait_for_selector("#spots .spot")
    # the other person's first card is face down on each page (003 The Deal): his hand or the bank's
    hidden = ann.locator(
        '#spots .spot:not([data-owner="ann"]) svg.card[data-card="??"], #dealer-cards svg.card[data-card="??"]'
    )
    mine = ann.locator('#spots .spot[data-owner="ann"] svg.card[data-card="??"]')
    assert hidden.count() >= 1 and mine.count() == 0
    play([ann, bob], 3, british=True)
    ann.wait_for_timeout(300)
    host = live.srv.lobby.tables[tid]
    for page in (ann, bob):
        assert rounds_on_page(page) >= 3
        a, b = balance_on_page(page, "ann"), balance_on_page(page, "bob")
        kitty = host.game_obj.kitty if host.game_obj is not None else Decimal(0)
        assert a + b + kitty == Decimal(
            2000
        )  # two seats: one's loss is the other's gain (Shoot: the kitty is the banker's)
        assert a == host.balance("ann") and b == host.balance("bob")
    ann.locator("#history details.round").first.click()
    ann.wait_for_selector("#history details.round[data-steps]")
    if preset == "shoot":  # the banker's page: top the kitty up and offer the bank (003 Shoot, The New Deal)
        g = host.game_obj
        banker_page = ann if g.banker == "ann" else bob
        # top up while the kitty holds money, or put up a new one when it is empty
        banker_page.wait_for_selector(
            '#actions button[data-verb="top_up"], #actions button[data-verb="kitty"]'
        )
        assert (
            banker_page.locator('#actions button[data-verb="sell_bank"]').count() == 2
        )  # to anyone, to the other
        other, other_page = ("bob", bob) if banker_page is ann else ("ann", ann)
        banker_page.fill("#amount", "2")
        banker_page.click(f'#actions button[data-verb="sell_bank"]:has-text("to {other}")')
        other_page.click('#actions button[data-verb="buy_bank"]:has-text("for 2")')
        play(
            [ann, bob],
            0,
            british=True,
            until=lambda p: f"Bank: {other}" in (p.text_content("#dealer-label") or ""),
        )
        assert host.game_obj.banker == other
        assert any(e.kind == "bank_passes" and "sell" in e.clause for e in host.game_obj.log.events)
        assert (
            host.balance("ann") + host.balance("bob") + host.game_obj.kitty == 2000
        )  # the price moved between them
    shot(ann, "table-british.png" if preset == "british" else "table-shoot.png", docs=preset == "british")


def test_join_a_running_british_game_through_the_page(browser: Any, live: LiveServer) -> None:
    """A seat given up in a running game is taken through the page's lobby (**Join the game**): the
    newcomer is shown as dealt in from the next round, then plays his own hand through the page."""
    from tests.web.play import british_choice

    tid = live.table(preset="british", seats=3, seed=14)
    tok = {n: live.join(tid, live.account(n), buy_in="100") for n in ("ann", "bob", "cat")}
    cs = {n: live.ws(tid, tok[n]) for n in ("ann", "bob")}
    host = live.srv.lobby.tables[tid]
    assert live.http.post(f"/api/tables/{tid}/leave", json={"token": tok["cat"]}).status_code == 200
    dan = open_person(browser, live, "dan")
    dan.wait_for_selector(f'#table-list tr[data-table="{tid}"] button.join-seat:has-text("Join the game")')
    dan.locator(f'#table-list tr[data-table="{tid}"] button.join-seat').click()
    dan.wait_for_selector("#table:not([hidden])")
    state: dict[str, Any] = {}
    end = time.monotonic() + 120
    while not (
        host.game_obj is not None and "dan" in host.game_obj.seats and host.game_obj.rounds_played >= 2
    ):
        assert time.monotonic() < end, "dan was never dealt in"
        for c in cs.values():
            c.drain(0.03)
            pick = british_choice(c.state)
            if pick is not None:
                c.send(pick)
                c.until(lambda m: m.get("type") in ("state", "error"))
        if "dan" in host.game_obj.seats:
            step(dan, state, True)
        else:
            assert "dealt in next round" in dan.inner_text('#members tr[data-name="dan"]')
        dan.wait_for_timeout(60)
    dan.wait_for_timeout(300)
    assert "cat" not in host.members and balance_on_page(dan, "dan") == host.balance("dan")
    shot(dan, "table-british-joined.png")
    for c in cs.values():
        c.close()


def test_test_and_custom_tables_are_marked_on_the_page(browser: Any, live: LiveServer) -> None:
    """Issue 28 items 2 and 6: the lobby row and the table (watched) say "TEST TABLE" and "CUSTOM
    RULES" with the differing fields and the exact house edge; a long hostile name never reaches it."""
    seeded = live.table(preset="mbs", seed=7)
    # made with its exact edge: 0.2-1.3 s with the compiled kernels, 28 s where numba compiles them first
    # (a pure install with a cold cache: bench/bench_loop_lag.py), past the client's 10 s
    r = live.http.post("/api/tables", json={"rules_toml": 'preset = "mbs"\ntable_max = 500\n'}, timeout=120)
    assert r.status_code == 201, r.text
    custom = r.json()["id"]
    edge = live.http.get(f"/api/tables/{custom}").json()["marks"]["custom"]["house_edge"]
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.wait_for_selector(f'#table-list tr[data-table="{seeded}"] .mark')
    assert "TEST TABLE" in (page.text_content(f'#table-list tr[data-table="{seeded}"] .mark') or "")
    row = page.text_content(f'#table-list tr[data-table="{custom}"] .mark') or ""
    assert "CUSTOM RULES (mbs with table_max=500)" in row and f"{edge * 100:.3f}%" in row
    page.click(f'#table-list tr[data-table="{custom}"] button.watch')
    page.wait_for_selector("#table-marks:not([hidden])")
    assert "CUSTOM RULES" in (page.text_content("#table-marks") or "")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1200, width  # no row or mark widens the page
