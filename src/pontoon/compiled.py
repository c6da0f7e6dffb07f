"""Which build of the engine is imported: compiled with mypyc (setup.py) or the pure-Python sources;
and whether the analysis kernels are compiled ahead of time (``pontoon.analysis.aot``).

``python -m pontoon.compiled`` prints one line for each (and each stale engine module);
``engine_build()`` and ``analysis_build()`` return them for the benchmarks. A compiled module is *stale* when its ``.py`` source is newer than its build:
the old build is still what is imported until ``make compile`` (or ``make install``) rebuilds it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

GROUP_LIBRARY = "pontoon_engine__mypyc"  # setup.py's GROUP: the shared library of the compiled modules

# the modules setup.py compiles (its COMPILED list), by module name
ENGINE_MODULES = (
    "pontoon.cards",
    "pontoon.hands",
    "pontoon.shoe",
    "pontoon.events",
    "pontoon.settlement",
    "pontoon.money",
    "pontoon.protocol",
    "pontoon.casino.actions",
    "pontoon.casino.bets",
    "pontoon.casino.irregular",
    "pontoon.casino.phase",
    "pontoon.casino.round",
    "pontoon.casino.seats",
    "pontoon.casino.settle",
    "pontoon.casino.state",
    "pontoon.casino.table",
    "pontoon.casino.verbs",
    "pontoon.british.moves",
    "pontoon.british.pack",
    "pontoon.british.ranking",
    "pontoon.british.round",
    "pontoon.british.settle",
    "pontoon.british.state",
    "pontoon.british.table",
    "pontoon.british.view",
    "pontoon.rl._core",
)


def compiled_modules() -> dict[str, bool]:
    """Each engine module: True when the imported module is a compiled extension."""
    out = {}
    for name in ENGINE_MODULES:
        mod = importlib.import_module(name)
        out[name] = str(getattr(mod, "__file__", "") or "").endswith((".so", ".pyd"))
    return out


def stale_modules() -> list[str]:
    """Compiled modules whose ``.py`` source was changed after the build."""
    out = []
    for name, compiled in compiled_modules().items():
        if not compiled:
            continue
        so = Path(str(importlib.import_module(name).__file__))
        py = so.with_name(so.name.split(".", 1)[0] + ".py")
        if py.exists() and py.stat().st_mtime > built_at(so):
            out.append(name)
    return out


def built_at(so: Path) -> float:
    """When a compiled module's code was built: its own file holds only a shim (left as it was when
    its source did not change); the code is in the group's shared library, rebuilt on every change."""
    lib = sys.modules.get(GROUP_LIBRARY)
    lib_file = getattr(lib, "__file__", None) if lib is not None else None
    return max(so.stat().st_mtime, Path(lib_file).stat().st_mtime if lib_file else 0.0)


def engine_build() -> str:
    """One line: ``compiled with mypyc (26 of 26 engine modules)``, ``pure Python`` or a mix, and staleness."""
    got = compiled_modules()
    n = sum(got.values())
    if n == 0:
        return "pure Python (not compiled: PONTOON_PURE=1, or the build fell back)"
    text = f"compiled with mypyc ({n} of {len(got)} engine modules)"
    stale = stale_modules()
    if stale:
        text += f"; STALE: {len(stale)} changed since the build (make compile)"
    return text


def analysis_build() -> str:
    """One line: the analysis kernels ``AOT-compiled (numba.pycc), current, for this CPU (znver3):
    <file>`` (a host build, used on a CPU with its building CPU's flags) or ``..., for any CPU
    (generic): <file>``, or ``numba JIT (<why>)``, e.g. not built, stale, built for another CPU, or
    ``PONTOON_NO_AOT`` set."""
    from pontoon.analysis.aot import describe

    return describe()


def sim_build() -> str:
    """One line as ``analysis_build``, for the simulator's kernels (``pontoon.sim.aot``)."""
    from pontoon.sim.aot import describe

    return describe()


def main() -> None:
    print(f"pontoon engine: {engine_build()}")
    for name in stale_modules():
        print(f"  stale: {name} (its .py is newer than its build)")
    print(f"pontoon analysis kernels: {analysis_build()}")
    print(f"pontoon simulator kernels: {sim_build()}")
    sys.exit(0)


if __name__ == "__main__":
    main()
