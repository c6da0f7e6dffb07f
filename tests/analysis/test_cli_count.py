"""``pontoon count`` (cli/count.py): the report, its JSON, a plot, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from pontoon.cli.app import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "count", *args], capture_output=True, text=True, timeout=600
    )


def test_count_json_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "eor.png"
    r = _run("--rules", "mbs", "--no-indices", "--count", "walker-hi-lo", "--count", "zen", "--json",
             "--plot", str(png))  # fmt: skip
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout[: r.stdout.rindex("}") + 1])
    eff = rep["effects_of_removal"]
    assert set(eff["per_deck"]) == {"basic", "optimal", "pair", "insurance"}
    assert eff["per_deck"]["basic"]["A"] < 0 < eff["per_deck"]["basic"]["5"]
    assert [c["system"] for c in rep["counts"]] == ["Walker's Spanish 21 Hi-Lo", "Zen"]
    assert rep["counts"][0]["irc"] == -24
    assert png.stat().st_size > 10_000


def test_count_text_with_indices_and_a_simulation() -> None:
    r = _run("--rules", "mbs", "--count", "walker-hi-lo", "--samples", "2", "--tc-range", "-6:1",
             "--simulate", "200000", "--ramp", "-3:1,-1:4")  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Effects of removal" in out and "Index chart (Walker's Spanish 21 Hi-Lo" in out
    assert "hard 16   v T" in out
    assert "risk of ruin" in out and "DI" in out and "SCORE" in out


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--penetration", "2"], "--penetration"),
        (["--samples", "x"], "--samples"),
        (["--tc-range", "3:1"], "--tc-range"),
        (["--count", "nope"], "count system 'nope' is not known"),
        (["--simulate", "10", "--ramp", "zz"], "bad ramp entry"),
        (["--plot", "x.txt"], ".png"),
        (["--rules", "no-such-preset"], "error:"),
        (["--simulate", "10", "--workers", "0"], "--workers"),
    ],
)
def test_count_bad_input_is_one_line_and_exit_2(args: list[str], needle: str) -> None:
    r = _run("--no-indices", *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 or r.stderr.strip().startswith(("Usage", "error"))
