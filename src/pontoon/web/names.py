"""Account names: one canonical spelling per person, and a key under which look-alikes collide.

A name is data (ruling 32): the engines keep the house, the layout, the bank and the kitty as system
accounts that no name can reach. What this module adds is that two names a person cannot tell apart
on the page are one account (docs/accounts.md, "Names"):

- ``canonical(raw)``: NFKC, surrounding whitespace trimmed, inner runs of whitespace made one space;
  then a restricted set: ASCII letters and digits, with single separators (space, ``_``, ``-``) only
  between them (so no trailing punctuation: ``bob.`` is refused rather than shown beside ``bob``);
  1 to 24 characters; an invisible or control character (zero-width space, bidi marks) is refused
  with its code point named.
- ``name_key(name)``: the uniqueness key: case-folded, then a small confusables skeleton (``i``, ``1``
  and ``l`` are one letter, since a capital ``I`` looks like an ``l``; ``0`` is ``o``; ``rn`` is
  ``m``; ``vv`` is ``w``), every separator one ``-``.
  ``bob``, ``BOB``, ``Bob``, ``ｂｏｂ`` (full width), ``b0b`` share a key; so do ``bob smith``,
  ``bob_smith`` and ``bob-smith``.
- no name is reserved: ``house``, ``kitty`` or ``bank`` is a person's name like any other, whose money
  the engines keep apart from the house's, the kitty's and the bank's (ruling 32).
"""

from __future__ import annotations

import re
import unicodedata

from pontoon.errors import PontoonError

MAX_LEN = 24
RAW_MAX = 64  # characters accepted before normalising (a bound on the work done)
_SHAPE = re.compile(r"^[A-Za-z0-9]+(?:[ _-][A-Za-z0-9]+)*$")
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
ACCEPTED = (
    "1 to 24 ASCII letters and digits, with single spaces, '_' or '-' between them "
    "(no other punctuation, no leading or trailing separator)"
)


class NameError_(PontoonError):  # noqa: N801 - ``NameError`` is a builtin
    """A name refused: one line saying what was wrong and what is accepted."""


def _skeleton(text: str) -> str:
    s = text.casefold().translate(str.maketrans("i1|0", "lllo"))  # case first: I = i = l = 1
    s = s.replace("rn", "m").replace("vv", "w")
    return re.sub(r"[ _-]", "-", s)


def name_key(name: str) -> str:
    """The key under which look-alike names collide (``name`` canonical: see ``canonical``)."""
    return _skeleton(name)


def canonical(raw: object, *, what: str = "name") -> str:
    """The canonical spelling of ``raw``, or ``NameError_`` naming what was wrong and what is accepted."""
    if not isinstance(raw, str):
        raise NameError_(f"{what}: a text is required: {ACCEPTED}")
    if len(raw) > RAW_MAX:
        raise NameError_(f"{what}: {len(raw)} characters; at most {MAX_LEN} ({ACCEPTED})")
    text = " ".join(unicodedata.normalize("NFKC", raw).split())  # whitespace: trimmed, one space
    for ch in text:
        if unicodedata.category(ch) in _INVISIBLE:
            raise NameError_(
                f"{what}: contains an invisible or control character (U+{ord(ch):04X}); {ACCEPTED}"
            )
    if not text:
        raise NameError_(f"{what}: empty; {ACCEPTED}")
    if len(text) > MAX_LEN:
        raise NameError_(f"{what}: {len(text)} characters; at most {MAX_LEN} ({ACCEPTED})")
    if not _SHAPE.match(text):
        bad = next((c for c in text if not (c.isascii() and (c.isalnum() or c in " _-"))), None)
        why = (
            f"the character {bad!r} is not accepted" if bad else "a separator must stand between two letters"
        )
        raise NameError_(f"{what} {text!r}: {why}; {ACCEPTED}")
    return text


__all__ = ["ACCEPTED", "MAX_LEN", "NameError_", "canonical", "name_key"]
