"""Run one scenario (casino or British) from parsed JSON, and compare with its ``expect``."""

from __future__ import annotations

from typing import Any

from pontoon.errors import ScenarioError

BRITISH = {"british", "shoot"}


def run_scenario(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object with at least 'rules', 'shoe' and 'boxes' or 'players'")
    from pontoon.rules import find_rules

    rules = find_rules(str(data.get("rules", "")))
    if rules.preset in BRITISH:
        from pontoon.british.scenario import run_british_scenario

        return run_british_scenario(data)
    from pontoon.casino.scenario import run_casino_scenario

    return run_casino_scenario(data)


def _num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def compare(expect: Any, actual: Any, path: str = "") -> list[str]:
    """Differences between ``expect`` and ``actual``; only keys listed in ``expect`` count."""
    diffs: list[str] = []
    if isinstance(expect, dict):
        if not isinstance(actual, dict):
            return [f"{path or 'result'}: expected an object, got {actual!r}"]
        for k, v in expect.items():
            if k not in actual:
                # a missing wager kind counts as zero (a player with no such wager nets 0)
                if _num(v) and v == 0:
                    continue
                diffs.append(f"{path}{k}: expected {v!r}, missing")
                continue
            diffs += compare(v, actual[k], f"{path}{k}.")
        return diffs
    if _num(expect) and _num(actual):
        if abs(float(expect) - float(actual)) > 1e-9:
            diffs.append(f"{path.rstrip('.')}: expected {expect}, got {actual}")
        return diffs
    if isinstance(expect, list) and isinstance(actual, list):
        if len(expect) != len(actual):
            return [f"{path.rstrip('.')}: expected {len(expect)} items, got {len(actual)}: {actual!r}"]
        for i, (e, a) in enumerate(zip(expect, actual, strict=True)):
            diffs += compare(e, a, f"{path}{i}.")
        return diffs
    if expect != actual:
        diffs.append(f"{path.rstrip('.')}: expected {expect!r}, got {actual!r}")
    return diffs
