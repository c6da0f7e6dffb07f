"""The analysis kernels compiled ahead of time (``pontoon.analysis.aot``, issue 15 item 3).

The extension is built from the same functions as numba's JIT kernels; these tests hold the two to
bit-identical reports, check that a stale or missing extension falls back to the JIT, and that the
compiled functions refuse arrays they were not compiled for (pycc's own conversion would read any
array as raw memory). The tests that need the extension skip, with the reason, where it is not
built (``PONTOON_PURE=1``, a failed build); ``test_the_built_module_is_current`` fails on a stale one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pontoon.analysis import aot

SRC = Path(__file__).resolve().parents[2] / "src"
BUILT = sorted(SRC.glob("pontoon/analysis/_aot.*.so"))
NEEDS_AOT = pytest.mark.skipif(
    aot.state().mode != "aot", reason=f"the analysis kernels are not compiled ahead of time: {aot.describe()}"
)


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop(aot.NO_AOT_ENV, None)
    env.update(extra)
    return env


def _analyze(args: list[str], prelude: str = "", **env: str) -> tuple[dict[str, Any], str]:
    """A whole ``pontoon analyze ... --json`` process: (its report less the timing, the kernels' mode)."""
    code = (
        prelude
        + "\nimport sys\nfrom pontoon.cli.app import run\n"
        + f"rc = run({['analyze', *args, '--json']!r})\n"
        + "from pontoon.analysis import aot\n"
        + "print('MODE', aot.state().mode, 'numba' in sys.modules, aot.state().reason, file=sys.stderr)\n"
        + "sys.exit(rc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(**env), timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    report.pop("seconds")
    mode_line = [x for x in done.stderr.splitlines() if x.startswith("MODE ")][-1]
    return report, mode_line


@NEEDS_AOT
@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "blackjack", "--split-strategy", "cdp1"],
        ["--rules", "mbs"],
        ["--rules", "federal"],  # FED's one-wager kernel (typed containers) compiled too
    ],
)
def test_aot_and_jit_reports_are_identical(args: list[str]) -> None:
    compiled, mode_a = _analyze(args)
    jit, mode_j = _analyze(args, PONTOON_NO_AOT="1")
    assert mode_a.startswith("MODE aot False"), mode_a  # numba never imported
    assert mode_j.startswith("MODE jit True"), mode_j
    assert compiled == jit  # every figure of the report, bit for bit (floats through JSON)


@NEEDS_AOT
def test_a_stale_module_falls_back_to_the_jit() -> None:
    # the module's stamp no longer matches the sources (as after editing a kernel): numba serves
    prelude = "from pontoon.analysis import aot\naot.expected_stamp = lambda: -1\n"
    stale, mode = _analyze(["--rules", "blackjack", "--set", "decks=2"], prelude)
    assert mode.startswith("MODE jit True STALE"), mode
    fresh, mode_a = _analyze(["--rules", "blackjack", "--set", "decks=2"])
    assert mode_a.startswith("MODE aot False"), mode_a
    assert stale == fresh


def test_a_missing_module_falls_back_to_the_jit() -> None:
    # an import of the extension that fails (None in sys.modules: as if it were not there)
    prelude = "import sys\nsys.modules['pontoon.analysis._aot'] = None\n"
    _, mode = _analyze(["--rules", "blackjack", "--set", "decks=1"], prelude)
    assert mode.startswith("MODE jit True not built"), mode


def test_the_built_module_is_current() -> None:
    """A build beside the sources must be of these sources (``make compile`` after editing a kernel)."""
    if not BUILT:
        pytest.skip(f"no AOT build in {SRC / 'pontoon' / 'analysis'} (make compile builds it)")
    if os.environ.get(aot.NO_AOT_ENV, "") not in ("", "0"):
        pytest.skip("PONTOON_NO_AOT is set")
    assert aot.state().mode == "aot", aot.describe()


@NEEDS_AOT
def test_compiled_kernels_refuse_arrays_they_were_not_compiled_for() -> None:
    from pontoon.analysis import dealer as D
    from pontoon.analysis import dealer_rows

    full = np.array([24] * 9 + [96], dtype=np.int64)
    rows = np.zeros((3, 10), dtype=np.int64)
    trie = dealer_rows._trie(False)
    good = D.dealer_all_upcards(full, rows, *trie)
    assert good.shape == (10, 3, 7) and np.allclose(good.sum(axis=2), 1.0)
    bad_calls = {
        "dtype": (full.astype(np.int32), rows, *trie),
        "rank": (full, rows[0], *trie),
        "not C-ordered": (full, np.zeros((10, 3), dtype=np.int64).T, *trie),
        "read-only": (np.frombuffer(full.tobytes(), dtype=np.int64), rows, *trie),
        "a list": (list(full), rows, *trie),
        "too few arguments": (full, rows),
    }
    for what, args in bad_calls.items():
        with pytest.raises(TypeError, match="dealer_all_upcards"):
            D.dealer_all_upcards(*args)
        assert what


@NEEDS_AOT
def test_kernels_the_module_does_not_export_run_under_numba() -> None:
    # the references the tests compare against (``dealer_batch`` calls ``dealer_dist``) compile on
    # their first call, with the kernels they call
    from pontoon.analysis import dealer as D
    from pontoon.analysis.dealer_rows import dealer_dists

    base = np.array([4] * 9 + [16], dtype=np.int64)
    base[5] -= 1
    rem = np.array([[0, 1, 0, 0, 0, 0, 0, 0, 0, 1], [0] * 10], dtype=np.int64)
    assert np.abs(D.dealer_batch(base, rem, 5, True) - dealer_dists(base, rem, 5, True)).max() < 1e-12


def test_signature_texts_are_checked() -> None:
    assert aot.parse_signature("f8(f8[::1], i8, b1)") == ("f8", ["f8[::1]", "i8", "b1"])
    assert aot.parse_signature("void(i8[:, :, ::1], i1[:, ::1])")[1] == ["i8[:, :, ::1]", "i1[:, ::1]"]
    for bad in ("f8(f8[:])", "f8(c16)", "f8 f8"):
        with pytest.raises(ValueError, match="bad kernel signature"):
            aot.parse_signature(bad)


def test_the_kernel_sources_hash_covers_every_kernel_module() -> None:
    import pontoon.analysis

    pkg = Path(pontoon.analysis.__file__).parent
    users = sorted(p.name for p in pkg.glob("*.py") if "@kernel(" in p.read_text())
    assert users == sorted(aot.KERNEL_SOURCES)
    assert not [p.name for p in pkg.glob("*.py") if "@njit" in p.read_text()]


def test_compiled_reports_the_analysis_kernels() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pontoon.compiled"], capture_output=True, text=True, env=_env(), timeout=120
    )
    assert done.returncode == 0, done.stderr
    line = [x for x in done.stdout.splitlines() if x.startswith("pontoon analysis kernels: ")]
    assert len(line) == 1
    assert line[0].removeprefix("pontoon analysis kernels: ") == aot.describe() or aot.state().mode != "aot"


@pytest.mark.slow
def test_the_build_makes_a_current_module(tmp_path: Path) -> None:
    """``python -m pontoon.analysis.aot build`` (what setup.py runs) into a copy of the package."""
    import shutil

    pkg = tmp_path / "src" / "pontoon"
    shutil.copytree(SRC / "pontoon", pkg, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}
    env.pop(aot.NO_AOT_ENV, None)
    cmd = [sys.executable, "-m", "pontoon.analysis.aot", "build", str(pkg / "analysis")]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)
    assert done.returncode == 0, done.stderr[-2000:]
    probe = "from pontoon.analysis import aot, kernels; print(aot.state().mode, aot.state().reason)"
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert got.stdout.startswith("aot current, for "), got.stderr[-2000:]
    record = aot.CpuRecord.parse((pkg / "analysis" / aot.CPU_RECORD).read_text())
    assert record.stamp == aot.stamp_of(aot.sources_hash(pkg / "analysis"))
    assert record.cpu != "generic" or not record.flags


# ---------------------------------------------------------------------------------------------
# the target CPU: a host build is used only on a CPU with its building CPU's flags


def test_cpu_records_are_read_back_and_bad_ones_refused() -> None:
    host = aot.CpuRecord(123, "znver3", ("sse", "sse2", "avx", "avx2", "fma"))
    assert aot.CpuRecord.parse(host.text()) == host
    generic = aot.CpuRecord(-5, "generic", ())
    assert aot.CpuRecord.parse(generic.text()) == generic
    for bad in (
        "",
        "stamp=1\ncpu=znver3\n",  # no flags line
        "stamp=x\ncpu=znver3\nflags=avx\n",  # not a number
        "stamp=1\ncpu=\nflags=avx\n",  # no CPU
        "stamp=1\ncpu=znver3\nflags=avx hypervisor\n",  # not an instruction-set flag
        "stamp=1\ncpu=generic\nflags=avx\n",  # a generic build requires none
    ):
        with pytest.raises(ValueError):
            aot.CpuRecord.parse(bad)


def test_the_flags_a_host_build_needs_are_checked(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse sse2 avx fma hypervisor\n\n"
    )
    have = aot.cpu_flags(str(info))
    assert have == frozenset({"fpu", "sse", "sse2", "avx", "fma", "hypervisor"})
    host = aot.CpuRecord(1, "znver3", ("sse", "sse2", "avx", "avx2", "fma"))
    assert aot.missing_flags(host, have) == ["avx2"]
    assert aot.missing_flags(host, have | {"avx2"}) == []
    assert aot.missing_flags(host, None) is None  # flags unknown: not run
    assert aot.missing_flags(aot.CpuRecord(1, "generic", ()), None) == []  # generic: anywhere
    info.write_text("processor\t: 0\nFeatures\t: fp asimd\n")  # no x86 flags line
    assert aot.cpu_flags(str(info)) is None
    assert aot.cpu_flags(str(tmp_path / "absent")) is None


def _record() -> aot.CpuRecord:
    return aot.CpuRecord.parse((BUILT[0].parent / aot.CPU_RECORD).read_text())


@NEEDS_AOT
def test_a_module_built_for_another_cpu_falls_back_to_the_jit(tmp_path: Path) -> None:
    """This machine's flags as a CPU without the most advanced flag the build required: a host
    build is not even imported (code for another CPU may stop the process), numba serves, and
    the report is the same; a generic build runs there."""
    record = _record()
    have = aot.cpu_flags()
    assert have is not None or not record.flags
    weaker = sorted(have or ())
    drop = [f for f in ("avx512f", "avx2", "avx", "sse4_2") if f in record.flags][:1]
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: " + " ".join(f for f in weaker if f not in drop) + "\n")
    args = ["--rules", "blackjack", "--set", "decks=2"]
    prelude = "import sys\n"
    probe = "\nprint('IMPORTED', 'pontoon.analysis._aot' in sys.modules, file=sys.stderr)\n"
    there, mode = _analyze(args, prelude, PONTOON_AOT_CPUINFO=str(info))
    here, mode_here = _analyze(args)
    assert mode_here.startswith("MODE aot False"), mode_here
    if record.flags:
        assert drop, record
        assert mode.startswith(
            f"MODE jit True built for another CPU ({record.cpu}): this one lacks {drop[0]}"
        ), mode
    else:
        assert mode.startswith("MODE aot False current, for any CPU (generic)"), mode
    assert there == here
    code = f"from pontoon.analysis import aot, dealer\nimport sys{probe}"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=_env(PONTOON_AOT_CPUINFO=str(info)),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"IMPORTED {not record.flags}" in done.stderr, done.stderr[-2000:]


@NEEDS_AOT
def test_a_module_without_its_cpu_record_is_not_imported(tmp_path: Path) -> None:
    import shutil

    pkg = tmp_path / "src" / "pontoon"
    shutil.copytree(SRC / "pontoon", pkg, ignore=shutil.ignore_patterns("__pycache__", aot.CPU_RECORD))
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}
    env.pop(aot.NO_AOT_ENV, None)
    probe = (
        "import sys\nfrom pontoon.analysis import aot, dealer\n"
        "print(aot.state().mode, 'pontoon.analysis._aot' in sys.modules, aot.state().reason)"
    )
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]
    assert got.stdout.startswith(f"jit False the built module has no CPU record {aot.CPU_RECORD}"), got.stdout
    (pkg / "analysis" / aot.CPU_RECORD).write_text(_record().text())  # the record back: used again
    got = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert got.stdout.startswith("aot True current, for "), got.stdout + got.stderr[-2000:]


def test_an_unknown_target_cpu_is_refused() -> None:
    with pytest.raises(ValueError, match="PONTOON_AOT_CPU accepts host or generic"):
        aot.resolve_cpu("native")
    assert aot.resolve_cpu("generic") == ("generic", ())
    assert aot.resolve_cpu("") == ("generic", ())
