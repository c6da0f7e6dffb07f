"""The recorder's round result (the ``rounds.result`` column) and the chain seal, each made the cheap
way, equal what the engine's ``CasinoRound.result()`` and ``hmac.digest`` give."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.casino.table import CasinoTable
from pontoon.history.recorder import result_of
from pontoon.history.seal import SealKey
from pontoon.money import fmt
from pontoon.rules import resolve_rules
from tests.history.driver import CASINO, casino_calls


def _engine_result(rnd: object) -> tuple[str, dict[str, object]]:
    """``result_of`` as it was written from ``rnd.result()`` (its per-hand records left out)."""
    res = rnd.result()  # type: ignore[attr-defined]
    return res.status, {
        "status": res.status,
        "void_reason": res.void_reason,
        "dealer": list(res.dealer),
        "seats": sorted(rnd.players()),  # type: ignore[attr-defined]
        "net": {p: {k: fmt(v) for k, v in d.items()} for p, d in res.net.items()},
        "house": fmt(res.house),
    }


@pytest.mark.parametrize("preset", CASINO)
def test_round_result_is_the_engines(preset: str) -> None:
    seen = ended = 0
    for seed in range(1, 9):
        t = CasinoTable(resolve_rules(preset), rng=seed)
        t.join("ann", 10**6)
        t.join("bob", 10**6)
        for _ in range(6):
            for _call in casino_calls(t, seed):
                assert result_of(t.round) == (_engine_result(t.round) if t.round.is_over() else None)
                ended += t.round.is_over()
            seen += 1
    assert seen == 48
    assert ended >= 48  # every round's end compared (its last call leaves it over)


@settings(max_examples=60, deadline=None)
@given(
    key=st.binary(min_size=16, max_size=200),
    table_id=st.integers(min_value=1, max_value=2**40),
    head=st.text(max_size=80),
)
def test_seal_is_hmac_sha256(key: bytes, table_id: int, head: str) -> None:
    sk = SealKey(key, "test")
    want = hmac.new(key, f"pontoon-seal:1:{table_id}:{head}".encode(), hashlib.sha256).hexdigest()
    assert sk.seal(table_id, head) == want
    assert sk.seal(table_id, head) == want  # the pads kept from the first call give the same
    assert sk.verifies(table_id, head, want)
    assert not sk.verifies(table_id + 1, head, want)
