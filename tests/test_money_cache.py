"""money's remembered results (``fmt``'s texts, ``to_money``'s accepted amounts) answer exactly what the
computation does, whatever was asked before (issue 11, speed)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pontoon.errors import BetError
from pontoon.money import _fmt, fmt, to_money

amounts = st.decimals(min_value=-(10**12), max_value=10**12, places=2, allow_nan=False, allow_infinity=False)


@given(d=amounts, zeros=st.integers(0, 4))
def test_fmt_remembered_is_computed(d: Decimal, zeros: int) -> None:
    same = d.quantize(Decimal(1).scaleb(-2 - zeros))  # an equal amount written with more places
    assert same == d
    assert fmt(d) == _fmt(d)
    assert fmt(same) == _fmt(same) == fmt(d)  # equal amounts: one text, asked in either order


@given(d=amounts.filter(lambda x: x != 0))
def test_to_money_returns_the_same_object_twice(d: Decimal) -> None:
    assert to_money(d) is d
    assert to_money(d) is d  # the second answer comes from what was accepted: still the input itself


@pytest.mark.parametrize("bad", ["sNaN", "-sNaN", "NaN", "Infinity", "10.005", "1E+13"])
def test_bad_decimals_refused_after_warm_cache(bad: str) -> None:
    for good in ("10", "10.00", "0.01", "1000000000000"):
        to_money(Decimal(good))
    with pytest.raises(BetError):
        to_money(Decimal(bad))
