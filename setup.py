"""Build the round engines with mypyc (docs/architecture.md, "The compiled engine").

``pip install -e '.[dev]'`` (``make install``) compiles the hot modules listed in ``COMPILED`` into C
extensions placed beside their sources; the import system prefers an extension module to the ``.py``
of the same name, so ``import pontoon.casino.round`` loads the compiled engine. The sources stay the
truth: the extensions are those same files, compiled. After editing one of them, rebuild
(``make compile``, or ``make install``), or the old build goes on being imported
(``python -m pontoon.compiled`` tells which build is imported and whether it is stale).

``PONTOON_PURE=1`` skips compilation (and removes an earlier in-place build); if compilation fails for
any reason, the build says so and installs the pure-Python package, which behaves the same.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
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


def _warn(msg: str) -> None:
    print(f"\n*** pontoon: {msg}\n", file=sys.stderr)


def remove_inplace_build() -> list[str]:
    """Delete compiled modules left beside the sources (so that the .py files are imported)."""
    gone = []
    for src in COMPILED:
        p = HERE / src
        for so in p.parent.glob(p.stem + ".*.so"):
            so.unlink()
            gone.append(str(so.relative_to(HERE)))
    for so in (HERE / "src").glob(f"{GROUP}__mypyc.*.so"):
        so.unlink()
        gone.append(str(so.relative_to(HERE)))
    return gone


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the pure-Python package when the C build fails."""

    def run(self) -> None:
        try:
            super().run()
        except (Exception, SystemExit) as e:  # noqa: BLE001  (a compiler error exits)
            for ext in self.extensions:  # no half-built engine: a shim without its library cannot import
                for base in (self.build_lib, str(HERE / "src")):
                    p = Path(base) / self.get_ext_filename(ext.name)
                    if p.exists():
                        p.unlink()
            remove_inplace_build()
            _warn(f"compiling the engine failed ({e}); the pure-Python engine is installed")


def ext_modules() -> list:
    if os.environ.get("PONTOON_PURE", "") not in ("", "0"):
        gone = remove_inplace_build()
        _warn("PONTOON_PURE is set: the pure-Python engine is installed"
              + (f" (removed {len(gone)} compiled modules)" if gone else ""))
        return []
    try:
        from mypyc.build import mypycify

        # paths relative to the project (pip and setup.py run here); C sources go to build/. No config
        # file: pyproject's [tool.mypy] loads the pydantic plugin, absent from pip's isolated build
        # environment (as are numpy and gymnasium: their types are Any there, the code the same);
        # the modules they import are read for their types, their own errors not reported (without
        # the plugin, pydantic models' constructors look wrong to mypy); `make typecheck` checks all
        options = ["--config-file=", "--ignore-missing-imports", "--follow-imports=silent"]
        return mypycify(options + COMPILED, opt_level="3", group_name=GROUP)
    except (Exception, SystemExit) as e:  # noqa: BLE001  (mypyc reports type errors by exiting)
        remove_inplace_build()
        _warn(f"mypyc could not compile the engine ({e}); the pure-Python engine is installed")
        return []


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
