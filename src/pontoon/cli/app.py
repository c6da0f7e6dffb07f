"""The ``pontoon`` command: play, scenario, analyze, simulate, rules.

Every subcommand lives in its own module and is registered here. Bad input of any kind ends
with a one-line ``error: ...`` on standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import importlib
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


# name -> (module, function); registered in this order (the order of ``pontoon --help``). Only the
# command that is run is imported (``run``), so ``pontoon analyze`` does not import the web server,
# the RL environments or the round engine's terminal view (issue 15: a whole process's time).
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("pontoon.cli.play", "play_command"),
    "scenario": ("pontoon.cli.scenario", "scenario_command"),
    "analyze": ("pontoon.cli.analyze", "analyze_command"),
    "simulate": ("pontoon.cli.simulate", "simulate_command"),
    "rules": ("pontoon.cli.rules_cmd", "rules_command"),
    "verify": ("pontoon.cli.verify", "verify_command"),  # provably fair shoes (docs/fairness.md)
    "serve": ("pontoon.cli.serve", "serve_command"),  # the table server (issue 13)
    "history": ("pontoon.cli.history", "history_command"),  # issue 12
    "replay": ("pontoon.cli.history", "replay_command"),
    "rl": ("pontoon.cli.rl", "rl_app"),  # rl evaluate (issue 14)
    "train": ("pontoon.cli.train", "train_command"),
}
_registered: set[str] = set()


@app.callback()
def _group() -> None:
    """Pontoon played exactly by its rule documents: play, scenarios, exact analysis, simulation."""


def _register(only: str | None = None) -> None:
    """Register every command (or only ``only``, when it names one)."""
    for name, (module, attr) in COMMANDS.items():
        if name in _registered or (only is not None and name != only):
            continue
        obj = getattr(importlib.import_module(module), attr)
        if isinstance(obj, typer.Typer):
            app.add_typer(obj, name=name)
        else:
            app.command(name)(obj)
        _registered.add(name)


def _command_of(args: list[str]) -> str | None:
    """The subcommand named by ``args`` (its first word that is not an option), if it is one of ours."""
    for a in args:
        if not a.startswith("-"):
            return a if a in COMMANDS else None
    return None


def fail(message: str) -> None:
    """Print a one-line error and exit 2 (bad input)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def run(args: list[str] | None = None) -> int:
    """Run the command line in this process and return its exit status (never raises).

    Usage errors of the parser (an unknown option, a value of the wrong type) and bad input of
    any kind print ONE line ``error: ...`` on standard error and return 2; Ctrl-C returns 130.
    """
    cx = sys.modules[typer.BadParameter.__module__]  # typer's own click exceptions (it vendors click)
    argv = sys.argv[1:] if args is None else list(args)
    command = _command_of(argv)
    if command == "analyze" and "numpy" not in sys.modules:
        # the analysis makes no BLAS call (its kernels are compiled loops, its numpy calls small and
        # integer): numpy's OpenBLAS need not start a thread per core, which costs a whole analyze
        # process about 0.045 s of CPU (issue 15). A value the user set is kept.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    _register(command)

    try:
        rv = app(args=args, prog_name="pontoon", standalone_mode=False)
    except cx.NoArgsIsHelpError:  # bare ``pontoon``: the help is already printed
        return 0
    except cx.UsageError as err:  # BadParameter, NoSuchOption, MissingParameter ...
        where = f" (see {err.ctx.command_path} --help)" if err.ctx and err.ctx.parent else ""
        where = where.replace("pontoon pontoon ", "pontoon ")
        typer.echo(f"error: {_one_line(err.format_message())}{where}", err=True)
        return 2
    except cx.ClickException as err:
        typer.echo(f"error: {_one_line(err.format_message())}", err=True)
        return 2 if err.exit_code in (1, 2) else err.exit_code
    except typer.Abort:  # Ctrl-C reaches click as Abort
        return 130
    except PontoonError as err:
        typer.echo(f"error: {_one_line(str(err))}", err=True)
        return 2
    except KeyboardInterrupt:
        return 130
    except RecursionError:
        typer.echo("error: the input is nested too deeply", err=True)
        return 2
    except MemoryError:
        typer.echo("error: the input needs more memory than this machine has", err=True)
        return 2
    except Exception as err:  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("PONTOON_DEBUG"):
            raise
        typer.echo(
            f"internal error: {type(err).__name__}: {_one_line(str(err))[:300]} (set PONTOON_DEBUG=1 for the traceback)",
            err=True,
        )
        return 1
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


def main() -> None:
    sys.exit(run())


if __name__ == "__main__":  # pragma: no cover
    main()
