"""Run one scenario (casino or British) from parsed JSON, and compare with its ``expect``."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from pontoon.errors import ScenarioError

BRITISH = {"british", "shoot"}
MAX_SCENARIO_BYTES = 1 << 20  # a scenario file is at most 1 MiB
MAX_DEPTH = 32  # objects and lists nested at most this deep


def _no_constant(name: str) -> Any:
    raise ScenarioError(f"{name} is not a number a scenario accepts: amounts are decimals such as 10 or 7.50")


def check_depth(data: Any, limit: int = MAX_DEPTH, what: str = "scenario") -> None:
    """Refuse objects/lists nested deeper than ``limit`` (iterative: never a RecursionError)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        obj, depth = stack.pop()
        if isinstance(obj, dict | list | tuple):
            if depth > limit:
                raise ScenarioError(f"{what} is nested more than {limit} levels deep")
            items = obj.values() if isinstance(obj, dict) else obj
            stack.extend((x, depth + 1) for x in items if isinstance(x, dict | list | tuple))


def parse_scenario(raw: bytes | str, name: str = "scenario") -> Any:
    """Parse a scenario's JSON text: UTF-8, at most 1 MiB, nested at most 32 deep, numbers as exact
    Decimals; NaN and Infinity refused. Every failure is a one-line ScenarioError."""
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError(f"{name}: the file is larger than {MAX_SCENARIO_BYTES} bytes")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ScenarioError(
                f"{name}: not UTF-8 text (byte {err.start}): a scenario is a JSON file"
            ) from None
    else:
        text = raw
    try:
        data = json.loads(text, parse_float=Decimal, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ScenarioError(
            f"{name}: not valid JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None
    except RecursionError:
        raise ScenarioError(f"{name}: JSON nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ScenarioError as err:
        raise ScenarioError(f"{name}: {err}") from None
    except ValueError as err:  # e.g. an integer literal of more than 4300 digits
        raise ScenarioError(f"{name}: a value cannot be read: {str(err).splitlines()[0]}") from None
    check_depth(data, what=name)
    return data


def run_scenario(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ScenarioError(
            "a scenario is a JSON object with at least 'rules', 'shoe' and 'boxes' or 'players'"
        )
    from pontoon.rules import find_rules

    check_depth(data)
    name = data.get("rules", "")
    if not isinstance(name, str):
        raise ScenarioError(
            f'\'rules\' must be a preset name such as "mbs" or "british", not {type(name).__name__}'
        )
    rules = find_rules(name)
    if rules.preset in BRITISH:
        from pontoon.british.scenario import run_british_scenario

        return run_british_scenario(data)
    from pontoon.casino.scenario import run_casino_scenario

    return run_casino_scenario(data)


def _num(x: Any) -> bool:
    return isinstance(x, int | float | Decimal) and not isinstance(x, bool)


def _exact(x: int | float | Decimal) -> Decimal:
    return Decimal(repr(x)) if isinstance(x, float) else Decimal(x)


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
        if _exact(expect) != _exact(actual):  # money is exact: compared as decimals, never floats
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
