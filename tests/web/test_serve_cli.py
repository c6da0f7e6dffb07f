"""``pontoon serve`` refuses a bad host or port (or analysis lane setting) with one line and exit
status 2; the lanes' flags reach the server (``/healthz`` lists them)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from pontoon.cli.app import run

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--port", "0"], "--port 0: a port is a whole number from 1 to 65535"),
        (["--port", "70000"], "--port 70000"),
        (["--host", "not a host!"], "--host 'not a host!'"),
        (["--db", "sqlite:///x.db", "--memory"], "--db and --memory exclude each other"),
        (["--bot-workers", "0"], "--bot-workers 0: a whole number from 1 to 256 (threads deciding"),
        (["--hint-workers", "257"], "--hint-workers 257: a whole number from 1 to 256"),
        (["--hint-queue", "-1"], "--hint-queue -1: a whole number from 0 to 100000"),
        (["--edge-workers", "65"], "--edge-workers 65: a whole number from 1 to 64"),
        (["--edge-queue", "10001"], "--edge-queue 10001: a whole number from 0 to 10000"),
        (["--hint-queue", "many"], "Invalid value for '--hint-queue'"),
    ],
)
def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    assert run(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and err.startswith("error: ")


def test_port_in_use_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert run(["serve", "--port", str(port)]) == 2
    assert "cannot listen on 127.0.0.1:" in capsys.readouterr().err


def test_bad_db_url_exit_2(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert run(["serve", "--port", str(port), "--db", "nosuch://nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "database URL" in err
    for bad in (
        f"sqlite:///{tmp_path}",
        "postgresql://nobody@/nodb?host=/nonexistent",
    ):  # a directory; no server
        assert run(["serve", "--port", str(port), "--db", bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: cannot open the history database") and err.count("\n") == 1


def test_lane_flags_reach_the_server() -> None:
    """The analysis lanes' flags (web/workers.py) as the running server has them: its /healthz."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lanes = ["--bot-workers", "3", "--hint-workers", "2", "--hint-queue", "0", "--edge-workers", "2"]
    p = subprocess.Popen(
        [sys.executable, "-m", "pontoon.cli.app", "serve", "--memory", "--port", str(port), *lanes],
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        end = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.HTTPError:
                assert p.poll() is None and time.monotonic() < end, "pontoon serve did not start"
                time.sleep(0.1)
        assert health.json()["lanes"] == {
            "bots": {"workers": 3, "queue": None, "admitted": 0},
            "hints": {"workers": 2, "queue": 0, "admitted": 0},
            "edges": {"workers": 2, "queue": 4, "admitted": 0},  # (--edge-queue left at its default)
        }
    finally:
        p.terminate()
        p.wait(10)
        if p.stderr:
            p.stderr.close()
