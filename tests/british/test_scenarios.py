"""Every scenario file in scenarios/british runs through run_british_scenario and gives its ``expect``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pontoon.british.scenario import run_british_scenario
from pontoon.money import dumps

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "scenarios" / "british").glob("*.json"))
EXAMPLE = Path("/work/shared/spec/examples/british-player-busts.json")


def subset_mismatches(expect: Any, got: Any, path: str = "") -> list[str]:
    """Keys listed in ``expect`` must match ``got`` (dicts compared key by key, recursively)."""
    if isinstance(expect, dict):
        if not isinstance(got, dict):
            return [f"{path}: expected an object, got {got!r}"]
        out: list[str] = []
        for k, v in expect.items():
            if k not in got:
                out.append(f"{path}.{k}: missing")
            else:
                out += subset_mismatches(v, got[k], f"{path}.{k}")
        return out
    return [] if expect == got else [f"{path}: expected {expect!r}, got {got!r}"]


def test_there_are_scenarios() -> None:
    assert len(FILES) >= 25


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    assert data.get("clause"), f"{path.name} must cite its clause"
    result = run_british_scenario(data)
    assert subset_mismatches(data["expect"], result) == []
    # money is conserved: every seat's totals sum to zero
    assert sum(d["total"] for d in result["net"].values()) == 0
    dumps(result)  # exact decimals as JSON numbers (money.dumps)


@pytest.mark.skipif(not EXAMPLE.exists(), reason="shared example not present")
def test_shared_example() -> None:
    data = json.loads(EXAMPLE.read_text())
    assert subset_mismatches(data["expect"], run_british_scenario(data)) == []
