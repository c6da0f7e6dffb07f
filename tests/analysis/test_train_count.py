"""``pontoon train --only count-running|count-true|count-index``: the counting drills of
``pontoon count --drill`` (cli/count_drill.py) in the trainer, piped answers, kept in the history
store's ``drills`` table like the other drill sessions."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

from pontoon.analysis.counts import SYSTEMS
from pontoon.cli.count_drill import run_count_drill
from pontoon.history import open_store
from pontoon.history.drills import list_drills
from pontoon.rules.load import resolve_rules


def pontoon(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _right_true_answers(seed: int, n: int) -> list[str]:
    """The true counts the drill asks for, worked out from its own lines (floor(rc * 48 / left))."""
    lines: list[str] = []
    answers: list[str] = []

    def ask(prompt: str) -> str:
        m = re.match(r"running count ([+-]?\d+), (\d+) cards left", lines[-1])
        assert m, lines[-1]
        answers.append(str(math.floor(int(m.group(1)) * 48 / int(m.group(2)))))
        return answers[-1]

    s = run_count_drill(resolve_rules("mbs"), SYSTEMS["walker-hi-lo"], "true", n, seed, ask, lines.append)
    assert s.correct == n
    return answers


def test_train_true_count_drill_grades_and_is_recorded(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'h.db'}"
    right = _right_true_answers(7, 4)
    p = pontoon("train", "--rules", "mbs", "--only", "count-true", "--hands", "4", "--seed", "7", "--db", db,
                stdin="\n".join(right) + "\n")  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("correct: true count") == 4
    assert "count-true, 4 questions, 4 correct (100.0%)" in p.stdout and "saved as drill session" in p.stdout
    wrong = [str(int(a) + 3) for a in right]
    p = pontoon("train", "--rules", "mbs", "--only", "count-true", "--hands", "4", "--seed", "7", "--db", db,
                stdin="\n".join(wrong) + "\n")  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "4 questions, 0 correct" in p.stdout and p.stdout.count("mistake: the true count is") == 4
    store = open_store(db)
    try:
        rows = list_drills(store)
    finally:
        store.close()
    assert [(r["only"], r["decisions"], r["correct"]) for r in rows] == [
        ("count-true", 4, 4),
        ("count-true", 4, 0),
    ]
    assert rows[0]["cost"] == 0 and rows[1]["cost"] > 0 and rows[1]["rules"] == "mbs"


def test_train_running_and_index_drills_run_and_stop_at_the_end_of_input() -> None:
    p = pontoon("train", "--rules", "mbs", "--only", "count-running", "--hands", "3", "--seed", "2",
                "--no-history", stdin="-24\n")  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "dealt: " in p.stdout and "count-running, 1 questions" in p.stdout
    p = pontoon("train", "--rules", "mbs", "--only", "count-index", "--hands", "2", "--seed", "2",
                "--count", "hi-lo", "--no-history", stdin="s\nh\n")  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "count-index, 2 questions" in p.stdout


def test_train_count_bad_input_is_one_line() -> None:
    p = pontoon("train", "--rules", "mbs", "--count", "hi-lo", "--no-history")
    assert p.returncode == 2 and "--count: only with --only count-running" in p.stderr
    p = pontoon("train", "--rules", "mbs", "--only", "count-true", "--count", "nope", "--no-history")
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.strip().count("\n") == 0, p.stderr
    p = pontoon("train", "--only", "count-sideways", "--no-history")
    assert p.returncode == 2 and "count-index" in p.stderr
