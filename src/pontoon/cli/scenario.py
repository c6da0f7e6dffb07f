"""``pontoon scenario FILE.json [--check]``: one round from a stacked shoe, settlement as JSON."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from pontoon.errors import PontoonError, ScenarioError
from pontoon.money import dumps
from pontoon.scenario_runner import compare, parse_scenario, run_scenario

SCENARIO_MAX_BYTES = 10_000_000  # read no more (a device or an endless pipe ends here)


def scenario_command(
    files: list[str] = typer.Argument(..., help="scenario JSON file(s), or - for standard input"),
    check: bool = typer.Option(
        False, "--check", help="compare with each file's 'expect'; exit 1 on a difference"
    ),
) -> None:
    """Play one round per scenario file through the real engine and print the settlement as JSON."""
    failed = False
    for f in files:
        name = "<stdin>" if f == "-" else f
        try:
            if f == "-":
                if sys.stdin is None:  # started with standard input closed (``0<&-``)
                    raise ScenarioError(
                        "<stdin>: standard input is closed: give the scenario on it, or a file"
                    )
                raw = sys.stdin.buffer.read(SCENARIO_MAX_BYTES + 1)
            else:
                with Path(f).open("rb") as fh:
                    raw = fh.read(SCENARIO_MAX_BYTES + 1)
        except OSError as err:
            raise ScenarioError(f"{name}: cannot read: {err.strerror or err}") from None
        if len(raw) > SCENARIO_MAX_BYTES:
            raise ScenarioError(
                f"{name}: over {SCENARIO_MAX_BYTES // 1_000_000} MB: a scenario file is a few kB of JSON"
            )
        try:
            data = parse_scenario(raw, name)
        except PontoonError as err:  # cli.app.run prints it as one line (names may hold line breaks)
            raise ScenarioError(str(err)) from None
        try:
            out = run_scenario(data)
        except PontoonError as err:
            raise ScenarioError(f"{name}: {err}") from None
        typer.echo(dumps(out, indent=2))  # net and house written from the exact decimals
        if check:
            expect = data.get("expect") if isinstance(data, dict) else None
            if expect is None:
                raise ScenarioError(f"{name}: --check needs an 'expect' object in the scenario")
            diffs = compare(expect, out)
            if diffs:
                failed = True
                typer.echo(f"FAIL {name}:", err=True)
                for d in diffs:
                    typer.echo(f"  {d}", err=True)
            else:
                typer.echo(f"ok {name}", err=True)
    if failed:
        raise typer.Exit(1)
