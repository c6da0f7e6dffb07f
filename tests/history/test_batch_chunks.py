"""The group commit's multi-row statements (``batchsql.chunks``): every row once, in order, in few
statements, and a small commit's rows of a kind in ONE statement."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pontoon.history import batchsql


@given(st.integers(min_value=0, max_value=600))
def test_chunks_keep_every_row_in_order(n: int) -> None:
    rows = [(i, f"r{i}") for i in range(n)]
    got = batchsql.chunks(rows)
    flat = [x for _size, params in got for x in params]
    assert flat == [x for r in rows for x in r]  # every row once, in its order, flattened
    assert all(len(params) == size * 2 for size, params in got)
    assert len({size for size, _ in got} | set(batchsql._SIZES)) == len(batchsql._SIZES)
    if 0 < n < 8:
        assert len(got) == 1  # a call or two: one statement for the kind
    if n < 128:
        assert len(got) <= 5
    assert len(got) <= n // 128 + 5


def test_statements_fit_sqlite3s_cache() -> None:
    """Each kind at each size is one prepared statement: all of them within sqlite3's default cache of
    128 statements a connection (else every commit would prepare some again)."""
    assert len(batchsql.ORDER) * len(batchsql._SIZES) <= 128
