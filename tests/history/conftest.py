from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pontoon.history import Store, open_store

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "driver.py"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'history.sqlite'}"


@pytest.fixture
def store(db_url: str):  # type: ignore[no-untyped-def]
    s = open_store(db_url)
    yield s
    s.close()


def run_driver(
    db: str, *args: str, crash: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The scripted table in a subprocess; ``crash`` sets PONTOON_CRASH_AT (inside:N / after:N)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    env.pop("PONTOON_CRASH_AT", None)
    if crash:
        env["PONTOON_CRASH_AT"] = crash
    return subprocess.run(
        [sys.executable, str(DRIVER), "--db", db, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def dump(store: Store, table_id: int = 1) -> dict[str, object]:
    """Everything a table recorded, without times and row ids: events, ledger rows, balances, rounds."""
    evs = [
        (e["round_no"], e["seq"], e["kind"], e["data"], e["clause"], e["hash"])
        for e in store.events_(table_id)
    ]
    led = [
        (r["idem"], r["source"], r["dest"], r["amount"], r["kind"], r["player"], r["reason"])
        for r in store.ledger_(table_id)
    ]
    rounds = [(r["number"], r["status"], r["result"]) for r in store.rounds_(table_id=table_id)]
    shoes = [(sh["number"], sh["cards"], sh["cut"]) for sh in store.shoes_(table_id)]
    return {
        "events": evs,
        "ledger": led,
        "balances": store.balances(table_id),
        "rounds": rounds,
        "shoes": shoes,
    }


def alembic(url: str, verb: str, target: str) -> None:
    """Run one Alembic command (``upgrade``/``downgrade`` to ``target``) on the history at ``url``, as
    the migration tests take a store back to an old revision and up again."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    import pontoon.history

    here = Path(pontoon.history.__file__).resolve().parent
    cfg = Config(str(here / "alembic.ini"))
    cfg.set_main_option("script_location", str(here / "migrations"))
    engine = create_engine(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        getattr(command, verb)(cfg, target)
    engine.dispose()
