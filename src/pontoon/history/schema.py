"""The history schema (SQLAlchemy Core). Alembic's first revision creates exactly these tables.

- ``tables``: one row per table (game, preset, rules as JSON, a label such as ``terminal``, the
  session settings in ``meta``, ``status`` open/closed) and, private, a recovery snapshot (``state``:
  balances, shoe or pack order, RNG state, as of ``state_event``): the table's first, written with its
  row (until revision 0012 the latest, rewritten at each round's start);
- ``snapshots`` (revision 0012): private, the recovery snapshot taken at each round's start, keyed by
  its round row (``Store.table`` gives the table's latest: ``LATEST_SNAPSHOT`` or ``tables.state``);
- ``heads`` (revision 0008): each table's hash-chain head (``last_hash``) and its seal (``seal.py``), moved
  at every write: a small row of its own, so that a write does not rewrite the table's rules and snapshot;
  and (revision 0012) ``rounds``, the number of its newest round row;
- ``shoes``: every shoe's full card order (private: never shown; recovery deals on from it);
- ``rounds``: one row per round (table, number, status open/settled/void, times, result JSON), unique by
  (number, table_id) from revision 0012 (``uq_round_number``), by (table_id, number) until then;
- ``events``: every event, ``round_no`` 0 for the table's own events, (table, round_no, seq) unique:
  revision 0011 keys a round's events by its round row, UNIQUE(round_id, seq) (``uq_event_round``: new
  rounds have the newest ids, so a commit appends to it), and the events of no round row by
  UNIQUE(table, round_no, seq) (``uq_event_table``, a partial index); until then UNIQUE(table, round_no,
  seq) of every event (``uq_event``); ``hash`` = sha256(prev_hash + canonical JSON of the event and its
  transfers);
  (PostgreSQL: revision 0008 drops the foreign keys of ``events`` and ``ledger`` declared below, for the
  write path's speed; the audit checks every link they covered: ``audit._check_links``; on SQLite the
  group commit's writer connection runs with ``foreign_keys=OFF`` for the same reason: ``Store.
  writer_connection``);
- ``ledger``: every transfer as exact decimal text, accounts as ``Transfer.to_json`` writes them
  (a system account is ``{"system": "house"}``, never a name), ``idem`` UNIQUE per event (revision
  0010: ``uq_ledger_idem`` (event_id, idem), also the index of a table's ledger through its events),
  the cashier rows (deposits, withdrawals) indexed by player (``ix_ledger_cashier``, a partial index);
- ``accounts``: each table's balances (exact decimal text), updated in the event's transaction;
- ``pontoon_meta`` (revision 0005): key/value rows; ``application`` = ``pontoon-history`` marks the
  database as ours, ``seal_key`` names the key that seals the chains (``heads.seal``: ``seal.py``);
- ``drills`` (revision 0002): one row per ``pontoon train`` session summary: accuracy, cost and cost per
  100 hands as exact decimal text (expected values in wagers, fixed to 6 places), the worst spots as JSON;
- ``web_logins`` and ``web_sessions`` (revision 0006, the table server's accounts: docs/accounts.md): each
  account's uniqueness key (its name folded, ``pontoon.web.names``) and argon2id password hash (none: a
  guest), and the login sessions (the SHA-256 of each session token, never the token; an expiry).
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

metadata = MetaData()

tables = Table(
    "tables",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game", String(16), nullable=False),
    Column("preset", String(64), nullable=False),
    Column("rules", Text, nullable=False),
    Column("label", String(64), nullable=False, server_default=""),
    Column("meta", Text, nullable=False, server_default="{}"),
    Column("created", String(32), nullable=False),
    Column("status", String(16), nullable=False, server_default="open"),
    Column("state", Text, nullable=False, server_default="{}"),
    Column("state_event", Integer, nullable=False, server_default="0"),
)

# revision 0008: the chain head and its seal (revision 0005), until then columns of ``tables``
heads = Table(
    "heads",
    metadata,
    Column("table_id", Integer, ForeignKey("tables.id"), primary_key=True, autoincrement=False),
    Column("last_hash", String(64), nullable=False, server_default=""),
    Column("seal", String(64), nullable=False, server_default=""),
    # revision 0012: the number of the table's newest round row (0: none), moved with the head by the
    # write that starts a round: a table's rounds are found by ``uq_round_number`` (``TABLE_ROUNDS``)
    Column("rounds", Integer, nullable=False, server_default="0"),
)

shoes = Table(
    "shoes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("cards", Text, nullable=False),
    Column("cut", Integer, nullable=False),
    Column("created", String(32), nullable=False),
    UniqueConstraint("table_id", "number", name="uq_shoe"),
)

rounds = Table(
    "rounds",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("shoe", Integer, nullable=True),
    Column("status", String(16), nullable=False, server_default="open"),
    Column("started", String(32), nullable=False),
    Column("ended", String(32), nullable=True),
    Column("result", Text, nullable=True),
)
# revision 0012: a round row is unique by (number, table_id), ``uq_round_number``; until then by
# (table_id, number), ``uq_round``, which took a leaf page per table that started a round in a commit
# (7.2 WAL frames a commit at 100 tables of 100 rounds, growing with the store: docs/scale.md). Keyed
# by number first, the rounds that tables start together (their numbers near each other) share leaves.
# A table's rounds are then found by their numbers, 1 to its newest (``heads.rounds``), a look-up each
# (``TABLE_ROUNDS``): no scan of the rounds of the other tables
Index("uq_round_number", rounds.c.number, rounds.c.table_id, unique=True)
# the ids of table ``:t``'s round rows (SQLite: the numbers from a recursive CTE, the index named so
# that no statistics make the planner scan the rounds; PostgreSQL: an array of them, one index scan)
TABLE_ROUNDS = {
    True: (
        "SELECT id FROM rounds INDEXED BY uq_round_number WHERE number IN (WITH RECURSIVE n(x) AS "
        "(SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < (SELECT rounds FROM heads WHERE table_id = :t)) "
        "SELECT x FROM n) AND table_id = :t"
    ),
    False: (
        "SELECT id FROM rounds WHERE number = ANY (ARRAY(SELECT generate_series(1, (SELECT rounds FROM "
        "heads WHERE table_id = :t)))) AND table_id = :t"
    ),
}
# before revision 0012: by ``uq_round`` (table_id, number)
TABLE_ROUNDS_0011 = "SELECT id FROM rounds WHERE table_id = :t"

events = Table(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("round_id", Integer, ForeignKey("rounds.id"), nullable=True),
    Column("round_no", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("payload", Text, nullable=False),
    Column("clause", Text, nullable=False, server_default=""),
    Column("created", String(32), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
)
# revision 0009 dropped its index by ``round_id``; revision 0011 keys the events by it: a round's events
# by (round_id, seq), the round row being the one of the event's table and round number (the writer,
# ``batchsql``, finds it by its key), so (table, round_no, seq) stays unique; the rounds' ids grow
# as they start, so a commit's new entries sit together at the index's right end (``uq_event`` (table_id,
# round_no, seq) took a leaf per table a commit). The events of no round row (round 0: the table's own)
# keep the table's key, a partial index written only between rounds. An event whose round row is missing
# or another's (none written) is in no table's read; the audit names it (``EVENT_STRAYS``)
NO_ROUND = "round_id IS NULL"
Index("uq_event_round", events.c.round_id, events.c.seq, unique=True)
Index(
    "uq_event_table",
    events.c.table_id,
    events.c.round_no,
    events.c.seq,
    unique=True,
    sqlite_where=text(NO_ROUND),
    postgresql_where=text(NO_ROUND),
)
# revision 0011: a table's events (``Store.events_``), by its round rows (``{round_ids}``: their ids,
# ``TABLE_ROUNDS``, or one round's by its number; then ``uq_event_round``) and by ``uq_event_table``;
# ``{where}`` on the events of both parts; ``{by_round}``, ``{by_table}``: SQLite's INDEXED BY (so that
# no statistics make it scan the events by id for ``id > :a``)
TABLE_EVENTS = (
    "SELECT * FROM events{by_round} WHERE round_id IN ({round_ids}) AND table_id = :t{where} UNION ALL "
    "SELECT * FROM events{by_table} WHERE table_id = :t AND round_id IS NULL{where} ORDER BY id"
)
# the ids of a table's events (no row read: ``uq_event_round`` and ``uq_event_table`` cover them)
TABLE_EVENT_IDS = (
    "SELECT e.id FROM events e WHERE e.round_id IN ({round_ids}) UNION ALL "
    "SELECT id FROM events WHERE table_id = :t AND round_id IS NULL"
)
# the events in no table's read: their round row missing, another table's or another number's;
# ``{numbers}`` (revision 0012 on: ``EVENT_STRAYS_NUMBERS``): or a number that the table's read does not
# look up (under 1, over its ``heads.rounds``)
EVENT_STRAYS = (
    "SELECT e.id, e.table_id, e.round_id, e.round_no, e.seq FROM events e LEFT JOIN rounds r "
    "ON r.id = e.round_id WHERE e.round_id IS NOT NULL AND (r.id IS NULL OR r.table_id <> e.table_id "
    "OR r.number <> e.round_no{numbers}) ORDER BY e.id"
)
EVENT_STRAYS_NUMBERS = (
    " OR r.number < 1 OR r.number > coalesce((SELECT h.rounds FROM heads h WHERE h.table_id = r.table_id), 0)"
)

# revision 0012: the recovery snapshot taken at a round's start, in a row of its own keyed by the round
# row's id (``round_id``: the rowid on SQLite), written with the round row and never updated: the rounds'
# ids grow as they start, so a commit appends its snapshots at the b-tree's right end (pages of 1.2 KB
# rows shared by the tables that start a round together), where the UPDATE of ``tables.state`` rewrote a
# page per table (11.1 WAL frames a commit, docs/scale.md). It holds before the round's first event (its
# ``round_start``, seq 0): a table's latest snapshot is that of its newest round (``heads.rounds``), as
# of that event's id less one (``LATEST_SNAPSHOT``), else ``tables.state`` (the snapshot written with the
# table row, or, in a store upgraded from 0011, the last one before the upgrade, newer than any round's
# before it, which have none): the later of the two
snapshots = Table(
    "snapshots",
    metadata,
    Column("round_id", Integer, ForeignKey("rounds.id"), primary_key=True, autoincrement=False),
    Column("state", Text, nullable=False),
)
LATEST_SNAPSHOT = (
    "SELECT r.number, s.state, (SELECT e.id FROM events e WHERE e.round_id = r.id AND e.seq = 0) - 1 "
    "FROM rounds r JOIN snapshots s ON s.round_id = r.id WHERE r.number = (SELECT rounds FROM heads WHERE "
    "table_id = :t) AND r.table_id = :t"
)

ledger = Table(
    "ledger",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("round_id", Integer, ForeignKey("rounds.id"), nullable=True),
    Column("event_id", Integer, ForeignKey("events.id"), nullable=False),
    Column("idem", String(128), nullable=False),
    Column("source", Text, nullable=False),
    Column("dest", Text, nullable=False),
    Column("amount", Text, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("player", Text, nullable=False),
    Column("reason", Text, nullable=False),
)
# revision 0010: the idem unique per event (an idem names its event: ``table:round:seq:n``, and the
# writer finds the row's event by that table, round and seq), which is also the index of a table's ledger
# through its events (``Store.ledger_``; ``ix_ledger_table`` until then): new rows name the newest
# events, so a commit appends to this index instead of writing a leaf of it per table
Index("uq_ledger_idem", ledger.c.event_id, ledger.c.idem, unique=True)
# revision 0010: an account's cashier rows (``accounts.balances_on``), the only rows indexed by player
# (revision 0007's ``ix_ledger_player`` held every row); the reads name these kinds literally
CASHIER_KINDS = ("deposit", "withdrawal")
CASHIER_WHERE = "kind IN ('deposit', 'withdrawal')"
Index(
    "ix_ledger_cashier",
    ledger.c.player,
    ledger.c.kind,
    sqlite_where=text(CASHIER_WHERE),
    postgresql_where=text(CASHIER_WHERE),
)

# revision 0010: a table's ledger (``Store.ledger_``): its rows of its own events, by ``uq_ledger_idem``
# (``{hint}``: SQLite's INDEXED BY, so that no statistics of a store of few tables make it scan); the
# rows in no table's ledger (``Store.ledger_strays``: the audit names them). ``{ids}``: the ids of the
# table's events (of its round ``:r``), found by revision 0011's keys (``OF_ROUND``, ``ANY_ROUND``: its
# ``{round_ids}`` as in ``TABLE_EVENTS``) or,
# in a store of revision 0010, by ``uq_event`` (``OF_ROUND_0010``, ``ANY_ROUND_0010``)
TABLE_LEDGER = "SELECT * FROM ledger{hint} WHERE event_id IN ({ids}) AND table_id = :t{rows}"
OF_ROUND = {"ids": "SELECT id FROM events WHERE round_id = :r", "rows": " AND round_id = :r"}
ANY_ROUND = {"ids": TABLE_EVENT_IDS, "rows": ""}
OF_ROUND_0010 = {
    "ids": "SELECT id FROM events WHERE table_id = :t AND round_no = (SELECT number FROM rounds WHERE id = :r)",
    "rows": " AND round_id = :r",
}
ANY_ROUND_0010 = {"ids": "SELECT id FROM events WHERE table_id = :t", "rows": ""}
LEDGER_STRAYS = (
    "SELECT l.id, l.table_id, l.event_id, l.idem FROM ledger l LEFT JOIN events e ON e.id = l.event_id "
    "WHERE e.id IS NULL OR e.table_id <> l.table_id ORDER BY l.id"
)

accounts = Table(
    "accounts",
    metadata,
    Column("table_id", Integer, ForeignKey("tables.id"), primary_key=True),
    Column("account", String(200), primary_key=True),
    Column("balance", Text, nullable=False),
)

drills = Table(
    "drills",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created", String(32), nullable=False),
    Column("rules", String(200), nullable=False),
    Column("only", String(16), nullable=False),
    Column("seed", Text, nullable=True),  # decimal text: a seed may exceed a 64-bit integer column
    Column("hands", Integer, nullable=False),
    Column("decisions", Integer, nullable=False),
    Column("correct", Integer, nullable=False),
    Column("accuracy", Text, nullable=False),
    Column("cost", Text, nullable=False),
    Column("cost_per_100", Text, nullable=False),
    Column("worst", Text, nullable=False, server_default="[]"),
)

# revision 0006: the table server's logins (``web_accounts`` itself is revision 0003's, in history/accounts.py)
web_logins = Table(
    "web_logins",
    metadata,
    Column("name", String(64), primary_key=True),  # web_accounts.name
    Column("name_key", String(64), nullable=True, unique=True),  # None: a legacy look-alike (not claimable)
    Column("pw_hash", Text, nullable=True),  # argon2id (PHC string); None: a guest
    Column("created", String(32), nullable=False),
    Column("claimed", String(32), nullable=True),  # when a password was set
)

web_sessions = Table(
    "web_sessions",
    metadata,
    Column("id", String(64), primary_key=True),  # sha256 hex of the session token (the token is not kept)
    Column("name", String(64), nullable=False),
    Column("created", String(32), nullable=False),
    Column("expires", Float, nullable=False),  # unix seconds
)
Index("ix_web_sessions_name", web_sessions.c.name)


pontoon_meta = Table(  # revision 0005
    "pontoon_meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
