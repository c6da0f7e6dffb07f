from __future__ import annotations

import pytest

from pontoon.analysis.strategy import Solution, solve
from pontoon.rules.load import resolve_rules

PRESETS = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]


@pytest.fixture(scope="session")
def solutions() -> dict[str, Solution]:
    return {p: solve(resolve_rules(p)) for p in PRESETS}
