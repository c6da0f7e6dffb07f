"""Names (issue 28, item 9): hypothesis over any text: a name is refused with one line, or accepted in
one canonical spelling of the restricted set whose key no look-alike spelling escapes."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.web.names import MAX_LEN, NameError_, canonical, name_key

SHAPE = re.compile(r"^[A-Za-z0-9]+(?:[ _-][A-Za-z0-9]+)*$")
FULL_WIDTH = {
    c: chr(ord(c) - 0x21 + 0xFF01) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
}


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_refused_in_one_line_or_canonical(raw: str) -> None:
    try:
        name = canonical(raw)
    except NameError_ as err:
        assert "\n" not in str(err) and len(str(err)) < 300
        return
    assert SHAPE.match(name) and 1 <= len(name) <= MAX_LEN
    assert canonical(name) == name
    assert all(unicodedata.category(c)[0] not in "CZ" or c == " " for c in name)


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"[A-Za-z0-9]{1,8}(?:[ _-][A-Za-z0-9]{1,6}){0,2}", fullmatch=True), st.data())
def test_look_alike_spellings_share_the_key(name: str, data: st.DataObject) -> None:
    key = name_key(canonical(name))
    variants = [
        name.upper(),
        name.lower(),
        name.swapcase(),
        "".join(FULL_WIDTH.get(c, c) for c in name),  # full-width letters
        f"  {name}\t",
        name.replace("o", "0").replace("O", "0"),
        name.replace("l", "I").replace("i", "1"),
        name.replace(" ", "_").replace("-", " "),
    ]
    for v in variants:
        assert name_key(canonical(v)) == key, v
    # an invisible character or trailing punctuation is refused, never a second account
    pos = data.draw(st.integers(0, len(name)))
    for bad in ("\u200b", "\u200d", "\u2060", "\ufeff", "\u202e", "\x07"):
        try:
            canonical(name[:pos] + bad + name[pos:])
        except NameError_:
            continue
        raise AssertionError(f"{bad!r} accepted")
    for tail in (".", "!", "'", "\u00b7"):
        try:
            canonical(name + tail)
        except NameError_:
            continue
        raise AssertionError(f"{name + tail!r} accepted")
