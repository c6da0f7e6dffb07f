"""The start of a ``pontoon analyze`` process (issue 15 item 3).

A well-formed ``pontoon analyze`` command line is read without typer (``cli/options.py``), from the
one table of options that typer's command is built from. These tests hold the two readers to the
same answers: what the command receives, and what a whole process prints and returns, for good and
bad command lines; and they check what such a process does not import.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st

from pontoon.cli import app as app_module
from pontoon.cli.analyze import OPTIONS, analyze_main
from pontoon.cli.options import Command, parse, typer_function

SRC = Path(__file__).resolve().parents[1] / "src"


# --- the two readers of the command line ----------------------------------------------------


def _typer_reads(args: list[str]) -> dict[str, Any] | str:
    """What typer hands the analyze command for ``args`` (its words after ``analyze``), or the
    name of the usage error it raises instead."""
    got: dict[str, Any] = {}
    t = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    t.callback()(lambda: None)
    t.command("analyze")(typer_function(Command(lambda **values: got.update(values), OPTIONS)))
    try:
        t(args=["analyze", *args], prog_name="pontoon", standalone_mode=False)
    except Exception as err:  # noqa: BLE001 (a usage error: the fast reader must have handed over)
        return type(err).__name__
    return got


FLAGS = [o.flag for o in OPTIONS if o.flag]
WORDS = st.sampled_from(
    [
        *FLAGS,
        *(f + "=" for f in FLAGS),
        "mbs",
        "blackjack",
        "decks=8",
        "-5",
        "-",
        "--",
        "--help",
        "-h",
        "--decks",
        "--no-json",
        "--rul",
        "=",
        "",
        "cdz",
        "x y",
        "\udcff",
        "p\u00f6nt\u00f6\u00f6n",
        "\x1b[31m",
    ]
)
ARGS = st.lists(st.one_of(WORDS, st.text(max_size=6), WORDS.map(lambda w: w + "=" + w)), max_size=8)


@given(ARGS)
def test_the_fast_reader_hands_the_command_what_typer_does(args: list[str]) -> None:
    fast = parse(OPTIONS, args)
    if fast is None:
        return  # typer reads it: its messages by construction
    assert _typer_reads(args) == fast


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--rules", "blackjack", "--json"],
        ["--rules=rws-plus", "--set", "decks=8", "--set=pair_bet=false", "--bet", "25", "--json"],
        ["--compare", "mbs", "federal", "blackjack", "--json"],
        ["--rules", "mbs", "--rules", "federal"],  # the last one wins, as in click
        ["--bet", "-5", "--chart", "c.png", "--split-strategy", "CDZ", "extra", "-"],
    ],
)
def test_common_command_lines_are_read_without_typer(args: list[str]) -> None:
    fast = parse(OPTIONS, args)
    assert fast is not None
    assert _typer_reads(args) == fast


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--rules"],
        ["--json=1"],
        ["--decks", "3"],
        ["--", "--json"],
        ["-j"],
        ["--rules", "mbs", 7],
    ],
)
def test_what_the_fast_reader_does_not_understand_goes_to_typer(args: list[Any]) -> None:
    assert parse(OPTIONS, args) is None


def test_typer_shows_the_options_of_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert app_module.run(["analyze", "--help"]) == 0
    out = capsys.readouterr().out
    for o in OPTIONS:
        if o.hidden:
            continue
        assert o.flag in out
        assert o.help is not None and o.help.split()[0] in out
    assert analyze_main.__doc__ is not None and analyze_main.__doc__.split(":")[0] in out
    assert isinstance(app_module.app, typer.Typer)  # pontoon.cli.app.app: the typer application


# --- whole processes: the fast path (main) against typer's path --------------------------------

FAST = "import sys; from pontoon.cli.app import main; sys.argv[0] = 'pontoon'; main()"
TYPER = "import sys; from pontoon.cli import app; sys.exit(app._run_typer(sys.argv[1:], 'analyze'))"


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PONTOON_DEBUG", None)
    return env


def _process(code: str, args: list[str], cwd: Path) -> tuple[int, str, str]:
    """(exit status, standard output with the report's timing blanked, standard error)"""
    done = subprocess.run(
        [sys.executable, "-c", code, "analyze", *args],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=cwd,
        timeout=300,
    )
    if done.stdout.startswith("{"):
        out, timings = re.subn(r'"seconds": [-+.e0-9]+', '"seconds": 0', done.stdout)
    else:  # the terminal report's row "analysis time | 0.18 s"
        out, timings = re.subn(r"(analysis time\W+)[0-9.]+ s", r"\g<1>0 s", done.stdout)
    assert timings == (1 if done.returncode == 0 else 0), done.stdout[-300:]
    return done.returncode, out, done.stderr


GOOD = [
    ["--rules", "blackjack", "--json"],
    ["--rules", "blackjack"],  # the terminal report (rich)
    ["--rules=mbs", "--set", "decks=8", "--bet", "25", "--split-strategy", "CDZ", "--json"],
]
BAD = [
    ["--rules", "nope", "--json"],
    ["--rules", "mbs", "--set", "decks=9"],
    ["--rules", "mbs", "--set", "foo"],
    ["--set", "decks=\x1b[31m9"],  # an escape character: typer.echo strips it off a terminal
    ["--rules", "p\u00f6nt\u00f6\u00f6n"],  # not ASCII
    ["--bet", "-5"],
    ["--bet", "NaN", "--json"],
    ["--bet", "1e999999999"],
    ["--rules", "shoot", "--set", "burn=hard13"],  # a combination the British analysis does not model
    ["--split-strategy", "cdq"],
    ["--chart", "."],
    ["--rules", "mbs", "stray"],
    ["--rules", "missing.toml"],
    ["--rules"],  # typer's own messages, on both paths
    ["--decks", "3"],
    ["--json=yes"],
]


@pytest.mark.parametrize("args", GOOD + BAD, ids=lambda a: " ".join(a)[:40])
def test_a_process_prints_and_returns_what_typer_s_path_does(args: list[str], tmp_path: Path) -> None:
    fast = _process(FAST, args, tmp_path)
    slow = _process(TYPER, args, tmp_path)
    assert fast == slow
    code, out, err = fast
    if args in GOOD:
        assert code == 0 and err == ""
        if "--json" in args:
            assert json.loads(out)["house_edge"]["optimal"] != 0
        else:
            assert "House edge" in out or "house edge" in out, out[:500]
    else:
        assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err


def test_a_closed_pipe_ends_both_paths_alike(tmp_path: Path) -> None:
    results = []
    for code in (FAST, TYPER):
        r, w = os.pipe()
        os.close(r)  # nobody reads: the report's write meets a closed pipe
        done = subprocess.run(
            [sys.executable, "-c", code, "analyze", "--rules", "blackjack", "--json"],
            stdout=w,
            stderr=subprocess.PIPE,
            env=_env(),
            cwd=tmp_path,
            timeout=300,
        )
        os.close(w)
        results.append((done.returncode, done.stderr))
    assert results[0] == results[1] == (1, b"")  # typer: status 1, the last flush quietened


PROBE = """
import atexit, json, sys
def report():
    sys.stdout.flush()
    print("MODULES " + json.dumps(sorted(sys.modules)), file=sys.stderr)
atexit.register(report)  # an atexit handler: the process ends the usual way and runs it
from pontoon.cli.app import main
sys.argv[0] = "pontoon"
main()
"""


def test_an_analyze_process_imports_no_typer_nor_package_metadata(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "analyze", "--rules", "blackjack", "--json"],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["rules"]["preset"] == "blackjack"
    line = [x for x in done.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, "the atexit handler did not run"
    mods = set(json.loads(line[-1].removeprefix("MODULES ")))
    tops = {m.split(".")[0] for m in mods}
    # typer (and the click it vendors), package metadata and what it imports (email, zipfile,
    # csv), the TOML reader, the terminal report and the British rules stay out
    assert not tops & {"typer", "click", "rich", "email", "zipfile", "csv", "tomllib"}, tops
    assert "importlib.metadata" not in mods
    assert "pontoon.rules.british" not in mods
    assert "pydantic.plugin._loader" in mods  # pontoon's stand-in: pydantic never looked for plugins
    assert "numpy" in tops and "pydantic" in tops


def test_without_pydantic_plugins_answers_as_pydantic_disabled() -> None:
    """The stand-in answers what pydantic's own loader answers with plugins disabled; where pydantic
    has already looked, or PYDANTIC_DISABLE_PLUGINS names plugins to leave out, nothing is changed."""
    code = """
import os, sys
os.environ["PYDANTIC_DISABLE_PLUGINS"] = sys.argv[1]
from pontoon.cli import app
app._without_pydantic_plugins()
from pydantic.plugin import _loader
from pontoon.rules import find_rules
assert find_rules("mbs").decks == 6
print(type(_loader.get_plugins()).__name__, len(list(_loader.get_plugins())), "importlib.metadata" in sys.modules)
"""
    answers = {}
    for value in ("1", "true", "some-plugin"):
        done = subprocess.run(
            [sys.executable, "-c", code, value], capture_output=True, text=True, env=_env(), timeout=120
        )
        assert done.returncode == 0, done.stderr
        answers[value] = done.stdout.split()
    assert answers["1"] == answers["true"] == ["tuple", "0", "False"]
    assert answers["some-plugin"][2] == "True"  # pydantic's own loader, which lists the entry points


def test_any_other_name_of_the_plugin_loader_is_pydantic_s_own() -> None:
    """A name the stand-in does not define (one a later pydantic might import) comes from pydantic's
    own loader, which then takes the stand-in's place."""
    code = """
import sys
from pontoon.cli import app
app._without_pydantic_plugins()
from pydantic.plugin._loader import PYDANTIC_ENTRY_POINT_GROUP
print(PYDANTIC_ENTRY_POINT_GROUP, hasattr(sys.modules["pydantic.plugin._loader"], "entry_points"))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["pydantic", "True"]


def test_run_inside_another_program_changes_nothing_of_its_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``run`` (not ``main``) reads the line without typer but neither freezes the collector's
    objects nor replaces pydantic's plugin loader: those belong to a process of our own."""
    import gc

    frozen = gc.get_freeze_count()
    code = app_module.run(["analyze", "--rules", "blackjack", "--bet", "-5"])
    assert code == 2 and "bet" in capsys.readouterr().err
    assert gc.get_freeze_count() == frozen and gc.isenabled()
    loader = sys.modules.get("pydantic.plugin._loader")
    assert loader is None or hasattr(loader, "PYDANTIC_ENTRY_POINT_GROUP")  # pydantic's own


@pytest.mark.parametrize("text", ["plain", "", "p\u00f6nt\u00f6\u00f6n", "a\x1b[31mred\x1b[0m", "two\nlines"])
@pytest.mark.parametrize("err", [False, True])
def test_echo_writes_what_typer_echo_writes(text: str, err: bool, capsys: pytest.CaptureFixture[str]) -> None:
    from pontoon.cli.echo import echo

    typer.echo(text, err=err)
    theirs = capsys.readouterr()
    echo(text, err=err)
    assert capsys.readouterr() == theirs


TEARDOWN = """
import sys
class Witness:
    def __del__(self):
        sys.stderr.write("TEARDOWN\\n")
witness = Witness()  # freed by the interpreter's teardown, if there is one
from pontoon.cli.app import main
sys.argv[0] = "pontoon"
main()
"""


@pytest.mark.parametrize(("args", "teardown"), [(["--bet", "-5"], False), (["--decks", "3"], True)])
def test_an_analyze_process_leaves_without_teardown(args: list[str], teardown: bool, tmp_path: Path) -> None:
    """Read without typer, the process leaves at once after its (flushed) output; read by typer (an
    option it does not know), it ends the usual way."""
    done = subprocess.run(
        [sys.executable, "-c", TEARDOWN, "analyze", "--rules", "blackjack", *args],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ")
    assert ("TEARDOWN" in done.stderr) is teardown


def _answer(call: Any) -> tuple[int, str, str]:
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = call()
    return code, out.getvalue(), err.getvalue()


@given(ARGS)
def test_any_command_line_is_answered_as_typer_answers_it(args: list[str]) -> None:
    """Hostile command lines through ``run`` (the fast path where it applies) and through typer's
    path: the same status, output and error line. A bad ``--split-strategy`` last keeps every line
    from reaching the analysis itself (each ends at an error before it)."""
    line = ["analyze", *args, "--split-strategy", "cdq"]
    fast = _answer(lambda: app_module.run(line))
    slow = _answer(lambda: app_module._run_typer(line, "analyze"))
    assert fast == slow
    code, out, err = fast
    if code == 0:  # --help
        assert "Usage: pontoon analyze" in out and err == ""
    else:
        assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, fast
