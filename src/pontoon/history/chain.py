"""The canonical form of the records and their hash chain (shared by ``store.py`` and ``group.py``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any


def canon(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; amounts are already exact decimal text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def account_key(acct: Any) -> str:
    """The accounts table's key for an account as ``Transfer.to_json`` writes it."""
    return canon(acct)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def chain_hash(prev: str, body: dict[str, Any]) -> str:
    return hashlib.sha256((prev + canon(body)).encode()).hexdigest()


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
