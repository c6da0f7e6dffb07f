"""``strategy.solved`` loads the solution of one rules set once, however many threads ask for it at once (the
memo had no lock: every thread that asked while the first was loading loaded it again, seconds each); a
thread asking for other rules meanwhile is not held by that load.

The real load runs (the shipped file read into the model); a gate holds the first call inside it so that
"while it loads" is a state the test controls, not a timing."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pontoon.analysis.british import strategy
from pontoon.rules.british import BRITISH, SHOOT

THREADS = 8


def _gated(monkeypatch: pytest.MonkeyPatch, gate: threading.Event, held: str) -> list[str]:
    """``_solved_uncached`` counted (by preset); a load of the ``held`` preset waits for ``gate``."""
    calls: list[str] = []
    real = strategy._solved_uncached

    def load(rules: Any, use_cache: bool, log: Any) -> Any:
        calls.append(rules.preset)
        if rules.preset == held:
            assert gate.wait(60)
        return real(rules, use_cache, log)

    monkeypatch.setattr(strategy, "_MEMO", {})  # nothing loaded yet in this process
    monkeypatch.setattr(strategy, "_solved_uncached", load)
    return calls


def test_threads_asking_for_the_same_rules_load_them_once(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    calls = _gated(monkeypatch, gate, "british")
    with ThreadPoolExecutor(THREADS) as pool:
        got = [pool.submit(strategy.solved, BRITISH) for _ in range(THREADS)]
        end = time.monotonic() + 20
        while not calls:
            assert time.monotonic() < end, "no thread reached the load"
            time.sleep(0.01)
        time.sleep(0.5)  # (every thread has asked and waits for the load)
        assert not any(f.done() for f in got)
        gate.set()
        answers = [f.result(timeout=120) for f in got]
    assert calls == ["british"], f"the solution was loaded {len(calls)} times"
    assert all(a is answers[0] for a in answers)  # one Solved, shared
    assert answers[0].source == "shipped" and answers[0].rules == BRITISH
    assert strategy.solved(BRITISH) is answers[0] and calls == ["british"]  # kept in memory


def test_a_load_of_other_rules_is_not_held_by_it(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = threading.Event()
    calls = _gated(monkeypatch, gate, "british")
    with ThreadPoolExecutor(2) as pool:
        slow = pool.submit(strategy.solved, BRITISH)
        end = time.monotonic() + 20
        while not calls:
            assert time.monotonic() < end, "the british load did not start"
            time.sleep(0.01)
        other = strategy.solved(SHOOT)  # while the british load is held
        assert other.rules == SHOOT and not slow.done()
        gate.set()
        assert slow.result(timeout=120).rules == BRITISH
    assert sorted(calls) == ["british", "shoot"]


def test_the_shipped_files_are_never_read_half_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """``shipped_path`` lists the shipped files on first use; a thread asking while another is listing them
    must find the british preset's file, not a half-filled listing (the solved levels were then refused)."""
    listing, listed = threading.Event(), threading.Event()
    real = strategy.np.load

    def load(path: Any, **kw: Any) -> Any:
        if threading.current_thread().name == "lister" and Path(path).name == "british.npz":
            listing.set()  # the lister has read the two-pack file; it waits before the one-pack file
            assert listed.wait(60)
        return real(path, **kw)

    monkeypatch.setattr(strategy, "_SHIPPED", {})
    monkeypatch.setattr(strategy.np, "load", load)
    lister = threading.Thread(target=strategy.shipped_path, args=(BRITISH,), name="lister")
    lister.start()
    try:
        assert listing.wait(60)
        path = strategy.shipped_path(BRITISH)  # while the lister is half way
    finally:
        listed.set()
        lister.join(60)
    assert path is not None and path.name == "british.npz"
    assert strategy.shipped_path(BRITISH) == path
