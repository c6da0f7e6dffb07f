"""the write path: the index of events by round row (``ix_events_round``) dropped, no read uses it

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27

Every read of ``events`` finds its rows by table (``events_``: the table, after an id, or one round's
number), by the UNIQUE (table, round_no, seq) key or the primary key; none by ``round_id`` (the audit
compares an event's round row in Python, ``audit._check_links``). Checked on SQLite with ``EXPLAIN QUERY
PLAN`` over every query the history, audit, replay, hold, export, accounts and web history tests send
(docs/scale.md, the store). The index cost each insert of an event one more B-tree write (issue 25: the
group writer's CPU per event). No row of ``rounds`` is ever deleted nor its id changed, so no foreign-key
check looks events up by ``round_id`` either.

``ix_ledger_table`` (a table's ledger: the audit, replay, hold, export, recovery) and ``ix_ledger_player``
(an account's cashier rows, revision 0007) are read and stay. ``IF EXISTS``: a store put back by hand to
an older revision may lack it already.
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_events_round")


def downgrade() -> None:
    op.create_index("ix_events_round", "events", ["round_id"])
