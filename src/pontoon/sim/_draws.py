"""The kernels' random draws and small helpers: 32-bit words from the caller's buffer, Lemire's
exact bounded draw, the lazy Fisher-Yates deal, card points, the pay-line log.

Compiled without numba's reference counting (``_NO_NRT``: they never allocate; see
``_kernels.py``); LLVM inlines them into the round.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from pontoon.sim._consts import INV32, U32
from pontoon.sim.numba_cache import configure

# compiled kernels cached on disk where that can be written (numba_cache.py; never fails read-only)
CACHE = configure()
# no reference counting (the functions never allocate): see ``_kernels.py``
_NO_NRT: dict[str, Any] = {"cache": CACHE, "_nrt": False, "error_model": "numpy"}


@njit(**_NO_NRT)
def _u32(st, ur):
    """The next 32 random bits of the buffer ``ur`` (drawn by ``api.py``), at index ``st[1]``.

    Past the end of the buffer (possible only after some 2**32 / n improbable rejections in
    ``_below``: never in practice) it wraps to the start rather than read outside it."""
    i = st[1]
    if i >= ur.shape[0]:
        i = 0
    st[1] = i + 1
    return np.uint64(ur[i])


@njit(**_NO_NRT)
def _below(st, ur, m):
    """A uniform integer in [0, m) (0 < m < 2**32): Lemire's multiply-shift with rejection, so
    every value has exactly the same probability (the rejection happens with probability below
    m / 2**32, under 1e-7 for a shoe)."""
    mm = np.uint64(m)
    x = _u32(st, ur) * mm
    low = x & U32
    if low < mm:
        t = (U32 + np.uint64(1) - mm) % mm
        while low < t:
            x = _u32(st, ur) * mm
            low = x & U32
    return np.int64(x >> np.uint64(32))


@njit(**_NO_NRT)
def _uniform(st, ur):
    """A float in [0, 1) with 32 random bits (Pandemonium presses)."""
    return np.float64(_u32(st, ur)) * INV32


@njit(**_NO_NRT)
def _draw(shoe, st, ur):
    """Next card: lazy Fisher-Yates step. -1 when the shoe is empty (the round is void).

    ``st[3] == 1`` (stacked shoes): the cards are dealt in stored order, ``ur`` is not used."""
    pos = st[0]
    n = shoe.shape[0]
    if pos >= n:
        return -1
    st[0] = pos + 1
    if st[3] == 1:
        return shoe[pos]
    j = pos + _below(st, ur, n - pos)
    c = shoe[j]
    shoe[j] = shoe[pos]
    shoe[pos] = c
    return c


@njit(**_NO_NRT)
def _pts(c):
    r = c >> 2
    if r >= 9:
        return 10
    return r + 1


@njit(**_NO_NRT)
def _log(logl, loga, logb, n, line, amount, box):
    logl[n] = line
    loga[n] = amount
    logb[n] = box
    return n + 1
