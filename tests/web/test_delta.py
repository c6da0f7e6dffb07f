"""The state delta (web/delta.py): ``apply(diff(a, b), a)`` is ``b`` for any JSON values, with the same key
order (the page draws objects in key order), and ``a`` is never changed."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.web.delta import apply, diff

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=3)
)
keys = st.sampled_from(["a", "b", "c", "d", "1", "2"])
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=25,
)


def _dump(v: Any) -> str:
    return json.dumps(v, allow_nan=False)


@settings(max_examples=400, deadline=None)
@given(values, values, st.integers(0, 8))
def test_apply_of_diff_gives_the_new_value_in_the_same_key_order(a: Any, b: Any, depth: int) -> None:
    before = copy.deepcopy(a)
    ops = diff(a, b, depth=depth)
    out = apply(json.loads(_dump(ops)), a)  # the operations as they travel: JSON text
    assert _dump(out) == _dump(b)
    assert _dump(a) == _dump(before)  # the old value is not changed


@settings(max_examples=200, deadline=None)
@given(values)
def test_no_change_no_operations(a: Any) -> None:
    assert diff(a, copy.deepcopy(a)) == []


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, values, max_size=5), keys, values)
def test_one_key_changed_is_one_small_operation(a: dict[str, Any], k: str, v: Any) -> None:
    b = dict(a, **{k: v})
    ops = diff(a, b, depth=8)
    assert all(op[0][:1] == [k] for op in ops)
    assert _dump(apply(ops, a)) == _dump(b)


def test_below_the_depth_a_changed_value_goes_whole() -> None:
    a = {"r": {"boxes": [{"cards": ["2S"]}]}, "n": 1}
    b = {"r": {"boxes": [{"cards": ["2S", "9H"]}]}, "n": 1}
    assert diff(a, b, depth=8) == [[["r", "boxes", 0, "cards", 1], "9H"]]
    assert diff(a, b, depth=2) == [[["r", "boxes"], [{"cards": ["2S", "9H"]}]]]
    assert diff(a, b, depth=0) == [[[], b]]


def test_bool_and_int_are_different_values() -> None:
    assert diff({"x": 1}, {"x": True}) == [[["x"], True]]
    assert diff([1.0], [1]) == [[[0], 1]]


@pytest.mark.parametrize(
    "ops",
    [
        [["x", 1]],  # the path is not a list
        [[["a", "b"], 1]],  # into a number
        [[["l", 5], 1]],  # past a list's end
        [[["zz"]]],  # delete what is not there
        [[[], 1, 2]],  # too long
    ],
)
def test_an_operation_that_does_not_fit_is_refused(ops: list[Any]) -> None:
    with pytest.raises(ValueError):
        apply(ops, {"a": 1, "l": [1, 2]})


def test_a_float_sign_is_a_change() -> None:
    assert diff({"t": 0.0}, {"t": -0.0}) == [[["t"], -0.0]]


def test_equal_values_of_another_json_text_are_sent() -> None:
    """``==`` takes True for 1, 1.0 for 1, -0.0 for 0.0 and ignores key order: inside objects and lists
    such a change is still sent (compared as the frames' JSON text; an integer past 64 bits, which
    orjson refuses, by marshal)."""
    for old, new in [
        ([1, 2], [True, 2]),
        ([1, 2], [1.0, 2]),
        ({"x": [0.0]}, {"x": [-0.0]}),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ([2**70, 1], [2**70 + 0.0, 1]),
    ]:
        a, b = {"s": {"v": old}}, {"s": {"v": new}}
        ops = diff(a, b, depth=8)
        assert ops, (old, new)
        assert json.dumps(apply(ops, a)) == json.dumps(b)
    assert diff({"s": {"v": [2**70, True]}}, {"s": {"v": [2**70, True]}}) == []
