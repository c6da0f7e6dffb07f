"""an index of the ledger by player and kind: an account's casino cashier rows without a ledger scan

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27

``balances_on(conn, name)`` (an account's balance: its opening, its moves and its casino deposits and
withdrawals) and the overdraw check of every buy-in read that account's cashier rows; with this index
they read only those rows, however long the ledger grows (issue 25: page reads never scan a ledger).
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_ledger_player", "ledger", ["player", "kind"])


def downgrade() -> None:
    op.drop_index("ix_ledger_player", table_name="ledger")
