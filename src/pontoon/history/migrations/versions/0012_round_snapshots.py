"""the write path: the round-start recovery snapshot in a row of its own (``snapshots``, keyed by the
round row), not an UPDATE of the table's row; the round rows unique by (number, table_id)
(``uq_round_number``), not (table_id, number) (``uq_round``), each table's newest number in ``heads``

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28

Each round's start rewrote its table's row (``tables.state``, 1.2 KB, and ``state_event``): a page of
``tables`` per table that starts a round in a commit, 11.1 WAL frames a commit at 100 tables
(docs/scale.md). From this revision the snapshot is inserted into ``snapshots`` with the round row's id
as its key: new rounds have the newest ids, so a commit appends its tables' snapshots together, and no
row is rewritten. A snapshot holds before its round's first event (``round_start``, seq 0); a table's
latest is that of its newest round (``heads.rounds``) if it has one, else ``tables.state``
(``Store.table``, the later of the two by the event it holds after). Data: no snapshot is moved on the
upgrade: ``tables.state`` keeps the one it held (the latest until the table's next round starts, whose
snapshot is then in ``snapshots``). The downgrade puts each table's latest snapshot back into its row.

``uq_round`` (table_id, number) took a leaf page per table that started a round in a commit (7.2 frames
a commit at 100 tables of 100 rounds, and more as the store grows). Keyed by (number, table_id), the
rounds the tables start together (numbers near each other) share leaves; a table's rounds are found by
their numbers, 1 to ``heads.rounds`` (moved with the head by the write that starts a round; filled here
from the rounds), one look-up each (``schema.TABLE_ROUNDS``). SQLite cannot drop a table's UNIQUE
constraint: the rounds are made again (ids kept, the foreign keys deferred to the COMMIT), as revision
0011 made the events; PostgreSQL alters them in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

ROUNDS = "id, table_id, number, shoe, status, started, ended, result"


def _sqlite_rounds(*unique: sa.Constraint) -> None:
    """SQLite: the rounds made again with the constraints ``unique`` (their ids kept: the events, the
    ledger and the snapshots name them), as revision 0011 made the events again; the foreign keys
    deferred to the COMMIT."""
    op.execute("PRAGMA defer_foreign_keys=ON")
    op.execute(f"CREATE TEMP TABLE rounds_copy AS SELECT {ROUNDS} FROM rounds")
    op.execute("DROP TABLE rounds")
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
        *unique,
    )
    op.execute(f"INSERT INTO rounds ({ROUNDS}) SELECT {ROUNDS} FROM rounds_copy ORDER BY id")
    op.execute("DROP TABLE rounds_copy")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rounds()
    else:
        op.drop_constraint("uq_round", "rounds", type_="unique")
    op.create_index("uq_round_number", "rounds", ["number", "table_id"], unique=True)
    op.add_column("heads", sa.Column("rounds", sa.Integer, nullable=False, server_default="0"))
    op.execute(
        "UPDATE heads SET rounds = coalesce((SELECT max(r.number) FROM rounds r WHERE r.table_id = "
        "heads.table_id), 0)"
    )
    op.create_table(
        "snapshots",
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), primary_key=True, autoincrement=False),
        sa.Column("state", sa.Text, nullable=False),
    )


# a table's newest round, if it has a snapshot (``tables.id`` of the outer UPDATE), and the event before it
_NEWEST = (
    "SELECT {col} FROM rounds r JOIN snapshots s ON s.round_id = r.id WHERE r.table_id = tables.id "
    "AND r.number = (SELECT h.rounds FROM heads h WHERE h.table_id = tables.id)"
)
_EVENT = "(SELECT e.id FROM events e WHERE e.round_id = r.id AND e.seq = 0) - 1"


def downgrade() -> None:
    newest_event = _NEWEST.format(col=_EVENT)
    op.execute(
        f"UPDATE tables SET state = ({_NEWEST.format(col='s.state')}), state_event = ({newest_event}) "
        f"WHERE ({newest_event}) >= state_event"
    )
    op.drop_table("snapshots")
    op.drop_column("heads", "rounds")
    op.drop_index("uq_round_number", table_name="rounds")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rounds(sa.UniqueConstraint("table_id", "number", name="uq_round"))
    else:
        op.create_unique_constraint("uq_round", "rounds", ["table_id", "number"])
