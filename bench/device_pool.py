"""``precompute_splits.py --jobs``: many presets' exact splits over a process pool, within a deadline.

The parent lists each preset's splits (a dry run of the distribution: which (up card, pair) the
chart splits, and optimal play where it splits otherwise), compiles the recursion on a tiny split
first (so a broken setup fails in seconds), then forks one process per split (``maxtasksperchild``
1: each split's memory goes back when it ends). Each result is merged into
``OUT/splits-<preset>.json`` (the shipped files' format, ``dist_store``) at once, and
``OUT/summary.json`` says what ended, what was given up (memory) and what was still running when
the budget ran out (the pool is then terminated; nothing half-done is written)."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import resource
import time
from pathlib import Path
from typing import Any

from pontoon.analysis import dist_box, dist_store
from pontoon.analysis import distribution as D
from pontoon.rules.load import resolve_rules

NAMES = "A23456789T"
REAL = D.split_exact
T0 = time.monotonic()


def _log(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def _up_results(rules: Any) -> tuple[Any, Any]:
    sol = D.solve(rules)
    grid = D._grid(rules, sol.upcards[0].detail["solver"].pr.sb_units)
    return sol, grid


def _cells(preset: str, strategies: tuple[bool, ...]) -> list[tuple[str, int, int, float]]:
    """(preset, up, pair, chance of the round) of every split its strategies take, the chart's and
    optimal play's (a dry run: every split approximated, the calls recorded)."""
    rules = resolve_rules(preset)
    sol, grid = _up_results(rules)
    seen: dict[tuple[int, int], None] = {}

    def note(*args: Any, **kw: Any) -> None:
        solver, p = args[2], args[4]
        pr = solver.pr
        if not (p == 0 and not pr.resplit_aces and not pr.hit_split_aces):  # one card each: exact already
            seen[(int(solver.up), int(p))] = None

    D.split_exact = note  # type: ignore[assignment]
    try:
        for ur in sol.upcards:
            shared: dict[Any, Any] = {}
            for basic in strategies:
                D._upcard(rules, grid, ur, basic, D.RoundDist(), ur.prob, D.EXACT_WORK, True, shared, True)
    finally:
        D.split_exact = REAL
    out = []
    for ur in sol.upcards:
        sv = ur.detail["solver"]
        base, n = sv.base, float(sv.base.sum())
        for up, p in seen:
            if up == int(sv.up):
                out.append((preset, up, p, float(ur.prob) * base[p] * (base[p] - 1) / (n * (n - 1))))
    return out


def _one(task: tuple[str, int, int, float, tuple[bool, ...], float], stored: bool = True) -> dict[str, Any]:
    """One split (the chart's, then optimal play's where it differs), in its own process; a split
    shipped already (``stored``) is taken, not worked out again."""
    preset, up, pair, _prob, strategies, mem = task
    dist_box.MEM_LIMIT = int(mem)
    t0 = time.process_time()
    rules = resolve_rules(preset)
    sol, grid = _up_results(rules)
    ur = next(u for u in sol.upcards if int(u.detail["solver"].up) == up)
    got: dict[str, Any] = {}
    state = {"label": "", "gave_up": 0}

    class Rec(dict):  # type: ignore[type-arg]
        def __setitem__(self, key: str, val: Any) -> None:
            ex, cpu = val
            cell = dist_store.to_json(ex, cpu)
            cell["label"] = state["label"]
            got[key] = cell

    def pick(*args: Any, **kw: Any) -> Any:
        solver, p = args[2], args[4]
        if int(solver.up) != up or p != pair:
            return None
        ex = REAL(*args, **kw)
        if ex is None:
            state["gave_up"] += 1
        return ex

    D.split_exact = pick  # type: ignore[assignment]
    shared: dict[Any, Any] = {}
    for basic in strategies:
        state["label"] = (
            f"{preset} {NAMES[up]} up, {NAMES[pair]}-{NAMES[pair]} ({'chart' if basic else 'optimal'})"
        )
        D._upcard(rules, grid, ur, basic, D.RoundDist(), ur.prob, D.EXACT_WORK, True, shared, stored, Rec())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    return {
        "preset": preset,
        "up": up,
        "pair": pair,
        "cells": got,
        "gave_up": state["gave_up"],
        "cpu_s": round(time.process_time() - t0, 1),
        "peak_gb": round(rss, 2),
    }


def _write(path: Path, doc: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, separators=(",", ":")))
    os.replace(tmp, path)


def _warm() -> None:
    """Compile the recursion (numba, cached on disk) and check it on a small split: mbs 9-9 against
    a 6 (a second of CPU once compiled): its measure sums to 1, its ways as known."""
    res = _one(("mbs", 5, 8, 0.0, (True,), 4e9), stored=False)  # shipped: worked out all the same
    cells = list(res["cells"].values())
    if len(cells) != 1:
        raise SystemExit(f"error: the warm-up split gave {len(cells)} cells, not 1")
    tot = sum(q for _k, q in cells[0]["probs"])
    if abs(tot - 1.0) > 1e-12:
        raise SystemExit(f"error: the warm-up split's measure sums to {tot!r}, not 1")
    _log(f"warm-up: {cells[0]['label']}: {cells[0]['work']:,} ways, sum {tot!r}, {res['cpu_s']} s CPU")


def pool_main(
    presets: list[str],
    jobs: int,
    budget_s: float,
    mem_gb: float,
    out: Path,
    which: list[str],
    only: list[str] | None = None,
) -> None:
    """``only``: the splits to work out, "preset:up:pair" (value indices), in that order (a second
    run of what a first left), else every split of ``presets``, cheap pairs first."""
    deadline = T0 + budget_s - 15.0  # room to terminate the pool and write the files
    out.mkdir(parents=True, exist_ok=True)
    strategies = tuple(s == "basic" for s in which)
    _warm()
    tasks: list[tuple[str, int, int, float]] = []
    if only:
        for item in only:
            preset, up, pair = item.split(":")
            tasks.append((preset, int(up), int(pair), 0.0))
        presets = list(dict.fromkeys(t[0] for t in tasks))
        _log(f"{len(tasks)} splits to work out, in the order given")
    else:
        for preset in presets:
            cells = _cells(preset, strategies)
            _log(f"{preset}: {len(cells)} splits to work out")
            tasks += cells
        rank = {p: i for i, p in enumerate(presets)}
        # cheap pairs (6-6 .. 9-9: hands that stop soon) of every preset first, then the small
        # pairs; within each, the presets in order, the likeliest rounds first
        tasks.sort(key=lambda t: (t[2] < 5, rank[t[0]], -t[3], -t[2]))
    docs = {
        p: {"about": {"preset": p, "made_by": "bench/precompute_splits.py --jobs"}, "cells": {}}
        for p in presets
    }
    summary: dict[str, Any] = {
        "jobs": jobs,
        "budget_s": budget_s,
        "mem_gb": mem_gb,
        "done": [],
        "gave_up": [],
    }
    mem = mem_gb * 1e9 / jobs
    ctx = mp.get_context("fork")
    with ctx.Pool(jobs, maxtasksperchild=1) as pool:
        pending = {(t[0], t[1], t[2]): pool.apply_async(_one, ((*t, strategies, mem),)) for t in tasks}
        while pending and time.monotonic() < deadline:
            time.sleep(0.5)
            for key in [k for k, r in pending.items() if r.ready()]:
                res = pending.pop(key).get()
                docs[res["preset"]]["cells"].update(res["cells"])
                _write(out / f"splits-{res['preset']}.json", docs[res["preset"]])
                entry = {k: res[k] for k in ("preset", "up", "pair", "cpu_s", "peak_gb")}
                entry["cells"] = [c["label"] for c in res["cells"].values()]
                summary["gave_up" if res["gave_up"] else "done"].append(entry)
                _write(out / "summary.json", summary)
                _log(
                    f"{res['preset']} {NAMES[res['up']]} up {NAMES[res['pair']]}-{NAMES[res['pair']]}: "
                    f"{len(res['cells'])} cells, {'GAVE UP (memory) ' if res['gave_up'] else ''}"
                    f"{res['cpu_s']} s CPU, peak {res['peak_gb']} GB; {len(pending)} left"
                )
        summary["unfinished"] = [f"{p} {NAMES[u]} up {NAMES[q]}-{NAMES[q]}" for p, u, q in pending]
        pool.terminate()
    summary["wall_s"] = round(time.monotonic() - T0, 1)
    _write(out / "summary.json", summary)
    for p, doc in docs.items():
        _write(out / f"splits-{p}.json", doc)
    _log(
        f"stopped: {len(summary['done'])} done, {len(summary['gave_up'])} given up, {len(pending)} unfinished"
    )
