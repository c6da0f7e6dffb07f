"""the table server's logins: each account's name key and argon2id password hash, and login sessions

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27

Every account made before this revision gets a ``web_logins`` row without a password (a guest): its
name key (the skeleton below, frozen here as it was written) unless an earlier account already has
that key or the name is not of the accepted shape; such a legacy look-alike keeps its money and
history but its key is NULL (it cannot be claimed or logged into; docs/accounts.md).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_SHAPE = re.compile(r"^[A-Za-z0-9]+(?:[ _-][A-Za-z0-9]+)*$")


def _key(name: str) -> str | None:
    text = unicodedata.normalize("NFKC", name)
    if text != name or not _SHAPE.match(text) or len(text) > 24:
        return None
    s = text.casefold().translate(str.maketrans("i1|0", "lllo"))  # case first: I = i = l = 1
    s = s.replace("rn", "m").replace("vv", "w")
    return re.sub(r"[ _-]", "-", s)


def upgrade() -> None:
    logins = op.create_table(
        "web_logins",
        sa.Column("name", sa.String(64), sa.ForeignKey("web_accounts.name"), primary_key=True),
        sa.Column("name_key", sa.String(64), nullable=True, unique=True),
        sa.Column("pw_hash", sa.Text, nullable=True),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("claimed", sa.String(32), nullable=True),
    )
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), sa.ForeignKey("web_accounts.name"), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_web_sessions_name", "web_sessions", ["name"])
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT name, created FROM web_accounts ORDER BY created, name")).all()
    seen: set[str] = set()
    stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
    out = []
    for name, created in rows:
        key = _key(str(name))
        if key is not None and key in seen:
            key = None
        if key is not None:
            seen.add(key)
        out.append(
            {"name": name, "name_key": key, "pw_hash": None, "created": created or stamp, "claimed": None}
        )
    if out:
        op.bulk_insert(logins, out)


def downgrade() -> None:
    op.drop_index("ix_web_sessions_name", "web_sessions")
    op.drop_table("web_sessions")
    op.drop_table("web_logins")
