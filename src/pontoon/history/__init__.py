"""Durable history: every event of every recorded table, its ledger, recall, replay and recovery.

The API (see docs/history.md):
- ``open_store(url)`` -> ``Store`` (None: ``$PONTOON_DB`` or the user data directory's SQLite file);
- ``Recorder(store, table, label=..., meta=...)`` attaches to a ``CasinoTable`` or ``BritishGame``;
- ``recover(store)`` / ``recover_table(store, table_id, policy=...)`` rebuild open tables after a crash;
- ``shoe_record(store, shoe_id)``: a shoe's table events and the cards dealt from it (``shoe_record_of``
  by table and shoe number);
- ``audit(store)``, ``replay_round(store, round_id)``, ``round_detail(store, round_id)``: recall and checks.

The names are imported when first asked for (PEP 562), not with the package: a process that needs
one module of it (the writer process, ``writer_child.py``) does not import the recorder, the engines
and the rules (half of its start: docs/history.md, "The writer process").
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pontoon.history.recorder import Recorder, RecoveryMismatch
    from pontoon.history.recover import Recovered, recover, recover_table, shoe_record, shoe_record_of
    from pontoon.history.store import HistoryError, Store, default_url, open_store

_WHERE = {
    "Recorder": "recorder",
    "RecoveryMismatch": "recorder",
    "Recovered": "recover",
    "recover": "recover",
    "recover_table": "recover",
    "shoe_record": "recover",
    "shoe_record_of": "recover",
    "HistoryError": "store",
    "Store": "store",
    "default_url": "store",
    "open_store": "store",
}


class _History(types.ModuleType):
    """The package: importing its submodule ``recover`` binds the submodule here, as imports do; the
    package's ``recover`` stays that submodule's function, as when it was imported with the package."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "recover" and isinstance(value, types.ModuleType):
            value = value.recover
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _History


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'pontoon.history' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"pontoon.history.{where}"), name)
    globals()[name] = value
    return value


__all__ = [
    "HistoryError",
    "Recorder",
    "Recovered",
    "RecoveryMismatch",
    "Store",
    "default_url",
    "open_store",
    "recover",
    "recover_table",
    "shoe_record",
    "shoe_record_of",
]
