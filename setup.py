"""Build the round engines with mypyc (docs/architecture.md, "The compiled engine").

``pip install -e '.[dev]'`` (``make install``) compiles the hot modules listed in ``COMPILED`` into C
extensions placed beside their sources; the import system prefers an extension module to the ``.py``
of the same name, so ``import pontoon.casino.round`` loads the compiled engine. The sources stay the
truth: the extensions are those same files, compiled. After editing one of them, rebuild
(``make compile``, or ``make install``), or the old build goes on being imported
(``python -m pontoon.compiled`` tells which build is imported and whether it is stale).

The same build compiles the analysis kernels ahead of time with numba.pycc (``AOT``: the
extension ``pontoon.analysis._aot``, built by ``python -m pontoon.analysis.aot build`` in a child
process from the kernels' own sources; see ``src/pontoon/analysis/aot.py``), so that ``pontoon
analyze`` does not import numba, and the simulator's kernels (``pontoon.sim._aot``, by ``python -m
pontoon.sim.aot build``: ``src/pontoon/sim/aot.py``), so that a first ``pontoon simulate`` compiles
nothing. If a build fails, it says so and numba's JIT kernels serve, as without it.

``PONTOON_PURE=1`` skips compilation (and removes an earlier in-place build); if compilation fails for
any reason, the build says so and installs the pure-Python package, which behaves the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
GROUP = "pontoon_engine"  # the shared library of the compiled modules: src/pontoon_engine__mypyc*.so

# the hot path: the casino and British round engines and tables, the records they share, the RL env's
# per-step core. Not the analysis or the simulator (numba), not the interfaces.
COMPILED = [
    "src/pontoon/cards.py",
    "src/pontoon/hands.py",
    "src/pontoon/shoe.py",
    "src/pontoon/events.py",
    "src/pontoon/settlement.py",
    "src/pontoon/money.py",
    "src/pontoon/protocol.py",
    "src/pontoon/casino/actions.py",
    "src/pontoon/casino/bets.py",
    "src/pontoon/casino/irregular.py",
    "src/pontoon/casino/phase.py",
    "src/pontoon/casino/round.py",
    "src/pontoon/casino/seats.py",
    "src/pontoon/casino/settle.py",
    "src/pontoon/casino/state.py",
    "src/pontoon/casino/table.py",
    "src/pontoon/casino/verbs.py",
    "src/pontoon/british/moves.py",
    "src/pontoon/british/pack.py",
    "src/pontoon/british/ranking.py",
    "src/pontoon/british/round.py",
    "src/pontoon/british/settle.py",
    "src/pontoon/british/state.py",
    "src/pontoon/british/table.py",
    "src/pontoon/british/view.py",
    "src/pontoon/rl/_core.py",
]


# the analysis kernels compiled by numba.pycc (not mypyc): a placeholder extension that
# ``OptionalBuildExt`` builds with ``pontoon.analysis.aot`` (optional: a failure leaves the JIT)
AOT_EXT = "pontoon.analysis._aot"
AOT_RECORD = "_aot_cpu.txt"  # aot.CPU_RECORD: written beside the module by its build
AOT_CPU_ENV = "PONTOON_AOT_CPU"  # aot.CPU_ENV
AOT_SOURCES = [
    "src/pontoon/analysis/aot.py",
    "src/pontoon/analysis/dealer.py",
    "src/pontoon/analysis/kernels.py",
    "src/pontoon/analysis/split_kernels.py",
    "src/pontoon/analysis/onewager.py",
]
# the simulator's kernels, the same way (issue 25 item 4: no compilation on a first ``pontoon simulate``):
# ``pontoon.sim._aot``, built by ``python -m pontoon.sim.aot build DIR`` (see src/pontoon/sim/aot.py)
SIM_AOT_EXT = "pontoon.sim._aot"
SIM_AOT_SOURCES = [
    "src/pontoon/sim/aot.py",
    "src/pontoon/sim/_consts.py",
    "src/pontoon/sim/_draws.py",
    "src/pontoon/sim/_round.py",
    "src/pontoon/sim/_kernels.py",
    "src/pontoon/sim/_count_kernel.py",
    "src/pontoon/sim/_british_kernel.py",
]
# extension -> (the module that builds it, its folder, its sources)
AOTS = {
    AOT_EXT: ("pontoon.analysis.aot", "src/pontoon/analysis", AOT_SOURCES),
    SIM_AOT_EXT: ("pontoon.sim.aot", "src/pontoon/sim", SIM_AOT_SOURCES),
}


def _warn(msg: str) -> None:
    print(f"\n*** pontoon: {msg}\n", file=sys.stderr)


def remove_inplace_build(aot: bool = True) -> list[str]:
    """Delete compiled modules left beside the sources (so that the .py files are imported);
    ``aot``: the analysis kernels' module too."""
    gone = []
    for src in COMPILED:
        p = HERE / src
        for so in p.parent.glob(p.stem + ".*.so"):
            so.unlink()
            gone.append(str(so.relative_to(HERE)))
    for so in (HERE / "src").glob(f"{GROUP}__mypyc.*.so"):
        so.unlink()
        gone.append(str(so.relative_to(HERE)))
    for _, folder, _ in AOTS.values() if aot else []:
        for so in (HERE / folder).glob("_aot.*.so"):
            so.unlink()
            gone.append(str(so.relative_to(HERE)))
        record = HERE / folder / AOT_RECORD
        if record.is_file():
            record.unlink()
    return gone


def aot_cpu() -> str:
    """The target CPU of the analysis kernels: ``PONTOON_AOT_CPU``, ``host`` where unset."""
    cpu = os.environ.get(AOT_CPU_ENV, "").strip() or "host"
    if cpu not in ("host", "generic"):
        raise SystemExit(f"{AOT_CPU_ENV}={cpu!r}: accepted values are host and generic")
    return cpu


def build_aot(out: Path, cpu: str, module: str = "pontoon.analysis.aot") -> None:
    """Compile the kernels of ``module`` (the analysis's or the simulator's) into ``out`` for ``cpu``
    (a child process: numba's compiler state and the kernel modules stay out of this one); raises
    with the child's last lines when it fails."""
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    src = str(HERE / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PONTOON_NO_AOT", None)
    # the source folder goes on sys.path inside the child as well: pip's build environment installs a
    # sitecustomize that drops PYTHONPATH entries it did not put there (so ``-m`` alone finds no pontoon)
    run = f"import runpy, sys; sys.path.insert(0, {src!r}); runpy.run_module({module!r}, run_name='__main__')"
    cmd = [sys.executable, "-c", run, "build", str(out.parent), out.name, cpu]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0 or not out.is_file() or not (out.parent / AOT_RECORD).is_file():
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise RuntimeError(f"exit {done.returncode}: {tail}")


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the pure-Python package when the C build fails."""

    def build_extension(self, ext: Extension) -> None:
        if ext.name not in AOTS:
            super().build_extension(ext)
            return
        module, _, sources = AOTS[ext.name]
        out = Path(self.get_ext_fullpath(ext.name))
        record = out.parent / AOT_RECORD
        cpu = aot_cpu()
        newest = max((HERE / f).stat().st_mtime for f in sources)
        if not self.force and out.is_file() and out.stat().st_mtime >= newest and _built_for(record, cpu):
            return  # built from these sources already (its stamp says which, at run time)
        try:
            build_aot(out, cpu, module)
        except Exception as e:  # noqa: BLE001  (optional: the JIT kernels serve without it)
            for p in (out, record):
                if p.exists():
                    p.unlink()
            what = "analysis" if ext.name == AOT_EXT else "simulator"
            _warn(f"compiling the {what} kernels ahead of time failed ({e}); numba's JIT kernels are used")

    def copy_extensions_to_source(self) -> None:
        """setuptools copies the modules of an in-place build beside their sources: each kernel
        module's CPU record goes with it (without it the module is not used)."""
        super().copy_extensions_to_source()
        for name, (_, folder, _) in AOTS.items():
            built = Path(self.build_lib) / Path(self.get_ext_filename(name)).parent / AOT_RECORD
            if built.is_file():
                self.copy_file(str(built), str(HERE / folder / AOT_RECORD))

    def run(self) -> None:
        inplace = self.inplace
        try:
            super().run()
        except (Exception, SystemExit) as e:  # noqa: BLE001  (a compiler error exits)
            for ext in self.extensions:  # no half-built engine: a shim without its library cannot import
                if ext.name in AOTS:
                    continue
                for base in (self.build_lib, str(HERE / "src")):
                    p = Path(base) / self.get_ext_filename(ext.name)
                    if p.exists():
                        p.unlink()
            remove_inplace_build(aot=False)
            for name, (_, folder, _) in AOTS.items():
                aot = Path(self.build_lib) / self.get_ext_filename(name)
                if inplace and aot.is_file():  # built before the engine failed: setuptools copies no longer
                    self.copy_file(str(aot), str(HERE / folder / aot.name))
                    if (aot.parent / AOT_RECORD).is_file():
                        self.copy_file(str(aot.parent / AOT_RECORD), str(HERE / folder / AOT_RECORD))
            _warn(f"compiling the engine failed ({e}); the pure-Python engine is installed")


def _built_for(record: Path, cpu: str) -> bool:
    """Whether the CPU record of a module says it was built for ``cpu`` (host: not generic)."""
    try:
        built = dict(x.split("=", 1) for x in record.read_text().splitlines() if "=" in x).get("cpu", "")
    except OSError:
        return False
    return bool(built) and (built == "generic") == (cpu == "generic")


def ext_modules() -> list:
    if os.environ.get("PONTOON_PURE", "") not in ("", "0"):
        gone = remove_inplace_build()
        _warn(
            "PONTOON_PURE is set: the pure-Python engine (and numba's JIT analysis kernels) is installed"
            + (f" (removed {len(gone)} compiled modules)" if gone else "")
        )
        return []
    aot_cpu()  # a bad PONTOON_AOT_CPU stops the build here, with its one-line error
    try:
        from mypyc.build import mypycify

        # paths relative to the project (pip and setup.py run here); C sources go to build/. No config
        # file: pyproject's [tool.mypy] loads the pydantic plugin, absent from pip's isolated build
        # environment (as is gymnasium: its types are Any there, the code the same; numpy and numba
        # are there since the analysis kernels are compiled too);
        # the modules they import are read for their types, their own errors not reported (without
        # the plugin, pydantic models' constructors look wrong to mypy); `make typecheck` checks all
        options = ["--config-file=", "--ignore-missing-imports", "--follow-imports=silent"]
        engine = mypycify(options + COMPILED, opt_level="3", group_name=GROUP)
    except (Exception, SystemExit) as e:  # noqa: BLE001  (mypyc reports type errors by exiting)
        remove_inplace_build()
        _warn(f"mypyc could not compile the engine ({e}); the pure-Python engine is installed")
        engine = []
    # first: a failure of the engine's build (which removes its outputs) comes after them
    return [aot_extension(), aot_extension(SIM_AOT_EXT), *engine]


def aot_extension(name: str = AOT_EXT) -> Extension:
    """The placeholder that ``OptionalBuildExt.build_extension`` builds with numba.pycc (its
    ``depends``: a kernel source newer than the module rebuilds it)."""
    return Extension(name, sources=[], depends=AOTS[name][2], optional=True)


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
