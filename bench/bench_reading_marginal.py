"""The table of sums' marginal tables (``reading_last._marginal``) against an older version of the module,
on the same deals and every observation, interleaved deal by deal (``python bench/bench_reading_marginal.py
N PACKS DEALS [REF]``: REF a git commit whose ``reading_last.py`` is the baseline, default c569481, before
the marginals were summed from their parents). Each deal is an engine round of N solved players
(``reading_response_sample``'s table, seed 5); both are warmed first. Prints the CPU seconds of each, their
ratio, the largest difference of any stay or twist value and the number of decisions that differ.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pontoon.analysis.british import reading_last
from pontoon.analysis.british.reading import Seen
from pontoon.analysis.british.reading_response_sample import _rest, sampling_table
from pontoon.rules.british import BRITISH


def old_module(ref: str):  # type: ignore[no-untyped-def]
    src = subprocess.run(
        ["git", "show", f"{ref}:src/pontoon/analysis/british/reading_last.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "reading_last_old.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("reading_last_old", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    args = sys.argv[1:]
    players, packs, deals = ([int(x) for x in args[:3]] + [5, 1, 4][len(args[:3]) :])[:3]
    old = old_module(args[3] if len(args) > 3 else "c569481")
    rules, packs_, sol, rd, bots, seats, _ = sampling_table(BRITISH.with_(packs=packs), players)
    from pontoon.british.pack import BritishPack, one_pack
    from pontoon.british.round import BritishRound

    obs = [o for o in ((tuple(u), tuple(int(b) for b in bs)) for u, bs in sol.game.obs) if o in rd.support]
    times = {"old": 0.0, "new": 0.0}
    worst, differ, done, j, warm = 0.0, 0, 0, 0, False
    while done < deals:
        pack = BritishPack.shuffled(packs_, np.random.default_rng([5, j, 0]), one_pack(rules))
        bots.rng = np.random.default_rng([5, j, 1])
        rnd = BritishRound(rules, seats, "bank", pack)
        while not rnd.is_over() and rnd.phase != "banker":
            seat, verb, amt = bots.decide(rnd)
            rnd.act(seat, verb, amt)
        rest = _rest(rnd)
        j += 1
        if rest is None:
            continue
        others = Seen(rest[0], tuple(sorted(rest[1])), tuple(sorted(rest[2])))
        if not rd.observed(others) or len(rd._prefix(others)[2]) < reading_last.MIN_STATES:
            continue
        if not warm:  # numba's cache or compile, both
            old.LastPlanner(rd, others).values(obs[0])
            reading_last.LastPlanner(rd, others).values(obs[0])
            warm = True
        got = {}
        for name in ("old", "new") if done % 2 == 0 else ("new", "old"):
            mod = old if name == "old" else reading_last
            t0 = time.process_time()
            planner = mod.LastPlanner(rd, others)
            got[name] = [planner.values(o) for o in obs]
            times[name] += time.process_time() - t0
        for a, b in zip(got["old"], got["new"], strict=True):
            if a is None or b is None:
                differ += int((a is None) != (b is None))
                continue
            for x, y in ((a[0], b[0]), (a[1], b[1])):
                both = ~np.isnan(x) & ~np.isnan(y)
                differ += int((np.isnan(x) != np.isnan(y)).sum())
                if both.any():
                    worst = max(
                        worst, float(np.abs(x[both] - y[both]).max() / max(1.0, np.abs(x[both]).max()))
                    )
            with np.errstate(invalid="ignore"):
                fa = reading_last.twists_better(a[1], a[0])
                fb = reading_last.twists_better(b[1], b[0])
            differ += int((np.asarray(fa) != np.asarray(fb)).sum())
        done += 1
    print(
        f"{players} players, {packs} pack(s), {deals} deals x {len(obs)} observations: old {times['old']:.2f} s,"
        f" new {times['new']:.2f} s (CPU), ratio {times['old'] / max(times['new'], 1e-9):.2f}x;"
        f" largest relative difference {worst:.1e}, values or decisions that differ {differ}"
    )


if __name__ == "__main__":
    main()
