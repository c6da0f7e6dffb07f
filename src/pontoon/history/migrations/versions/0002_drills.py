"""drill sessions of ``pontoon train``: one row per session summary

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "drills",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("rules", sa.String(200), nullable=False),
        sa.Column("only", sa.String(16), nullable=False),
        sa.Column("seed", sa.Text, nullable=True),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("decisions", sa.Integer, nullable=False),
        sa.Column("correct", sa.Integer, nullable=False),
        sa.Column("accuracy", sa.Text, nullable=False),
        sa.Column("cost", sa.Text, nullable=False),
        sa.Column("cost_per_100", sa.Text, nullable=False),
        sa.Column("worst", sa.Text, nullable=False, server_default="[]"),
    )


def downgrade() -> None:
    op.drop_table("drills")
