"""The analysis lanes (web/workers.py) through a real server on loopback: a long hint holds neither a
custom table's creation nor another table's bot, a table asks one hint at a time, and the hints' line
is bounded: past it the asker is answered "busy" at once, never left waiting without end.

Before, hints, bots' decisions and custom tables' exact edges shared one slot (``Semaphore(1)``): a
British split hint (10-20 s) held them all back for its length. Here "a long hint" is the analyser's own
``action_values`` held at its first call until the test lets it go (the server's scheduling is what is
tested; the figures it then answers are the analyser's real ones)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pontoon.analysis import hints as hints_mod
from tests.web.conftest import FAST, Client, LiveServer, bearer


@pytest.fixture
def long_hint(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """The analyser's first ``action_values`` call is held (``entered`` set) until ``release``."""
    real = hints_mod.action_values
    entered, release = threading.Event(), threading.Event()
    first = threading.Lock()

    def held(*args: Any, **kw: Any) -> Any:
        if first.acquire(blocking=False):  # the first call only: every later one runs at once
            entered.set()
            release.wait(120)
        return real(*args, **kw)

    monkeypatch.setattr(hints_mod, "action_values", held)
    try:
        yield entered, release
    finally:
        release.set()


def _at_a_decision(live: LiveServer, name: str, seed: int) -> tuple[str, Client]:
    """``name`` alone at a seeded mbs table, betting until a round asks him to act."""
    token = live.account(name)
    tid = live.table(preset="mbs", seed=seed)
    c = live.ws(tid, live.join(tid, token, box=1, buy_in="500"))
    for _ in range(40):
        st = c.wait_state(lambda s: s["you"] == name)
        if st["phase"] == "play" and st["to_act"] == name:
            return tid, c
        if st["phase"] == "betting" and not st["bets"].get(name):
            c.send({"type": "bet", "amount": "10"})
        c.until(lambda m: m.get("type") == "state")
    raise AssertionError(f"{name} was never asked to act")


def _answer(c: Client, timeout: float) -> dict[str, Any]:
    return c.until(lambda m: m.get("type") in ("hints", "error"), timeout)


def _within(pred: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def _long_hint_at(live: LiveServer, entered: threading.Event) -> Client:
    """ann's hint, asked at her decision and held (being worked out) till the test lets it go."""
    _, ann = _at_a_decision(live, "ann", 3)
    ann.send({"type": "hints"})
    assert entered.wait(30)
    return ann


def test_a_long_hint_does_not_hold_back_a_custom_tables_creation(
    live: LiveServer, long_hint: tuple[threading.Event, threading.Event]
) -> None:
    entered, release = long_hint
    ann = _long_hint_at(live, entered)
    # a custom table (its exact edge: the analyser, about 1 s with numba's cache) is made meanwhile
    r = live.http.post("/api/tables", json={"rules_toml": 'preset = "mbs"\ntable_max = 500\n'}, timeout=100)
    assert r.status_code == 201, r.text
    assert r.json()["marks"]["custom"]["house_edge"] is not None
    assert not release.is_set()
    release.set()
    got = _answer(ann, 120)  # ann's hint, answered once worked out
    assert got["type"] == "hints" and got["values"], got


def test_a_long_hint_does_not_hold_back_another_tables_bot(
    make_live: Callable[..., LiveServer], long_hint: tuple[threading.Event, threading.Event]
) -> None:
    live = make_live(
        dataclasses.replace(FAST, turn_timeout_s=600.0)
    )  # the bot's move is his, not the timer's
    entered, release = long_hint
    ann = _long_hint_at(live, entered)
    bob = live.account("bob")  # bob at box 2, a bot at box 1 (it acts first)
    tid = live.table(preset="mbs", seed=11)
    b = live.ws(tid, live.join(tid, bob, box=2, buy_in="500"))
    add = live.http.post(
        f"/api/tables/{tid}/host", json={"msg": {"action": "add_bot", "box": 1}}, headers=bearer(bob)
    )
    assert add.status_code == 200, add.text
    bot = add.json()["bots"][0]
    acted = False
    for _ in range(12):  # rounds until one asks the bot to act (a dealt Pontoon asks nobody)
        st = b.wait_state(lambda s: s["you"] == "bob")
        if st["phase"] == "betting" and not st["bets"].get("bob"):
            b.send({"type": "bet", "amount": "10"})
        elif st["phase"] == "play" and st["to_act"] == bot:
            b.until(lambda m: m.get("type") == "state" and m["to_act"] != bot, timeout=45)
            acted = True  # the bot's decision, taken while ann's hint still runs
            break
        elif st["phase"] == "play" and st["to_act"] == "bob":
            b.send({"type": "act", "action": {"verb": "stand", "box": 2}})
        b.until(lambda m: m.get("type") == "state")
    assert acted and not release.is_set()
    release.set()
    got = _answer(ann, 120)
    assert got["type"] == "hints" and got["values"], got


def test_one_hint_per_table_at_a_time_and_a_bounded_line_answered_busy(
    make_live: Callable[..., LiveServer], long_hint: tuple[threading.Event, threading.Event]
) -> None:
    live = make_live(dataclasses.replace(FAST, hint_workers=1, hint_queue=1))
    entered, release = long_hint
    _, ann = _at_a_decision(live, "ann", 3)
    _, bob = _at_a_decision(live, "bob", 4)
    _, cy = _at_a_decision(live, "cy", 5)
    ann.send({"type": "hints"})
    assert entered.wait(30)  # ann's hint runs (held)
    ann.send({"type": "hints"})  # her second ask: at once "busy", not a second place in line
    busy = _answer(ann, 10)
    assert busy["type"] == "error" and busy["error"].startswith("hints busy: your last hint is still"), busy
    ann.send({"type": "ping"})  # her connection's messages go on while her hint is worked out
    assert ann.until(lambda m: m.get("type") == "pong", 10)
    bob.send({"type": "hints"})  # waits in the line (one place)
    time.sleep(0.3)
    assert not any(m.get("type") in ("hints", "error") for m in bob.received)
    cy.send({"type": "hints"})  # the line is full: at once "busy", with what is accepted
    full = _answer(cy, 10)
    assert (
        full["type"] == "error"
        and "the analyser is busy (2 requests running or waiting, at most 2)" in (full["error"])
    ), full
    assert "\n" not in full["error"]
    lanes = live.srv.workers.hints
    assert lanes.admitted == 2 and set(lanes.keys) == {
        t for t, cs in live.srv.conns.items() for c in cs if c.name in ("ann", "bob")
    }
    release.set()
    assert _answer(ann, 120)["type"] == "hints"
    assert _answer(bob, 120)["type"] == "hints"
    assert _within(lambda: lanes.admitted == 0 and not lanes.keys, 10)  # every place given back
    cy.send({"type": "hints"})  # the line free again: cy's hint is worked out
    assert _answer(cy, 120)["type"] == "hints"


def test_a_hint_that_times_out_keeps_its_place_till_its_thread_ends() -> None:
    """A call that gives up waiting (``timeout``) is answered at once, but its thread runs on: it holds
    its place in the lane till it ends, so the lane never runs more threads than it has (before, the
    slot was let go at the timeout while the analyser went on, and every timed-out hint added a thread)."""
    from pontoon.web.workers import Busy, Lane

    async def scenario() -> None:
        lane = Lane("hints", 1, 0, per_key=1)
        release = threading.Event()
        with pytest.raises(TimeoutError):
            await lane.run(release.wait, 30, key="t1", timeout=0.1)
        assert lane.admitted == 1 and lane.keys == {"t1": 1}  # its thread still runs
        with pytest.raises(Busy, match=r"the analyser is busy \(1 requests running or waiting, at most 1\)"):
            await lane.run(lambda: 1, key="t2")
        release.set()
        for _ in range(100):
            if not lane.admitted:
                break
            await asyncio.sleep(0.02)
        assert lane.admitted == 0 and not lane.keys
        assert await lane.run(lambda: 7, key="t2") == 7
        lane.shutdown()

    asyncio.run(scenario())
