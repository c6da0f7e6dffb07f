"""Exact money: Decimal amounts parsed from user text, printed without float noise."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from pontoon.errors import BetError

CENT = Decimal("0.01")


def to_money(value: object, what: str = "amount") -> Decimal:
    """Parse an int, Decimal or decimal string (a float goes through its shortest text)."""
    if isinstance(value, bool):
        raise BetError(f"{what} must be a number, not {value!r}")
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, int):
        d = Decimal(value)
    elif isinstance(value, float):
        d = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            d = Decimal(value.strip())
        except InvalidOperation:
            raise BetError(f"{what} {value!r} is not a number") from None
    else:
        raise BetError(f"{what} must be a number, not {type(value).__name__}")
    if not d.is_finite():
        raise BetError(f"{what} {value!r} is not a finite number")
    return d


def money_json(d: Decimal) -> int | float:
    """A JSON number for an exact amount: integers stay integers, 7.5 prints as 7.5."""
    n = d.normalize()
    if n == n.to_integral_value():
        return int(n)
    return float(n)


def fmt(d: Decimal) -> str:
    n = d.normalize()
    if n == n.to_integral_value():
        return str(int(n))
    return f"{n:f}"
