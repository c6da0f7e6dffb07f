"""``pontoon verify RECORD``: recompute a revealed shoe's order from its seeds and check it.

RECORD is a JSON file (``-`` for standard input) with ``scheme``, ``server_seed``, ``client_seed``,
``nonce``, ``commitment``, ``pack``, ``decks`` and ``dealt`` (``docs/fairness.md``). It prints what
it checked and ``verified`` (exit 0); a mismatch is one line naming the first difference (exit 1); a
malformed record is one ``error:`` line (exit 2). A bare number names a shoe in the history store
(``lookup_stored_shoe``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from pontoon.fair import MAX_RECORD_BYTES, FairRecordError, load_record_text, verify_record


def lookup_stored_shoe(shoe: int) -> dict[str, Any]:
    """HOOK: the verification record of stored shoe number ``shoe``, from the history store.

    The history store wires this in (``pontoon.fair.records_from_events`` builds a record from a
    shoe's stored events); until then a number is a clear error.
    """
    raise FairRecordError(
        f"shoe {shoe}: looking up a stored shoe needs the history store, which is not wired in yet; "
        "pass a JSON record file (or - for standard input)"
    )


def _read_target(target: str) -> object:
    if target == "-":
        return load_record_text(sys.stdin.buffer.read(MAX_RECORD_BYTES + 1))
    path = Path(target)
    if path.is_file():
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_RECORD_BYTES + 1)
        except OSError as err:
            raise FairRecordError(f"cannot read {target!r}: {err.strerror or err}") from None
        return load_record_text(raw)
    if target.isascii() and target.isdigit() and len(target) <= 18:
        return lookup_stored_shoe(int(target))
    raise FairRecordError(f"{target!r:.80} is not a file: give a JSON record file, - for standard input, or a stored shoe number")


def verify_command(
    record: str = typer.Argument(..., metavar="RECORD", help="a JSON record file, - for standard input, or a stored shoe number"),
) -> None:
    """Check a revealed shoe: the commitment, the order from the seeds, and the cards dealt."""
    result = verify_record(_read_target(record))
    if not result.ok:
        typer.echo(f"mismatch: {result.difference}")
        raise typer.Exit(1)
    for line in result.checked:
        typer.echo(f"checked: {line}")
    typer.echo("verified")
