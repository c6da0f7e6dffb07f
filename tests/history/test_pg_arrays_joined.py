"""``pgprep._texts`` and ``_ints`` write a column with no NULL as one joined text (the writer thread's
Python a commit): the very constant the element-by-element rule writes (``array_in``'s escapes, then
the string constant's), for any text, NUL included (that column goes the element-by-element way and is
refused by ``pgprep.run``). The server reads these constants back in ``test_pg_prep.py``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.history import pgprep


def _texts_one_by_one(col: list[Any]) -> str:
    """The rule itself, an element at a time (``pgprep._texts`` before the joined way)."""
    els = ["NULL" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in col]
    return "'{" + ",".join(els).replace("'", "''") + "}'"


def _ints_one_by_one(col: list[Any]) -> str:
    return "'{" + ",".join(["NULL" if v is None else int.__repr__(v) for v in col]) + "}'"


_HOSTILE = [
    "'",
    "''",
    "\\",
    "\\'",
    '"',
    '\\"',
    "{",
    "}",
    ",",
    "NULL",
    "",
    "é😀",
    "\x00",
    "a\x00b",
    '","',
    "\"}'",
]


@settings(max_examples=500, deadline=None)
@given(col=st.lists(st.one_of(st.text(max_size=20), st.sampled_from(_HOSTILE)), max_size=8))
def test_a_text_column_is_written_as_element_by_element(col: list[str]) -> None:
    assert pgprep._texts(col) == _texts_one_by_one(col)
    with_null = [*col, None]
    assert pgprep._texts(with_null) == _texts_one_by_one(with_null)


@settings(max_examples=300, deadline=None)
@given(col=st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63)), max_size=8))
def test_an_int_column_is_written_as_element_by_element(col: list[int | None]) -> None:
    assert pgprep._ints(col) == _ints_one_by_one(col)


def test_the_joined_way_is_taken_and_refuses_what_the_rule_refuses() -> None:
    # (the separator NUL inside a value: the value keeps its NUL, for ``run`` to refuse)
    assert pgprep._texts(["a\x00", "b"]) == '\'{"a\x00","b"}\''
    assert pgprep._texts(['x"y', "z\\", "it's"]) == '\'{"x\\"y","z\\\\","it\'\'s"}\''
    assert pgprep._texts([]) == "'{}'" and pgprep._ints([]) == "'{}'"
    assert pgprep._ints([1, -2, True]) == "'{1,-2,1}'"  # (int.__repr__, as before: a bool is an int)
    for bad in ("1", 1.5, b"x", Decimal(1)):
        with pytest.raises(TypeError):
            pgprep._ints([1, bad])
    for bad_text in (1, b"x", 1.5, Decimal(1)):
        with pytest.raises(TypeError):
            pgprep._texts(["a", bad_text])
