"""Counting drills (cli/count_drill.py): answers graded against the true figures."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from pontoon.analysis.counts import SYSTEMS
from pontoon.cli.count_drill import ev_per_true_count, run_count_drill
from pontoon.rules.load import resolve_rules


def _feed(answers: list[str]) -> tuple[list[str], object]:
    said: list[str] = []
    it = iter(answers)

    def ask(prompt: str) -> str:
        said.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return said, ask


def test_running_drill_grades_against_a_recount() -> None:
    """Answer each deal with the recount of every card shown (parsed from the drill's own lines):
    all correct; then answer 0 every time: all wrong, each with a cost."""
    rules = resolve_rules("mbs")
    walker = SYSTEMS["walker-hi-lo"]
    tags = {
        "A": -1,
        "2": 1,
        "3": 1,
        "4": 1,
        "5": 1,
        "6": 1,
        "7": 0,
        "8": 0,
        "9": 0,
        "J": -1,
        "Q": -1,
        "K": -1,
    }
    lines: list[str] = []
    rc = [walker.irc("pontoon48", 6)]

    def ask(prompt: str) -> str:
        shown = [x for x in lines if x.startswith("dealt: ")][-1]
        rc[0] += sum(tags[c[:-1]] for c in shown.split()[1:])
        return str(rc[0])

    s = run_count_drill(rules, walker, "running", 12, 5, ask, lines.append)
    assert s.asked == 12 and s.correct == 12 and s.cost == 0
    said: list[str] = []
    s2 = run_count_drill(rules, walker, "running", 5, 5, lambda p: "0", said.append)
    assert s2.asked == 5 and s2.correct == 0 and s2.cost > 0
    assert all("misjudging the expectation" in x for x in said if x.startswith("mistake"))


def test_true_drill_and_the_end_of_input() -> None:
    rules = resolve_rules("mbs")
    lines: list[str] = []

    def ask(prompt: str) -> str:
        m = re.match(r"running count ([+-]\d+), (\d+) cards left", lines[-1])
        assert m is not None
        return str(int(np.floor(int(m.group(1)) * 48 / int(m.group(2)))))

    s = run_count_drill(rules, SYSTEMS["walker-hi-lo"], "true", 6, 2, ask, lines.append)
    assert s.correct == s.asked == 6
    _, eof = _feed(["1"])
    s = run_count_drill(rules, SYSTEMS["walker-hi-lo"], "true", 6, 2, eof, lines.append)  # type: ignore[arg-type]
    assert s.asked == 1  # the end of the input ends the drill, the answer given is graded


def test_ev_per_true_count_is_positive_for_walker() -> None:
    slope = ev_per_true_count(resolve_rules("mbs"), SYSTEMS["walker-hi-lo"])
    assert 0.003 < slope < 0.008  # about half a percent a true-count point


def test_index_drill_from_the_command_line() -> None:
    code = "from pontoon.cli.app import main; main()"
    r = subprocess.run(
        [sys.executable, "-c", code, "count", "--rules", "mbs", "--drill", "index", "--questions", "2", "--seed", "3"],
        input="h\nzz\nn\ns\n", capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "is not a choice here" in r.stdout
    assert "drill index: 2 asked" in r.stdout
    assert re.search(r"(correct|mistake): .*(hit|stand|double|split|surrender) [+-]\d\.\d{4}", r.stdout)


def test_index_drill_asks_rescue_and_insurance_with_exact_costs() -> None:
    """mbs: among 30 questions some are a doubled total (keep or rescue, 004 3.25.3) and some an Ace
    up (insure or not); each answer's cost is the best printed value less the chosen one's, and a
    rescue is worth -1 of the original wager."""
    rules = resolve_rules("mbs")
    said: list[str] = []
    turn = [0]

    def ask(prompt: str) -> str:
        letters = [x for x in re.findall(r"(?:^|  )([a-z]) ", prompt) if x != "q"]
        turn[0] += 1
        return letters[turn[0] % len(letters)]  # a different option each time

    s = run_count_drill(rules, SYSTEMS["walker-hi-lo"], "index", 30, 5, ask, said.append)
    assert s.asked == 30
    text = "\n".join(said)
    assert "you doubled and ended on" in text and "the dealer shows an Ace; insurance?" in text
    names = "stand|hit|double|split|surrender|rescue|insure|no insurance"
    total = 0.0
    for line in said:
        m = re.match(
            r"(correct|mistake): (?:best is ([a-z ]+), yours )?([a-z ]+?)(?:: costs ([\d.]+) of the wager)? \((.*)\)$",
            line,
        )
        if not m:
            continue
        vals = {k: float(v) for k, v in re.findall(rf"({names}) ([+-]\d\.\d+)", m.group(5))}
        mine = vals[m.group(3)]
        if "rescue" in vals:
            assert vals["rescue"] == -1.0
        if m.group(1) == "correct":
            assert mine == max(vals.values())
        else:
            assert float(m.group(4)) == pytest.approx(max(vals.values()) - mine, abs=2e-4)
            total += max(vals.values()) - mine
    assert s.cost == pytest.approx(total, abs=2e-3) and s.cost > 0
