"""The store's reads (``Store``'s reading half, kept apart from its writing half in ``store.py``): a
table's row and latest snapshot, its events, ledger, accounts, rounds and shoes, and the audit's passes
over every table (the strays, SQLite's integrity check). Every read runs in ``_read``: a snapshot of its
own, or the one the calling thread holds (``Store.snapshot``)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Engine, Integer, literal_column, select, text

from pontoon.history import schema as s
from pontoon.history.engines import HistoryError, stored_amount, stored_json
from pontoon.history.reads import events_query, ledger_query, round_ids_of


class StoreReads:
    """The reads of ``Store`` (its base class): they need only its engine, URL, revision and ``_read``."""

    engine: Engine
    url: str
    revision: str
    sealed: bool

    def _read(self) -> AbstractContextManager[Connection]:  # ``Store._read``
        raise NotImplementedError

    def table(self, table_id: int) -> dict[str, Any]:
        """The ``tables`` row of ``table_id`` with its chain head (``last_hash``) and, from revision 0005
        on, its ``seal``: in ``heads`` from revision 0008 on (a reader may open an older store). Its
        ``state`` and ``state_event`` are the table's latest recovery snapshot: from revision 0012 on
        that of its newest round (``snapshots``) when it is later than the row's own."""
        q: Any
        if self.revision >= "0008":
            q = select(*s.tables.c, s.heads.c.last_hash, s.heads.c.seal).join(
                s.heads, s.heads.c.table_id == s.tables.c.id
            )
        else:  # the columns of ``tables`` until then
            old: list[Any] = [literal_column("last_hash")] + ([literal_column("seal")] if self.sealed else [])
            q = select(*s.tables.c, *old).select_from(s.tables)
        with self._read() as conn:
            r = conn.execute(q.where(s.tables.c.id == table_id)).mappings().first()
            snap = (
                conn.execute(text(s.LATEST_SNAPSHOT), {"t": table_id}).first()
                if r is not None and self.revision >= "0012"
                else None
            )
        if r is None:
            raise HistoryError(f"no table {table_id} in the history at {self.url}")
        out = dict(r)
        where = f"the stored tables row {table_id}: state"
        if snap is not None:  # revision 0012: the snapshot of its newest round, if later than the row's
            number, state, before = snap
            if before is None:
                raise HistoryError(
                    f"the stored snapshot of table {table_id}'s round {number} has no round_start event "
                    "(seq 0) to hold before: the stored rows are damaged"
                )
            if int(before) >= int(out["state_event"]):  # (as of the same event: the round's is later)
                out["state"], out["state_event"] = state, int(before)
                where = f"the stored snapshot of table {table_id}'s round {number}: state"
        for k in ("rules", "meta"):
            out[k] = stored_json(out[k], f"the stored tables row {table_id}: {k}", dict)
        out["state"] = stored_json(out["state"], where, dict)
        return out

    def tables_(self, *, status: str | None = None, label: str | None = None) -> list[dict[str, Any]]:
        q = select(
            s.tables.c.id,
            s.tables.c.game,
            s.tables.c.preset,
            s.tables.c.label,
            s.tables.c.status,
            s.tables.c.created,
        ).order_by(s.tables.c.id)
        if status is not None:
            q = q.where(s.tables.c.status == status)
        if label is not None:
            q = q.where(s.tables.c.label == label)
        with self._read() as conn:
            return [dict(r) for r in conn.execute(q).mappings()]

    def events_(
        self, table_id: int, *, after_id: int = 0, round_no: int | None = None
    ) -> list[dict[str, Any]]:
        """The events of ``table_id`` (of its round ``round_no``; 0: between rounds) after the id
        ``after_id``, in id order (the order they were written in). From revision 0011 on they are found
        through the table's round rows and the events of no round row (``schema.TABLE_EVENTS``); an
        event whose round row is another table's or another number's is in no table's read (the audit
        names it: ``event_strays``)."""
        sqlite = self.engine.dialect.name == "sqlite"
        q = events_query(self.revision, sqlite, table_id, after_id, round_no)
        with self._read() as conn:
            rows = [dict(r) for r in conn.execute(q).mappings()]
        for r in rows:
            r["data"] = stored_json(r.pop("payload"), f"the stored events row {r['id']}: payload", dict)
        return rows

    def ledger_(self, table_id: int | None = None, *, round_id: int | None = None) -> list[dict[str, Any]]:
        """The ledger rows (of ``table_id``, of its round row ``round_id``) in id order. A table's rows
        are found through its events (revision 0010: the ledger's only key is by event, ``uq_ledger_idem``
        (event_id, idem), so that a commit appends to it): its rows whose event is one of its own; a row
        that is not (a stray: ``ledger_strays``, which the audit refuses) is in no table's ledger."""
        sqlite = self.engine.dialect.name == "sqlite"
        q = ledger_query(self.revision, sqlite, table_id, round_id)
        with self._read() as conn:
            rows = [dict(r) for r in conn.execute(q).mappings()]
        if table_id is not None:
            rows.sort(key=lambda r: int(r["id"]))
        for r in rows:
            for k in ("source", "dest"):
                r[k] = stored_json(r[k], f"the stored ledger row {r['id']}: {k}", (str, dict))
            stored_amount(r["amount"], f"the stored ledger row {r['id']}: amount")
        return rows

    def accounts_(self, table_id: int | None = None) -> list[dict[str, Any]]:
        q = select(s.accounts).order_by(s.accounts.c.table_id, s.accounts.c.account)
        if table_id is not None:
            q = q.where(s.accounts.c.table_id == table_id)
        with self._read() as conn:
            return [dict(r) for r in conn.execute(q).mappings()]

    def balances(self, table_id: int) -> dict[str, Decimal]:
        return {
            r["account"]: stored_amount(
                r["balance"], f"the stored accounts row (table {table_id}, {str(r['account'])[:80]}): balance"
            )
            for r in self.accounts_(table_id)
        }

    def rounds_(
        self, *, table_id: int | None = None, last: int | None = None, round_id: int | None = None
    ) -> list[dict[str, Any]]:
        q = select(s.rounds, s.tables.c.preset, s.tables.c.game)
        if table_id is not None and self.revision >= "0012":
            # by ``uq_round_number``: the table's numbers, a look-up each, then its rows by id (from the
            # ids: SQLite would rather scan the rounds by id for the ORDER BY)
            ids = round_ids_of(self.revision, self.engine.dialect.name == "sqlite")
            x = text(ids).bindparams(t=table_id).columns(id=Integer).subquery("x")
            q = q.select_from(x).join(s.rounds, s.rounds.c.id == x.c.id)
        q = q.join(s.tables, s.tables.c.id == s.rounds.c.table_id)
        if table_id is not None:
            q = q.where(s.rounds.c.table_id == table_id)
        if round_id is not None:
            q = q.where(s.rounds.c.id == round_id)
        q = q.order_by(s.rounds.c.id.desc())
        if last is not None:
            q = q.limit(last)
        with self._read() as conn:
            rows = [dict(r) for r in conn.execute(q).mappings()]
        rows.reverse()
        for r in rows:
            r["result"] = (
                stored_json(r["result"], f"the stored rounds row {r['id']}: result", dict)
                if r["result"]
                else None
            )
        return rows

    def round_(self, round_id: int) -> dict[str, Any]:
        rows = self.rounds_(round_id=round_id)
        if not rows:
            raise HistoryError(
                f"no round {round_id} in the history at {self.url}; `pontoon history` lists them"
            )
        return rows[0]

    def shoes_(self, table_id: int, number: int | None = None) -> list[dict[str, Any]]:
        q = select(s.shoes).where(s.shoes.c.table_id == table_id).order_by(s.shoes.c.number)
        if number is not None:
            q = q.where(s.shoes.c.number == number)
        with self._read() as conn:
            return [dict(r) for r in conn.execute(q).mappings()]

    def ledger_strays(self) -> list[dict[str, Any]]:
        """The ledger rows in no table's ``ledger_`` (their event missing, or another table's): not
        covered by their table's hash chain. One pass of the ledger."""
        with self._read() as conn:
            return [dict(r) for r in conn.execute(text(s.LEDGER_STRAYS)).mappings()]

    def event_strays(self) -> list[dict[str, Any]]:
        """The events in no table's ``events_`` (from revision 0011 on: their round row missing, another
        table's or another round number's; from 0012 on also a round numbered under 1 or over its table's
        ``heads.rounds``), so in no table's chain either. One pass of the events."""
        if self.revision < "0011":
            return []  # (read by ``uq_event``: every event is in its table's read)
        numbers = s.EVENT_STRAYS_NUMBERS if self.revision >= "0012" else ""
        with self._read() as conn:
            return [dict(r) for r in conn.execute(text(s.EVENT_STRAYS.format(numbers=numbers))).mappings()]

    def integrity(self) -> str:
        """``PRAGMA integrity_check`` on SQLite (``ok`` when sound); ``ok`` on PostgreSQL."""
        if self.engine.dialect.name != "sqlite":
            return "ok"
        with self._read() as conn:
            return str(conn.exec_driver_sql("PRAGMA integrity_check").scalar())
