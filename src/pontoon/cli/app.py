"""The ``pontoon`` command: play, scenario, analyze, simulate, rules.

Every subcommand lives in its own module and is registered here. Bad input of any kind ends
with a one-line ``error: ...`` on standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import os
import sys

import typer

from pontoon.errors import PontoonError

app = typer.Typer(
    name="pontoon",
    help="Pontoon played exactly by its rule documents: play, scenarios, exact analysis, simulation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    from pontoon.cli import analyze, play, rules_cmd, scenario, simulate

    app.command("play")(play.play_command)
    app.command("scenario")(scenario.scenario_command)
    app.command("analyze")(analyze.analyze_command)
    app.command("simulate")(simulate.simulate_command)
    app.command("rules")(rules_cmd.rules_command)
    __import__("pontoon.cli.rl", fromlist=["register"]).register(app)  # rl evaluate, train (issue 14)


_register()


def fail(message: str) -> None:
    """Print a one-line error and exit 2 (bad input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def main() -> None:
    try:
        app()
    except PontoonError as err:
        typer.echo(f"error: {err}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as err:  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("PONTOON_DEBUG"):
            raise
        typer.echo(f"internal error: {type(err).__name__}: {err} (set PONTOON_DEBUG=1 for the traceback)", err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
