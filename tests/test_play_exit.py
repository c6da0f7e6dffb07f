"""Leaving `pontoon play`: end of input exits 0 with the summary; Ctrl-C exits 130 without a traceback,
names the unfinished round and says what happened to its wagers (casino: played out by 004 5.3;
British: void, every stake returned). Options that do not apply to the chosen game are refused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PONTOON = [sys.executable, "-m", "pontoon.cli.app"]


def _env() -> dict[str, str]:
    """The environment at call time: the session fixture's temporary history store included."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "120"}


def _run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PONTOON, *args], input=stdin, capture_output=True, text=True, timeout=120, env=_env()
    )


def test_end_of_input_mid_round_exits_0_with_the_summary() -> None:
    out = _run(["play", "--rules", "mbs", "--seed", "3"], "\n")  # deal, then the pipe ends
    assert out.returncode == 0, out.stderr
    assert "played 1 rounds" in out.stdout
    assert "Aborted" not in out.stdout + out.stderr


def _interrupt_mid_round(args: list[str], prompt: str) -> subprocess.CompletedProcess[str]:
    # Ctrl-C as a terminal sends it: SIGINT at its default in the child (a process started with
    # SIGINT ignored keeps it ignored, and Python then raises no KeyboardInterrupt; a pytest worker
    # may run with it ignored, which made these tests fail at random in CI)
    p = subprocess.Popen(
        [*PONTOON, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(b"\n")
    p.stdin.flush()
    seen = b""
    deadline = time.monotonic() + 60
    fd = p.stdout.fileno()
    os.set_blocking(fd, False)
    # the deal prompt, then the round's first decision prompt
    while seen.count(prompt.encode()) < 2 and time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            chunk = b""
        seen += chunk
        time.sleep(0.05)
    assert seen.count(prompt.encode()) >= 2, seen[-500:]
    p.send_signal(signal.SIGINT)
    os.set_blocking(fd, True)
    rest, err = p.communicate(timeout=60)
    return subprocess.CompletedProcess(p.args, p.returncode, (seen + rest).decode(), err.decode())


def test_ctrl_c_mid_round_exits_130_and_plays_the_round_out() -> None:
    # seed 3: the first hand waits for a decision (h/s menu)
    out = _interrupt_mid_round(["play", "--rules", "mbs", "--seed", "3"], "quit >")
    assert out.returncode == 130, out.stderr
    assert "Traceback" not in out.stderr
    assert "round 1 unfinished: played out for you by the rules (004 5.3)" in out.stdout
    assert "played 1 rounds" in out.stdout


def test_ctrl_c_in_the_british_game_voids_the_round() -> None:
    out = _interrupt_mid_round(["play", "--rules", "british", "--seed", "2", "--seat", "ann"], "quit >")
    assert out.returncode == 130, out.stderr
    assert "Traceback" not in out.stderr
    assert "unfinished: void, every stake returned" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "british", "--boxes", "2"],
        ["--rules", "shoot", "--side", "pair=5"],
        ["--rules", "british", "--bots", "expert"],
        ["--rules", "mbs", "--bots", "solved"],
        ["--rules", "mbs", "--seat", "ann"],
        ["--rules", "mbs", "--rounds", "-1"],
        ["--rules", "mbs", "--shoes", "0"],
        ["--rules", "mbs", "--seed", "-1"],
        ["--rules", "mbs", "--boxes", "0"],
        ["--rules", "mbs", "--player", "a\tb"],
    ],
)
def test_play_refuses_options_that_do_not_apply(args: list[str]) -> None:
    out = _run(["play", *args], "")
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr


def test_any_printable_player_name_plays(tmp_path: Path) -> None:
    out = _run(["play", "--rules", "mbs", "--seed", "1", "--player", "house", "--rounds", "1"], "\ns\ns\n")
    assert out.returncode == 0, out.stderr
    assert "player: house" in out.stdout
