"""The WebSocket messages' one-pass parse (web/models.py ``CLIENT_MESSAGE``: pydantic's JSON parser and the
message models in one go) accepts exactly what ``json.loads`` and the ``Envelope`` model accept, with the
same models; and ``action_json`` is ``model_dump(exclude_none=True, exclude_defaults=True)``."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pontoon.web.models import CLIENT_MESSAGE, ActionIn, ActMsg, Envelope, action_json

names = st.sampled_from(["ann", "bob", "x y", "", "A" * 30, "<b>", 7, None])
moneys = st.sampled_from(["10", "2.50", "1.234", "-1", "", "9" * 12, 10, None])
actions = st.fixed_dictionaries(
    {"verb": st.sampled_from(["hit", "stand", "split", "buy", "twist", "x" * 20, 3])},
    optional={
        "box": st.sampled_from([1, 2, 9, 0, 100, "1", True, None, 1.0, 1.5]),
        "hand": st.sampled_from([1, 2, 0, None]),
        "player": names,
        "amount": moneys,
        "players": st.lists(names, max_size=3) | st.none(),
        "decline": st.lists(names, max_size=3),
        "what": st.sampled_from(["card", "x" * 20, None]),
        "low": st.just("1"),
    },
)
messages = st.one_of(
    st.fixed_dictionaries({"type": st.just("act"), "action": actions}),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["bet", "kitty", "top_up", "buy_bank"]), "amount": moneys}
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["ping", "deal", "resync", "hints", "nope", 5])}),
    st.fixed_dictionaries({"type": st.just("chat"), "text": st.text(max_size=5)}),
    st.fixed_dictionaries({"type": st.just("sell_bank")}, optional={"buyer": names, "price": moneys}),
    st.lists(st.integers(), max_size=2),
    st.integers(),
)


def _old(text: str) -> Any:
    try:
        return Envelope.model_validate({"msg": json.loads(text)}).msg
    except (ValueError, RecursionError):
        return "refused"


def _new(text: str) -> Any:
    try:
        return CLIENT_MESSAGE.validate_json(text)
    except ValidationError as err:
        assert err.errors(), err
        return "refused"


@settings(max_examples=400, deadline=None)
@given(messages, st.booleans())
def test_one_pass_parse_accepts_and_refuses_as_before(msg: Any, cut: bool) -> None:
    text = json.dumps(msg)
    if cut:  # not JSON text any more
        text = text[:-1]
    old, new = _old(text), _new(text)
    assert old == new
    assert type(old) is type(new)


def test_bad_json_and_deep_nesting_are_refused() -> None:
    for text in ('{"type": "ping"', "[" * 5000 + "]" * 5000, "", "NaN", '{"type": "ping"} x'):
        assert _new(text) == "refused" == _old(text)
    assert _new('{"type": "ping"}') == _old('{"type": "ping"}')


@settings(max_examples=300, deadline=None)
@given(actions)
def test_action_json_is_model_dump(a: dict[str, Any]) -> None:
    try:
        model = ActMsg.model_validate({"type": "act", "action": a}).action
    except ValidationError:
        return
    assert isinstance(model, ActionIn)
    want = model.model_dump(exclude_none=True, exclude_defaults=True) | {"verb": model.verb}
    got = action_json(model)
    assert got == want
    assert list(got) == list(want)  # (the same key order)
