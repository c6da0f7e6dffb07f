"""Durable history: every event of every recorded table, its ledger, recall, replay and recovery.

The API (see docs/history.md):
- ``open_store(url)`` -> ``Store`` (None: ``$PONTOON_DB`` or the user data directory's SQLite file);
- ``Recorder(store, table, label=..., meta=...)`` attaches to a ``CasinoTable`` or ``BritishGame``;
- ``recover(store)`` / ``recover_table(store, table_id, policy=...)`` rebuild open tables after a crash;
- ``shoe_record(store, shoe_id)``: a shoe's table events and the cards dealt from it (``shoe_record_of``
  by table and shoe number);
- ``audit(store)``, ``replay_round(store, round_id)``, ``round_detail(store, round_id)``: recall and checks.
"""

from pontoon.history.recorder import Recorder, RecoveryMismatch
from pontoon.history.recover import Recovered, recover, recover_table, shoe_record, shoe_record_of
from pontoon.history.store import HistoryError, Store, default_url, open_store

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
