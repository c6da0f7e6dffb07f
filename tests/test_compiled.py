"""The engine compiled with mypyc (setup.py): which build is imported, and that the compiled build
answers hostile input as the pure one does.

mypyc checks annotations at run time: a value of the wrong type handed to a compiled function raises
``TypeError``. Every way in from outside (scenario files, action objects, the command line) must still
answer with the project's one-line error (exit 2), never a traceback. These tests run against whichever
build is imported (both, in CI: compiled by ``make install``; pure with ``PONTOON_PURE=1``).
"""

from __future__ import annotations

import ast
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pontoon
from pontoon.cli.app import run
from pontoon.compiled import ENGINE_MODULES, GROUP_LIBRARY, compiled_modules, engine_build, stale_modules
from pontoon.errors import PontoonError
from pontoon.protocol import Action

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(pontoon.__file__).resolve().parents[1]
PURE = os.environ.get("PONTOON_PURE", "") not in ("", "0")


def _setup_compiled() -> list[str]:
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets
        ):
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError("setup.py has no COMPILED list")


def test_setup_compiles_exactly_the_engine_modules() -> None:
    names = [p.removeprefix("src/").removesuffix(".py").replace("/", ".") for p in _setup_compiled()]
    assert names == list(ENGINE_MODULES)
    for p in _setup_compiled():
        assert (ROOT / p).is_file(), p
    # numba code (the analysis, the simulator) is never compiled by mypyc
    assert not [n for n in names if n.startswith(("pontoon.sim", "pontoon.analysis"))]


def test_compiled_build_is_the_one_imported() -> None:
    if PURE:
        pytest.skip("PONTOON_PURE is set: the pure-Python engine is under test")
    if not list(SRC.glob(f"{GROUP_LIBRARY}.*.so")):
        pytest.skip(f"the engine is not compiled in {SRC} (make compile, or make install, builds it)")
    got = compiled_modules()
    assert [n for n, c in got.items() if not c] == [], "some engine modules are imported from their .py"
    import pontoon.casino.round

    assert str(pontoon.casino.round.__file__).endswith(".so")
    assert stale_modules() == [], "the compiled build is older than its sources: make compile"
    assert engine_build().startswith("compiled with mypyc (26 of 26")


def test_pure_build_imports_the_sources() -> None:
    if not PURE:
        pytest.skip("PONTOON_PURE is not set: this checks the pure-Python install")
    assert not any(compiled_modules().values())
    assert engine_build().startswith("pure Python")


# ---- hostile input into the compiled engine ------------------------------------------------------
SCALARS = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.sampled_from(["1", "ann", "hit", "split", "double", "5", "bob"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
ACTION_KEYS = ["box", "do", "player", "amount", "players", "decline"]
JSON_KEYS = ["verb", "box", "player", "hand", "what", "amount", "low", "high", "players", "decline"]


@st.composite
def action_objects(draw: st.DrawFn, keys: list[str], verbs: list[str]) -> dict[str, Any]:
    """An action object with a plausible verb and box, and hostile values in some fields."""
    obj: dict[str, Any] = {keys[0] if keys[0] == "verb" else "do": draw(st.sampled_from(verbs)), "box": 1}
    for k in draw(st.lists(st.sampled_from(keys), max_size=4, unique=True)):
        obj[k] = draw(VALUES)
    return obj


@settings(max_examples=150, deadline=None)
@given(
    obj=action_objects(
        ACTION_KEYS, ["hit", "stand", "insure", "split", "double", "rescue", "surrender", "decline"]
    )
)
def test_action_objects_parse_or_refuse_with_the_projects_error(obj: dict[str, Any]) -> None:
    try:
        a = Action.parse(obj)
    except PontoonError as e:
        assert "\n" not in str(e)
        return
    assert isinstance(a, Action)


@settings(max_examples=150, deadline=None)
@given(obj=action_objects(JSON_KEYS, ["hit", "stand", "insure", "stake", "twist", "buy", "shoot", "decline"]))
def test_action_json_reads_or_refuses_with_the_projects_error(obj: dict[str, Any]) -> None:
    try:
        a = Action.from_json(obj)
    except PontoonError as e:
        assert "\n" not in str(e)
        return
    assert Action.from_json(a.to_json()) == a


CASINO: dict[str, Any] = {
    "rules": "mbs",
    "shoe": "9S 5C 9H KD QC 8D 7H 6S",
    "boxes": {
        "1": [{"player": "ann", "main": 10}, {"player": "cat", "main": 5}],
        "2": [{"player": "bob", "main": 20}],
    },
    "actions": ["1 split", "1 stand", "1 stand", "2 stand"],
}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    obj=action_objects(
        ACTION_KEYS, ["hit", "stand", "insure", "split", "double", "rescue", "surrender", "decline"]
    ),
    at=st.integers(min_value=0, max_value=3),
)
def test_hostile_action_objects_in_a_scenario_are_one_line_errors(
    obj: dict[str, Any], at: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(json.dumps(CASINO))
    data["actions"][at] = obj
    p = tmp_path / "s.json"
    p.write_text(json.dumps(data, allow_nan=True))
    capsys.readouterr()
    t0 = time.perf_counter()
    code = run(["scenario", str(p)])
    assert time.perf_counter() - t0 < 10
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "TypeError" not in err
    if code != 0:
        assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("error: "), (code, err)


def test_values_of_the_wrong_type_into_the_tables_are_named_with_the_projects_error() -> None:
    """The tables' entry points check what they are given (a compiled build would otherwise answer a
    wrong type with mypyc's TypeError before the check could name it)."""
    from pontoon.british.table import BritishGame
    from pontoon.casino.table import CasinoTable
    from pontoon.errors import BetError, IllegalAction
    from pontoon.rules import find_rules
    from pontoon.rules.model import CasinoRules

    rules = find_rules("mbs")
    assert isinstance(rules, CasinoRules)
    t = CasinoTable(rules, rng=1)
    with pytest.raises(IllegalAction, match="player name"):
        t.join(5, 100)
    t.join("ann", 1000)
    t.new_round()
    with pytest.raises(IllegalAction, match="not at the table"):
        t.place_bet(1, 5, "main", 10)
    with pytest.raises(BetError, match="does not exist"):
        t.place_bet("1", "ann", "main", 10)
    with pytest.raises(BetError, match="not offered"):
        t.place_bet(1, "ann", 7, 10)
    assert t.round is not None and not t.round.can_place_bet(None, "ann", "main", 10)
    t.place_bet(1, "ann", "main", 10)  # and the right types still play
    g = BritishGame(find_rules("british"), ["ann", "bob"], banker="bob", rng=1)
    with pytest.raises(IllegalAction, match="must be a name"):
        g.join_seat(5)
