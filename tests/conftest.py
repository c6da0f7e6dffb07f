import os
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _history_db_in_tmp(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """`pontoon play` records by default: point the history (and the user data dir) into a temporary
    directory, so the suite never writes into the user's home."""
    d = tmp_path_factory.mktemp("history")
    old = {k: os.environ.get(k) for k in ("PONTOON_DB", "XDG_DATA_HOME", "XDG_CONFIG_HOME")}
    os.environ["PONTOON_DB"] = f"sqlite:///{d / 'history.sqlite'}"
    os.environ["XDG_DATA_HOME"] = str(d / "data")
    os.environ["XDG_CONFIG_HOME"] = str(d / "config")  # the history's seal key file (history/seal.py)
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
