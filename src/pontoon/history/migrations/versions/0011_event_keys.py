"""the write path: the events' key by round row (``uq_event_round`` (round_id, seq)) instead of by table
(``uq_event`` (table_id, round_no, seq)); the table's own events (round 0) keyed by table apart

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28

A group commit of N tables wrote a leaf page per table of ``uq_event``: after revision 0010 about half of
the WAL's frames (docs/scale-log.md, "The ledger's pages"). Round rows get increasing ids as rounds
start, so the live rounds of every table are a few hundred neighbouring ids: keyed by (round_id, seq),
every commit's new entries sit together at the index's right end, a few leaves whatever the tables.
- ``uq_event_round``: UNIQUE (round_id, seq). The writer (``batchsql``, the only one of events) sets an
  event's ``round_id`` to the row of its own table and round number (``uq_round``), so within a round
  row a seq is one event: (table_id, round_no, seq) is unique for every event of a round, as before;
- ``uq_event_table``: UNIQUE (table_id, round_no, seq) over the events with no round row
  (``round_id IS NULL``: the table's own events, round 0, between rounds): what ``uq_event`` was for
  them, a leaf of its own per table but written only between rounds.
An event of a round whose round row is missing or another's would escape both keys; the writer makes
none (a round's row is written with its first event, ``round_start``), and the audit names one
(``Store.event_strays``, ``audit._check_links``). A table's events are read through its round rows
(``Store.events_``: ``uq_round`` by table, then ``uq_event_round``) and ``uq_event_table``.
SQLite cannot drop a table's UNIQUE constraint in place: the events are copied aside (a TEMP table),
the table dropped and made again in the new shape and the rows copied back (ids kept), its foreign keys
deferred to the COMMIT (the ledger's rows name the events: they are whole again by then); PostgreSQL
alters it in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

COLUMNS = "id, table_id, round_id, round_no, seq, kind, payload, clause, created, prev_hash, hash"
NO_ROUND = "round_id IS NULL"


def _sqlite_copy(*unique: sa.Constraint) -> None:
    """SQLite: the events made again with the constraints ``unique`` (their indexes dropped), every row
    and id kept. The ledger's foreign key names the events: deferred to the COMMIT (the drop leaves its
    rows orphans until the rows are back; a row that is not back fails the COMMIT)."""
    op.execute("PRAGMA defer_foreign_keys=ON")
    op.execute(f"CREATE TEMP TABLE events_copy AS SELECT {COLUMNS} FROM events")
    op.execute("DROP TABLE events")
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=True),
        sa.Column("round_no", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("clause", sa.Text, nullable=False, server_default=""),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        *unique,
    )
    op.execute(f"INSERT INTO events ({COLUMNS}) SELECT {COLUMNS} FROM events_copy ORDER BY id")
    op.execute("DROP TABLE events_copy")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy()
    else:
        insp = sa.inspect(op.get_bind())
        for uq in insp.get_unique_constraints("events"):
            if uq["column_names"] == ["table_id", "round_no", "seq"] and uq["name"]:
                op.drop_constraint(uq["name"], "events", type_="unique")
    op.create_index("uq_event_round", "events", ["round_id", "seq"], unique=True)
    op.create_index(
        "uq_event_table",
        "events",
        ["table_id", "round_no", "seq"],
        unique=True,
        sqlite_where=sa.text(NO_ROUND),
        postgresql_where=sa.text(NO_ROUND),
    )


def downgrade() -> None:
    op.drop_index("uq_event_table", table_name="events")
    op.drop_index("uq_event_round", table_name="events")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy(sa.UniqueConstraint("table_id", "round_no", "seq", name="uq_event"))
    else:
        op.create_unique_constraint("uq_event", "events", ["table_id", "round_no", "seq"])
