"""the store's marker (pontoon_meta: application, schema owner) and the sealed chain head (tables.seal)

``pontoon_meta`` (key, value) marks a database as a pontoon history: a database without it (and
without the tables an earlier pontoon made) is foreign and refused. ``tables.seal`` holds the HMAC
of the table's chain head with a key the store does not hold (``pontoon.history.seal``); the key's
id is the ``seal_key`` row of ``pontoon_meta``, written by the first writer that seals.
SQLite files also get ``PRAGMA application_id`` (the header field file(1) reads).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

APPLICATION = "pontoon-history"
APPLICATION_ID = 0x504F4E54


def upgrade() -> None:
    meta = op.create_table(
        "pontoon_meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.bulk_insert(meta, [{"key": "application", "value": APPLICATION}])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("seal", sa.String(64), nullable=False, server_default=""))
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("seal")
    op.drop_table("pontoon_meta")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("PRAGMA application_id = 0")
