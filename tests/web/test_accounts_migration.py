"""Alembic revision 0006 on a store made before it (issue 28, items 4 and 9): every old account gets a
login row without a password (a guest); of look-alike old names (``bob``, ``BOB``, ``bob.``) the first
keeps the name's key and may be claimed, the others keep their money and history but no key."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import insert, select

import pontoon.history.store as store_mod
from pontoon.history import open_store
from pontoon.history.accounts import web_accounts
from pontoon.history.schema import web_logins
from pontoon.history.store import make_engine


def test_old_accounts_become_guests_and_look_alikes_lose_the_key(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    engine = make_engine(url)
    here = Path(store_mod.__file__).resolve().parent
    cfg = Config(str(here / "alembic.ini"))
    cfg.set_main_option("script_location", str(here / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004")  # the schema before accounts had logins
        for i, name in enumerate(["bob", "BOB", "bob.", "Ann Lee", "ann_lee", "ｂｏｂ"]):
            conn.execute(insert(web_accounts).values(name=name, opening="1000", created=f"2026-11-0{i + 1}"))
    engine.dispose()
    store = open_store(url)  # migrated to head
    with store.reader.connect() as conn:
        rows = {r.name: (r.name_key, r.pw_hash) for r in conn.execute(select(web_logins))}
    store.close()
    assert rows == {
        "bob": ("bob", None),
        "BOB": (None, None),  # a look-alike of an earlier account
        "bob.": (None, None),  # not of the accepted shape
        "Ann Lee": ("ann-lee", None),
        "ann_lee": (None, None),
        "ｂｏｂ": (None, None),  # not NFKC-canonical
    }
