"""Issue 27: resplits on the full pack by sampling (``split_resplit_sample``): the profile of ``pontoon analyze
--rules british`` (CFR+ to half the target, the banker facing a split by fictitious play), then offers of each pair
the player's best response splits drawn with their exact chances and valued exactly (``FastWorld``).

    nice -n 10 .venv/bin/python bench/resplit_sample.py --packs 1 --samples 12 --out /tmp/resplit/one.json

Each offer: seconds to minutes of CPU and up to about 500 MB (the memo is restarted past ``--max-memo``)."""

from __future__ import annotations

import argparse
import json
import pickle
import time
from pathlib import Path

import numpy as np

from pontoon.analysis.british.game import NAMES, NCLASS
from pontoon.analysis.british.solve import solve
from pontoon.analysis.british.split_banker import class_ends, with_split_banker
from pontoon.analysis.british.split_fast import SPLIT_CLASSES, SplitModel
from pontoon.analysis.british.split_resplit import house_play
from pontoon.analysis.british.split_resplit_sample import sample_offers
from pontoon.analysis.british.splits import split_deviation
from pontoon.rules.british import BRITISH


def profile(packs: int, cache: Path):  # type: ignore[no-untyped-def]
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    rules = BRITISH.with_(packs=packs)
    sol = solve(rules, target=5e-4, check_every=25)
    twists: dict[int, np.ndarray] = {}
    dev = with_split_banker(
        sol.game, split_deviation(sol.game, sol.tables, sol.tw), rounds=4, twists=twists, nphi=SPLIT_CLASSES
    )
    got = (rules, sol.game, dev, twists, sol.banker_br)
    cache.write_bytes(pickle.dumps(got))
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packs", type=int, default=1)
    ap.add_argument("--samples", type=int, default=12, help="offers per pair")
    ap.add_argument("--pairs", default="", help="e.g. 88,77 (default: the pairs the best response splits)")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-memo", type=int, default=1_500_000)
    a = ap.parse_args()
    rules, g, dev, twists, banker_br = profile(a.packs, a.out.with_suffix(".profile.pkl"))
    model = SplitModel(rules, g)
    rng = np.random.default_rng(a.seed)
    names = [p for p in a.pairs.split(",") if p] or [
        k
        for k, d in dev["pairs"].items()
        if "split_banker" in d and d["split_banker"]["upper"] > d["no_split"]
    ]
    result = {"packs": a.packs, "seed": a.seed, "pairs": {}}
    for name in names:
        x = next(c for c in range(NCLASS) if NAMES[c] * 2 == name)
        be = class_ends(g, twists[x])
        t0 = time.process_time()

        def log(kind, row, name=name):  # type: ignore[no-untyped-def]
            print(
                name,
                kind,
                {k: round(v, 5) if isinstance(v, float) else v for k, v in row.items()},
                flush=True,
            )

        got = sample_offers(model, x, be, SPLIT_CLASSES, house_play(g), rng, a.samples, log, a.max_memo)
        pair = dev["pairs"][name]
        k, n = int(g.counts[x]), g.total_cards
        got["pair_chance_per_round"] = (k / n) * ((k - 1) / (n - 1)) * pair.get("splittable_share", 1.0)
        got["no_split"] = pair["no_split"]
        got["cpu_seconds"] = time.process_time() - t0
        result["pairs"][name] = got
        a.out.write_text(json.dumps(result, indent=1))
        print(name, "gain per split", got["gain_per_split"], "+-", got["gain_per_split_se"], flush=True)


if __name__ == "__main__":
    main()
