"""The all-up-card dealer kernel (``dealer.dealer_all_upcards``, rows taken in blocks) against the
walk over dealer card orders (``dealer.dealer_batch``), row by row and up card by up card."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon.analysis import dealer as D
from pontoon.analysis import dealer_rows
from pontoon.analysis.states import shoe_counts, state_space


@pytest.mark.parametrize(
    ("pack", "decks", "h17", "n_rows"),
    [
        ("standard52", 1, False, 1),
        ("standard52", 1, True, 13),
        ("pontoon48", 2, True, 57),
        ("standard52", 6, False, 203),
    ],
)
def test_all_upcards_equal_the_walk(pack: str, decks: int, h17: bool, n_rows: int) -> None:
    sp = state_space()
    full = shoe_counts(pack, decks)
    rng = np.random.default_rng(decks * 100 + n_rows)
    rem = sp.counts[rng.choice(sp.size, n_rows, replace=False)].copy()
    if n_rows > 1:
        rem[0] = 0  # the full shoe itself
        rem[1, 9] = full[9] + 1  # a row that does not fit: zeros
    got = D.dealer_all_upcards(full, rem, *dealer_rows._trie(h17))
    assert got.shape == (10, n_rows, 7)
    for k in range(n_rows):
        shoe = full - rem[k]
        for up in range(10):
            if np.any(shoe < 0) or shoe[up] <= 0:
                assert not got[up, k].any()
                continue
            base = shoe.copy()
            base[up] -= 1
            want = D.dealer_batch(base, np.zeros((1, 10), np.int64), up, h17)[0]
            assert np.abs(got[up, k] - want).max() < 1e-13
            assert abs(got[up, k].sum() - 1.0) < 1e-12


def test_a_row_does_not_depend_on_the_rows_beside_it() -> None:
    """Each row is one lane of a block whose length depends on how many rows the call has (up to
    ``DEALER_BLOCK``): a row's distribution is the same, bit for bit, computed alone, in a short
    call, or among thousands (the rows cache and the reports rely on it)."""
    sp = state_space()
    full = shoe_counts("standard52", 6)
    trie = dealer_rows._trie(False)
    rng = np.random.default_rng(15)
    n_rows = 3 * D.DEALER_BLOCK + 5  # full blocks and a part block
    rem = sp.counts[rng.choice(sp.size, n_rows, replace=False)].copy()
    rem[7, 0] = full[0] + 1  # a row that does not fit, within a block: zeros, the others unmoved
    together = D.dealer_all_upcards(full, rem, *trie)
    assert not together[:, 7].any()
    assert together[:, np.arange(n_rows) != 7].any(axis=(0, 2)).all()
    for lo, hi in [(0, 1), (1, 10), (10, 73), (73, n_rows)]:
        part = D.dealer_all_upcards(full, np.ascontiguousarray(rem[lo:hi]), *trie)
        assert np.array_equal(part, together[:, lo:hi])
    for k in rng.choice(n_rows, 6, replace=False):
        alone = D.dealer_all_upcards(full, np.ascontiguousarray(rem[k : k + 1]), *trie)
        assert np.array_equal(alone[:, 0], together[:, k])
