"""bench/human_clients.py's ``LeanFrames`` (deltas applied in place, the clients' CPU cut) gives the same state
after every frame as bench_server.py's ``Frames`` (copies on each path, as the page): the benchmark's
people act on the same states either way."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon.web.delta import diff

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from bench_server import Frames  # noqa: E402
from human_clients import LeanFrames  # noqa: E402

leaf = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
value = st.recursive(
    leaf,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.sampled_from("abcd"), kids, max_size=4),
    max_leaves=12,
)
state = st.dictionaries(st.sampled_from(["phase", "bets", "hands", "you", "legal", "h"]), value, max_size=6)


def _frames(states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The public frames of a run of states: the first whole, then each one's delta on the one before
    (web/delta.py's ``diff``, as web/frames.py sends them)."""
    out: list[dict[str, Any]] = [dict(states[0], type="state", seq=0)]
    for i in range(1, len(states)):
        out.append({"type": "delta", "base": i - 1, "seq": i, "ops": diff(states[i - 1], states[i])})
    return out


@settings(max_examples=100, deadline=None)
@given(st.lists(state, min_size=1, max_size=8))
def test_lean_frames_agree_with_frames(states: list[dict[str, Any]]) -> None:
    import orjson

    lean, plain = LeanFrames(), Frames()
    for fr in _frames(states):
        text = orjson.dumps(fr)  # (each parsed afresh, as a client does: the two hold no object in common)
        a, b = lean.take(orjson.loads(text)), plain.take(orjson.loads(text))
        assert orjson.dumps(a) == orjson.dumps(b)  # the same values in the same key order
        assert a is not None
        want = states[fr["seq"]]
        assert orjson.dumps({k: a[k] for k in want}) == orjson.dumps(want)  # (besides type, seq, history)


def test_lean_frames_refuse_a_gap() -> None:
    lean = LeanFrames()
    lean.take({"type": "state", "seq": 3, "phase": "betting"})
    try:
        lean.take({"type": "delta", "base": 2, "seq": 4, "ops": [[["phase"], "dealt"]]})
    except RuntimeError as e:
        assert "based on 2" in str(e)
    else:  # pragma: no cover
        raise AssertionError("a delta on another base was applied")
