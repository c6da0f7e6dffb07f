"""The report of bench/store_stages/sitecustomize.py: ``python bench/store_stages/report.py STEM ACTIONS``.

One line per server process (``STEM.PID.json``): between the bench's two marks (the play), the loop
thread's CPU and each stage's, and the writer's and the checkpointer's thread CPU, in microseconds per
action (ACTIONS: the bench's ``actions`` column).
"""

from __future__ import annotations

import glob
import json
import sys

ORDER = ("record", "gc_in_record", "enqueue", "flush", "acks", "settle", "gc_in_settle", "wake", "tick", "gc")


def line(path: str, actions: int) -> str:
    with open(path) as f:
        marks = json.load(f)
    if len(marks) < 2:
        return f"{path}: {len(marks)} marks, two expected (BENCH_STAGES=1 set?)"
    a, b = marks[0], marks[-1]
    us = 1e6 / max(1, actions)
    parts = [f"loop {(b['loop'] - a['loop']) * us:.0f}"]
    parts += [f"{k} {(b[k][0] - a[k][0]) * us:.1f}" for k in ORDER if k in b]
    for name in sorted(b["threads"]):
        parts.append(
            f"{name.removeprefix('pontoon-')} {(b['threads'][name] - a['threads'].get(name, 0.0)) * us:.0f}"
        )
    commits = b.get("commits", 0) - a.get("commits", 0)
    if commits:
        writer = b["threads"].get("pontoon-group-commit", 0.0) - a["threads"].get("pontoon-group-commit", 0.0)
        calls = b["calls"] - a["calls"]
        parts.append(
            f"commits {commits} ({calls / commits:.1f} calls each, the writer {writer / commits * 1e6:.0f} us each)"
        )
    return f"{path}: us per action: " + ", ".join(parts)


def main() -> None:
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        print("usage: python bench/store_stages/report.py STEM ACTIONS", file=sys.stderr)
        raise SystemExit(2)
    paths = sorted(glob.glob(sys.argv[1] + ".*.json"))
    if not paths:
        print(f"no {sys.argv[1]}.*.json: run the bench with STORE_STAGES={sys.argv[1]}", file=sys.stderr)
        raise SystemExit(2)
    for p in paths:
        print(line(p, int(sys.argv[2])))


if __name__ == "__main__":
    main()
