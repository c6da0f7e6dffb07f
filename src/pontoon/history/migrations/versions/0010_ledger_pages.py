"""the write path: the ledger's idem unique within its table (``uq_ledger_idem``), which is also the index
of a table's ledger (``ix_ledger_table`` dropped), and only the cashier rows indexed by player

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28

A group commit of N tables dirtied a leaf page per table of every index whose key starts with the
table: the WAL carried about 0.8 frames (4 KB) an event for ~0.4 KB of rows (docs/scale.md, "The
ledger's pages"). Two of the ledger's three such indexes go:
- ``UNIQUE (idem)`` becomes ``uq_ledger_idem`` UNIQUE (table_id, idem). An idem is
  ``table:round:seq:n`` (``group.write_items``, ``Store.append``): it names its own table, so it is
  unique in its table exactly when it is unique at all; and its key starts with the table, so it is the
  index of a table's ledger too (``Store.ledger_``: the audit, round detail and replay, hold, export,
  recovery; the accounts' join by table), which ``ix_ledger_table`` (table_id) was;
- ``ix_ledger_player`` (player, kind) of every row becomes ``ix_ledger_cashier``, the same key over the
  cashier rows only (``kind IN ('deposit', 'withdrawal')``: a seat's buy-in and cash-out, written at a
  join and a leave, not in a round): the only read by player (``accounts.balances_on``) asks for those
  kinds, named literally so that SQLite and PostgreSQL prove the index's condition from the query.
SQLite cannot change a table's UNIQUE constraint in place: the ledger is copied into a new table of
the new shape (ids and rows as they were) and renamed; PostgreSQL alters it in place.
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


def _ledger(name: str, unique: sa.Constraint) -> None:
    """A new, empty ledger table ``name`` with the ledger's columns and foreign keys and ``unique``."""
    op.create_table(
        name,
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
        unique,
    )


def _sqlite_copy(unique: sa.Constraint) -> None:
    """SQLite: the ledger copied into a new table with ``unique`` (its other indexes dropped with it)."""
    _ledger("ledger_new", unique)
    op.execute(f"INSERT INTO ledger_new ({COLUMNS}) SELECT {COLUMNS} FROM ledger ORDER BY id")
    op.execute("DROP TABLE ledger")
    op.execute("ALTER TABLE ledger_new RENAME TO ledger")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy(sa.UniqueConstraint("table_id", "idem", name="uq_ledger_idem"))
    else:
        insp = sa.inspect(op.get_bind())
        for uq in insp.get_unique_constraints("ledger"):
            if uq["column_names"] == ["idem"] and uq["name"]:
                op.drop_constraint(uq["name"], "ledger", type_="unique")
        op.create_unique_constraint("uq_ledger_idem", "ledger", ["table_id", "idem"])
        op.execute("DROP INDEX IF EXISTS ix_ledger_table")
        op.execute("DROP INDEX IF EXISTS ix_ledger_player")
    op.create_index(
        "ix_ledger_cashier",
        "ledger",
        ["player", "kind"],
        sqlite_where=sa.text(CASHIER_WHERE),
        postgresql_where=sa.text(CASHIER_WHERE),
    )


def downgrade() -> None:
    op.drop_index("ix_ledger_cashier", table_name="ledger")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy(sa.UniqueConstraint("idem"))
    else:
        op.drop_constraint("uq_ledger_idem", "ledger", type_="unique")
        op.create_unique_constraint("ledger_idem_key", "ledger", ["idem"])
    op.create_index("ix_ledger_table", "ledger", ["table_id"])
    op.create_index("ix_ledger_player", "ledger", ["player", "kind"])
