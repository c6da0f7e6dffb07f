"""``pontoon rules [PRESET]``: list presets, or print every field of one preset (or a TOML table)."""

from __future__ import annotations

import json

import typer

from pontoon.rules import parse_set_options, preset_ids, resolve_rules


def rules_command(
    preset: str = typer.Argument(None, help="preset id or alias, or a .toml table file"),
    set_: list[str] = typer.Option([], "--set", help="override a rule field: NAME=VALUE"),
    as_json: bool = typer.Option(False, "--json", help="print the rules as JSON"),
) -> None:
    """List the presets, or show every rule field of one."""
    if preset is None:
        for pid in preset_ids():
            r = resolve_rules(pid)
            typer.echo(f"{pid:17} {r.name}")
        return
    rules = resolve_rules(preset, parse_set_options(set_))
    data = rules.model_dump(mode="json")
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    for k, v in data.items():
        typer.echo(f"{k:30} {v}")
