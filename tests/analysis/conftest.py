from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pontoon.analysis.british import strategy as british_strategy
from pontoon.analysis.strategy import Solution, solve
from pontoon.rules.load import resolve_rules

PRESETS = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]


@pytest.fixture(scope="session")
def solutions() -> dict[str, Solution]:
    return {p: solve(resolve_rules(p)) for p in PRESETS}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """British solutions solved afresh into the test's own cache folder (``PONTOON_CACHE_DIR``), none kept in
    memory before or after (``strategy._MEMO``)."""
    monkeypatch.setenv("PONTOON_CACHE_DIR", str(tmp_path))
    british_strategy._MEMO.clear()
    yield
    british_strategy._MEMO.clear()
