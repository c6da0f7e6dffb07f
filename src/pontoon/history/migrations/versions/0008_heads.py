"""the chain heads in their own table: ``heads`` (table_id, last_hash, seal), out of ``tables``

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27

Every write moves a table's chain head and its seal; in ``tables`` that rewrote the whole row, the
rules and the recovery snapshot with it (about 3 KB, a page of the file per table per commit). The
head and seal now live in a row of ~140 bytes of their own (issue 25: durable events per second); the
snapshot stays in ``tables`` (written once a round). The rows move as they are: the chains and seals
are unchanged, so the audit verifies an upgraded store exactly as before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


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


def downgrade() -> None:
    op.execute("ALTER TABLE tables ADD COLUMN last_hash VARCHAR(64) DEFAULT '' NOT NULL")
    op.execute("ALTER TABLE tables ADD COLUMN seal VARCHAR(64) DEFAULT '' NOT NULL")
    op.execute(
        "UPDATE tables SET last_hash = (SELECT h.last_hash FROM heads h WHERE h.table_id = tables.id), "
        "seal = (SELECT h.seal FROM heads h WHERE h.table_id = tables.id)"
    )
    op.drop_table("heads")
