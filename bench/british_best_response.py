"""The players' best response to the banker reading every hand, N players, full pack (issue 27 item 3;
docs/analysis.md "Several players"): ``python bench/british_best_response.py N PACKS FIT EVAL [SEED]
[--budget B] [--eval-budget B] [--seconds S] [--fit-seconds S] [--json FILE]``.

Fits the best response on FIT sampled deals (``reading_best.fit_response``: its gain on them is biased up)
and values it on EVAL fresh deals (``reading_response_sample.sample_response``: unbiased, a lower bound on
the best response's gain), beside the fixed deviations ``heads_up`` and ``blind``; prints one table row
(per player and initial stake) and, with ``--json``, appends the whole result as one line to FILE.
The banker's edge against solved players is the exact blind edge plus the sampled gain of reading every
hand on the same deals (``edge_vs_solved``); against the deviator it is that less the deviation's gain,
paired deal by deal. Run it under ``nice -n 10``: minutes per row.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from pontoon.analysis.british.reading_best import bracket
from pontoon.rules.british import BRITISH


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("players", type=int)
    ap.add_argument("packs", type=int, choices=(1, 2))
    ap.add_argument("fit", type=int)
    ap.add_argument("eval", type=int)
    ap.add_argument("seed", type=int, nargs="?", default=27)
    ap.add_argument("--budget", type=int, default=None, help="programmes per deal in the fit (default all)")
    ap.add_argument("--eval-budget", type=int, default=None, help="programmes per deal in the valuation")
    ap.add_argument("--seconds", type=float, default=None, help="at most this long for the valuation")
    ap.add_argument("--fit-seconds", type=float, default=None, help="at most this long for the fit")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    if not 2 <= a.players <= 7 or a.fit < 1 or a.eval < 2:
        sys.exit("error: players 2 to 7, FIT >= 1 and EVAL >= 2 deals")
    t0 = time.perf_counter()
    out = bracket(
        BRITISH.with_(packs=a.packs),
        a.players,
        a.fit,
        a.eval,
        a.seed,
        budget=a.budget,
        eval_budget=a.eval_budget,
        seconds=a.seconds,
        fit_seconds=a.fit_seconds,
    )
    out.update(packs=a.packs, seed=a.seed, seconds=time.perf_counter() - t0)
    ev, fit = out["eval"], out["fit"]
    d = ev["deviations"]
    pct = lambda x: f"{100 * x:+.3f}%"  # noqa: E731
    cells = [f"{n} {pct(x['gain'])} +/- {100 * x['gain_se']:.3f}%" for n, x in d.items()]
    top = max(d, key=lambda n: d[n]["gain"])
    f = d[top]
    print(
        f"| {a.players} | {a.packs} | {fit['rounds']} ({fit['seconds']:.0f} s) | {pct(fit['in_sample_gain'])} "
        f"| {ev['rounds']} ({ev['seconds']:.0f} s) | {' ; '.join(cells)} "
        f"| {pct(ev['edge_vs_solved'])} +/- {100 * ev['reading_gain_se']:.3f}% "
        f"| {pct(f['edge'])} +/- {100 * f['edge_se']:.3f}% ({top}) |"
    )
    if a.json:
        with open(a.json, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
