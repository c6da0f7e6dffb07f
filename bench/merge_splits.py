"""Merge splits worked out elsewhere (``precompute_splits.py --jobs``, the device run) into the
shipped data, checked (issue 23; ``analysis/dist_store.py``).

Each cell must sum to 1 within 1e-12 (at most 1 where a peeking dealer shows an Ace or a ten) and
have a positive lattice step; the merged preset's
distributions (chart and optimal play) must then take every merged cell (its key is what the
analysis computes here: same rules, shoe, lattice and play), still sum to 1 within 1e-12 and have
their mean at the house edge within 1e-12. A file that fails is not written.

    python bench/merge_splits.py /work/wt/device-out/report-splits/splits-mbs.json ...
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from pontoon.analysis import dist_store
from pontoon.analysis.distribution import round_distributions
from pontoon.rules.load import resolve_rules


def _check_cell(key: str, cell: dict[str, Any], peek: bool) -> str | None:
    """A cell sums to 1, or (a dealer who peeks with an Ace or ten up) to at most 1: the chance
    of no dealer natural, the round's loss to one counted apart."""
    tot = sum(float(q) for _k, q in cell["probs"])
    up = str(cell.get("label", "")).split(" ")[1:2]
    if (abs(tot - 1.0) > 1e-12 and not (peek and up in (["A"], ["T"]))) or not 0 < tot <= 1 + 1e-12:
        return f"{key} ({cell.get('label')}): sums to {tot!r}"
    if not float(cell["step"]) > 0 or any(not 0 <= int(k) < int(cell["n"]) for k, _q in cell["probs"]):
        return f"{key} ({cell.get('label')}): bad lattice"
    return None


def merge(src: Path, data: Path) -> int:
    doc = json.loads(src.read_text())
    preset = doc["about"]["preset"]
    peek = bool(resolve_rules(preset).dealer_peeks)
    bad = [m for k, c in doc["cells"].items() if (m := _check_cell(k, c, peek)) is not None]
    if bad:
        print(f"error: {src}: " + "; ".join(bad), file=sys.stderr)
        return 1
    if not doc["cells"]:
        print(f"{src}: no cells, nothing to merge")
        return 0
    out = data / f"splits-{preset}.json"
    old = json.loads(out.read_text()) if out.exists() else {"about": {"preset": preset}, "cells": {}}
    new = dict(old["cells"])
    new.update(doc["cells"])
    about = {
        "preset": preset,
        "made_by": "bench/precompute_splits.py (--jobs on the 16-core device), merged by bench/merge_splits.py",
    }
    merged = {"about": about, "cells": dict(sorted(new.items()))}
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(merged, separators=(",", ":")))
    os.replace(tmp, out)
    dist_store.shipped.cache_clear()
    rules = resolve_rules(preset)
    taken: set[str] = set()
    real = dist_store.lookup

    def seen(key: str) -> Any:
        got = real(key)
        if got is not None:
            taken.add(key)
        return got

    dist_store.lookup = seen  # type: ignore[assignment]
    try:
        ds = round_distributions(rules, (True, False))
    finally:
        dist_store.lookup = real  # type: ignore[assignment]
    problems = []
    for d in ds:
        if abs(d["total_probability"] - 1.0) > 1e-12:
            problems.append(f"{d['strategy']}: sums to {d['total_probability']!r}")
        if abs(d["mean"] + d["house_edge"]) > 1e-12:
            problems.append(f"{d['strategy']}: mean {d['mean']!r} is not the house edge {-d['house_edge']!r}")
    missed = set(doc["cells"]) - taken
    if missed:
        labels = sorted(doc["cells"][k].get("label", k) for k in missed)
        problems.append(f"{len(missed)} cells not taken by the analysis here: {labels}")
    if problems:
        if old["cells"]:
            out.write_text(json.dumps(old, separators=(",", ":")))
        else:
            out.unlink()
        print(f"error: {src}: " + "; ".join(problems), file=sys.stderr)
        return 1
    for d in ds:
        print(
            f"{preset} {d['strategy']}: {len(d['stored_cells'])} splits shipped exact, "
            f"exact split rounds {d['exact_split_probability']:.4%} of {d['split_probability']:.4%}, "
            f"sum-1 {d['total_probability'] - 1:+.1e}, mean+edge {d['mean'] + d['house_edge']:+.1e}, "
            f"sd {d['sd']:.6f}"
        )
    return 0


NAMES = "A23456789T"


def _signatures(preset: str) -> dict[str, tuple[str, Any]]:
    """Each split the preset's distributions look up (chart and optimal play): its label ("6 up 8-8
    (chart)") -> (its key here, what its measure is made from besides the rules: the shoe after the
    up card, the lattice, the Super Bonus units and the play hash of its hands)."""
    from pontoon.analysis import distribution as D

    seen: dict[str, tuple[str, Any]] = {}
    orig = D._Up.store_key

    def capture(self: Any, p: int, a2: int) -> str:
        key = orig(self, p, a2)
        sv = self.solver
        sig = (
            tuple(int(x) for x in sv.base),
            tuple(round(v, 9) for v in self.grid.values),
            round(float(sv.pr.sb_units), 9),
            dist_store.play_hash(self.chains[self._split_key(p, a2)]),
            a2,
        )
        label = f"{NAMES[sv.up]} up, {NAMES[p]}-{NAMES[p]} ({'chart' if self._chart(p) else 'optimal'})"
        seen[label] = (key, sig)
        return key

    D._Up.store_key = capture  # type: ignore[method-assign]
    try:
        round_distributions(resolve_rules(preset), (True, False))
    finally:
        D._Up.store_key = orig  # type: ignore[method-assign]
    return seen


def family(presets: list[str], data: Path) -> int:
    """Presets whose main wagers are the same (mbs, rws-plus, rws-pandemonium): each split one of them
    ships is copied to the others under their own keys where the split's inputs besides the rules are
    the same, after checking that every split two of them ship is the same measure (1e-15)."""
    from pontoon.analysis.player import Params

    params = [Params.of(resolve_rules(p)) for p in presets]
    sigs = {p: _signatures(p) for p in presets}
    docs = {p: json.loads((data / f"splits-{p}.json").read_text()) for p in presets}
    by_label: dict[str, dict[str, dict[str, Any]]] = {}
    for p in presets:
        for label, (key, _sig) in sigs[p].items():
            if key in docs[p]["cells"]:
                by_label.setdefault(label, {})[p] = docs[p]["cells"][key]
    same = 0
    for label, cells in by_label.items():
        ref = next(iter(cells.values()))
        for other in cells.values():
            a, b = dist_store.from_json(ref), dist_store.from_json(other)
            if not (a.v0 == b.v0 and a.step == b.step and len(a.probs) == len(b.probs)):
                print(f"error: {label}: the presets' measures differ (lattice)", file=sys.stderr)
                return 1
            if (
                max(abs(a.probs - b.probs).max(), abs(a.lines - b.lines).max(), abs(a.wager - b.wager))
                > 1e-15
            ):
                print(f"error: {label}: the presets' measures differ", file=sys.stderr)
                return 1
            same += 1
    copied = 0
    for p in presets:
        for label, (key, sig) in sigs[p].items():
            if key in docs[p]["cells"] or label not in by_label:
                continue
            src = next(q for q in presets if q in by_label[label])
            if sigs[src][label][1] != sig:
                continue  # played otherwise or on another shoe: not the same measure
            cell = dict(by_label[label][src])
            cell["label"] = f"{p} {label}"
            cell["copied_from"] = src
            docs[p]["cells"][key] = cell
            copied += 1
        docs[p]["cells"] = dict(sorted(docs[p]["cells"].items()))
        docs[p]["about"]["family"] = presets
        (data / f"splits-{p}.json").write_text(json.dumps(docs[p], separators=(",", ":")))
    print(
        f"family {presets}: main-wager parameters equal but for {_param_diff(params)}; "
        f"{same} shipped pairs of cells equal to 1e-15; {copied} cells copied"
    )
    return 0


def _param_diff(params: list[Any]) -> list[str]:
    import numpy as np

    def fields(x: Any) -> dict[str, Any]:
        return dict(vars(x)) if hasattr(x, "__dict__") else {k: getattr(x, k) for k in type(x).__slots__}

    a = fields(params[0])
    out = set()
    for other in params[1:]:
        b = fields(other)
        out |= {k for k in a if not np.array_equal(np.asarray(a[k]), np.asarray(b[k]))}
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--data", type=Path, default=Path(dist_store.DATA))
    ap.add_argument("--family", nargs="*", default=[], help="presets of one main wager: share their cells")
    a = ap.parse_args()
    dist_store.DATA = a.data  # what the analysis reads the shipped cells from
    rc = max([merge(f, a.data) for f in a.files], default=0)
    if a.family and rc == 0:
        rc = family(a.family, a.data)
        dist_store.shipped.cache_clear()
        if rc == 0:  # the copies checked as the merged cells are
            for p in a.family:
                rc = max(rc, merge(a.data / f"splits-{p}.json", a.data))
    sys.exit(rc)


if __name__ == "__main__":
    main()
