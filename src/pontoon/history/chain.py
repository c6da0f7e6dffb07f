"""The canonical form of the records and their hash chain (shared by ``store.py`` and ``group.py``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

# ``json.dumps`` with these options builds a new encoder per call; one encoder made once writes the
# very same text (the hash chain's bytes) at a fraction of the cost
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_json_encode = _ENCODER.encode
# orjson writes the same text as that encoder ten times faster for what the records hold (dicts with
# text keys, lists, text, ints, bools, None): sorted keys, no spaces, UTF-8 unescaped, the same escapes.
# It differs only on floats written with an exponent below 1e-4 (``1e-05`` against ``0.00001``,
# ``1e-09`` against ``1e-9``): an output holding ``e-`` or ``0.0000`` anywhere (in a float or in
# a text) is written again by ``json``. What orjson refuses or would write otherwise (a key that is
# not text, an int past 64 bits, a lone surrogate, a str/int/dict subclass, a dataclass, a datetime)
# goes to ``json`` too, which writes it or raises as before; so does an output holding ``null`` that
# does not read back equal to the object (orjson writes a NaN or an infinity as ``null``, ``json`` as
# ``NaN``/``Infinity``; a NaN never equals the ``None`` read back).
_ORJSON_OPTS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_dumps, _loads = orjson.dumps, orjson.loads


def _encode(obj: Any) -> str:
    try:
        out = _dumps(obj, option=_ORJSON_OPTS)
    except TypeError:  # (orjson.JSONEncodeError) not orjson's to write: json writes it or raises
        return _json_encode(obj)
    if b"e-" in out or b"0.0000" in out:  # maybe a small float: json writes it otherwise
        return _json_encode(obj)
    if b"null" in out and _loads(out) != obj:  # a NaN or an infinity read back as None (or a tuple)
        return _json_encode(obj)
    return out.decode()


def canon(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; amounts are already exact decimal text."""
    return _encode(obj)


def account_key(acct: Any) -> str:
    """The accounts table's key for an account as ``Transfer.to_json`` writes it. An account of one
    text field (``{"player": name}``, ``{"system": "house"}``: every account the engine writes) is
    encoded once (``_KEYS``): the group commit asks for two keys per ledger row."""
    if type(acct) is dict and len(acct) == 1:
        ((field, value),) = acct.items()
        if type(field) is str and type(value) is str:
            out = _KEYS.get((field, value))
            if out is None:
                out = canon(acct)
                if len(_KEYS) < 65536:
                    _KEYS[(field, value)] = out
            return out
    return canon(acct)


_KEYS: dict[tuple[str, str], str] = {}  # the keys of the one-field accounts seen (bounded)


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
    c, k = _TEXTS.get(clause), _TEXTS.get(kind)
    if c is None:
        c = _text(clause)
    if k is None:
        k = _text(kind)
    return (
        f'{{"clause":{c},"data":{payload},"kind":{k},"round":{round_no},'
        f'"seq":{seq},"transfers":{_encode(list(transfers)) if transfers else "[]"}}}'
    )


_TEXTS: dict[str, str] = {}  # the JSON of the kinds and clauses seen (a few hundred): written once


def _text(s: str) -> str:
    out = _encode(s)
    if type(s) is str and len(_TEXTS) < 4096:
        _TEXTS[s] = out
    return out


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
