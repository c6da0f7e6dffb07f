"""The simulator's kernels compiled ahead of time (issue 25 item 4; ``pontoon.sim.aot``): used where
current, numba's JIT otherwise, the same figures either way, and nothing compiled on a first run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pontoon.sim import aot

SRC = Path(__file__).resolve().parents[2] / "src"
NEEDS_AOT = pytest.mark.skipif(
    aot.state().mode != "aot",
    reason=f"the simulator's kernels are not compiled ahead of time: {aot.describe()}",
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != aot.A.NO_AOT_ENV}
    env["PYTHONPATH"] = str(SRC)
    env.update(extra)
    return env


def test_a_stale_or_refused_module_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel source edited since the build (another hash), or PONTOON_NO_AOT: numba's dispatcher."""
    try:
        monkeypatch.setattr(aot, "sources_hash", lambda *a: "f" * 64)
        aot.state.cache_clear()
        st = aot.state()
        assert st.mode == "jit" and ("STALE" in st.reason or "not built" in st.reason), st
        monkeypatch.undo()
        monkeypatch.setenv(aot.A.NO_AOT_ENV, "1")
        aot.state.cache_clear()
        aot.kernel.cache_clear()
        assert aot.state().mode == "jit" and aot.A.NO_AOT_ENV in aot.describe()
        assert hasattr(aot.kernel("british_run"), "py_func")  # numba's dispatcher
    finally:
        monkeypatch.undo()
        aot.state.cache_clear()
        aot.kernel.cache_clear()


def test_every_export_names_a_kernel_with_a_c_ordered_signature() -> None:
    import importlib

    for name, (module, func, sig) in aot.EXPORTS.items():
        ret, args = aot.A.parse_signature(sig)
        fn = getattr(importlib.import_module(module), func)
        assert ret == "i8" and len(args) == fn.py_func.__code__.co_argcount, name


def test_compiled_reports_the_simulator_kernels() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pontoon.compiled"], capture_output=True, text=True, env=_env(), timeout=120
    )
    assert done.returncode == 0, done.stderr
    line = [x for x in done.stdout.splitlines() if x.startswith("pontoon simulator kernels: ")]
    assert len(line) == 1 and line[0].removeprefix("pontoon simulator kernels: ") == aot.describe()


def _simulate(*args: str, **env: str) -> dict[str, object]:
    cmd = [sys.executable, "-m", "pontoon.cli.app", "simulate", "--json", "--no-progress", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, env=_env(**env), timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


RUNS = (
    ["--rules", "mbs", "--rounds", "40000", "--seed", "4"],
    ["--rules", "british", "--rounds", "40000", "--seed", "4", "--players", "3"],
)


@NEEDS_AOT
def test_a_first_run_compiles_none_of_the_simulators_kernels(tmp_path: Path) -> None:
    """An empty numba cache: a casino and a British run leave the simulator's cache folder empty (the
    analysis's kernels that build the casino chart have their own module, not built in a pure install)."""
    cache = tmp_path / "numba"
    for args in RUNS:
        out = _simulate(*args, NUMBA_CACHE_DIR=str(cache))
        assert out["rounds"] == 40000 and 0 < abs(float(out["house_edge"])) < 0.2  # type: ignore[arg-type]
        compiled = [p for p in cache.rglob("*.nbi") if p.parent.name.startswith("sim_")]
        assert not compiled, "a first run compiled the simulator's kernels"


@NEEDS_AOT
@pytest.mark.slow
def test_compiled_and_jit_kernels_give_the_same_figures() -> None:
    """Casino and British: the same integers from the module and from numba's JIT."""
    for args in RUNS:
        a = _simulate(*args)
        b = _simulate(*args, PONTOON_NO_AOT="1")
        for k in ("house_edge", "lines", "sd"):
            assert a[k] == b[k], k


@pytest.mark.slow
def test_the_build_makes_a_current_module(tmp_path: Path) -> None:
    """``python -m pontoon.sim.aot build`` (what setup.py runs) into a copy of the package."""
    import shutil

    pkg = tmp_path / "src" / "pontoon"
    shutil.copytree(
        SRC / "pontoon", pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__", "_aot_cpu.txt")
    )
    env = {**_env(), "PYTHONPATH": str(tmp_path / "src")}
    cmd = [sys.executable, "-m", "pontoon.sim.aot", "build", str(pkg / "sim")]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    probe = "from pontoon.sim import aot; print(aot.state().mode, aot.state().reason)"
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert got.stdout.startswith("aot current, for "), got.stdout + got.stderr[-2000:]
