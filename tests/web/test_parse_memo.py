"""A table socket's message is parsed once per text (web/models.py ``parse_client``): the same text
gives the one validated, frozen object; what is refused is refused as before, every time, and never
kept; the memo stays bounded."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pontoon.web import models
from pontoon.web.models import CLIENT_MESSAGE, PARSED_KEPT, PARSED_LEN, action_json, parse_client

TEXTS = [
    '{"type": "act", "action": {"verb": "hit", "box": 1}}',
    '{"type":"act","action":{"verb":"stand","box":2}}',
    '{"type": "bet", "amount": "10"}',
    '{"type": "bet", "kind": "main", "amount": "12.5", "round": 7}',
    '{"type": "deal"}',
    '{"type": "act", "action": {"verb": "split", "box": 1, "decline": ["ann"]}}',
]


def test_a_text_is_parsed_once_and_equals_a_fresh_parse() -> None:
    models._parsed.clear()
    for text in TEXTS:
        first = parse_client(text)
        assert first == CLIENT_MESSAGE.validate_json(text)  # what pydantic makes of it, field for field
        assert parse_client(text) is first  # the same text: the one object
        assert parse_client(str(text.encode().decode())) is first  # (another str of the same text)
    assert parse_client(TEXTS[0]) is not parse_client(TEXTS[1])


def test_a_kept_message_cannot_be_changed_and_its_action_is_copied() -> None:
    models._parsed.clear()
    msg = parse_client(TEXTS[5])
    with pytest.raises(ValidationError):
        msg.type = "deal"  # frozen (``Strict``): no handler can change what the next copy gets
    d = action_json(msg.action)
    d["decline"].append("bob")  # a handler's copy
    assert parse_client(TEXTS[5]).action.decline == ["ann"]


def test_refused_texts_are_refused_each_time_and_not_kept() -> None:
    models._parsed.clear()
    for bad in ('{"type": "act"}', "not json", '{"type": "bet", "amount": "-1"}', '{"type": "fly"}'):
        for _ in range(2):
            with pytest.raises(ValidationError):
                parse_client(bad)
        assert bad not in models._parsed
    long = '{"type": "chat", "text": "' + "x" * PARSED_LEN + '"}'
    assert parse_client(long) == CLIENT_MESSAGE.validate_json(long)
    assert long not in models._parsed  # (a long text is parsed each time)


def test_the_memo_is_bounded() -> None:
    models._parsed.clear()
    for i in range(PARSED_KEPT + 10):
        parse_client(f'{{"type": "bet", "amount": "{i}"}}')
        assert len(models._parsed) <= PARSED_KEPT
    assert parse_client('{"type": "bet", "amount": "3"}').amount == "3"
