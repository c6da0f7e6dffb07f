"""Exact money: Decimal amounts parsed from user text, printed and written to JSON without float noise.

Limits (README "Limits"): an amount is a finite decimal with at most two decimal places and a
magnitude of at most ``MAX_AMOUNT`` (10**12). Anything else -- booleans, lists, NaN, Infinity,
``1e999999999``, a 5000-digit integer, ``10.005`` -- is refused with a one-line ``BetError``
before any Decimal arithmetic that could overflow or take long.
"""

from __future__ import annotations

import json
import re
import secrets
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from pontoon.errors import BetError

CENT: Final = Decimal("0.01")
MAX_AMOUNT: Final = 10**12  # the largest amount accepted anywhere (README "Limits")
_MAX_DEC: Final = Decimal(MAX_AMOUNT)
MAX_TEXT: Final = 40  # an amount's text is at most this long (13 digits, a point, 2 places, sign, spaces)


def _too_big(what: str, value: object) -> BetError:
    if isinstance(value, int) and value.bit_length() > 64:  # repr of a huge int is slow or refused
        shown = f"(an integer of about {int(value.bit_length() * 0.30103) + 1} digits)"
    else:
        text = repr(value)
        shown = text if len(text) <= 30 else text[:27] + "..."
    return BetError(
        f"{what} {shown} is too large: amounts are at most {MAX_AMOUNT:,} with two decimal places"
    )


def to_money(value: object, what: str = "amount") -> Decimal:
    """Parse an int, Decimal or decimal string (a float goes through its shortest text).

    Raises ``BetError`` (one line) unless the value is a finite decimal of at most two places
    whose magnitude is at most ``MAX_AMOUNT``. Sizes are checked before any Decimal arithmetic.
    """
    if type(value) is Decimal:
        try:
            if value in _ACCEPTED:
                return value  # equal to an amount accepted before: every check below is one of its value
        except TypeError:
            pass  # a signalling NaN cannot be hashed: refused below
    if isinstance(value, bool):
        raise BetError(f"{what} must be a number, not {value!r}")
    if isinstance(value, int):
        if not -MAX_AMOUNT <= value <= MAX_AMOUNT:  # int comparison: cheap for any size
            raise _too_big(what, value)
        return Decimal(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise BetError(f"{what} {value!r} is not a finite number")
        if abs(value) > MAX_AMOUNT:
            raise _too_big(what, value)
        d = Decimal(repr(value))
    elif isinstance(value, Decimal):
        d = value
    elif isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_TEXT:
            raise BetError(
                f"{what} {text[:20]!r}... is too long: amounts are at most {MAX_AMOUNT:,} with two decimal places"
            )
        try:
            d = Decimal(text)
        except InvalidOperation:
            raise BetError(
                f"{what} {value!r} is not a number: expected an amount such as 10 or 25.50"
            ) from None
    else:
        raise BetError(f"{what} must be a number, not {type(value).__name__}")
    if not d.is_finite():
        raise BetError(f"{what} {value!r} is not a finite number")
    if not d:
        return Decimal(0)  # 0E-999999999 is zero: never keep its exponent
    # magnitude from the exponent alone (no arithmetic on a huge or tiny exponent)
    if d.adjusted() > 12:
        raise _too_big(what, value)
    if abs(d) > _MAX_DEC:
        raise _too_big(what, value)
    if d.as_tuple().exponent < -2 and d.quantize(CENT) != d:  # type: ignore[operator]
        raise BetError(f"{what} {value!r} has more than two decimal places")
    if len(_ACCEPTED) < 4096:
        _ACCEPTED.add(d)
    return d


_ACCEPTED: Final[set[Decimal]] = set()  # non-zero amounts to_money has accepted (bounded; wagers repeat)


def is_money(value: object) -> bool:
    """True when ``to_money`` accepts ``value``."""
    try:
        to_money(value)
    except BetError:
        return False
    return True


def money_json(d: Decimal) -> Decimal:
    """An exact amount for a JSON document: the normalised Decimal (``7.50`` -> ``7.5``), written by
    ``dumps`` as the JSON number whose text is the decimal's text, never through a float."""
    n = d.normalize()
    if n == n.to_integral_value():
        return n.quantize(Decimal(1))  # 1E+1 -> 10
    return n


def decimal_text(d: Decimal) -> str:
    """The JSON number text of an exact amount: ``7.5``, ``10``, ``-0.05`` (no exponent)."""
    n = money_json(d)
    return f"{n:f}"


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` that writes every Decimal as a JSON number from its exact text.

    Each Decimal is first written as a placeholder string holding a random token drawn for this
    call (no text in the document can know it in advance); each quoted placeholder is then
    replaced by the decimal's text. Other unknown types go to the caller's ``default``, if any.
    """
    token = secrets.token_hex(12)
    texts: list[str] = []
    fallback = kwargs.pop("default", None)

    def default(o: Any) -> Any:
        if isinstance(o, Decimal):
            if not o.is_finite():
                raise ValueError(f"cannot write {o} as a JSON number")
            texts.append(decimal_text(o))
            return f"@{token}:{len(texts) - 1}@"
        if fallback is not None:
            return fallback(o)
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    out = json.dumps(obj, default=default, **kwargs)
    if not texts:
        return out
    pat = re.compile(rf'"@{token}:(\d+)@"')
    return pat.sub(lambda m: texts[int(m.group(1))], out)


def fmt(d: Decimal) -> str:
    """An amount's canonical text: ``10``, ``7.5``, ``-0.05`` (equal amounts give one text)."""
    try:
        return _FMT[d]  # equal Decimals (10, 10.00, 1E+1) share one entry and have one text
    except KeyError:
        pass
    except TypeError:  # a signalling NaN cannot be hashed
        return _fmt(d)
    text = _fmt(d)
    if len(_FMT) < 4096 and d.is_finite():
        _FMT[d] = text
    return text


_FMT: Final[dict[Decimal, str]] = {}  # the texts of amounts seen (bounded: stakes and payouts repeat)


def _fmt(d: Decimal) -> str:
    n = d.normalize()
    if n == n.to_integral_value():
        return str(int(n))
    return f"{n:f}"
