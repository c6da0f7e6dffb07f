"""The first banker hint facing a split (``split_bots.split_banker_values``: the player's split runs gathered
by what the banker sees, then one observation's values), old code against new, each in a fresh process
(``python bench/bench_split_hint.py [PACKS] [PAIRS] [REF]``: default one pack, pairs 8,6, REF c569481 whose
``src/`` is the old code). Interleaved old/new per pair; prints each process's CPU seconds for the first
hint (JIT compile of the split kernels included, the same in both), their ratio, and whether the hint's
figures are equal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
from pontoon.rules.british import BRITISH
from pontoon.analysis.british.strategy import solved
from pontoon.analysis.british import split_bots as sb
sol = solved(BRITISH.with_(packs=int(sys.argv[1])))
x = int(sys.argv[2])
t = time.process_time()
model, gd = sb._reading(sol, x)
seen = gd.obs[len(gd.obs) // 3]
out = None
for hand in sol.game.banker_index:
    try:
        out = sb.split_banker_values(sol, x, seen, hand)
        break
    except KeyError:
        continue
first = time.process_time() - t
t = time.process_time()
later = gd.obs[:: max(1, len(gd.obs) // 20)]
for o in later:
    try:
        sb.split_banker_values(sol, x, o, hand)
    except KeyError:
        pass
print(json.dumps({"first": first, "later": (time.process_time() - t) / len(later), "values": out, "hand": list(hand)}))
"""


def child(src: str, packs: int, x: int) -> dict:  # type: ignore[type-arg]
    env = dict(os.environ, PYTHONPATH=src, PONTOON_PURE="1")
    got = subprocess.run(
        [sys.executable, "-c", CHILD, str(packs), str(x)], env=env, capture_output=True, text=True
    )
    if got.returncode:
        raise SystemExit(f"error: the {src} child failed: {got.stderr.strip().splitlines()[-1:]}")
    return json.loads(got.stdout.strip().splitlines()[-1])


def main() -> None:
    packs = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    pairs = [int(v) for v in (sys.argv[2] if len(sys.argv) > 2 else "8,6").split(",")]
    ref = sys.argv[3] if len(sys.argv) > 3 else "c569481"
    old_root = Path(tempfile.mkdtemp())
    arch = subprocess.run(["git", "archive", ref, "src"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "xf", "-", "-C", str(old_root)], input=arch, check=True)
    new_src = str(Path(__file__).resolve().parent.parent / "src")
    t = {"old": 0.0, "new": 0.0}
    for i, x in enumerate(pairs):
        got = {}
        for name in ("old", "new") if i % 2 == 0 else ("new", "old"):
            got[name] = child(str(old_root / "src") if name == "old" else new_src, packs, x)
            t[name] += got[name]["first"]
        same = got["old"]["values"] == got["new"]["values"]
        print(
            f"{x}-{x}: first hint old {got['old']['first']:.2f} s, new {got['new']['first']:.2f} s (CPU); later hints"
            f" old {1000 * got['old']['later']:.1f} ms, new {1000 * got['new']['later']:.1f} ms; figures equal: {same}"
            f" {got['new']['values']}",
            flush=True,
        )
    print(
        f"first hint, {len(pairs)} pairs: old {t['old']:.2f} s, new {t['new']:.2f} s, ratio {t['old'] / t['new']:.2f}x"
    )


if __name__ == "__main__":
    main()
