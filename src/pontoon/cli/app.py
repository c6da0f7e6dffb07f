"""The ``pontoon`` command: play, scenario, analyze, simulate, rules.

Every subcommand lives in its own module and is registered here. Bad input of any kind ends
with a one-line ``error: ...`` on standard error and exit code 2, never a traceback.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from typing import TYPE_CHECKING, Any

from pontoon.cli.echo import echo
from pontoon.errors import PontoonError

if TYPE_CHECKING:
    import typer

HELP = "Pontoon played exactly by its rule documents: play, scenarios, exact analysis, simulation."
_app: typer.Typer | None = None


def _typer_app() -> typer.Typer:
    """The typer application (typer is imported here: ``pontoon analyze`` reads a well-formed
    command line without it, issue 15 item 3)."""
    global _app
    if _app is None:
        import typer

        _app = typer.Typer(
            name="pontoon",
            help=HELP,
            no_args_is_help=True,
            add_completion=False,
            pretty_exceptions_enable=False,
        )
        _app.callback()(_group)
    return _app


def __getattr__(name: str) -> Any:
    if name == "app":  # ``pontoon.cli.app.app``: the typer application, made on first use
        return _typer_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# name -> (module, function); registered in this order (the order of ``pontoon --help``). Only the
# command that is run is imported (``run``), so ``pontoon analyze`` does not import the web server,
# the RL environments or the round engine's terminal view (issue 15: a whole process's time).
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("pontoon.cli.play", "play_command"),
    "scenario": ("pontoon.cli.scenario", "scenario_command"),
    "analyze": ("pontoon.cli.analyze", "analyze_command"),
    "report": ("pontoon.cli.report", "report_command"),  # the math report (issue 23)
    "simulate": ("pontoon.cli.simulate", "simulate_command"),
    "rules": ("pontoon.cli.rules_cmd", "rules_command"),
    "verify": ("pontoon.cli.verify", "verify_command"),  # provably fair shoes (docs/fairness.md)
    "serve": ("pontoon.cli.serve", "serve_command"),  # the table server (issue 13)
    "history": ("pontoon.cli.history", "history_command"),  # issue 12
    "replay": ("pontoon.cli.history", "replay_command"),
    "rl": ("pontoon.cli.rl", "rl_app"),  # rl evaluate (issue 14)
    "train": ("pontoon.cli.train", "train_command"),
    "count": ("pontoon.cli.count", "count_command"),  # card counting (issue 24)
}
_registered: set[str] = set()


def _group() -> None:
    """Pontoon played exactly by its rule documents: play, scenarios, exact analysis, simulation."""


def _register(only: str | None = None) -> None:
    """Register every command (or only ``only``, when it names one)."""
    import typer

    from pontoon.cli.options import Command, typer_function

    app = _typer_app()
    for name, (module, attr) in COMMANDS.items():
        if name in _registered or (only is not None and name != only):
            continue
        obj = getattr(importlib.import_module(module), attr)
        if isinstance(obj, typer.Typer):
            app.add_typer(obj, name=name)
        elif isinstance(obj, Command):  # declared by a table of options (cli/options.py)
            app.command(name)(typer_function(obj))
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
    import typer

    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


# a write refused for want of room (``pontoon ... > /dev/full``, a full disk or quota): said as
# what it is, not as an internal error
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_DATABASE_MODULES = frozenset({"sqlalchemy", "sqlite3", "psycopg"})  # the history store's drivers


def _failure(err: BaseException) -> int | None:
    """The exit status for an exception a command raised, after printing its one line; ``None``
    for one that is not ours to answer (it is raised again)."""
    if isinstance(err, PontoonError):
        echo(f"error: {_one_line(str(err))}", err=True)
        return 2
    if isinstance(err, KeyboardInterrupt):
        return 130
    if isinstance(err, RecursionError):
        echo("error: the input is nested too deeply", err=True)
        return 2
    if isinstance(err, MemoryError):
        echo("error: the input needs more memory than this machine has", err=True)
        return 2
    if isinstance(err, OSError) and err.errno in _FULL:  # the machine's failure, not a bug: exit 1
        echo(f"error: a write failed: {err.strerror or err} (free space and run it again)", err=True)
        return 1
    if type(err).__module__.split(".", 1)[0] in _DATABASE_MODULES:
        from pontoon.cli.dbopts import store_failure

        said = store_failure(err)  # a full disk, a read-only database: named, not an internal error
        if said is not None:
            echo(f"error: {said[1]}", err=True)
            return said[0]
    if isinstance(err, Exception):  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("PONTOON_DEBUG"):
            return None
        echo(
            f"internal error: {type(err).__name__}: {_one_line(str(err))[:300]} (set PONTOON_DEBUG=1 for the traceback)",
            err=True,
        )
        return 1
    return None


def _analyze_at_once(argv: list[str]) -> int | None:
    """``pontoon analyze ...`` read without typer when the command line is well formed (issue 15
    item 3: typer's import and parse were about 0.07 s of a 0.5 s process); ``None``: typer reads it.

    The options come from the one table that typer's command is built from (``cli/analyze.py``);
    what the command raises is answered as on typer's path (``_failure``; Ctrl-C and end of input
    as typer answers them).
    """
    if argv[:1] != ["analyze"]:
        return None
    from pontoon.cli.analyze import OPTIONS, analyze_main
    from pontoon.cli.options import parse

    values = parse(OPTIONS, argv[1:])
    if values is None:
        return None
    global _ran_at_once
    _ran_at_once = True
    try:
        if _whole_process:  # started as ``pontoon`` (main), not run() inside another program
            _start_quickly()
        analyze_main(**values)
    except EOFError:  # typer: a blank line on standard error, then Abort (130 here)
        echo("", err=True)
        return 130
    except OSError as err:
        if err.errno != errno.EPIPE:
            code = _failure(err)
            if code is None:
                raise
            return code
        # typer: a closed pipe ends the process with status 1, its last flush quietened
        from typer._click.utils import PacifyFlushWrapper

        sys.stdout = PacifyFlushWrapper(sys.stdout)  # type: ignore[assignment]
        sys.stderr = PacifyFlushWrapper(sys.stderr)  # type: ignore[assignment]
        sys.exit(1)
    except BaseException as err:
        code = _failure(err)
        if code is None:
            raise
        return code
    return 0


_ran_at_once = False  # this process ran ``pontoon analyze`` without typer (``main`` may leave at once)
_whole_process = False  # set by ``main``: the process is ours from start to end

_PYDANTIC_LOADER = "pydantic.plugin._loader"


def _start_quickly() -> None:
    """Import what an analysis needs with the garbage collector off, then freeze what the imports
    made (issue 15 item 3): the collector is back on for the analysis but no longer walks the
    70,000 objects of the modules each time it collects (0.007 s of a 0.48 s process)."""
    import gc

    _without_pydantic_plugins()
    gc.disable()
    try:
        import pontoon.analysis.report  # noqa: F401  (what analyze_main imports)
        import pontoon.rules.load  # noqa: F401
    finally:
        gc.freeze()
        gc.enable()


def _without_pydantic_plugins() -> None:
    """Build the rules models without looking for pydantic plugins, as ``PYDANTIC_DISABLE_PLUGINS=1``
    does, and without importing ``importlib.metadata`` (issue 15 item 3: 0.018 s with the email,
    zipfile and csv modules it imports, and 0.005 s to list the installed packages' entry points).

    pydantic's variable only skips the lookup: ``pydantic.plugin._loader`` imports
    ``importlib.metadata`` at its top, and pydantic imports it when it builds the first model. So
    before that, this process's ``pydantic.plugin._loader`` is a module whose ``get_plugins`` answers
    what pydantic's own answers with plugins disabled: none. Only for an analyze process, only where
    pydantic has not looked yet, and not where ``PYDANTIC_DISABLE_PLUGINS`` names plugins to leave
    out (someone who uses plugins): then pydantic looks as usual.
    """
    if _PYDANTIC_LOADER in sys.modules:
        return
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS", "1") not in ("__all__", "1", "true"):
        return
    import types

    loader = types.ModuleType(_PYDANTIC_LOADER, "pydantic plugins, disabled for a pontoon analyze process")

    def real(name: str) -> Any:  # any other name (a later pydantic's): from pydantic's own module
        if name.startswith("__"):  # the import system's questions (__path__ ...): a plain module
            raise AttributeError(name)
        if sys.modules.get(_PYDANTIC_LOADER) is loader:
            del sys.modules[_PYDANTIC_LOADER]
        return getattr(importlib.import_module(_PYDANTIC_LOADER), name)

    loader.get_plugins = lambda: ()  # type: ignore[attr-defined]
    loader.__getattr__ = real  # type: ignore[method-assign]
    sys.modules[_PYDANTIC_LOADER] = loader


def run(args: list[str] | None = None) -> int:
    """Run the command line in this process and return its exit status (never raises).

    Usage errors of the parser (an unknown option, a value of the wrong type) and bad input of
    any kind print ONE line ``error: ...`` on standard error and return 2; Ctrl-C returns 130.
    """
    argv = sys.argv[1:] if args is None else list(args)
    command = _command_of(argv)
    if command == "analyze":
        if "numpy" not in sys.modules:
            # the analysis makes no BLAS call (its kernels are compiled loops, its numpy calls small
            # and integer): numpy's OpenBLAS need not start a thread per core, which costs a whole
            # analyze process about 0.045 s of CPU (issue 15). A value the user set is kept.
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        code = _analyze_at_once(argv)
        if code is not None:
            return code
    return _run_typer(args, command)


def _run_typer(args: list[str] | None, command: str | None) -> int:
    import typer

    cx = sys.modules[typer.BadParameter.__module__]  # typer's own click exceptions (it vendors click)
    _register(command)
    try:
        rv = _typer_app()(args=args, prog_name="pontoon", standalone_mode=False)
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
    except BaseException as err:
        code = _failure(err)
        if code is None:
            raise
        return code
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


def main() -> None:
    global _whole_process
    _whole_process = True
    code = run()
    if _ran_at_once:
        _leave(code)
    sys.exit(code)


def _leave(code: int) -> None:
    """End an analyze process now, without the interpreter's teardown (about 0.03 s of freeing
    modules and arrays, issue 15 item 3), where nothing is lost by it: the output flushed, no
    ``atexit`` handler registered, no other thread running. Otherwise the caller exits as usual."""
    import atexit

    handlers = getattr(atexit, "_ncallbacks", None)  # CPython's count of atexit handlers
    threading = sys.modules.get("threading")
    if handlers is None or handlers() or (threading is not None and threading.active_count() > 1):
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:  # noqa: BLE001 (a closed pipe: the usual exit reports it)
        return
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
