"""A whole ``pontoon analyze --json`` process (issue 15 item 3): it loads the compiled kernels from
numba's cache instead of compiling them, and does not import what a JSON report does not need."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

PROBE = """
import json, sys
from pontoon.cli.app import run
from pontoon.analysis import dealer, kernels
rc = run(["analyze", "--rules", "blackjack", "--json"])
stats = {f.__name__: (sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))
         for f in (kernels.chain, dealer.dealer_all_upcards)}
print(json.dumps({"rc": rc, "stats": stats, "rich": "rich" in sys.modules}), file=sys.stderr)
"""


def _probe() -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["house_edge"]["optimal"] > 0
    return json.loads(done.stderr.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_a_second_process_loads_the_kernels_from_the_cache() -> None:
    _probe()  # compiles and writes the cache if this checkout has none yet
    got = _probe()
    assert got["rc"] == 0
    stats = got["stats"]
    assert isinstance(stats, dict)
    for name, (hits, misses) in stats.items():
        assert misses == 0, f"{name} was compiled in a process that should have loaded it"
        assert hits >= 1, name
    assert got["rich"] is False  # the terminal report's library stays out of a --json process
