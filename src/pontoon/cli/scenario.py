"""placeholder"""

from __future__ import annotations

import typer


def scenario_command(rules: str = typer.Option("mbs", "--rules")) -> None:
    """Not available yet."""
    raise typer.Exit(2)
