"""The analysis kernels compiled ahead of time (issue 15 item 3): no numba at run time.

The analyser's numba kernels (``dealer.py``, ``kernels.py``, ``split_kernels.py``, ``onewager.py``) are decorated with
``kernel(...)`` instead of ``numba.njit``. ``setup.py`` (``make install``, ``make compile``) builds
the ones that carry a signature into one C extension module, ``pontoon.analysis._aot``, with
``numba.pycc`` from the same functions (``python -m pontoon.analysis.aot build DIR``). The module
holds a stamp of the kernel sources it was built from (``aot_stamp()``: the leading 60 bits of
their SHA-256). When a process imports the kernels, ``kernel`` hands out:

* ``aot``: the compiled function of that name, through a wrapper that checks every array argument's
  dtype, rank, C order and writeability (pycc's own conversion does not: a wrong array would be
  read as raw memory). Used when the module imports, its stamp equals the sources' hash and
  ``PONTOON_NO_AOT`` is not set. numba is not imported at all. Kernels without a signature (the
  references the tests compare against, the helpers inlined into the exported ones) are compiled
  by numba on their first call, as before;
* ``jit``: ``numba.njit(cache=True)`` of the function, as before this module existed: when the
  extension is missing (``PONTOON_PURE=1``, a failed build), stale (a kernel source edited since the
  build), fails to import, or ``PONTOON_NO_AOT=1`` (the tests compare both builds this way);
* ``build``: ``numba.njit(cache=False)``, collected for the extension (only inside the build).

The target CPU (``PONTOON_AOT_CPU``, read by setup.py): ``host`` (the default) compiles for the
machine that builds, as g++'s ``-march=native`` (LLVM's name of this CPU and exactly the features it
reports, as numba's JIT does): for an install built where it runs (``make install``, an editable or
source install). ``generic`` compiles for any CPU of the architecture: for a wheel built on one
machine and run on others. Code for another CPU could stop the process with an illegal
instruction, even at the import, so the build writes a record beside the module (``_aot_cpu.txt``:
the stamp, the CPU's name and the instruction-set flags of the building CPU among ``ISA_FLAGS``),
and ``state`` reads it *before* importing the module: a host build is used only where this CPU has
every one of those flags (``/proc/cpuinfo``), else the JIT kernels serve, as for a stale module; a
module without its record is not imported either. Host builds are made on Linux x86-64 only (where
the flags can be read back); elsewhere ``host`` builds a generic module.

``python -m pontoon.compiled`` says which is in use (``describe()``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any, Literal, NamedTuple, TypeVar

PACKAGE_DIR = Path(__file__).resolve().parent
MODULE = "pontoon.analysis._aot"
KERNEL_SOURCES = (
    "dealer.py",
    "kernels.py",
    "split_kernels.py",
    "onewager.py",
)  # every ``kernel`` lives in these
KERNEL_MODULES = tuple("pontoon.analysis." + s.removesuffix(".py") for s in KERNEL_SOURCES)
STAMP_FUNCTION = "aot_stamp"
NO_AOT_ENV = "PONTOON_NO_AOT"
CPU_ENV = "PONTOON_AOT_CPU"  # setup.py's build: "host" (default) or "generic"
CPU_CHOICES = ("host", "generic")
CPU_RECORD = "_aot_cpu.txt"  # beside the module: the CPU it was built for (see the module's text)
CPUINFO_ENV = "PONTOON_AOT_CPUINFO"  # where this CPU's flags are read (default /proc/cpuinfo)

# the instruction-set flags (Linux ``/proc/cpuinfo`` names) a host build may depend on: SIMD and
# bit-manipulation extensions of x86-64; a host build requires every one its building CPU had
ISA_FLAGS = (
    "sse sse2 pni ssse3 sse4_1 sse4_2 sse4a popcnt abm bmi1 bmi2 avx avx2 fma fma4 xop tbm f16c movbe "
    "aes pclmulqdq sha_ni adx cx16 lahf_lm xsave rdrand rdseed vaes vpclmulqdq gfni avx_vnni avx512f "
    "avx512dq avx512cd avx512bw avx512vl avx512ifma avx512vbmi avx512_vbmi2 avx512_vnni avx512_bitalg "
    "avx512_vpopcntdq avx512_bf16 avx512_fp16 amx_tile amx_bf16 amx_int8 clflushopt clwb 3dnowprefetch"
).split()

F = TypeVar("F", bound=Callable[..., Any])


def sources_hash(package_dir: Path = PACKAGE_DIR) -> str:
    """SHA-256 of the kernel sources, in order (their signatures included)."""
    h = hashlib.sha256()
    for name in KERNEL_SOURCES:
        h.update(name.encode() + b"\0" + (package_dir / name).read_bytes() + b"\0")
    return h.hexdigest()


def stamp_of(digest: str) -> int:
    """The stamp kept in the extension: the hash's leading 60 bits (an int64)."""
    return int(digest[:15], 16)


def expected_stamp() -> int:
    return stamp_of(sources_hash())


class State(NamedTuple):
    mode: str  # "aot", "jit" or "build"
    module: ModuleType | None  # the extension, in mode "aot"
    reason: str  # one line for ``describe``


_forced: str | None = None  # "build" inside ``build``


class CpuRecord(NamedTuple):
    """The record a build writes beside the module (``CPU_RECORD``)."""

    stamp: int
    cpu: str  # "generic" or LLVM's name of the building CPU (e.g. "znver3")
    flags: tuple[str, ...]  # the ``ISA_FLAGS`` the building CPU had (none for generic)

    def text(self) -> str:
        return f"stamp={self.stamp}\ncpu={self.cpu}\nflags={' '.join(self.flags)}\n"

    @classmethod
    def parse(cls, text: str) -> CpuRecord:
        """The record of ``text`` (``ValueError`` where it is not one)."""
        fields = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        if set(fields) != {"stamp", "cpu", "flags"} or not fields["cpu"]:
            raise ValueError(f"not a CPU record: {text[:80]!r}")
        flags = tuple(fields["flags"].split())
        unknown = [f for f in flags if f not in ISA_FLAGS]
        if unknown or (fields["cpu"] == "generic" and flags):
            raise ValueError(f"bad flags in the CPU record: {fields['flags'][:80]!r}")
        return cls(int(fields["stamp"]), fields["cpu"], flags)


CPUINFO_MAX_BYTES = 4 << 20  # read no more of a cpuinfo file (a 512-CPU machine's is about 1 MiB)
CPUINFO_MAX_LINE = 64 << 10  # nor a longer line (a flags line is about 2 kB)


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str] | None:
    """This CPU's flags (the first ``flags`` line of ``/proc/cpuinfo``, or of the file named by
    ``PONTOON_AOT_CPUINFO``); None where they cannot be read (not Linux; not a regular file, such
    as ``/dev/zero`` or a pipe; a line or a file past the bounds above: issue 29 item 5)."""
    path = cpuinfo or os.environ.get(CPUINFO_ENV, "") or "/proc/cpuinfo"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO does not block
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            left = CPUINFO_MAX_BYTES
            while left > 0:
                line = f.readline(min(left, CPUINFO_MAX_LINE + 1))
                if not line or len(line) > CPUINFO_MAX_LINE:
                    return None
                left -= len(line)
                key, sep, value = line.partition(b":")
                if sep and key.strip() == b"flags":
                    return frozenset(value.decode("ascii", errors="replace").split())
    except (OSError, ValueError):
        return None
    return None


def missing_flags(record: CpuRecord, have: frozenset[str] | None) -> list[str] | None:
    """The flags of a host build that this CPU lacks ([] where it can run the module; None where
    this CPU's flags are unknown, which only a generic build survives)."""
    if not record.flags:
        return []
    if have is None:
        return None
    return [f for f in record.flags if f not in have]


def _cpu_check(stamp: int) -> tuple[CpuRecord | None, str]:
    """The module's CPU record and "" where it may be imported on this machine, else (None, why)."""
    spec = importlib.util.find_spec(MODULE)
    if spec is None or not spec.origin:
        return None, "not built (PONTOON_PURE=1, or its build failed): make compile builds it"
    try:
        with (Path(spec.origin).parent / CPU_RECORD).open("rb") as f:
            record = CpuRecord.parse(f.read(CPUINFO_MAX_LINE).decode("ascii"))  # a few lines
    except (OSError, ValueError) as e:
        return (
            None,
            f"the built module has no CPU record {CPU_RECORD} ({type(e).__name__}): make compile rebuilds it",
        )
    if record.stamp != stamp:
        return None, "STALE: built from other kernel sources (make compile rebuilds it)"
    lacks = missing_flags(record, cpu_flags())
    if lacks is None:
        return None, f"built for another CPU ({record.cpu}) and this one's flags cannot be read"
    if lacks:
        return None, (
            f"built for another CPU ({record.cpu}): this one lacks {' '.join(lacks)} "
            f"({CPU_ENV}=generic make compile builds a portable module)"
        )
    return record, ""


@functools.lru_cache(maxsize=1)
def state() -> State:
    """Which kernels this process uses (decided once, at the first kernel module's import)."""
    if _forced == "build":
        return State("build", None, "building the extension")
    if os.environ.get(NO_AOT_ENV, "") not in ("", "0"):
        return State("jit", None, f"{NO_AOT_ENV} is set")
    expected = expected_stamp()
    try:
        record, why = _cpu_check(expected)  # before the import: code for another CPU may not load
    except Exception as e:  # noqa: BLE001  (a broken package: the JIT kernels serve)
        return State("jit", None, f"the built module cannot be checked ({type(e).__name__}: {e})")
    if record is None:
        return State("jit", None, why)
    try:
        mod = importlib.import_module(MODULE)
    except ModuleNotFoundError:
        return State("jit", None, "not built (PONTOON_PURE=1, or its build failed): make compile builds it")
    except Exception as e:  # noqa: BLE001  (a broken or foreign build: the JIT kernels serve)
        return State("jit", None, f"the built module does not import ({type(e).__name__}: {e})")
    try:
        got = int(getattr(mod, STAMP_FUNCTION)())
    except Exception as e:  # noqa: BLE001
        return State("jit", None, f"the built module has no stamp ({type(e).__name__}: {e})")
    if got != expected:
        return State("jit", None, "STALE: built from other kernel sources (make compile rebuilds it)")
    where = "for any CPU (generic)" if record.cpu == "generic" else f"for this CPU ({record.cpu})"
    return State("aot", mod, f"current, {where}")


def describe() -> str:
    """One line: ``AOT-compiled (numba.pycc), current, for this CPU (znver3): <file>`` (or ``for
    any CPU (generic)``) or ``numba JIT (<why>)``."""
    st = state()
    if st.mode == "aot":
        return f"AOT-compiled (numba.pycc), {st.reason}: {getattr(st.module, '__file__', MODULE)}"
    return f"numba JIT ({st.reason})"


# ---------------------------------------------------------------------------------------------
# signatures: numba's text ("void(i8[:, ::1], f8, b1)"), read here without numba for the checks

_DTYPES = {"i8": "int64", "i1": "int8", "f8": "float64", "b1": "bool", "u4": "uint32", "u8": "uint64"}


def _split_top(text: str) -> list[str]:
    out: list[str] = []
    depth = 0
    cur = ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_signature(sig: str) -> tuple[str, list[str]]:
    """(return type, argument types) of a signature text; every array must be C-ordered
    (``f8[:, ::1]``): the kernels are compiled for C order only."""
    ret, _, rest = sig.partition("(")
    if not rest.endswith(")"):
        raise ValueError(f"bad kernel signature {sig!r}")
    args = _split_top(rest[:-1])
    for a in [ret.strip(), *args]:
        base = a.split("[", 1)[0]
        if base not in _DTYPES and base not in ("void", "i8", "f8", "b1"):
            raise ValueError(f"bad kernel signature {sig!r}: unknown type {a!r}")
        if "[" in a and not a.replace(" ", "").endswith("::1]"):
            raise ValueError(f"bad kernel signature {sig!r}: array {a!r} is not C-ordered (::1)")
    return ret.strip(), args


def _ndim(a: str) -> int:
    return a.split("[", 1)[1].count(",") + 1


def checked(name: str, fn: Callable[..., Any], sig: str) -> Callable[..., Any]:
    """``fn`` (an exported function of the extension) behind a check of its arguments: their
    number, and each array's type, dtype, rank, C order and writeability (a ``TypeError`` naming
    the argument, where numba's dispatcher would have compiled another specialisation)."""
    import numpy as np

    _, args = parse_signature(sig)
    n_args = len(args)
    specs = [(i, np.dtype(_DTYPES[a.split("[", 1)[0]]), _ndim(a)) for i, a in enumerate(args) if "[" in a]
    ndarray = np.ndarray

    def call(*a: Any) -> Any:
        if len(a) != n_args:
            raise TypeError(f"{name}() takes {n_args} arguments ({len(a)} given)")
        for i, dt, nd in specs:
            x = a[i]
            if type(x) is not ndarray or x.ndim != nd or x.dtype != dt:
                raise TypeError(
                    f"{name}() argument {i + 1}: expected a {nd}-d {dt} array, got "
                    + (f"a {x.ndim}-d {x.dtype} array" if isinstance(x, ndarray) else type(x).__name__)
                )
            fl = x.flags
            if not (fl.c_contiguous and fl.writeable):
                raise TypeError(f"{name}() argument {i + 1}: the array must be C-ordered and writeable")
        return fn(*a)

    call.__name__ = name
    call.__doc__ = getattr(fn, "__doc__", None)
    return call


# ---------------------------------------------------------------------------------------------
# the decorator

_BUILD_EXPORTS: dict[str, tuple[Any, str]] = {}  # name -> (numba dispatcher, signature), in build


_KERNELS: dict[str, dict[str, tuple[Callable[..., Any], bool]]] = {}  # module -> name -> (fn, inline)
_SHADOWS: dict[str, dict[str, Any]] = {}  # module -> its globals with every kernel a numba dispatcher


def _shadow(module: str) -> dict[str, Any]:
    """For the kernels that run under numba in mode "aot": a copy of ``module``'s globals in which
    every kernel (exported or not) is ``numba.njit`` of a copy of its function reading these
    globals, so that the kernels it calls are numba's too (the module's own names stay the
    extension's functions)."""
    if module not in _SHADOWS:
        from numba import njit

        g = dict(vars(sys.modules[module]))
        for name, (fn, inline) in _KERNELS.get(module, {}).items():
            copy = FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
            copy.__qualname__ = fn.__qualname__
            copy.__module__ = fn.__module__
            inl: Literal["always", "never"] = "always" if inline else "never"
            g[name] = njit(cache=True, inline=inl)(copy)
        _SHADOWS[module] = g
    return _SHADOWS[module]


class _LazyJit:
    """A kernel that the extension does not export (a reference the tests compare against, or a
    helper inlined into the exported ones), compiled by numba on its first call from Python (so
    that importing the kernel modules stays free of numba)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.py_func = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args: Any) -> Any:
        return _shadow(self.py_func.__module__)[self.__name__](*args)


def kernel(sig: str | None = None, *, inline: bool = False) -> Callable[[F], F]:
    """``numba.njit(cache=True)`` or its ahead-of-time compiled twin (see the module's text).

    ``sig``: the signature the extension exports it with (numba's text, C-ordered arrays), None
    for a kernel that is only called from other kernels or by tests. ``inline``: numba's
    ``inline="always"`` (pasted into its callers)."""
    if sig is not None:
        parse_signature(sig)  # a bad text fails at import, in every mode

    def wrap(fn: F) -> F:
        st = state()
        if st.mode == "aot":
            _KERNELS.setdefault(fn.__module__, {})[fn.__name__] = (fn, inline)
            if sig is None:
                return _LazyJit(fn)  # type: ignore[return-value]
            return checked(fn.__name__, getattr(st.module, fn.__name__), sig)  # type: ignore[return-value]
        from numba import njit

        inl: Literal["always", "never"] = "always" if inline else "never"
        if st.mode == "build":
            disp = njit(cache=False, inline=inl)(fn)
            if sig is not None:
                if fn.__name__ in _BUILD_EXPORTS:
                    raise ValueError(f"two exported kernels named {fn.__name__}")
                _BUILD_EXPORTS[fn.__name__] = (disp, sig)
            return disp  # type: ignore[return-value]
        return njit(cache=True, inline=inl)(fn)  # type: ignore[return-value]

    return wrap


# ---------------------------------------------------------------------------------------------
# the build (``python -m pontoon.analysis.aot build DIR``: setup.py runs it in a child process)


def resolve_cpu(cpu: str) -> tuple[str, tuple[str, ...]]:
    """(LLVM target CPU, required ``ISA_FLAGS``) of a build for ``cpu`` ("host" or "generic";
    "" = generic): host only on Linux x86-64, where the flags can be read back at run time."""
    import platform

    if cpu in ("", "generic"):
        return "generic", ()
    if cpu != "host":
        raise ValueError(f"unknown target CPU {cpu!r}: {CPU_ENV} accepts {' or '.join(CPU_CHOICES)}")
    have = cpu_flags()
    if platform.machine().lower() not in ("x86_64", "amd64") or not have:
        return "generic", ()
    import llvmlite.binding as ll

    return ll.get_host_cpu_name(), tuple(f for f in ISA_FLAGS if f in have)


def build(out_dir: str, filename: str | None = None, cpu: str = "") -> Path:
    """Compile every exported kernel into ``out_dir/filename`` (default: this Python's extension
    name for ``_aot``) and write its CPU record (``CPU_RECORD``) beside it; ``cpu``: "host" (this
    machine's CPU) or "generic" / "" (any CPU of the architecture)."""
    global _forced
    if any(m in sys.modules for m in KERNEL_MODULES):
        raise RuntimeError("build() must run in a fresh process (the kernel modules are imported)")
    target, flags = resolve_cpu(cpu)
    _forced = "build"
    state.cache_clear()
    digest = sources_hash()
    for m in KERNEL_MODULES:
        importlib.import_module(m)
    from numba.pycc import CC

    cc = CC("_aot", source_module=__name__)
    cc.output_dir = out_dir
    if filename:
        cc.output_file = filename
    if target != "generic":
        _host_features()
        cc.target_cpu = "host"
    for name, (disp, sig) in sorted(_BUILD_EXPORTS.items()):
        cc.export(name, sig)(disp.py_func)
    cc.export(STAMP_FUNCTION, "i8()")(_stamp_function(stamp_of(digest)))
    record = Path(out_dir) / CPU_RECORD
    record.unlink(missing_ok=True)  # no record of an earlier build beside a half-made module
    cc.compile()
    tmp = record.with_name(f"{CPU_RECORD}.{os.getpid()}.tmp")
    tmp.write_text(CpuRecord(stamp_of(digest), target, flags).text(), encoding="ascii")
    os.replace(tmp, record)
    return Path(out_dir) / cc.output_file


def _host_features() -> None:
    """numba.pycc gives LLVM the host CPU's *name* only, which enables every feature of that model,
    some of which a virtual machine may hide (AVX-512 on a host that has it): give it exactly the
    features this CPU reports, as numba's JIT does (this build process only)."""
    from numba.core import codegen

    codegen.AOTCPUCodegen._customize_tm_features = lambda self: codegen.get_host_cpu_features()  # type: ignore[method-assign]


def _stamp_function(value: int) -> Callable[[], int]:
    def aot_stamp() -> int:
        return value

    return aot_stamp


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "build":
        me = importlib.import_module("pontoon.analysis.aot")  # not __main__: the kernels import that one
        cpu = argv[3] if len(argv) > 3 else (os.environ.get(CPU_ENV, "").strip() or "host")
        path = me.build(argv[1], argv[2] if len(argv) > 2 else None, cpu)
        print(f"built {path}: {(path.parent / CPU_RECORD).read_text().strip().replace(chr(10), ', ')}")
        return 0
    print(f"pontoon analysis kernels: {describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
