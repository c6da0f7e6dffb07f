"""The command line's bounds on what it reads (issue 29 items 5 to 7, README "Limits").

- ``read_line``: one line of piped standard input, at most ``MAX_LINE`` characters; past it (an
  endless line, ``< /dev/zero``) or on text that cannot be decoded it raises ``InputError`` after
  reading at most ``MAX_LINE + 1`` characters, never the rest of the stream.
- ``check_seed``: a seed is a whole number from 0 to 2**128 - 1 (what numpy's ``SeedSequence``
  takes, and ``simulate`` takes), the same for every command.
- ``check_id``: a round, table or shoe id as the store keeps it (a SQL BIGINT: below 2**62 here).
"""

from __future__ import annotations

from typing import TextIO

from pontoon.errors import PontoonError

MAX_LINE = 1024  # characters in one answer read from a pipe (a key, a word, an amount: a few)
MAX_SEED = 2**128 - 1  # numpy.random.SeedSequence takes any; simulate's chunks take 128 bits
MAX_ID = 2**62 - 1  # ids of rounds, tables and shoes (SQLite and PostgreSQL BIGINT hold them)


class InputError(PontoonError):
    """A line of standard input past its bound, or not text: the session ends there, exit 2."""


def read_line(stream: TextIO | None, what: str = "standard input") -> str | None:
    """The next line of ``stream`` with its line break, or None at the end of input (a closed or
    absent standard input is the end of input). Reads at most ``MAX_LINE + 1`` characters."""
    if stream is None:
        return None
    try:
        line = stream.readline(MAX_LINE + 1)
    except UnicodeDecodeError:
        raise InputError(
            f"{what} is not UTF-8 text: an answer is a key, a word or an amount; the session ended there"
        ) from None
    except ValueError:  # I/O on a closed file
        return None
    if not line:
        return None
    if len(line) > MAX_LINE and not line.endswith("\n"):
        raise InputError(
            f"{what}: a line of over {MAX_LINE} characters (an answer is a key, a word or an amount, "
            "one per line); the session ended there"
        )
    return line


def check_seed(seed: int | None, flag: str = "--seed") -> int | None:
    """``seed`` unchanged where it is None or 0 to 2**128 - 1, else a one-line error."""
    if seed is not None and not 0 <= seed <= MAX_SEED:
        shown = (
            str(seed)
            if abs(seed) < 10**60
            else f"{'-' if seed < 0 else ''}a {len(str(abs(seed)))}-digit number"
        )
        raise PontoonError(f"{flag} {shown}: a seed is a whole number from 0 to 2**128-1")
    return seed


def check_id(value: int | None, flag: str, what: str) -> int | None:
    """``value`` unchanged where it is None or 1 to 2**62 - 1 (a stored id), else a one-line error."""
    if value is not None and not 1 <= value <= MAX_ID:
        shown = str(value) if abs(value) < 10**30 else f"a {len(str(abs(value)))}-digit number"
        raise PontoonError(f"{flag} {shown}: {what} id is a whole number from 1 to 2**62-1")
    return value
