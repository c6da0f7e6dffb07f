"""Alembic environment: a connection handed in by ``open_store`` (``config.attributes["connection"]``),
or a URL from ``-x url=...`` on the alembic command line."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from pontoon.history.schema import metadata

config = context.config


def run() -> None:
    conn = config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///path upgrade head")
    engine = create_engine(url)
    with engine.begin() as c:
        context.configure(connection=c, target_metadata=metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


run()
