"""the write path: the ledger's idem unique per event (``uq_ledger_idem`` (event_id, idem)), which is also
the index of a table's ledger through its events (``ix_ledger_table`` dropped), and only the cashier rows
indexed by player

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28

A group commit of N tables dirtied a leaf page per table of every index whose key starts with the
table: the WAL carried about 0.8 frames (4 KB) an event for ~0.4 KB of rows (docs/scale-log.md, "The
ledger's pages"). The ledger's three such indexes go:
- ``UNIQUE (idem)`` and ``ix_ledger_table`` (table_id) become ``uq_ledger_idem``, a UNIQUE index on
  (event_id, idem). An idem is ``table:round:seq:n`` and the writer (``batchsql``: the only one of
  ledger rows) finds the row's event by that same table, round and seq: an idem has one event, so it is
  unique per event exactly when it is unique at all (a row booked twice is refused as before). New rows
  name the newest events: the index grows at its right end, a page or two a commit whatever the tables.
  A table's ledger is read through its events (``Store.ledger_``: the events' key by table, then this
  index by event); a row whose event is not of its own table is in no table's ledger and the audit
  names it (``Store.ledger_strays``), as it named it before (``audit._check_links``);
- ``ix_ledger_player`` (player, kind) of every row becomes ``ix_ledger_cashier``, the same key over the
  cashier rows only (``kind IN ('deposit', 'withdrawal')``: a seat's buy-in and cash-out, written at a
  join and a leave, not in a round): the only read by player (``accounts.balances_on``) asks for those
  kinds, named literally so that SQLite and PostgreSQL prove the index's condition from the query.
SQLite cannot drop a table's UNIQUE constraint in place: the ledger is copied into a new table (ids and
rows as they were) and renamed; PostgreSQL alters it in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

CASHIER_WHERE = "kind IN ('deposit', 'withdrawal')"
COLUMNS = "id, table_id, round_id, event_id, idem, source, dest, amount, kind, player, reason"


def _sqlite_copy(*unique: sa.Constraint) -> None:
    """SQLite: the ledger copied into a new table with the constraints ``unique`` (its indexes dropped)."""
    op.create_table(
        "ledger_new",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("idem", sa.String(128), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("dest", sa.Text, nullable=False),
        sa.Column("amount", sa.Text, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("player", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        *unique,
    )
    op.execute(f"INSERT INTO ledger_new ({COLUMNS}) SELECT {COLUMNS} FROM ledger ORDER BY id")
    op.execute("DROP TABLE ledger")
    op.execute("ALTER TABLE ledger_new RENAME TO ledger")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy()
    else:
        insp = sa.inspect(op.get_bind())
        for uq in insp.get_unique_constraints("ledger"):
            if uq["column_names"] == ["idem"] and uq["name"]:
                op.drop_constraint(uq["name"], "ledger", type_="unique")
        op.execute("DROP INDEX IF EXISTS ix_ledger_table")
        op.execute("DROP INDEX IF EXISTS ix_ledger_player")
    op.create_index("uq_ledger_idem", "ledger", ["event_id", "idem"], unique=True)
    op.create_index(
        "ix_ledger_cashier",
        "ledger",
        ["player", "kind"],
        sqlite_where=sa.text(CASHIER_WHERE),
        postgresql_where=sa.text(CASHIER_WHERE),
    )


def downgrade() -> None:
    op.drop_index("ix_ledger_cashier", table_name="ledger")
    op.drop_index("uq_ledger_idem", table_name="ledger")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy(sa.UniqueConstraint("idem"))
    else:
        op.create_unique_constraint("ledger_idem_key", "ledger", ["idem"])
    op.create_index("ix_ledger_table", "ledger", ["table_id"])
    op.create_index("ix_ledger_player", "ledger", ["player", "kind"])
