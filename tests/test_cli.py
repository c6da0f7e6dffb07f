"""The command line as a user runs it: scenario files, bad input, and piped play."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED

EXAMPLES = sorted((SHARED / "spec" / "examples").glob("*.json"))


def pontoon(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def assert_clean_error(p: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    assert p.stdout == ""
    for n in needles:
        assert n in p.stderr, p.stderr


@pytest.mark.parametrize(
    "path", [p for p in EXAMPLES if not p.name.startswith("british")], ids=lambda p: p.name
)
def test_shared_examples_check(path: Path) -> None:
    p = pontoon("scenario", "--check", str(path))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["status"] == "settled"


def test_check_fails_with_exit_1_on_a_difference(tmp_path: Path) -> None:
    data = json.loads((SHARED / "spec/examples/mbs-stand-and-win.json").read_text())
    data["expect"]["net"]["ann"]["main"] = -10
    f = tmp_path / "wrong.json"
    f.write_text(json.dumps(data))
    p = pontoon("scenario", "--check", str(f))
    assert p.returncode == 1 and "expected -10, got 10" in p.stderr


def test_scenario_from_stdin() -> None:
    p = pontoon("scenario", "-", stdin=(SHARED / "spec/examples/mbs-stand-and-win.json").read_text())
    assert p.returncode == 0 and json.loads(p.stdout)["net"]["ann"]["total"] == 10


@pytest.mark.parametrize(
    ("scenario", "needle"),
    [
        (
            {
                "rules": "mbs",
                "shoe": "9S 7H KD QC 9C",
                "boxes": {"1": [{"player": "ann", "main": 10}]},
                "actions": ["2 hit"],
            },
            "illegal action '2 hit': box 2 is not the box to act; box 1 hand 1 is to act; legal: 1 hit, 1 stand",
        ),
        (
            {
                "rules": "mbs",
                "shoe": "9S 7H KD",
                "boxes": {"1": [{"player": "ann", "main": 10}]},
                "actions": ["1 split"],
            },
            "9S and KD are not of the same value",
        ),
        ({"rules": "nope", "shoe": "9S", "boxes": {}}, "unknown preset 'nope'"),
        ({"rules": "mbs", "shoe": "9S XX", "boxes": {"1": [{"player": "ann", "main": 10}]}}, "bad card 'XX'"),
        ({"rules": "mbs", "shoe": "9S", "boxes": {"1": [{"player": "ann", "main": -5}]}}, "must be positive"),
        (
            {"rules": "mbs", "shoe": "9S", "boxes": {"1": [{"player": "ann", "main": 20000}]}},
            "over the table maximum 10000",
        ),
        (
            {"rules": "mbs", "shoe": "9S", "boxes": {"1": [{"player": "ann", "pair": 10}]}},
            "needs a main wager on that box",
        ),
        (
            {"rules": "mbs", "shoe": "9S", "boxes": {"1": [{"player": "ann", "main": 10, "bonus": 5}]}},
            "not offered in mbs",
        ),
        (
            {
                "rules": "mbs",
                "options": {"decks": 12},
                "shoe": "9S",
                "boxes": {"1": [{"player": "ann", "main": 10}]},
            },
            "decks=12",
        ),
        (
            {
                "rules": "mbs",
                "shoe": "9C AS 3C",
                "boxes": {"1": [{"player": "ann", "main": 10}]},
                "actions": ["1 insure ann 6"],
            },
            "at most half the wager",
        ),
    ],
)
def test_bad_scenarios_are_one_line_errors(tmp_path: Path, scenario: dict, needle: str) -> None:
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(scenario))
    p = pontoon("scenario", str(f))
    assert_clean_error(p, needle)
    assert len(p.stderr.strip().splitlines()) == 1


def test_malformed_json_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.json"
    f.write_text("{oops")
    assert_clean_error(pontoon("scenario", str(f)), "not valid JSON")
    assert_clean_error(pontoon("scenario", str(tmp_path / "none.json")), "cannot read")


def test_endless_scenario_input_is_refused() -> None:
    """A device or an endless pipe is read up to a bound (it read without end)."""
    assert_clean_error(pontoon("scenario", "/dev/zero"), "/dev/zero: over 10 MB")
    assert_clean_error(pontoon("scenario", "-", stdin="y\n" * 6_000_000), "<stdin>: over 10 MB")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize(
    "args",
    [
        ("analyze", "--rules", "blackjack", "--json"),  # read without typer
        ("analyze", "--json", "--rules", "blackjack", "--compare", "mbs"),  # through typer
        ("rules", "mbs"),
        ("simulate", "--rules", "mbs", "--rounds", "1000", "--seed", "1"),
    ],
    ids=lambda a: "-".join(a[:2]),
)
def test_a_full_device_is_a_one_line_error_not_an_internal_one(args: tuple[str, ...]) -> None:
    """Output to a full disk (``> /dev/full``) ends with one line naming it, exit 1 (it was an
    "internal error" with a pointer to PONTOON_DEBUG, as for a bug)."""
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [sys.executable, "-m", "pontoon.cli.app", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("error: a write failed: No space left on device"), p.stderr
    assert p.stderr.count("\n") == 1 and "internal error" not in p.stderr and "Traceback" not in p.stderr


def test_ten_in_a_48_card_shoe_voids_the_round(tmp_path: Path) -> None:
    # rulings 1: a foreign card voids the round, every wager returned (not an input error)
    f = tmp_path / "void.json"
    f.write_text(
        json.dumps(
            {
                "rules": "mbs",
                "shoe": "KS 7H QD TD",
                "boxes": {"1": [{"player": "ann", "main": 10, "pair": 5}]},
                "actions": ["1 hit"],
            }
        )
    )
    p = pontoon("scenario", str(f))
    out = json.loads(p.stdout)
    assert p.returncode == 0 and out["status"] == "void" and out["void_reason"] == "foreign card TD"
    assert out["net"]["ann"] == {"main": 0, "pair": 0, "total": 0}


def test_unknown_preset_on_play_and_rules() -> None:
    assert_clean_error(pontoon("play", "--rules", "poker"), "unknown preset 'poker'")
    assert_clean_error(pontoon("rules", "mbs", "--set", "decks=99"), "decks=99")
    p = pontoon("rules")
    assert p.returncode == 0 and "rws-pandemonium" in p.stdout


def test_a_bad_option_names_the_whole_subcommand() -> None:
    """A usage error points at the help of the command given, a subcommand of a group included
    (it said ``pontoon evaluate --help`` for ``pontoon rl evaluate``)."""
    assert_clean_error(
        pontoon("rl", "evaluate", "basic", "--rounds", "1e99"),
        "'--rounds'",
        "(see pontoon rl evaluate --help)",
    )
    assert_clean_error(
        pontoon("analyze", "--decks", "3"), "No such option: --decks", "(see pontoon analyze --help)"
    )


@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"])
def test_play_a_whole_shoe_from_piped_input(preset: str) -> None:
    # Enter deals; 's' stands (refused where a forced draw applies, then 'h' hits)
    answers = ("\n" + "s\nh\n" * 3) * 400
    p = pontoon("play", "--rules", preset, "--seed", "7", "--shoes", "1", "--boxes", "2", stdin=answers)
    assert p.returncode == 0, p.stderr
    assert "end of shoe 1" in p.stdout
    played = int(p.stdout.rsplit("played ", 1)[1].split()[0])
    assert played > 10


def test_play_ends_cleanly_at_end_of_input() -> None:
    p = pontoon("play", "--seed", "1", stdin="\n")
    assert p.returncode == 0, p.stderr
    assert "played 1 rounds" in p.stdout


@pytest.mark.parametrize("preset", ["british", "shoot"])
def test_play_british_from_piped_input(preset: str) -> None:
    # a blank line takes the first legal action at its smallest amount (003: stake, buy, twist...)
    p = pontoon("play", "--rules", preset, "--seed", "3", "--rounds", "5", stdin="\n" * 400)
    assert p.returncode == 0, p.stderr
    assert "After 5 rounds" in p.stdout


def test_play_british_refuses_a_stake_over_the_limit_and_asks_again() -> None:
    p = pontoon("play", "--rules", "british", "--seed", "1", stdin="stake 500\n")
    assert p.returncode == 0 and "stake 500 is out of range: accepted 1 to 100" in p.stdout


@pytest.mark.parametrize("preset", ["mbs", "federal", "rws-plus", "rws-pandemonium"])
def test_play_with_hints(preset: str) -> None:
    p = pontoon(
        "play", "--rules", preset, "--seed", "5", "--hints", "--rounds", "3", stdin=("\n" + "s\nh\n" * 3) * 3
    )
    assert p.returncode == 0, p.stderr
    assert "hint: " in p.stdout and "stand" in p.stdout.split("hint: ", 1)[1]
