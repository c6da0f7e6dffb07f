"""The simulator against the exact outcome distributions (issue 23): z-scores of every outcome's
frequency and of the variance, as the Markdown of docs/report-agreement.md.

    python bench/report_agreement.py --rounds 100000000 [--presets mbs federal ...]
        [--strategies basic optimal] [--seed 2026] [--json-dir DIR] [--out docs/report-agreement.md]
    python bench/report_agreement.py --from-json DIR/*.json --out docs/report-agreement.md
        [--exact-splits] [--dist-dir bench/agreement/dists]
        (the runs' counts against the distributions as the code computes them now; --summary: the
        summary table only; --exact-splits: every split round exact; --dist-dir: the distributions
        kept as JSON and read back, so that the exact ones are worked out once; where several runs
        of one preset and strategy are given (distinct seeds), their pooled table follows the runs':
        counts and rounds summed, the sample variance from the pooled moments)

Each run: one box, a continuous shuffler (every round from a full shoe, as the analysis assumes),
``session_length=1`` (the simulator's session histogram is then the outcome histogram).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from pontoon.analysis.distribution import round_distribution
from pontoon.rules.load import resolve_rules
from pontoon.sim.agreement import agreement, pool_runs, simulated_outcomes

PRESETS = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]


OPTS: dict[str, Any] = {"exact_splits": False, "dist_dir": None, "stored": True}


def distribution(preset: str, strategy: str) -> dict[str, Any]:
    """The preset's distribution (``--exact-splits``: every split round exact, minutes a preset on
    6-8 decks), read from / kept in ``--dist-dir`` where given."""
    exact_splits = bool(OPTS["exact_splits"])
    stored = bool(OPTS["stored"])
    path = None
    if OPTS["dist_dir"]:
        tail = "-exact" if exact_splits else ("" if stored else "-approx")
        path = Path(OPTS["dist_dir"], f"{preset}-{strategy}{tail}.json")
        if path.exists():
            return json.loads(path.read_text())  # type: ignore[no-any-return]
    t0 = time.process_time()
    d = round_distribution(
        resolve_rules(preset), strategy == "basic", exact_splits=exact_splits, stored=stored
    )
    d["cpu_seconds"] = time.process_time() - t0
    print(
        f"{preset} {strategy}: distribution in {d['cpu_seconds']:.1f} s of CPU", file=sys.stderr, flush=True
    )
    if path is not None:
        path.write_text(json.dumps(d, indent=1))
    return d


def run(preset: str, strategy: str, rounds: int, seed: int) -> dict[str, Any]:
    rules = resolve_rules(preset)
    exact = distribution(preset, strategy)
    t0 = time.perf_counter()
    counts, rep = simulated_outcomes(rules, rounds, strategy, seed)
    a = agreement(exact, counts)
    a.update(
        preset=preset,
        strategy=strategy,
        seed=seed,
        seconds=time.perf_counter() - t0,
        sim_edge=rep.get("house_edge"),
    )
    return a


def recompute(r: dict[str, Any]) -> dict[str, Any]:
    """A saved run's counts against the distribution as the code computes it now."""
    exact = distribution(r["preset"], r["strategy"])
    counts = {float(o["net"]): int(o["count"]) for o in r["outcomes"] if o["count"]}
    a = agreement(exact, counts)
    a.update({k: r[k] for k in ("preset", "strategy", "seed", "seconds", "sim_edge") if k in r})
    return a


def pooled(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One pooled agreement per preset and strategy given in two or more runs (``pool_runs``), its
    seed the runs' seeds joined with "+", against the same distribution as the runs."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in runs:
        groups.setdefault((r["preset"], r["strategy"]), []).append(r)
    out = []
    for (preset, strategy), rs in groups.items():
        if len(rs) < 2:
            continue
        pr = pool_runs(rs)
        a = agreement(distribution(preset, strategy), pr["counts"])
        seeds = "+".join(str(x) for x in sorted(pr["seeds"]))
        a.update(preset=preset, strategy=strategy, seed=f"{seeds} pooled", seconds=pr["seconds"])
        out.append(a)
    return out


def summary_md(results: list[dict[str, Any]]) -> str:
    out = [
        "| preset | strategy | rounds | seed | largest \\|z\\| of an outcome (net) | variance: simulated / exact (z) "
        "| mean z | its gap: exact - simulated (relative) | error bound (3 SE) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for a in results:
        worst = max((r for r in a["outcomes"] if r["probability"] > 0), key=lambda r: abs(r["z"]))
        v, m = a["variance"], a["mean"]
        gap = worst["probability"] - worst["count"] / a["rounds"]
        out.append(
            f"| {a['preset']} | {a['strategy']} | {a['rounds']:,} | {a['seed']} | {abs(worst['z']):.2f} "
            f"({worst['net']:+g}) | {v['simulated']:.5f} / {v['exact']:.5f} ({v['z']:+.2f}) | {m['z']:+.2f} "
            f"| {gap:+.1e} ({gap / worst['probability']:+.2%}) | {a['deviation_bound']:.1e} |"
        )
    return "\n".join(out) + "\n"


def to_md(results: list[dict[str, Any]]) -> str:
    out = []
    for a in results:
        out.append(
            f"### {a['preset']}, {a['strategy']} strategy: {a['rounds']:,} rounds (seed {a['seed']}, {a['seconds']:.0f} s)"
        )
        out.append("")
        m, v = a["mean"], a["variance"]
        out.append(
            f"mean {m['simulated']:+.6f} (exact {m['exact']:+.6f}, z {m['z']:+.2f}); variance {v['simulated']:.5f} "
            f"(exact {v['exact']:.5f}, z {v['z']:+.2f})"
        )
        out.append("")
        out.append("| net | exact probability | expected | simulated | z |")
        out.append("| --- | --- | --- | --- | --- |")
        for r in a["outcomes"]:
            if r["count"] == 0 and r["expected"] < 0.5:
                continue
            out.append(
                f"| {r['net']:+g} | {r['probability']:.4e} | {r['expected']:.1f} | {r['count']} | {r['z']:+.2f} |"
            )
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10_000_000)
    ap.add_argument("--presets", nargs="*", default=PRESETS)
    ap.add_argument("--strategies", nargs="*", default=["basic"])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json-dir")
    ap.add_argument("--from-json", nargs="*")
    ap.add_argument("--out")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--exact-splits", action="store_true", help="every split round exact (dist_box)")
    ap.add_argument("--dist-dir", help="keep / read the distributions here (one JSON a preset and strategy)")
    ap.add_argument(
        "--no-stored",
        action="store_true",
        help="every split not affordable approximated, the shipped exact splits (analysis/data) not used",
    )
    a = ap.parse_args()
    OPTS.update(exact_splits=a.exact_splits, dist_dir=a.dist_dir, stored=not a.no_stored)
    pools: list[dict[str, Any]] = []
    if a.from_json:
        runs = [json.loads(Path(p).read_text()) for p in a.from_json]
        results = [recompute(r) for r in runs]
        pools = pooled(runs)
    else:
        results = []
        for preset in a.presets:
            for strat in a.strategies:
                r = run(preset, strat, a.rounds, a.seed)
                results.append(r)
                if a.json_dir:
                    Path(a.json_dir, f"{preset}-{strat}-{a.rounds}.json").write_text(json.dumps(r, indent=1))
                print(
                    f"{preset} {strat}: max |z| {r['max_abs_z']:.2f}, variance z {r['variance']['z']:+.2f}",
                    flush=True,
                )
    text = summary_md(results) if a.summary else to_md(results)
    if pools:
        text += "\nPooled (each preset and strategy's runs as one sample):\n\n"
        text += summary_md(pools) if a.summary else to_md(pools)
    if a.out:
        Path(a.out).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
