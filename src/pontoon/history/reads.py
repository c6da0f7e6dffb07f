"""The queries of a table's events and ledger rows (``Store.events_``, ``Store.ledger_``), by the keys of
the store's schema revision: a reader may open a store of an older revision and reads it as it is.

- revision 0012 on: a table's round rows by ``uq_round_number`` (number, table_id), each of its numbers
  up to its newest (``heads.rounds``) looked up; until then by ``uq_round`` (table_id, number);
- revision 0011 on: a table's events through its round rows (then ``uq_event_round``
  (round_id, seq)) and its events of no round row (``uq_event_table``); its ledger through those events
  (``uq_ledger_idem`` by event). On SQLite with ``INDEXED BY``: with the statistics of a store of few
  tables (or none) the planner would scan the events by id for ``id > :a``, or the ledger;
- revision 0010: the events by ``uq_event`` (table_id, round_no, seq), the ledger through them;
- before: the events by ``uq_event``, the ledger by ``ix_ledger_table``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text

from pontoon.history import schema as s


def round_ids_of(revision: str, sqlite: bool) -> str:
    """The ids of table ``:t``'s round rows: by ``uq_round_number`` and the table's newest number from
    revision 0012 on (``schema.TABLE_ROUNDS``), by ``uq_round`` before."""
    return s.TABLE_ROUNDS[sqlite] if revision >= "0012" else s.TABLE_ROUNDS_0011


def events_query(revision: str, sqlite: bool, table_id: int, after_id: int, round_no: int | None) -> Any:
    """The events of ``table_id`` (of its round ``round_no``) after the id ``after_id``, in id order."""
    if revision >= "0011":
        params: dict[str, int] = {"t": table_id, "a": after_id}
        where, round_ids = " AND id > :a", round_ids_of(revision, sqlite)
        if round_no is not None:
            where, round_ids = (
                where + " AND round_no = :n",
                "SELECT id FROM rounds WHERE number = :n AND table_id = :t",
            )
            params["n"] = round_no
        sql = s.TABLE_EVENTS.format(
            round_ids=round_ids,
            where=where,
            by_round=" INDEXED BY uq_event_round" if sqlite else "",
            by_table=" INDEXED BY uq_event_table" if sqlite else "",
        )
        return text(sql).bindparams(**params)
    q = (
        select(s.events)
        .where(s.events.c.table_id == table_id, s.events.c.id > after_id)
        .order_by(s.events.c.id)
    )
    return q if round_no is None else q.where(s.events.c.round_no == round_no)


def ledger_query(revision: str, sqlite: bool, table_id: int | None, round_id: int | None) -> Any:
    """The ledger rows (of ``table_id``, of its round row ``round_id``); a table's unsorted (the caller
    sorts them by id: no ORDER BY for the planner to scan the ledger for)."""
    q: Any = select(s.ledger).order_by(s.ledger.c.id)
    if table_id is not None and revision >= "0010":
        hint = " INDEXED BY uq_ledger_idem" if sqlite else ""
        if revision >= "0011":
            rnd = s.OF_ROUND if round_id is not None else s.ANY_ROUND
            rnd = {**rnd, "ids": rnd["ids"].format(round_ids=round_ids_of(revision, sqlite))}
        else:
            rnd = s.OF_ROUND_0010 if round_id is not None else s.ANY_ROUND_0010
        q = text(s.TABLE_LEDGER.format(hint=hint, **rnd))
        return q.bindparams(t=table_id, **({"r": round_id} if round_id is not None else {}))
    # (a store of an older revision, read as it is: by ``ix_ledger_table``)
    q = q.where(s.ledger.c.table_id == table_id) if table_id is not None else q
    return q.where(s.ledger.c.round_id == round_id) if round_id is not None else q


__all__ = ["events_query", "ledger_query", "round_ids_of"]
