"""Build the round engines with mypyc (see docs/architecture.md, "Compiled engine").

``pip install -e '.[dev]'`` (``make install``) compiles the hot modules listed in ``COMPILED`` into C
extensions placed beside their sources (the import system prefers an extension module to the ``.py``
of the same name). ``PONTOON_PURE=1`` skips compilation; a compilation that fails falls back to the
pure-Python package with a warning. Either way the package behaves the same: the compiled modules are
the same sources, type-checked.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

# the hot path: the casino and British round engines, their tables and the shared records
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
]


def _ext_modules() -> list:
    if os.environ.get("PONTOON_PURE", "") not in ("", "0"):
        print("PONTOON_PURE is set: installing the pure-Python engine", file=sys.stderr)
        return []
    try:
        from mypyc.build import mypycify

        return mypycify(COMPILED, opt_level="3", group_name="pontoon_engine")
    except Exception as e:  # noqa: BLE001  (any failure: the pure-Python package still works)
        print(f"warning: mypyc compilation failed ({e}); installing the pure-Python engine", file=sys.stderr)
        return []


setup(ext_modules=_ext_modules())
