"""``pontoon simulate``: placeholder until its issue lands (owned by that work)."""

from __future__ import annotations

import typer


def simulate_command(rules: str = typer.Option("mbs", "--rules")) -> None:
    """Not available yet."""
    typer.echo("error: pontoon simulate is not built yet", err=True)
    raise typer.Exit(2)
