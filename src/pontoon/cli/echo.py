"""``typer.echo`` for text, without importing typer where it is not needed (issue 15 item 3)."""

from __future__ import annotations

import sys


def echo(message: str, err: bool = False) -> None:
    """Write ``message`` and a newline to standard output (or error) and flush, as ``typer.echo``.

    Plain ASCII text without an escape character is written here, which is what click does with
    it; any other text (click strips ANSI codes where the stream is no terminal, and re-wraps a
    misconfigured stream for non-ASCII text) goes through ``typer.echo`` itself.
    """
    if not message.isascii() or "\x1b" in message:
        import typer

        typer.echo(message, err=err)
        return
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # no stream attached (click writes nothing either)
        return
    stream.write(message + "\n")
    stream.flush()
