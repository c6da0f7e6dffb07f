"""``pontoon history --hold`` (issue 23 item 5): recorded hold per wager kind against theory."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from pontoon.analysis.hold import Z95, hold_rows, theory
from pontoon.cli.app import run
from pontoon.history import open_store
from pontoon.history.hold import recorded_hold
from pontoon.rules.load import resolve_rules
from tests.history.driver import new_table, play


@pytest.fixture
def played(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    s = open_store(url)
    for preset, seed in (("mbs", 3), ("shoot", 4)):
        t, rec = new_table(s, preset, seed)
        play(t, seed, 12)
        rec.close()
    s.close()
    return url


def test_hold_reads_the_ledger(played: str, capsys: pytest.CaptureFixture[str]) -> None:
    s = open_store(played)
    try:
        rows = s.ledger_(1)
        got = recorded_hold(s, 1)
    finally:
        s.close()
    main = [r for r in rows if r["kind"] in ("main", "super_bonus")]
    staked = sum(
        Decimal(r["amount"])
        for r in main
        if r["dest"] == {"system": "layout"} and not isinstance(r["source"], dict)
    )
    back = sum(
        Decimal(r["amount"])
        for r in main
        if not isinstance(r["dest"], dict) and isinstance(r["source"], dict)
    )
    assert got["main"]["wagered"] == staked
    assert got["main"]["net"] == back - staked
    assert 0 < got["main"]["initial"] <= staked
    assert got["main"]["rounds"] <= 12
    assert run(["history", "--db", played, "--hold", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [t["table"] for t in out] == [1, 2]
    assert "British" in out[1]["note"]
    w = {x["kind"]: x for x in out[0]["wagers"]}["main"]
    assert w["hold"] == pytest.approx(-float(got["main"]["net"]) / float(got["main"]["initial"]))
    edge, _sd = theory(resolve_rules("mbs"))["main"]
    assert w["theory"] == pytest.approx(edge)
    lo, hi = w["interval"]
    assert lo < edge < hi and w["outside"] == (not lo <= w["hold"] <= hi)
    assert run(["history", "--db", played, "--hold", "--table", "1"]) == 0
    assert "hold against theory" in capsys.readouterr().out
    assert run(["history", "--db", played, "--hold", "--table", "9"]) == 2
    assert run(["history", "--db", played, "--hold", "1"]) == 2


def test_interval_flags_a_hold_outside() -> None:
    """1,000 rounds of 10 on the main wager: SE = sd * sqrt(1000 * 100) / 10000 = sd / sqrt(1000)."""
    rules = resolve_rules("mbs")
    edge, sd = theory(rules)["main"]
    se = sd / 1000**0.5
    for hold, outside in (
        (edge, False),
        (edge + 1.9 * se, False),
        (edge + 2.1 * se, True),
        (edge - 2.1 * se, True),
    ):
        rec = {
            "main": {
                "rounds": 1000,
                "initial": Decimal(10000),
                "initial_sq": Decimal(100000),
                "wagered": Decimal(11000),
                "net": Decimal(str(round(-hold * 10000, 6))),
            }
        }
        (row,) = hold_rows(rules, rec)
        assert row["interval"][1] - row["theory"] == pytest.approx(Z95 * se, rel=1e-9)
        assert row["outside"] is outside
