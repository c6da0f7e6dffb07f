"""A recorded terminal session (``pontoon play``): the table row labelled ``terminal``, its settings in
``meta`` and, after a crash, the table recovered exactly where it stopped (``pontoon play --resume``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import update

from pontoon.history import schema as s
from pontoon.history.locks import SessionLock
from pontoon.history.recorder import AnyTable, Recorder
from pontoon.history.recover import recover_table, rules_of
from pontoon.history.store import HistoryError, Store, canon, open_store, stored_amount

LABEL = "terminal"


def check_meta(table_id: int, meta: dict[str, Any]) -> None:
    """A stored session's settings (``tables.meta``) as ``pontoon play`` writes them; anything else
    is one HistoryError naming the field (the stored row is damaged or not ours)."""
    where = f"the stored tables row {table_id}: meta"
    game = meta.get("game", "casino")
    if game == "british":
        if not isinstance(meta.get("seat", ""), str):
            raise HistoryError(f"{where}: seat is not a name: the stored row is damaged")
        return
    if game != "casino":
        raise HistoryError(
            f"{where}: game {str(game)[:20]!r} is not casino or british: the stored row is damaged"
        )
    boxes = meta.get("boxes")
    if isinstance(boxes, bool) or not isinstance(boxes, int) or not 1 <= boxes <= 16:
        raise HistoryError(
            f"{where}: boxes {str(boxes)[:20]!r} is not a number of boxes: the stored row is damaged"
        )
    for k in ("bet", "balance"):
        stored_amount(meta.get(k), f"{where}: {k}")
    if not isinstance(meta.get("player"), str):
        raise HistoryError(f"{where}: player is not a name: the stored row is damaged")
    sides = meta.get("sides", {})
    if not isinstance(sides, dict):
        raise HistoryError(f"{where}: sides is not a map of side bets: the stored row is damaged")
    for k, v in sides.items():
        stored_amount(v, f"{where}: sides {str(k)[:20]}")


class Session:
    def __init__(self, store: Store, meta: dict[str, Any]) -> None:
        self.store = store
        self.meta = dict(meta)
        self.recorder: Recorder | None = None
        self.table: AnyTable | None = None  # set when resuming: the recovered table
        self.start_balance = Decimal(str(meta.get("balance", "0")))
        self.notes: list[str] = []
        self.lock: SessionLock | None = None  # this process's hold on the table (one writer at a time)

    @classmethod
    def open(cls, url: str | None, meta: dict[str, Any]) -> Session:
        return cls(open_store(url), meta)

    @classmethod
    def resume(cls, url: str | None, *, policy: str = "resume") -> Session:
        """The last open terminal table in the database at ``url``, recovered."""
        store = open_store(url)
        open_tables = store.tables_(status="open", label=LABEL)
        if not open_tables:
            store.close()
            raise HistoryError(
                f"--resume: no unfinished terminal session in {store.url}; start one with pontoon play"
            )
        table_id = int(open_tables[-1]["id"])
        lock = SessionLock(store, table_id)
        try:
            lock.attach()  # before recovery: a live session elsewhere is refused, a dead one's lock recovered
            row = store.table(table_id)
            check_meta(table_id, row["meta"])
            got = recover_table(store, table_id, policy=policy)
        except BaseException:
            lock.release()
            store.close()
            raise
        out = cls(store, row["meta"])
        out.lock = lock
        out.table = got.table
        out.recorder = got.recorder
        out.notes = got.notes
        out.rules = rules_of(row)
        return out

    rules: Any = None

    def attach(self, table: AnyTable) -> None:
        self.recorder = Recorder(self.store, table, label=LABEL, meta=self.meta)
        self.lock = SessionLock(self.store, self.recorder.table_id)
        self.lock.attach()

    def note_bet(self, bet: Decimal) -> None:
        """A changed bet is part of the session's settings (``--resume`` goes on with it)."""
        self.meta["bet"] = str(bet)
        if self.recorder is not None:
            with self.store.engine.begin() as conn:
                conn.execute(
                    update(s.tables)
                    .where(s.tables.c.id == self.recorder.table_id)
                    .values(meta=canon(self.meta))
                )

    def shoe_id(self, number: int) -> int | None:
        """The stored id of this table's shoe ``number`` (what ``pontoon verify`` takes), if written."""
        if self.recorder is None:
            return None
        rows = self.store.shoes_(self.recorder.table_id, number)
        return int(rows[0]["id"]) if rows else None

    def close(self) -> None:
        """The session ended normally: the table is closed, so a fair shoe's seed is revealed
        (``shoe_retired``), and its record is closed (``--resume`` skips it)."""
        if self.recorder is not None:
            table = self.recorder.table
            if not table.in_round and not table.closed:
                table.close()
            self.recorder.close()
        if self.lock is not None:
            self.lock.release()
        self.store.close()
