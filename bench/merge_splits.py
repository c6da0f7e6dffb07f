"""Merge splits worked out elsewhere (``precompute_splits.py --jobs``, the device run) into the
shipped data, checked (issue 23; ``analysis/dist_store.py``).

Each cell must sum to 1 within 1e-12 and have a positive lattice step; the merged preset's
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


def _check_cell(key: str, cell: dict[str, Any]) -> str | None:
    tot = sum(float(q) for _k, q in cell["probs"])
    if abs(tot - 1.0) > 1e-12:
        return f"{key} ({cell.get('label')}): sums to {tot!r}"
    if not float(cell["step"]) > 0 or any(not 0 <= int(k) < int(cell["n"]) for k, _q in cell["probs"]):
        return f"{key} ({cell.get('label')}): bad lattice"
    return None


def merge(src: Path, data: Path) -> int:
    doc = json.loads(src.read_text())
    preset = doc["about"]["preset"]
    bad = [m for k, c in doc["cells"].items() if (m := _check_cell(k, c)) is not None]
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--data", type=Path, default=Path(dist_store.DATA))
    a = ap.parse_args()
    dist_store.DATA = a.data  # what the analysis reads the shipped cells from
    sys.exit(max(merge(f, a.data) for f in a.files))


if __name__ == "__main__":
    main()
