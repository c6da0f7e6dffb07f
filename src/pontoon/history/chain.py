"""The canonical form of the records and their hash chain (shared by ``store.py`` and ``group.py``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

# ``json.dumps`` with these options builds a new encoder per call; one encoder made once writes the
# very same text (the hash chain's bytes) at a fraction of the cost
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_encode = _ENCODER.encode


def canon(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; amounts are already exact decimal text."""
    return _encode(obj)


def account_key(acct: Any) -> str:
    """The accounts table's key for an account as ``Transfer.to_json`` writes it."""
    return canon(acct)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def chain_hash(prev: str, body: dict[str, Any]) -> str:
    return hashlib.sha256((prev + canon(body)).encode()).hexdigest()


def event_text(
    round_no: int,
    seq: int,
    kind: str,
    data: dict[str, Any],
    payload: str,
    clause: str,
    transfers: Sequence[dict[str, Any]],
) -> str:
    """``canon(event_body(...))`` given the event's ``payload`` (``canon(data)``, already made for its
    row): the same text, built without encoding the data twice (the body's keys in sorted order)."""
    if type(round_no) is not int or type(seq) is not int:  # a bool or an int subclass: the plain way
        return canon(event_body(round_no, seq, kind, data, clause, transfers))
    return (
        f'{{"clause":{_encode(clause)},"data":{payload},"kind":{_encode(kind)},"round":{round_no},'
        f'"seq":{seq},"transfers":{_encode(list(transfers)) if transfers else "[]"}}}'
    )


def chain_text_hash(prev: str, text: str) -> str:
    return hashlib.sha256((prev + text).encode()).hexdigest()


def event_body(
    round_no: int, seq: int, kind: str, data: dict[str, Any], clause: str, transfers: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "round": round_no,
        "seq": seq,
        "kind": kind,
        "data": data,
        "clause": clause,
        "transfers": list(transfers),
    }
