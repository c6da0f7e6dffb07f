"""the first schema: tables, shoes, rounds, events (hash chained), ledger (idempotent), accounts

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("label", sa.String(64), nullable=False, server_default=""),
        sa.Column("meta", sa.Text, nullable=False, server_default="{}"),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, server_default="open"),
        sa.Column("state", sa.Text, nullable=False, server_default="{}"),
        sa.Column("state_event", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_hash", sa.String(64), nullable=False, server_default=""),
    )
    op.create_table(
        "shoes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("cards", sa.Text, nullable=False),
        sa.Column("cut", sa.Integer, nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
        sa.UniqueConstraint("table_id", "number", name="uq_shoe"),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("shoe", sa.Integer, nullable=True),
        sa.Column("status", sa.String(16), nullable=False, server_default="open"),
        sa.Column("started", sa.String(32), nullable=False),
        sa.Column("ended", sa.String(32), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.UniqueConstraint("table_id", "number", name="uq_round"),
    )
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
        sa.UniqueConstraint("table_id", "round_no", "seq", name="uq_event"),
    )
    op.create_index("ix_events_round", "events", ["round_id"])
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=True),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("events.id"), nullable=False),
        sa.Column("idem", sa.String(128), nullable=False, unique=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("dest", sa.Text, nullable=False),
        sa.Column("amount", sa.Text, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("player", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
    )
    op.create_index("ix_ledger_table", "ledger", ["table_id"])
    op.create_table(
        "accounts",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("account", sa.String(200), primary_key=True),
        sa.Column("balance", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in ("accounts", "ledger", "events", "rounds", "shoes", "tables"):
        op.drop_table(name)
