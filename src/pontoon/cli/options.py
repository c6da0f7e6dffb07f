"""A command's options declared once, as data (issue 15 item 3: a whole process's time).

One table (``Opt`` rows) feeds both readers of the command line:

- typer, through ``typer_function``: the typer signature is built from the table, so ``--help``,
  every usage message and every exit code come from typer exactly as for a hand-written command;
- ``parse``, a reader of well-formed command lines that imports no typer (typer's import and its
  parse cost a ``pontoon analyze --json`` process about 0.07 s). It reads what click reads for
  these options and answers ``None`` for anything it does not fully understand (``--help``, ``--``,
  an unknown or short option, a value given to a flag, a missing value), which the caller hands
  to typer, so every message stays typer's own. ``tests/test_startup.py`` runs both readers on the
  same command lines and compares what the command receives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

# value: one value, the last one given wins (click); multiple: repeatable, a list of the values;
# flag: no value, True when given; arguments: the command's positional words (a list), at most one
Kind = Literal["value", "multiple", "flag", "arguments"]


class Opt(NamedTuple):  # a named tuple, not a dataclass: 0.2 ms to make rather than 2 (issue 15)
    """One parameter of a command: its Python name, its option name, kind, default and help."""

    name: str
    flag: str  # "--rules"; "" for the positional arguments
    kind: Kind
    default: Any = None
    help: str | None = None
    hidden: bool = False


class Command:
    """A command function and the table of its options (``app._register`` gives it to typer)."""

    __slots__ = ("fn", "options")

    def __init__(self, fn: Callable[..., Any], options: tuple[Opt, ...]) -> None:
        self.fn = fn
        self.options = options

    def __call__(self, **values: Any) -> Any:
        return self.fn(**values)


def _default(opt: Opt) -> Any:
    # what typer hands the command for an option not given: the default itself (a fresh list)
    return list(opt.default) if isinstance(opt.default, list) else opt.default


def parse(options: Sequence[Opt], args: Sequence[object]) -> dict[str, Any] | None:
    """The values typer would hand the command for ``args`` (the words after the command's name),
    or ``None`` where typer must read them (anything this reader does not fully understand)."""
    by_flag = {o.flag: o for o in options if o.flag}
    words = next((o for o in options if o.kind == "arguments"), None)
    got: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not isinstance(arg, str):
            return None
        if arg[:1] != "-" or arg == "-":  # click: a positional word ("-" included)
            if words is None:
                return None
            got.setdefault(words.name, []).append(arg)
            continue
        flag, eq, value = arg.partition("=")  # click: "--rules=mbs" (split at the first "=")
        opt = by_flag.get(flag)
        if opt is None:  # --help, --, -x, --no-such-option: typer answers
            return None
        if opt.kind == "flag":
            if eq:  # "--json=1": typer's message
                return None
            got[opt.name] = True
            continue
        if not eq:
            if i >= len(args):  # "--rules" at the end: typer's message
                return None
            word = args[i]  # click takes the next word as the value, whatever it looks like
            i += 1
            if not isinstance(word, str):
                return None
            value = word
        if opt.kind == "multiple":
            got.setdefault(opt.name, []).append(value)
        else:
            got[opt.name] = value
    return {o.name: got[o.name] if o.name in got else _default(o) for o in options}


_TYPES: dict[str, Any] = {"value": str, "multiple": list[str], "flag": bool, "arguments": list[str]}


def typer_function(command: Command) -> Callable[..., Any]:
    """``command`` as a function whose signature typer reads: one parameter per row of its table,
    each with its ``typer.Option`` / ``typer.Argument``; the help is the function's docstring."""
    import inspect

    import typer

    params = []
    for o in command.options:
        if o.kind == "arguments":
            info = typer.Argument(o.default, help=o.help, hidden=o.hidden)
        else:
            info = typer.Option(o.default, o.flag, help=o.help, hidden=o.hidden)
        params.append(
            inspect.Parameter(
                o.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=info, annotation=_TYPES[o.kind]
            )
        )

    def typer_command(**values: Any) -> Any:
        return command.fn(**values)

    typer_command.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    typer_command.__annotations__ = {o.name: _TYPES[o.kind] for o in command.options} | {"return": None}
    typer_command.__doc__ = command.fn.__doc__
    typer_command.__name__ = command.fn.__name__
    typer_command.__qualname__ = command.fn.__qualname__
    typer_command.__module__ = command.fn.__module__
    return typer_command
