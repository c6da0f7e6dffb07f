"""bench/bench_server.py still runs (one table, two rounds): figures printed, no errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench_server(*args: str) -> list[str]:
    """bench/bench_server.py run with ``args``: its output's lines (it must exit 0)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + str(ROOT))
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_server.py"), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()


def test_bench_server_runs() -> None:
    lines = bench_server("--tables", "1", "--rounds", "2")
    row = lines[-1].split()
    assert (
        row[0] == "1" and row[1] == "2" and float(row[2]) > 0 and row[8] == "0"
    )  # tables, clients, rounds/s, errors
    # the server's own timing (bench/server_probe.py): its handling of the 2 players' messages
    side = next(x for x in lines if x.startswith("server side: handling ms"))
    assert int(side.split("(")[1].split()[0]) >= 2 * 2 * 2, side  # at least a bet and an act a round each


def test_bench_human_runs() -> None:
    """bench/bench_human.py: two tables of people for a few seconds on a SQLite store, the people in two
    client processes: actions answered, no refusal, the RSS curve and the CPU printed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + str(ROOT))
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_human.py"),
            "--tables",
            "2",
            "--every",
            "0.5",
            "--seconds",
            "4",
            "--client-procs",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    stats = lines[1].split()
    assert stats[0] == "actions" and int(stats[1]) > 0 and stats[4] == "0", lines  # actions, errors 0
    assert lines[2].startswith("RSS MB over time:")
    assert lines[3].startswith("server CPU") and "clients (2 process(es))" in lines[3], lines
    # the latency by message kind (after the line on the clients' own lateness where there is one)
    assert any(x.startswith("latency by message ms p50/p99 (count): ") for x in lines[4:6]), lines
    # bench/server_probe.py
    assert any(x.startswith("server side: handling ms p50") for x in lines[5:7]), lines
    assert any(x.strip().startswith("of it waiting for the commit") for x in lines), lines  # SQLite


def test_bench_fanout_runs() -> None:
    """bench/bench_fanout.py: main's frames and the new ones for the same rounds: fewer bytes sent."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + str(ROOT))
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_fanout.py"), "--rounds", "3", "--spectators", "2"],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    row = out.stdout.strip().splitlines()[-1].split()
    assert row[0] == "2" and int(row[1]) > 5
    assert float(row[5]) < float(row[4])  # KB per change: the deltas send less than main's full states


def test_bench_human_refuses_bad_counts() -> None:
    """bench/bench_human.py: a count or a time out of range is one line and exit 2, before any server
    starts."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + str(ROOT))
    for args, flag in (
        (["--client-procs", "0"], "--client-procs"),
        (["--tables", "-1"], "--tables"),
        (["--every", "nan"], "--every"),
        (["--seconds", "0"], "--seconds"),
        (["--checkpointer-ab", "-3"], "--checkpointer-ab"),
    ):
        out = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "bench_human.py"), *args],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
        assert out.returncode == 2, (args, out.stdout[-500:], out.stderr[-500:])
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(flag + ":"), out.stderr
        assert "Traceback" not in out.stderr and out.stdout == ""
