"""the write path: the chain heads in their own table (``heads``), and on PostgreSQL no foreign keys on
the events and ledger rows

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27

Every write moves a table's chain head and its seal; in ``tables`` that rewrote the whole row, the
rules and the recovery snapshot with it (about 3 KB, a page of the file per table per commit). The
head and seal now live in a row of ~140 bytes of their own (issue 25: durable events per second); the
snapshot stays in ``tables`` (written once a round). The rows move as they are: the chains and seals
are unchanged, so the audit verifies an upgraded store exactly as before.

On PostgreSQL the foreign keys of ``events`` (table, round) and ``ledger`` (table, round, event) are
dropped: their per-row triggers (a locking look-up of the parent row each) took a fifth of the
server's CPU per event. What they guaranteed holds by construction and is checked by the audit
(``audit._check_links``): the write path finds a row's round and event by their unique keys in the same
statement (``batchsql``), its table is one whose chain head moves in the same transaction (else it
rolls back: ``StaleHead``), and no history row is ever deleted; the audit checks that every ledger row
belongs to an event of its own table and every event and ledger row names its own round's row (more
than the keys did: a row of another table passed them). SQLite keeps them (cheap there, and dropping
one would copy the tables).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


DROPPED = {  # PostgreSQL: table -> its foreign keys (column, parent table) that the write path drops
    "events": (("table_id", "tables"), ("round_id", "rounds")),
    "ledger": (("table_id", "tables"), ("round_id", "rounds"), ("event_id", "events")),
}


def upgrade() -> None:
    op.create_table(
        "heads",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True, autoincrement=False),
        sa.Column("last_hash", sa.String(64), nullable=False, server_default=""),
        sa.Column("seal", sa.String(64), nullable=False, server_default=""),
    )
    op.execute("INSERT INTO heads (table_id, last_hash, seal) SELECT id, last_hash, seal FROM tables")
    # SQLite 3.35 on drops a column in place (no copy of ``tables``, which every other table refers to)
    op.execute("ALTER TABLE tables DROP COLUMN seal")
    op.execute("ALTER TABLE tables DROP COLUMN last_hash")
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        insp = sa.inspect(bind)
        for table, keys in DROPPED.items():
            cols = {c for c, _p in keys}
            for fk in insp.get_foreign_keys(table):
                if fk["name"] and set(fk["constrained_columns"]) <= cols:
                    op.drop_constraint(fk["name"], table, type_="foreignkey")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, keys in DROPPED.items():
            for col, parent in keys:
                op.create_foreign_key(f"{table}_{col}_fkey", table, parent, [col], ["id"])
    op.execute("ALTER TABLE tables ADD COLUMN last_hash VARCHAR(64) DEFAULT '' NOT NULL")
    op.execute("ALTER TABLE tables ADD COLUMN seal VARCHAR(64) DEFAULT '' NOT NULL")
    op.execute(
        "UPDATE tables SET last_hash = (SELECT h.last_hash FROM heads h WHERE h.table_id = tables.id), "
        "seal = (SELECT h.seal FROM heads h WHERE h.table_id = tables.id)"
    )
    op.drop_table("heads")
