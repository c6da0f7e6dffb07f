"""``pontoon scenario FILE.json [--check]``: one round from a stacked shoe, settlement as JSON."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from pontoon.errors import PontoonError
from pontoon.money import dumps
from pontoon.scenario_runner import compare, parse_scenario, run_scenario


def scenario_command(
    files: list[str] = typer.Argument(..., help="scenario JSON file(s), or - for standard input"),
    check: bool = typer.Option(False, "--check", help="compare with each file's 'expect'; exit 1 on a difference"),
) -> None:
    """Play one round per scenario file through the real engine and print the settlement as JSON."""
    failed = False
    for f in files:
        name = "<stdin>" if f == "-" else f
        try:
            raw = sys.stdin.buffer.read() if f == "-" else Path(f).read_bytes()
        except OSError as err:
            typer.echo(f"error: {name}: cannot read: {err.strerror or err}", err=True)
            raise typer.Exit(2) from None
        try:
            data = parse_scenario(raw, name)
        except PontoonError as err:
            typer.echo(f"error: {err}", err=True)
            raise typer.Exit(2) from None
        try:
            out = run_scenario(data)
        except PontoonError as err:
            typer.echo(f"error: {name}: {err}", err=True)
            raise typer.Exit(2) from None
        typer.echo(dumps(out, indent=2))  # net and house written from the exact decimals
        if check:
            expect = data.get("expect") if isinstance(data, dict) else None
            if expect is None:
                typer.echo(f"error: {name}: --check needs an 'expect' object in the scenario", err=True)
                raise typer.Exit(2)
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
