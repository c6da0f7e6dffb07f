"""The group commit's rows as SQL: each kind's multi-row statement (head, one row's values, tail), the
rows' compact forms, the order of the kinds and the stale-head mark. The data both runners share:
``batchsql.py`` (SQLite: the statements chunked) and ``pgprep.py`` (PostgreSQL: one prepared statement a
kind, its rows from arrays). One truth for both databases: a schema revision changes it here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_ROUND = "(SELECT id FROM rounds WHERE table_id = ? AND number = ?)"
# an event by its table, round number and seq (revision 0011's keys): a round's by its round row
# (``uq_event_round``), else one of no round row, round 0 (``uq_event_table``); (table, round, seq) twice
_EVENT = (
    f"coalesce((SELECT id FROM events WHERE round_id = {_ROUND} AND seq = ?), "
    "(SELECT id FROM events WHERE table_id = ? AND round_no = ? AND seq = ? AND round_id IS NULL))"
)

# name -> (head, one row's VALUES, tail)
_STATEMENTS: dict[str, tuple[str, str, str]] = {
    "shoe": ("INSERT INTO shoes (table_id, number, cards, cut, created) VALUES ", "(?, ?, ?, ?, ?)", ""),
    "round": (
        "INSERT INTO rounds (table_id, number, shoe, status, started) VALUES ",
        "(?, ?, ?, 'open', ?)",
        "",
    ),
    "event": (
        "INSERT INTO events (table_id, round_id, round_no, seq, kind, payload, clause, created, prev_hash, "
        "hash) VALUES ",
        f"(?, {_ROUND}, ?, ?, ?, ?, ?, ?, ?, ?)",
        "",
    ),
    "ledger": (
        "INSERT INTO ledger (table_id, round_id, event_id, idem, source, dest, amount, kind, player, reason) "
        "VALUES ",
        f"(?, {_ROUND}, {_EVENT}, ?, ?, ?, ?, ?, ?, ?)",
        "",
    ),
    "balance": (
        "INSERT INTO accounts (table_id, account, balance) VALUES ",
        "(?, ?, ?)",
        " ON CONFLICT (table_id, account) DO UPDATE SET balance = excluded.balance",
    ),
    # (status, ended, result, table id, round number)
    "end": (
        "UPDATE rounds SET status = v.column1, ended = v.column2, result = v.column3 FROM (VALUES ",
        "(?, ?, ?, ?, ?)",
        ") AS v WHERE rounds.table_id = v.column4 AND rounds.number = v.column5",
    ),
    # (table id, new head, seal, old head, the newest round started or NULL): a head moves only from the
    # head it was chained from; revision 0012: ``heads.rounds``, the table's newest round number
    "head": (
        "UPDATE heads SET last_hash = v.column2, seal = v.column3, rounds = coalesce(v.column5, "
        "heads.rounds) FROM (VALUES ",
        "(?, ?, ?, ?, ?)",
        ") AS v WHERE heads.table_id = v.column1 AND heads.last_hash = v.column4",
    ),
    # (table id, round number, snapshot): revision 0012, a round-start snapshot in a row of its own
    "snapshot": ("INSERT INTO snapshots (round_id, state) VALUES ", f"({_ROUND}, ?)", ""),
    # (table id, snapshot, its event's round_no, seq, less): the snapshot's ``state_event`` is that
    # event's id less ``less`` (0 when there is no such event); once a round, in the ``tables`` row
    "state": (
        "UPDATE tables SET state = v.column2, state_event = coalesce(coalesce(("
        "SELECT e.id FROM events e WHERE e.round_id = (SELECT r.id FROM rounds r WHERE r.table_id = "
        "v.column1 AND r.number = v.column3) AND e.seq = v.column4), (SELECT e.id FROM events e WHERE "
        "e.table_id = v.column1 AND e.round_no = v.column3 AND e.seq = v.column4 AND e.round_id IS NULL)) "
        "- v.column5, 0) FROM (VALUES ",
        "(?, ?, ?, ?, ?)",
        ") AS v WHERE tables.id = v.column1",
    ),
}
# The rows as ``writeitems.write_items`` makes them (``stamp``: the transaction's time, one parameter):
#   shoe (table, number, cards, cut)            round (table, number, shoe)
#   event (table, round, seq, kind, payload, clause, stamp, prev hash, hash)
#   ledger (table, round, seq, idem, source, dest, amount, kind, player, reason) (``LEDGER_IDEM``: its idem)
#   (PostgreSQL alone: each value once, where ``_STATEMENTS``' row takes the table, round and seq two to
#   four times; ``_PG_COLUMNS`` names the column each ``?`` takes)
#   balance (table, account, balance)           end (status, result, table, round)
#   head (table, new head, seal, old head, newest round or None)
#   state (table, snapshot, round, seq, less)
# ``_STATEMENTS``' rows (the multi-row form) from the others (a few a commit):
_WIDE: dict[str, Callable[[tuple[Any, ...], str], tuple[Any, ...]]] = {
    "shoe": lambda r, st: (*r, st),
    "round": lambda r, st: (*r, st),
    "end": lambda r, st: (r[0], st, *r[1:]),
}
LEDGER_IDEM = 3
# PostgreSQL (``pgprep._unnest_sql``): the column of the compact row above (1-based) that each ``?`` of
# ``_STATEMENTS``' row takes, where a value is taken more than once (a kind not here: the n-th ``?`` the
# n-th column). Each column is one array of the commit's text: a value sent once, not two to four times.
_PG_COLUMNS: dict[str, tuple[int, ...]] = {
    # table, round's (table, number), round, seq, kind, payload, clause, stamp, prev hash, hash
    "event": (1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9),
    # table, round's (table, number), event's ((table, number), seq, table, round, seq), idem, ...
    "ledger": (1, 1, 2, 1, 2, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
}

# SQLite (``batchsql.statement``): the writer holds the write lock (``BEGIN IMMEDIATE``) and gives the
# rounds and events their ids itself (the next after the largest: what the rowid would be), so every row
# names its round row and event by id: no look-up of a round row an event, nor of the event and its
# round a ledger row (``writeitems._Ids``). Its rows (the others as above):
#   round (id, table, number, shoe)   event (id, table, round id, round, seq, kind, payload, clause,
#   stamp, prev hash, hash)           ledger (table, round id, event id, idem, source, ...)
#   snapshot (round id, snapshot)     end (status, result, round id)   state (table, snapshot, event id)
_SQLITE: dict[str, tuple[str, str, str]] = {
    "round": (
        "INSERT INTO rounds (id, table_id, number, shoe, status, started) VALUES ",
        "(?, ?, ?, ?, 'open', ?)",
        "",
    ),
    "event": (
        "INSERT INTO events (id, table_id, round_id, round_no, seq, kind, payload, clause, created, "
        "prev_hash, hash) VALUES ",
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        "",
    ),
    "ledger": (
        "INSERT INTO ledger (table_id, round_id, event_id, idem, source, dest, amount, kind, player, reason) "
        "VALUES ",
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        "",
    ),
    "snapshot": ("INSERT INTO snapshots (round_id, state) VALUES ", "(?, ?)", ""),
    "end": (
        "UPDATE rounds SET status = v.column1, ended = v.column2, result = v.column3 FROM (VALUES ",
        "(?, ?, ?, ?)",
        ") AS v WHERE rounds.id = v.column4",
    ),
    "state": (
        "UPDATE tables SET state = v.column2, state_event = v.column3 FROM (VALUES ",
        "(?, ?, ?)",
        ") AS v WHERE tables.id = v.column1",
    ),
}
SQLITE_LEDGER_IDEM = 3
# SQLite, a kind's statement of ONE row (``batchsql._one``: a one-table commit, the human-paced
# server's) where its multi-row form joins a ``VALUES`` list: the same row's parameters by number, no
# ``VALUES`` materialized and joined (the heads' UPDATE of one row: 5.1 us against 1.9 us a commit)
_SQLITE_ONE: dict[str, str] = {
    # (table id, new head, seal, old head, the newest round started or NULL)
    "head": "UPDATE heads SET last_hash = ?2, seal = ?3, rounds = coalesce(?5, rounds) "
    "WHERE table_id = ?1 AND last_hash = ?4",
    # (status, ended, result, round id)
    "end": "UPDATE rounds SET status = ?1, ended = ?2, result = ?3 WHERE id = ?4",
    # (table id, snapshot, event id)
    "state": "UPDATE tables SET state = ?2, state_event = ?3 WHERE id = ?1",
}


ORDER = ("shoe", "round", "snapshot", "event", "ledger", "balance", "end", "head", "state")
# PostgreSQL: the heads' UPDATE is checked by the server (``pgprep._unnest_sql``): the n heads of a
# commit must move n rows, else the statement fails (a text that is no integer: SQLSTATE 22P02, naming
# STALE) and with it the transaction, so that the COMMIT sent in the same text is not run (``run``'s
# ``commit``): a stale head is found with no round trip of its own. (The CASE is not constant: the
# planner cannot fold the failing cast.)
STALE = "stale head"


__all__ = [
    "LEDGER_IDEM",
    "ORDER",
    "SQLITE_LEDGER_IDEM",
    "STALE",
    "_PG_COLUMNS",
    "_SQLITE",
    "_SQLITE_ONE",
    "_STATEMENTS",
    "_WIDE",
]
