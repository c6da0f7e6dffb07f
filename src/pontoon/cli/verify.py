"""``pontoon verify RECORD``: recompute a revealed shoe's order from its seeds and check it.

RECORD is a JSON file (``-`` for standard input) with ``scheme``, ``server_seed``, ``client_seed``,
``nonce``, ``commitment``, ``pack``, ``decks`` and ``dealt`` (``docs/fairness.md``). It prints what
it checked and ``verified`` (exit 0); a mismatch is one line naming the first difference (exit 1); a
malformed record is one ``error:`` line (exit 2). A bare number is a stored shoe's id in the history
store (``--db URL``; ``lookup_stored_shoe``): its record is built from the stored events
(``pontoon.history.shoe_record``); a shoe still in use, an unknown id or a bad URL is one line, exit 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from pontoon.cli.dbopts import check_db
from pontoon.fair import MAX_RECORD_BYTES, FairRecordError, load_record_text, verify_record


def lookup_stored_shoe(shoe: int, db: str | None = None) -> dict[str, Any]:
    """The verification record of stored shoe ``shoe`` (its id, as ``pontoon history`` shows it) in
    the history store at ``db`` (default ``$PONTOON_DB`` or the user data directory).

    A shoe still in use is refused (its server seed is secret until it is retired); a shoe shuffled
    without the fair shuffle (``--no-history`` tables have none stored; older tables) has nothing to verify.
    """
    from pontoon.cli.history import open_existing
    from pontoon.history import shoe_record

    check_db(db)
    store = open_existing(
        db
    )  # an existing database only: a missing file is an error, not a new empty history
    try:
        got = shoe_record(store, shoe)
    finally:
        store.close()
    where = f"shoe {shoe} (table {got['table']}, its shoe {got['shoe']}, {got['preset']})"
    if not got["retired"]:
        raise FairRecordError(
            f"{where} is still in use: its server seed stays secret until the shoe is retired; "
            "verify it after the table has replaced it or closed"
        )
    record = got.get("record")
    if record is None:
        raise FairRecordError(
            f"{where} was not shuffled with the provably fair shuffle: it has no commitment to verify"
        )
    typer.echo(
        f"stored {where}: rounds {', '.join(map(str, got['rounds'])) or 'none'}, {len(got['dealt'])} cards dealt"
    )
    return dict(record)


def _read_target(target: str, db: str | None = None) -> object:
    if target == "-":
        if sys.stdin is None:  # started with standard input closed (``0<&-``)
            raise FairRecordError("standard input is closed: give the record on it, or a record file")
        try:
            raw = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        except OSError as err:
            raise FairRecordError(f"cannot read standard input: {err.strerror or err}") from None
        return load_record_text(raw)
    path = Path(target)
    if path.is_file():
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_RECORD_BYTES + 1)
        except OSError as err:
            raise FairRecordError(f"cannot read {target!r}: {err.strerror or err}") from None
        return load_record_text(raw)
    if target.isascii() and target.isdigit() and len(target) <= 18:
        return lookup_stored_shoe(int(target), db)
    raise FairRecordError(
        f"{target!r:.80} is not a file: give a JSON record file, - for standard input, or a stored shoe number"
    )


def verify_command(
    record: str = typer.Argument(
        ...,
        metavar="RECORD",
        help="a JSON record file, - for standard input, or a stored shoe id (pontoon history shows them)",
    ),
    db: str = typer.Option(
        None,
        "--db",
        help="history database URL for a stored shoe (default: $PONTOON_DB or the user data directory)",
    ),
) -> None:
    """Check a revealed shoe: the commitment, the order from the seeds, and the cards dealt."""
    result = verify_record(_read_target(record, db))
    if not result.ok:
        typer.echo(f"mismatch: {result.difference}")
        raise typer.Exit(1)
    for line in result.checked:
        typer.echo(f"checked: {line}")
    typer.echo("verified")
