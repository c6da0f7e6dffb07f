"""A whole ``pontoon analyze --json`` process (issue 15 item 3): with the kernels compiled ahead of
time it imports no numba at all; with numba's JIT kernels (``PONTOON_NO_AOT=1``, or no current AOT
build) it loads them from numba's cache instead of compiling them. Either way it does not import
what a JSON report does not need."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pontoon.analysis import aot

SRC = Path(__file__).resolve().parents[2] / "src"

PROBE = """
import json, sys
from pontoon.cli.app import run
rc = run(["analyze", "--rules", "blackjack", "--json"])
from pontoon.analysis import aot, dealer, kernels
stats = {}
if aot.state().mode == "jit":
    stats = {f.__name__: (sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))
             for f in (kernels.chain, dealer.dealer_all_upcards)}
mods = sorted({m.split(".")[0] for m in sys.modules} & {"numba", "llvmlite", "yaml", "rich", "typer"})
british = "pontoon.rules.british" in sys.modules
print(json.dumps({"rc": rc, "mode": aot.state().mode, "stats": stats, "mods": mods, "british": british}),
      file=sys.stderr)
"""


def _probe(**env_extra: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop(aot.NO_AOT_ENV, None)
    env.update(env_extra)
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["house_edge"]["optimal"] > 0
    return json.loads(done.stderr.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_with_the_aot_kernels_no_numba_is_imported() -> None:
    if aot.state().mode != "aot":
        pytest.skip(f"the analysis kernels are not compiled ahead of time here: {aot.describe()}")
    got = _probe()
    assert got["rc"] == 0
    assert got["mode"] == "aot"
    # numba (and llvmlite, and the yaml it reads its config with) stays out; rich (the terminal
    # report), typer (a well-formed command line is read without it: tests/test_startup.py) and
    # the British rules' models too
    assert got["mods"] == []
    assert got["british"] is False


def test_a_second_jit_process_loads_the_kernels_from_the_cache() -> None:
    _probe(PONTOON_NO_AOT="1")  # compiles and writes the cache if this checkout has none yet
    got = _probe(PONTOON_NO_AOT="1")
    assert got["rc"] == 0
    assert got["mode"] == "jit"
    stats = got["stats"]
    assert isinstance(stats, dict) and stats
    for name, (hits, misses) in stats.items():
        assert misses == 0, f"{name} was compiled in a process that should have loaded it"
        # the dealer kernel is not called where the shoe's rows are read from the disk
        assert hits >= (1 if name == "chain" else 0), name
    assert "numba" in got["mods"]
    assert "rich" not in got["mods"] and "typer" not in got["mods"]  # no rich in a --json process, no typer
    assert got["british"] is False
