"""the write path: the round-start recovery snapshot in a row of its own (``snapshots``, keyed by the
round row), not an UPDATE of the table's row

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28

Each round's start rewrote its table's row (``tables.state``, 1.2 KB, and ``state_event``): a page of
``tables`` per table that starts a round in a commit, 11.1 WAL frames a commit at 100 tables
(docs/scale.md). From this revision the snapshot is inserted into ``snapshots`` with the round row's id
as its key: new rounds have the newest ids, so a commit appends its tables' snapshots together, and no
row is rewritten. A snapshot holds before its round's first event (``round_start``, seq 0); a table's
latest is that of its newest round that has one, else ``tables.state`` (``Store.table``, the later of
the two by the event it holds after). Data: nothing is moved on the upgrade: ``tables.state`` keeps the
snapshot it held (the latest until the table's next round starts, when ``snapshots`` holds a later one).
The downgrade puts each table's latest snapshot back into its row (the later of the two), then drops the
table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

# a table's newest round with a snapshot (``tables.id`` of the outer UPDATE), and the event before it
_NEWEST = (
    "SELECT {col} FROM rounds r JOIN snapshots s ON s.round_id = r.id WHERE r.table_id = tables.id "
    "ORDER BY r.number DESC LIMIT 1"
)
_EVENT = "(SELECT e.id FROM events e WHERE e.round_id = r.id AND e.seq = 0) - 1"


def upgrade() -> None:
    op.create_table(
        "snapshots",
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), primary_key=True, autoincrement=False),
        sa.Column("state", sa.Text, nullable=False),
    )


def downgrade() -> None:
    newest_event = _NEWEST.format(col=_EVENT)
    op.execute(
        f"UPDATE tables SET state = ({_NEWEST.format(col='s.state')}), state_event = ({newest_event}) "
        f"WHERE ({newest_event}) >= state_event"
    )
    op.drop_table("snapshots")
