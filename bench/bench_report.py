"""Time ``pontoon report`` (issue 23: the whole report for one preset in at most 2 s).

``python bench/bench_report.py [PRESET ...] [--runs N] [--format html,json,md,pdf] [--old SRC]``

Each run is a whole process, as a user runs it (``python -m pontoon.cli.app report --rules PRESET
--format F --out FILE``: interpreter start, imports, the analysis, both outcome distributions, pay
tables, risk, the file with its charts), and beside it the analysis alone (``pontoon analyze
--rules PRESET --json``, a whole process too): the baseline, so that the ratio report / analysis
says what the report adds whatever the machine's load. ``--old SRC``: the same commands on another
checkout's ``src`` (for example main's copied to /tmp), interleaved with this one's, run by run.
Prints each preset's median wall and CPU time (the process's user + system time) and the ratios.
On a shared machine the wall time counts waiting for a core; the CPU time does not.

``--parts PRESET``: where one report's CPU time goes, in one process (imports, the analysis,
the distributions, pay tables and risk, each format's writing).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PRESETS = ("mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack")


def _run(src: Path, args: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``pontoon`` process on the checkout ``src``."""
    env = dict(os.environ, PYTHONPATH=str(src), NUMBA_NUM_THREADS="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pontoon.cli.app", *args], env=env, check=True, stdout=subprocess.DEVNULL
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def compare(presets: list[str], formats: list[str], runs: int, trees: dict[str, Path]) -> None:
    out = Path(tempfile.mkdtemp(prefix="bench_report_"))
    # {(tree, preset, what): [(wall, cpu)]}; what: "analyze" or a format
    got: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for src in trees.values():  # warm: the files read once, numba's cache loaded
        _run(src, ["analyze", "--rules", presets[0], "--json"])
    for _ in range(runs):
        for p in presets:
            for name, src in trees.items():
                got.setdefault((name, p, "analyze"), []).append(
                    _run(src, ["analyze", "--rules", p, "--json"])
                )
                for f in formats:
                    args = ["report", "--rules", p, "--format", f, "--out", str(out / f"{name}-{p}.{f}")]
                    got.setdefault((name, p, f), []).append(_run(src, args))
    print(f"medians of {runs} runs, seconds (whole processes; load average {os.getloadavg()[0]:.1f})")
    print("tree  preset            what      wall    CPU  report/analysis (CPU)")
    for p in presets:
        for name in trees:
            base = statistics.median(c for _w, c in got[(name, p, "analyze")])
            for what in ("analyze", *formats):
                ws = [w for w, _c in got[(name, p, what)]]
                cs = [c for _w, c in got[(name, p, what)]]
                cpu = statistics.median(cs)
                ratio = "" if what == "analyze" else f"{cpu / base:5.2f}"
                print(f"{name:5s} {p:17s} {what:8s} {statistics.median(ws):6.3f} {cpu:6.3f}  {ratio}")
        if len(trees) == 2:
            a, b = trees
            for f in formats:
                ca = statistics.median(c for _w, c in got[(a, p, f)])
                cb = statistics.median(c for _w, c in got[(b, p, f)])
                print(f"      {p:17s} {f:8s} CPU {b}/{a}: {cb / ca:.2f}")
    last = list(trees)[-1]
    worst = max(statistics.median(w for w, _c in got[(last, p, f)]) for p in presets for f in formats)
    verdict = "met" if worst <= 2.0 else "NOT met"
    print(f"target 2 s per report (issue 23): slowest median wall time of '{last}' {worst:.3f} s: {verdict}")


def parts(preset: str, formats: list[str]) -> None:
    """Where one report's CPU time goes (one process; the import of each part counted with it)."""
    c0 = time.process_time()
    from pontoon.analysis import mathreport
    from pontoon.analysis.report import analyze
    from pontoon.rules.load import resolve_rules

    marks: list[tuple[str, float]] = [("imports (analysis)", time.process_time() - c0)]
    rules = resolve_rules(preset)
    t = time.process_time()
    analyze(rules)
    marks.append(("analysis (pontoon analyze's work)", time.process_time() - t))
    inner = mathreport.round_distributions
    took = [0.0]

    def timed(*args, **kw):  # type: ignore[no-untyped-def]
        t = time.process_time()
        got = inner(*args, **kw)
        took[0] += time.process_time() - t
        return got

    mathreport.round_distributions = timed  # type: ignore[assignment]
    t = time.process_time()
    rep = mathreport.math_report(rules)  # the analysis's solve is cached now
    rest = time.process_time() - t
    mathreport.round_distributions = inner  # type: ignore[assignment]
    marks.append(("outcome distributions (both)", took[0]))
    marks.append(("pay tables, risk, the rest", rest - took[0]))
    t = time.process_time()
    from pontoon.cli import report_render as R

    marks.append(("import the writers", time.process_time() - t))
    with tempfile.TemporaryDirectory() as d:
        for f in formats:
            t = time.process_time()
            if f == "pdf":
                R.write_pdf([rep], Path(d) / "r.pdf")
            else:
                {"json": R.to_json, "html": R.to_html, "md": R.to_md}[f]([rep])
            marks.append((f"write {f} (its imports included)", time.process_time() - t))
    for name, c in marks:
        print(f"{preset:16s} {name:34s} {c:6.3f} s CPU")
    print(f"{preset:16s} {'total (this process)':34s} {time.process_time() - c0:6.3f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("presets", nargs="*", default=list(PRESETS))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--format", default="html", help="comma-separated: html, json, md, pdf")
    ap.add_argument("--old", type=Path, help="another checkout's src, run interleaved as 'old'")
    ap.add_argument("--parts", action="store_true", help="where the CPU time goes, in one process")
    a = ap.parse_args()
    formats = a.format.split(",")
    if a.parts:
        for p in a.presets:
            parts(p, formats)
        return
    trees = {"new": SRC} if a.old is None else {"old": a.old, "new": SRC}
    compare(a.presets, formats, a.runs, trees)


if __name__ == "__main__":
    main()
