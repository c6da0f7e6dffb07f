"""docs/rules/british.md: every test and scenario file the rule table names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "british.md"


def test_rule_table_references_exist() -> None:
    text = DOC.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    assert len(rows) > 60
    for row in rows:
        if set(row) <= set("|- "):
            continue
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 4 and cells[2] and cells[3], row
        for name in re.findall(r"([\w-]+\.json)", cells[3]):
            assert (ROOT / "scenarios" / "british" / name).exists(), name
        for mod, fn in re.findall(r"(test_\w+\.py)::(test_\w+)", cells[3]):
            src = (ROOT / "tests" / "british" / mod).read_text()
            assert f"def {fn}(" in src, f"{mod}::{fn}"
        for mod, attr in re.findall(r"`(?:[\w/]+/)?(\w+)\.py:(?:\w+\.)?(\w+)", cells[2]):
            path = ROOT / "src" / "pontoon" / ("rules" if mod == "british" else "british") / f"{mod}.py"
            assert path.exists(), mod
            assert re.search(rf"def {attr}\b|{attr}\b", path.read_text()), f"{mod}.{attr}"
