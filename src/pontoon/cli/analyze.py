"""``pontoon analyze``: placeholder until its issue lands (owned by that work)."""

from __future__ import annotations

import typer


def analyze_command(rules: str = typer.Option("mbs", "--rules")) -> None:
    """Not available yet."""
    typer.echo("error: pontoon analyze is not built yet", err=True)
    raise typer.Exit(2)
