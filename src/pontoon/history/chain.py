"""The canonical form of the records and their hash chain (shared by ``store.py`` and ``group.py``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
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
_sha256 = hashlib.sha256


def _encode(obj: Any) -> str:
    try:
        out = _dumps(obj, option=_ORJSON_OPTS)
    except TypeError:  # (orjson.JSONEncodeError) not orjson's to write: json writes it or raises
        return _by_parts(obj) if type(obj) is dict else _json_encode(obj)
    # the checks on the text, not on the bytes: ``b"e-" in out`` first tries the needle as an int
    # (``bytes.__contains__`` takes one) and makes and clears a TypeError each time, about 1,800
    # instructions, five times an event; ``str`` has no such step, and an ASCII needle is in the
    # UTF-8 bytes exactly where it is in their text
    text = out.decode()
    if "e-" in text or "0.0000" in text:  # maybe a small float: json writes it otherwise
        return _json_encode(obj)
    if "null" in text and _loads(out) != obj:  # a NaN or an infinity read back as None (or a tuple)
        return _json_encode(obj)
    return text


def _by_parts(obj: dict[Any, Any]) -> str:
    """A dict that orjson refused as a whole (a table's snapshot: its generator's 128-bit state),
    written value by value: each value by ``_encode`` (orjson where it can, ``json`` for the value it
    refused), joined as ``json`` joins them (keys sorted, ``{"k":v,...}``). The same text as
    ``json`` writes for the whole, and only one level down: a value refused again goes to ``json``
    whole (which writes it, or raises as before: a cycle, a key that is not text). A key that is
    not exactly ``str`` (``json`` turns some into text, and sorting mixed keys raises): ``json``
    writes the whole dict."""
    for k in obj:
        if type(k) is not str:
            return _json_encode(obj)
    return "{" + ",".join([f"{_encode(k)}:{_value(obj[k])}" for k in sorted(obj)]) + "}"


def _value(obj: Any) -> str:
    """``_encode`` of a value of a dict written by parts (``_by_parts``): not split again."""
    try:
        out = _dumps(obj, option=_ORJSON_OPTS)
    except TypeError:
        return _json_encode(obj)
    text = out.decode()
    if "e-" in text or "0.0000" in text or ("null" in text and _loads(out) != obj):
        return _json_encode(obj)
    return text


# Canonical JSON: sorted keys, no spaces; amounts are already exact decimal text. (``_encode`` itself:
# no call of its own around it, twice an event in the group commit.)
canon = _encode


def account_key(acct: Any) -> str:
    """The accounts table's key for an account as ``Transfer.to_json`` writes it. A player's account
    (a text: ``"ann"``) and an account of one text field (``{"player": name}``, ``{"system":
    "house"}``): every account the engine writes) is encoded once (``_KEYS``): the group commit asks
    for two keys per ledger row."""
    if type(acct) is str:
        out = _KEYS.get(acct)
        if out is None:
            out = canon(acct)
            if len(_KEYS) < 65536:
                _KEYS[acct] = out
        return out
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


# the keys of the accounts seen (bounded): a text account by itself, a one-field one by (field, value)
_KEYS: dict[str | tuple[str, str], str] = {}


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
    return _event_text("", round_no, seq, kind, payload, clause, transfers)


def event_hash(
    prev: str,
    round_no: int,
    seq: int,
    kind: str,
    data: dict[str, Any],
    payload: str,
    clause: str,
    transfers: Sequence[dict[str, Any]],
) -> str:
    """``chain_text_hash(prev, event_text(...))``: the event's link in its table's chain, the text
    made once with the previous hash in front (the group commit's writer: one call an event)."""
    if type(round_no) is not int or type(seq) is not int:
        return chain_text_hash(prev, canon(event_body(round_no, seq, kind, data, clause, transfers)))
    return _sha256(_event_text(prev, round_no, seq, kind, payload, clause, transfers).encode()).hexdigest()


def _event_text(
    prev: str,
    round_no: int,
    seq: int,
    kind: str,
    payload: str,
    clause: str,
    transfers: Sequence[dict[str, Any]],
) -> str:
    c, k = _TEXTS.get(clause), _TEXTS.get(kind)
    if c is None:
        c = _text(clause)
    if k is None:
        k = _text(kind)
    if transfers:
        t = _encode(transfers if type(transfers) is list else list(transfers))
    else:
        t = "[]"
    return (
        f'{prev}{{"clause":{c},"data":{payload},"kind":{k},"round":{round_no},"seq":{seq},"transfers":{t}}}'
    )


_TEXTS: dict[str, str] = {}  # the JSON of the kinds and clauses seen (a few hundred): written once


def _text(s: str) -> str:
    out = _encode(s)
    if type(s) is str and len(_TEXTS) < 4096:
        _TEXTS[s] = out
    return out


def amount_of(text: Any) -> tuple[Decimal, str]:
    """A ledger row's amount as ``Decimal`` and as the text stored (``str`` of it): the amounts a
    table books are few (the group commit asks twice per ledger row), so a text amount's pair is
    made once (``_AMOUNTS``, bounded)."""
    if type(text) is not str:
        amount = Decimal(text)
        return amount, str(amount)
    got = _AMOUNTS.get(text)
    if got is None:
        amount = Decimal(text)
        got = (amount, str(amount))
        if len(_AMOUNTS) < 4096:
            _AMOUNTS[text] = got
    return got


_AMOUNTS: dict[str, tuple[Decimal, str]] = {}


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
