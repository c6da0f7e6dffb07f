"""the table server's records: play-money accounts, their moves, hosted tables, table leases

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_accounts",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("opening", sa.Text, nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
    )
    op.create_table(
        "web_moves",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), sa.ForeignKey("web_accounts.name"), nullable=False),
        sa.Column("web_id", sa.String(16), nullable=False),
        sa.Column("amount", sa.Text, nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
    )
    op.create_index("ix_web_moves_name", "web_moves", ["name"])
    op.create_table(
        "web_tables",
        sa.Column("web_id", sa.String(16), primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=True),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("members", sa.Text, nullable=False, server_default="[]"),
        sa.Column("status", sa.String(16), nullable=False, server_default="open"),
        sa.Column("updated", sa.String(32), nullable=False),
    )
    op.create_table(
        "table_leases",
        sa.Column("web_id", sa.String(16), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("address", sa.Text, nullable=False, server_default=""),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
    op.drop_table("web_tables")
    op.drop_index("ix_web_moves_name", "web_moves")
    op.drop_table("web_moves")
    op.drop_table("web_accounts")
