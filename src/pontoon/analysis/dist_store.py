"""Exact split rounds worked out offline (``dist_box``), shipped as small data files (issue 23).

A casino shoe's split with resplits is millions of ways a hand ends (minutes of CPU a pair and up
card), far past the report's 2 s, so the report's default approximates those rounds
(``dist_splits``). Where a split's exact measure was worked out beforehand
(``bench/precompute_splits.py``) and its inputs are the same, the report takes that measure
instead: each cell (one up card, one pair, the a2 of its chains, played by the chart's rows or by
optimal play's) is keyed by a hash of everything the compiled recursion reads (the rules, the
shoe left after the up card, the lattice of outcomes, the Super Bonus units, the cell, which
chains play it and every decision they take), so a rules file that differs in anything that could change the measure misses
and keeps the approximation. The files live in ``analysis/data/splits-*.json``: one JSON object,
``cells`` mapping a key to the measure (``v0``, ``step``, sparse ``probs`` as [lattice index,
probability] pairs, ``lines``, ``wager``, ``work``, ``cpu_s``) and ``about`` saying what it covers."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from pontoon.analysis.dist_exact import SplitExact

DATA = Path(__file__).parent / "data"


def cell_key(
    rules_json: str,
    base: tuple[int, ...],
    values: list[float],
    sb_units: float,
    cell: tuple[int, int, int, bool],
    play: str = "",
) -> str:
    """The key of one split (``cell``: up card, pair, a2, played by the chart's rows; ``play``: a
    hash of its hands' decisions, ``play_hash``): a hash of every input of its exact measure."""
    up, p, a2, chart = cell
    text = json.dumps(
        {
            "play": play,
            "rules": json.loads(rules_json),
            "base": list(base),
            "values": [round(v, 9) for v in values],
            "sb": round(float(sb_units), 9),
            "cell": [up, p, a2, "chart" if chart else "optimal"],
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def play_hash(chains: dict[int, Any]) -> str:
    """A hash of the decisions a split's hands take (each chain's action and rescue in every state),
    so that shipped data stops matching if the analysis comes to play the split otherwise."""
    h = hashlib.sha256()
    for t in sorted(chains):
        out = chains[t]
        h.update(str(t).encode())
        h.update(np.ascontiguousarray(np.asarray(out.act, dtype=np.int64)).tobytes())
        h.update(np.ascontiguousarray(np.asarray(out.rfl, dtype=np.int64)).tobytes())
    return h.hexdigest()[:32]


def to_json(ex: SplitExact, cpu_s: float) -> dict[str, Any]:
    nz = np.nonzero(ex.probs)[0].tolist()
    return {
        "v0": ex.v0,
        "step": ex.step,
        "n": int(ex.probs.shape[0]),
        "probs": [[k, float(ex.probs[k])] for k in nz],
        "lines": [float(x) for x in ex.lines],
        "wager": float(ex.wager),
        "work": int(ex.work),
        "cpu_s": round(cpu_s, 2),
    }


def from_json(d: dict[str, Any]) -> SplitExact:
    probs = np.zeros(int(d["n"]))
    for k, q in d["probs"]:
        probs[int(k)] = float(q)
    return SplitExact(
        probs, float(d["v0"]), float(d["step"]), np.array(d["lines"]), float(d["wager"]), int(d["work"])
    )


@functools.cache
def shipped() -> dict[str, dict[str, Any]]:
    """Every shipped cell, by key (read once per process)."""
    cells: dict[str, dict[str, Any]] = {}
    for f in sorted(DATA.glob("splits-*.json")):
        cells.update(json.loads(f.read_text())["cells"])
    return cells


def lookup(key: str) -> SplitExact | None:
    got = shipped().get(key)
    return None if got is None else from_json(got)
