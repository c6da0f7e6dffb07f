"""``pontoon verify RECORD``: recompute a revealed shoe's order from its seeds and check it.

RECORD is a JSON file (``-`` for standard input) with ``scheme``, ``server_seed``, ``client_seed``,
``nonce``, ``commitment``, ``pack``, ``decks`` and ``dealt`` (``docs/fairness.md``). It prints what
it checked and ``verified`` (exit 0); a mismatch is one line naming the first difference (exit 1); a
malformed record is one ``error:`` line (exit 2). A bare number is a stored shoe's id in the history
store (``--db URL``; ``lookup_stored_shoe``): its record is built from the stored events
(``pontoon.history.shoe_record``); a shoe still in use, an unknown id or a bad URL is one line, exit 2.

RECORD may also be a session export (``pontoon history --export json``, the web's ``export.json``: what
``pontoon replay --export`` reads), told apart by its ``format``: every retired shoe of it is checked
(``pontoon.history.verify_export``), its commitment against its revealed seed and the cards of its rounds
against its committed order; the rounds the web withheld (their pack still in play) are reported as
withheld. A card or seed that differs is ``mismatch: table T round R: ...`` (exit 1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from pontoon.cli.dbopts import check_db
from pontoon.fair import MAX_RECORD_BYTES, RECORD_KEYS, FairRecordError, load_record_text, verify_record

SESSION = "pontoon-session"  # a session export's format (history/export.py)


def is_session_export(doc: object) -> bool:
    return isinstance(doc, dict) and doc.get("format") == SESSION


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


MAX_EXPORT_BYTES = 256 * 1024 * 1024  # as ``pontoon replay --export``


def _load(raw: bytes) -> object:
    """A record (small: ``load_record_text``'s bounds and messages) or a session export (up to 256 MiB)."""
    if len(raw) <= MAX_RECORD_BYTES:
        return load_record_text(raw)
    if len(raw) > MAX_EXPORT_BYTES:
        raise FairRecordError(f"the file is over {MAX_EXPORT_BYTES} bytes: export fewer rounds")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise FairRecordError(
            f"over {MAX_RECORD_BYTES} bytes and not JSON ({type(err).__name__}): a record is a small JSON "
            "object, a session export JSON"
        ) from None
    if not is_session_export(doc):
        raise FairRecordError(
            f"the record is over {MAX_RECORD_BYTES} bytes: a record is a small JSON object (a larger file "
            f"can only be a session export, format {SESSION})"
        )
    return doc


def _read_target(target: str, db: str | None = None) -> object:
    if target == "-":
        if sys.stdin is None:  # started with standard input closed (``0<&-``)
            raise FairRecordError("standard input is closed: give the record on it, or a record file")
        try:
            raw = sys.stdin.buffer.read(MAX_EXPORT_BYTES + 1)
        except OSError as err:
            raise FairRecordError(f"cannot read standard input: {err.strerror or err}") from None
        return _load(raw)
    path = Path(target)
    if path.is_file():
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_EXPORT_BYTES + 1)
        except OSError as err:
            raise FairRecordError(f"cannot read {target!r}: {err.strerror or err}") from None
        return _load(raw)
    if target.isascii() and target.isdigit() and len(target) <= 18:
        return lookup_stored_shoe(int(target), db)
    raise FairRecordError(
        f"{target!r:.80} is not a file: give a JSON record file, - for standard input, or a stored shoe number"
    )


ACCEPTED = (
    f"a retired shoe's record (a JSON object with keys {', '.join(RECORD_KEYS)}) or a session export "
    "(a JSON object with format 'pontoon-session' and its tables: the table's export.json, "
    "pontoon history --table ID --export json)"
)


def _kind(data: object) -> str:
    """What the file holds, in a few words (never its contents at length)."""
    if isinstance(data, dict):
        return f"a JSON object with format {str(data.get('format'))[:40]!r}"
    names = {list: "a JSON list", str: "a JSON string", bool: "a JSON true/false", type(None): "JSON null"}
    return names.get(type(data), "a JSON number")


def verify_command(
    record: str = typer.Argument(
        ...,
        metavar="RECORD",
        help="a JSON record file or session export, - for standard input, or a stored shoe id (pontoon history shows them)",
    ),
    db: str = typer.Option(
        None,
        "--db",
        help="history database URL for a stored shoe (default: $PONTOON_DB or the user data directory)",
    ),
) -> None:
    """Check a revealed shoe (the commitment, the order from the seeds, the cards dealt), or every
    retired shoe of a session export and its rounds' cards."""
    data = _read_target(record, db)
    if is_session_export(data):
        _verify_export(data, record)
        return
    if not isinstance(data, dict) or ("format" in data and "scheme" not in data):
        raise FairRecordError(f"{_kind(data)} is neither of what verify reads: {ACCEPTED}")
    result = verify_record(data)
    if not result.ok:
        typer.echo(f"mismatch: {result.difference}")
        raise typer.Exit(1)
    for line in result.checked:
        typer.echo(f"checked: {line}")
    typer.echo("verified")


def _verify_export(doc: object, name: str) -> None:
    from pontoon.history.verify_export import check_export, summary
    from pontoon.replay import ReplayMismatch

    try:
        chk = check_export(doc)
    except ReplayMismatch as err:
        typer.echo(f"mismatch: {' '.join(str(err).split())}")  # one line, whatever the file held
        raise typer.Exit(1) from None
    if not chk.verified:
        later = any(p.state == "in play" for p in chk.packs)
        raise FairRecordError(
            f"{Path(name).name[:80]}: {summary(chk)}; nothing to verify"
            + (
                " (export it again once a shoe is retired: after a reshuffle, or when the table closes)"
                if later
                else ""
            )
        )
    typer.echo(
        f"session export {Path(name).name[:80]}: {chk.rounds} rounds"
        + (f" and {len(chk.withheld)} withheld" if chk.withheld else "")
    )
    for p in chk.packs:
        typer.echo(f"checked: {p.describe()}")
    by_table: dict[object, list[int]] = {}
    for t, r in chk.withheld:
        by_table.setdefault(t, []).append(r)
    for t, rounds in by_table.items():
        typer.echo(
            f"withheld: table {t} rounds {', '.join(map(str, rounds))} (their pack still in play: ruling 35; "
            "export again once it is retired)"
        )
    typer.echo(f"verified: {summary(chk)}")
