"""The players' best response to the banker reading every hand, N >= 2, from deals sampled anywhere and pooled
(issue 27 item 3; docs/analysis.md "Several players", "Pooled runs").

``reading_best`` fits and values in one process; a cell needs hundreds of deals (several CPU hours), so the
deals are drawn by independent runs (other seeds, other machines) and pooled afterwards. Per deal a run keeps:

* its scalars (``deal_record``): the reading banker's gain over the blind one per player (as
  ``reading_sample``), and the exact conditional gain over the solution of each fixed deviation
  (``heads_up``, ``blind``: ``reading_response_sample.DEVIATIONS``), ``(y_dev - y_0) . z_D``;
* its terminal values ``z_D`` (``reading_best.deal_values``, every programme: unbiased for the deviator's
  terminal values ``tv``), summed over batches of a few deals (float32: the files come back from a lent
  machine with a size limit).

Pooled (``pool``), per cell: the fixed deviations' mean gains with their standard errors (unbiased lower
bounds on the best response's gain), the banker's edge against solved players (the exact blind edge plus
the mean reading gain) and against each deviation (paired deal by deal); the best response fitted on every
batch (its in-sample gain: **biased up**, an upper figure) and **cross-fitted**: the batches split in two
folds by a hash of their seed and first deal, the best response fitted on each fold valued on the other
(``(y_fit - y_0) . S_b`` per batch ``b``), each an unbiased estimate of the gain of a strategy fitted on half
the deals, so of a lower bound on the best response's gain, with its standard error over batches (a batch's
deals are independent of the other batches', so batches are the sampling units). ``fitted_5`` and
``fitted_15`` (``reading_best.thresholded``) are cross-fitted the same way.

With the control (``reading_control``: the same deal valued against the blind banker, ``c_D``, whose mean
``mu`` is exact), every figure is also computed from ``z_D - c_D + mu`` (``controlled``): unbiased for the
same figures, nothing fitted, with the same standard-error formulas over the same units and several times
smaller standard errors.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pontoon.analysis.british.reading import Seen, blind_response, seen_from_view
from pontoon.analysis.british.reading_best import THRESHOLDS, Terms, deal_values, terms_of, thresholded
from pontoon.analysis.british.reading_control import CTL, blind_values, control_mean, control_scalars, replay
from pontoon.analysis.british.reading_last import planner
from pontoon.analysis.british.reading_response import best_response
from pontoon.analysis.british.reading_response_sample import (
    DEVIATIONS,
    _reading_gain,
    deviation,
    sampling_table,
)
from pontoon.analysis.british.values import player_flow

MAGIC = (
    b"NBRZ1"  # a batch record of the z file: MAGIC, its length (8 bytes), zlib(JSON header, "\n", float32)
)


@dataclass
class Table:
    """A sampled table of ``players`` solved players and the reading banker, with the deviator's terminals
    and the flows of the solution and of the fixed deviations (once per cell and process)."""

    rules: Any
    players: int
    packs: int
    sol: Any
    rd: Any
    bots: Any
    seats: list[str]
    n0: np.ndarray
    tm: Terms
    y0: np.ndarray
    dev_flows: dict[str, np.ndarray] = field(default_factory=dict)
    blind_edge: float = 0.0
    mu: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the control's exact mean (reading_control)


def table(rules: Any, players: int) -> Table:
    rules, packs, sol, rd, bots, seats, n0 = sampling_table(rules, players)
    g = sol.game
    y0 = player_flow(g, sol.sigma)
    flows = {name: player_flow(g, deviation(sol, name)) for name in DEVIATIONS}
    _, blind = blind_response(sol)
    tm = terms_of(g, sol.sigma)
    return Table(
        rules, players, packs, sol, rd, bots, seats, n0, tm, y0, flows, -blind, control_mean(sol, tm)
    )


def deal_record(t: Table, seed: int, j: int) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """Deal ``j`` of ``seed`` (the pack from ``default_rng([seed, j, 0])``, the bots' stream ``[seed, j, 1]``:
    as ``reading_best.sampled_values`` and ``sample_response``): its scalars (the control's among them,
    ``reading_control``), ``z_D`` and the control ``c_D`` (zeros where the banker has a Pontoon)."""
    from pontoon.analysis.british.bots import initial_stakes

    rnd, rest = replay(t, seed, j)
    plans = (
        None if rest is None else planner(t.rd, Seen(rest[0], tuple(sorted(rest[1])), tuple(sorted(rest[2]))))
    )
    gain = 0.0  # the reading banker's gain over the blind one per player (reading_sample)
    if not rnd.is_over():
        seen = seen_from_view(rnd.view(rnd.banker), initial_stakes(rnd))
        if seen is not None and t.rd.observed(seen):
            gain = _reading_gain(t.rd, seen, rest, plans) / t.players
    if rest is None:
        z = np.zeros(len(t.y0))
    else:
        z = deal_values(t.rd, t.tm, rest, t.n0, None, plans=plans)
    c = blind_values(t, rest)
    rec: dict[str, Any] = {"seed": seed, "j": j, "reading_gain": gain, "solved": float(t.y0 @ z)}
    for name, y in t.dev_flows.items():
        rec[name] = float((y - t.y0) @ z)
    return rec | control_scalars(t, c), z, c


def write_batch(fh: Any, header: dict[str, Any], zsum: np.ndarray) -> None:
    """One batch record (``MAGIC``, length, zlib of the JSON header and the float32 sums) in one write."""
    body = zlib.compress(json.dumps(header).encode() + b"\n" + zsum.astype("<f4").tobytes(), 6)
    fh.write(MAGIC + struct.pack("<Q", len(body)) + body)
    fh.flush()


def read_batches(data: bytes) -> Iterator[tuple[dict[str, Any], np.ndarray]]:
    """The batch records of a z file's bytes. A record cut short at the end (a run stopped mid-write) is
    dropped, and so is one that does not decompress (reading resumes at the next ``MAGIC``); a file that does
    not start with a record raises ``ValueError``."""
    if data and not data.startswith(MAGIC):
        raise ValueError(f"not a batch record at byte 0: expected {MAGIC!r}")
    at = 0
    while at < len(data):
        head = at + len(MAGIC)
        if data[at:head] != MAGIC or head + 8 > len(data):
            return
        (size,) = struct.unpack("<Q", data[head : head + 8])
        end = head + 8 + size
        try:
            raw = zlib.decompress(data[head + 8 : end]) if end <= len(data) else None
        except zlib.error:
            raw = None
        if raw is None:
            nxt = data.find(MAGIC, at + 1)
            if nxt < 0:
                return
            at = nxt
            continue
        line, _, arr = raw.partition(b"\n")
        yield json.loads(line), np.frombuffer(arr, "<f4").astype(np.float64)
        at = end


def cell_key(players: int, packs: int) -> str:
    return f"{players}x{packs}"


def _fold(header: dict[str, Any]) -> int:
    h = hashlib.sha256(f"{header['seed']}:{header['first']}".encode()).digest()
    return h[0] & 1


def _mean_se(v: np.ndarray, n: np.ndarray | None = None) -> tuple[float, float]:
    """The mean of per-unit sums ``v`` over deals ``n`` per unit (one each by default) and its standard
    error, units independent (the cluster formula: per-deal scalars when ``n`` is None)."""
    if n is None:
        n = np.ones(len(v))
    tot = float(n.sum())
    if tot == 0:
        return 0.0, float("nan")
    m = float(v.sum()) / tot
    k = len(v)
    if k < 2:
        return m, float("nan")
    return m, float(np.sqrt(k / (k - 1) * ((v - n * m) ** 2).sum()) / tot)


Batch = tuple[dict[str, Any], np.ndarray]


def pool_cell(
    t: Table, records: list[dict[str, Any]], batches: list[Batch], controls: list[Batch] | None = None
) -> dict[str, Any]:
    """One cell's pooled figures (per player and initial stake; a gain is the deviator's over the solution).
    With the control (``reading_control``: each deal's ``*_ctl`` scalars, ``controls`` the batches' sums of
    ``c_D``), ``controlled`` holds the same figures from ``z_D - c_D + mu`` wherever a deal or batch has its
    control (the plain value where it has none: each is unbiased for the same figure)."""
    out = _figures(t, records, batches, lambda r, name: float(r[name]))
    out = {"players": t.players, "packs": t.packs, "deals": len(records)} | out
    by = {(int(h["seed"]), int(h["first"]), int(h["deals"])): c for h, c in controls or []}
    have = sum(1 for r in records if all(f"{name}{CTL}" in r for name in DEVIATIONS))
    if not have and not by:
        return out
    dmu = {name: float((y - t.y0) @ t.mu) for name, y in t.dev_flows.items()}

    def controlled(r: dict[str, Any], name: str) -> float:
        c = r.get(f"{name}{CTL}")
        return float(r[name]) if c is None else float(r[name]) - float(c) + dmu[name]

    tilde = []
    for h, z in batches:
        c = by.get((int(h["seed"]), int(h["first"]), int(h["deals"])))
        tilde.append((h, z if c is None else z - c + float(h["deals"]) * t.mu))
    got = _figures(t, records, tilde, controlled)
    got["deals_with_control"] = have
    got["fit_deals_with_control"] = int(sum(float(h["deals"]) for h, _ in batches if _key(h) in by))
    out["controlled"] = got
    return out


def _key(h: dict[str, Any]) -> tuple[int, int, int]:
    return (int(h["seed"]), int(h["first"]), int(h["deals"]))


def _figures(
    t: Table,
    records: list[dict[str, Any]],
    batches: list[Batch],
    value: Callable[[dict[str, Any], str], float],
) -> dict[str, Any]:
    """``pool_cell``'s figures with each deal's deviation gains ``value(record, name)`` and the batches'
    terminal values as given."""
    out: dict[str, Any] = {}
    gains = np.array([r["reading_gain"] for r in records])
    rg, rse = _mean_se(gains)
    out["edge_vs_solved"], out["edge_vs_solved_se"] = t.blind_edge + rg, rse
    out["deviations"] = {}
    for name in DEVIATIONS:
        d = np.array([value(r, name) for r in records])
        m, se = _mean_se(d)
        e, ese = _mean_se(gains - d)
        out["deviations"][name] = {"gain": m, "gain_se": se, "edge": t.blind_edge + e, "edge_se": ese}
    if not batches:
        return out
    g = t.sol.game
    n = np.array([float(h["deals"]) for h, _ in batches])
    s = np.array([z for _, z in batches])
    out["fit_deals"] = int(n.sum())
    out["batches"] = len(batches)
    zbar = s.sum(axis=0) / n.sum()
    _, pure, best = best_response(g, zbar)
    out["in_sample_gain"] = best - float(t.y0 @ zbar)
    folds = np.array([_fold(h) for h, _ in batches])
    cross: dict[str, np.ndarray] = {}
    for f in (0, 1):
        fit, val = folds != f, folds == f
        if not fit.any() or not val.any():
            continue
        zf = s[fit].sum(axis=0) / n[fit].sum()
        _, pf, _ = best_response(g, zf)
        strategies = {"fitted": pf} | {
            f"fitted_{int(100 * tau)}": thresholded(g, zf, t.sol.sigma, tau) for tau in THRESHOLDS
        }
        for name, st in strategies.items():
            d = s[val] @ (player_flow(g, st) - t.y0)
            cross[name] = np.concatenate([cross.get(name, np.zeros(0)), d])
    both = np.concatenate([n[folds == 0], n[folds == 1]])
    # each batch's reading gains (its deals' records): the edge against the cross-fitted response, paired
    by_deal = {(int(r["seed"]), int(r["j"])): float(r["reading_gain"]) for r in records}
    rgb = np.array(
        [
            sum(by_deal.get((int(h["seed"]), j), np.nan) for j in range(h["first"], h["first"] + h["deals"]))
            for h, _ in batches
        ]
    )
    rgb = np.concatenate([rgb[folds == 0], rgb[folds == 1]])
    out["cross_fitted"] = {}
    for name, d in cross.items():
        if len(d) != len(both):
            continue
        m, se = _mean_se(d, both)
        out["cross_fitted"][name] = {"gain": m, "gain_se": se}
        if np.isfinite(rgb).all():
            e, ese = _mean_se(rgb - d, both)
            out["cross_fitted"][name] |= {"edge": t.blind_edge + e, "edge_se": ese}
    return out


def summary(cell: dict[str, Any]) -> dict[str, Any]:
    """The best response's gain bracketed and the banker's edge against one best-responding player (the other
    players solved). Lower figure: the largest unbiased valued gain (fixed deviations, cross-fitted responses;
    0 where all are below: the solution is among his strategies), so the edge is **at most** the paired edge
    against that response (the exact blind edge plus the reading gain less its gain, deal by deal, with its
    standard error); upper figure: the in-sample gain (biased up), so the edge is **at least** the edge
    against solved players less it. A cell is **resolved** (within +/-0.2%) when half the interval plus the
    standard error is at most 0.2%. Choosing the largest of five valued gains can overstate it by up to about
    a standard error."""
    cands = dict(cell["deviations"]) | {k: v for k, v in cell.get("cross_fitted", {}).items() if "edge" in v}
    top = max(cands, key=lambda k: cands[k]["gain"])
    e, ese = cell["edge_vs_solved"], cell["edge_vs_solved_se"]
    if cands[top]["gain"] > 0:
        low, low_se, at_most, se, by = (
            cands[top]["gain"],
            cands[top]["gain_se"],
            cands[top]["edge"],
            cands[top]["edge_se"],
            top,
        )
    else:
        low, low_se, at_most, se, by = 0.0, 0.0, e, ese, "solution"
    high = max(cell.get("in_sample_gain", float("inf")), low)
    at_least = e - high
    half = abs(at_most - at_least) / 2
    return {
        "lower": low,
        "lower_se": low_se,
        "lower_by": by,
        "upper": high,
        "edge_at_most": at_most,
        "edge_at_least": at_least,
        "edge_se": se,
        "resolved": bool(np.isfinite(half + se) and half + se <= 0.002),
    }


def load_runs(
    paths: Iterable[str],
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[Batch]], dict[str, list[Batch]]]:
    """The deal records (``*.jsonl``), batch records (``*.bin``) and control batch records (``*.bin``
    whose headers say ``"control": true``, ``reading_control``) of several runs' files, by cell, each deal
    once (keyed by seed and deal number: a file given twice counts once). A deal's lines from several files
    merge (a run's scalars and, from ``device_nbr.py control``, its control's); a control line whose deal
    is not given is dropped."""
    records: dict[str, dict[tuple[int, int], dict[str, Any]]] = {}
    batches: dict[str, dict[tuple[int, int], Batch]] = {}
    controls: dict[str, dict[tuple[int, int], Batch]] = {}
    for p in paths:
        if p.endswith(".jsonl"):
            with open(p, encoding="utf-8") as fh:
                for line in fh:
                    if not line.strip():
                        continue
                    try:
                        r = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a line cut short at the end of a stopped run
                    if "cell" in r:
                        records.setdefault(r["cell"], {}).setdefault(
                            (int(r["seed"]), int(r["j"])), {}
                        ).update(r)
        elif p.endswith(".bin"):
            with open(p, "rb") as fb:
                for h, z in read_batches(fb.read()):
                    into = controls if h.get("control") else batches
                    into.setdefault(h["cell"], {})[(int(h["seed"]), int(h["first"]))] = (h, z)
        else:
            raise ValueError(f"{p}: accepted run files end in .jsonl (deals) or .bin (batches)")
    return (
        {k: [r for r in v.values() if "reading_gain" in r] for k, v in records.items()},
        {k: list(v.values()) for k, v in batches.items()},
        {k: list(v.values()) for k, v in controls.items()},
    )
