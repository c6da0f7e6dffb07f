"""The simulator's kernels compiled ahead of time (issue 25 item 4): no compilation on a first run.

The first ``pontoon simulate`` after an install compiled the numba kernels (31 s, 741 MB peak); the
analyser had avoided this with ``pontoon.analysis.aot``. The same scheme serves the simulator:
``setup.py`` (``make install``, ``make compile``) builds the entry kernels below into one C extension,
``pontoon.sim._aot``, with ``numba.pycc`` (``python -m pontoon.sim.aot build DIR [FILE [CPU]]`` in a child
process), with a stamp of the kernel sources it was built from and the CPU record of
``pontoon.analysis.aot`` beside it (``_aot_cpu.txt``: a host build is used only on a CPU with every
instruction-set flag of the building one). ``kernel(name)`` hands out:

* the compiled function, behind ``analysis.aot.checked`` (each array's dtype, rank, C order and
  writeability checked: pycc's conversion does not), when the module imports, its stamp equals the
  sources' hash, its CPU record fits this CPU and ``PONTOON_NO_AOT`` is not set;
* otherwise numba's JIT dispatcher of the kernel (cached on disk, ``numba_cache.py``), as before: the
  extension missing (``PONTOON_PURE=1``, a failed build), stale (a kernel source edited since), built
  for another CPU, or ``PONTOON_NO_AOT=1`` (the tests compare both this way).

The exported kernels hold the GIL while they run (pycc has no ``nogil``); the JIT ones release it.
``python -m pontoon.sim.aot`` says which is in use.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from pontoon.analysis import aot as A

PACKAGE_DIR = Path(__file__).resolve().parent
MODULE = "pontoon.sim._aot"
KERNEL_SOURCES = (
    "_consts.py",
    "_draws.py",
    "_round.py",
    "_kernels.py",
    "_count_kernel.py",
    "_british_kernel.py",
    "aot.py",
)  # the exported kernels and everything they inline (this file: the signatures)
CPU_RECORD = A.CPU_RECORD  # beside the module, as the analysis's
STAMP_FUNCTION = "aot_stamp"
# exported name -> (module, function, signature: numba's text, C-ordered arrays)
EXPORTS: dict[str, tuple[str, str, str]] = {
    "run_random": (
        "pontoon.sim._kernels",
        "run_random",
        "i8(i8[::1], i8[::1], u4[::1], i8[::1], i8[::1], f8[::1], i1[:, :, :, ::1], i1[:, :, ::1], "
        "i8[:, ::1], i8, i8[:, ::1], i8[::1], i8[::1], i8, i8)",
    ),
    "run_count": (
        "pontoon.sim._count_kernel",
        "run_count",
        "i8(i8[::1], i8[::1], u4[::1], i8[::1], i8[::1], f8[::1], i1[:, :, :, :, ::1], i1[:, :, ::1], "
        "i8[:, ::1], f8[::1], f8, f8, i8, i8[::1], i8[::1], i8[::1], i8, i8[:, ::1], f8[::1], f8[::1], "
        "f8[:, ::1])",
    ),
    "british_run": (
        "pontoon.sim._british_kernel",
        "run",
        "i8(i8[::1], i8[::1], u8[::1], i8[::1], f8[:, ::1], i8[::1], i8[:, :, ::1], i8[::1], i8[::1], "
        "i8[::1], i8[:, ::1], i8[:, ::1], i8[::1], i8[::1], f8[:, ::1], i8[:, ::1], i8[:, ::1], i8[::1], "
        "i8[::1], i8[::1], i8[:, ::1], i8, i8[::1], f8[::1], i8[:, ::1])",
    ),
}


def sources_hash(package_dir: Path = PACKAGE_DIR) -> str:
    h = hashlib.sha256()
    for name in KERNEL_SOURCES:
        h.update(name.encode() + b"\0" + (package_dir / name).read_bytes() + b"\0")
    return h.hexdigest()


class State(NamedTuple):
    mode: str  # "aot" or "jit"
    module: Any
    reason: str


@functools.lru_cache(maxsize=1)
def state() -> State:
    """Which kernels this process uses (decided once)."""
    if os.environ.get(A.NO_AOT_ENV, "") not in ("", "0"):
        return State("jit", None, f"{A.NO_AOT_ENV} is set")
    expected = A.stamp_of(sources_hash())
    spec = importlib.util.find_spec(MODULE)
    if spec is None or not spec.origin:
        return State("jit", None, "not built (PONTOON_PURE=1, or its build failed): make compile builds it")
    try:
        with (Path(spec.origin).parent / CPU_RECORD).open("rb") as f:
            record = A.CpuRecord.parse(f.read(A.CPUINFO_MAX_LINE).decode("ascii"))
    except (OSError, ValueError) as e:
        return State("jit", None, f"the built module has no CPU record ({type(e).__name__}): make compile")
    if record.stamp != expected:
        return State("jit", None, "STALE: built from other kernel sources (make compile rebuilds it)")
    lacks = A.missing_flags(record, A.cpu_flags())
    if lacks is None or lacks:
        return State("jit", None, f"built for another CPU ({record.cpu})")
    try:
        mod = importlib.import_module(MODULE)
        got = int(getattr(mod, STAMP_FUNCTION)())
    except Exception as e:  # noqa: BLE001  (a broken or foreign build: the JIT kernels serve)
        return State("jit", None, f"the built module does not load ({type(e).__name__}: {e})")
    if got != expected:
        return State("jit", None, "STALE: built from other kernel sources (make compile rebuilds it)")
    where = "for any CPU (generic)" if record.cpu == "generic" else f"for this CPU ({record.cpu})"
    return State("aot", mod, f"current, {where}")


@functools.cache
def kernel(name: str) -> Callable[..., Any]:
    """The exported kernel ``name`` (``EXPORTS``): compiled ahead of time where current, else numba's JIT."""
    module, func, sig = EXPORTS[name]
    st = state()
    if st.mode == "aot":
        return A.checked(name, getattr(st.module, name), sig)
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


def describe() -> str:
    st = state()
    if st.mode == "aot":
        return f"AOT-compiled (numba.pycc), {st.reason}: {getattr(st.module, '__file__', MODULE)}"
    return f"numba JIT ({st.reason})"


def build(out_dir: str, filename: str | None = None, cpu: str = "") -> Path:
    """Compile every exported kernel into ``out_dir/filename`` and write its CPU record beside it."""
    target, flags = A.resolve_cpu(cpu)
    digest = sources_hash()
    from numba.pycc import CC

    cc = CC("_aot", source_module=__name__)
    cc.output_dir = out_dir
    if filename:
        cc.output_file = filename
    if target != "generic":
        A._host_features()
        cc.target_cpu = "host"
    for name, (module, func, sig) in sorted(EXPORTS.items()):
        disp = getattr(importlib.import_module(module), func)
        cc.export(name, sig)(disp.py_func)
    stamp = A.stamp_of(digest)
    cc.export(STAMP_FUNCTION, "i8()")(A._stamp_function(stamp))
    record = Path(out_dir) / CPU_RECORD
    record.unlink(missing_ok=True)
    cc.compile()
    tmp = record.with_name(f"{CPU_RECORD}.{os.getpid()}.tmp")
    tmp.write_text(A.CpuRecord(stamp, target, flags).text(), encoding="ascii")
    os.replace(tmp, record)
    return Path(out_dir) / cc.output_file


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "build":
        me = importlib.import_module("pontoon.sim.aot")
        cpu = argv[3] if len(argv) > 3 else (os.environ.get(A.CPU_ENV, "").strip() or "host")
        path = me.build(argv[1], argv[2] if len(argv) > 2 else None, cpu)
        print(f"built {path}: {(path.parent / CPU_RECORD).read_text().strip().replace(chr(10), ', ')}")
        return 0
    print(f"pontoon simulator kernels: {describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
