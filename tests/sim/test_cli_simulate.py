"""``pontoon simulate`` as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def pontoon(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", "simulate", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_json_report_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "s.png"
    p = pontoon(
        "--rules", "rws-plus", "--rounds", "40000", "--boxes", "2", "--side-bets", "pair,bonus",
        "--seed", "5", "--json", "--plot", str(png), "--session-length", "100", "--csm",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    for k in ("rounds", "seconds", "rounds_per_second", "house_edge", "ci95", "sd", "lines"):
        assert k in out
    assert out["rounds"] == 40000 and out["boxes"] == 2
    assert {"pair", "bonus", "pontoon", "super_bonus", "777_spades"} <= set(out["lines"])
    assert png.stat().st_size > 5000 and png.read_bytes()[:4] == b"\x89PNG"
    assert "simulate" not in p.stderr  # no progress bar with --json


def test_text_report_toml_set_and_strategy_file(tmp_path: Path) -> None:
    table = tmp_path / "my-table.toml"
    table.write_text('preset = "mbs"\ndecks = 8\n')
    p = pontoon(
        "--rules", str(table), "--set", "penetration=0.5", "--rounds", "20000", "--strategy",
        str(DATA / "wild_chart.json"), "--seed", "1",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "house edge" in p.stdout and "rounds/s" in p.stdout and "cut card after 192 cards" in p.stdout


def test_blackjack_and_insurance() -> None:
    p = pontoon("--rules", "blackjack", "--rounds", "20000", "--insurance", "always", "--json", "--seed", "3")
    assert p.returncode == 0, p.stderr
    assert "insurance" in json.loads(p.stdout)["lines"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--rules", "nosuch"], "unknown preset"),
        (["--side-bets", "bonus"], "not offered in mbs"),
        (["--boxes", "9"], "boxes"),
        (["--rounds", "0"], "rounds"),
        (["--strategy", "missing.json"], "not found"),
        (["--set", "decks=3"], "decks"),
        (["--penetration", "0.5", "--csm"], "not both"),
        (["--plot", "x.jpg"], "PNG"),
        (["--insurance", "maybe"], "insurance"),
    ],
)
def test_bad_input_is_one_line_exit_2(args: list[str], needle: str) -> None:
    p = pontoon("--rounds", "1000", *args) if "--rounds" not in args else pontoon(*args)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and p.stderr.startswith("error:")
    assert needle in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_british_goes_to_the_british_simulator() -> None:
    p = pontoon("--rules", "british", "--rounds", "50", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["rounds"] == 50 and "house_edge" in out
