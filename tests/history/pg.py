"""A throwaway PostgreSQL cluster for the tests: Debian's initdb/pg_ctl, a temporary directory,
listening only on a unix socket in that directory (no TCP); as root the server runs as ``postgres``."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager


def pg_bin() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return os.path.dirname(found[-1]) if found else None


@contextmanager
def cluster() -> Iterator[str]:
    """Yields a base URL ``postgresql+psycopg://postgres@/{db}?host=DIR&port=PORT`` with ``{db}`` to fill."""
    bindir = pg_bin()
    if bindir is None:
        raise RuntimeError(
            "no PostgreSQL binaries in /usr/lib/postgresql/*/bin (make sysdeps installs postgresql)"
        )
    d = tempfile.mkdtemp(prefix="pontoon-pg-")
    data = os.path.join(d, "data")
    as_root = os.geteuid() == 0
    pre: list[str] = []
    if as_root:
        shutil.chown(d, "postgres", "postgres")
        pre = ["runuser", "-u", "postgres", "--"]
    port = 54000 + os.getpid() % 1000
    try:
        subprocess.run(
            [*pre, f"{bindir}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
        )
        opts = f"-k {d} -c listen_addresses='' -p {port} -c fsync=on"
        subprocess.run(
            [*pre, f"{bindir}/pg_ctl", "-D", data, "-o", opts, "-l", os.path.join(d, "log"), "-w", "start"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        yield f"postgresql+psycopg://postgres@/{{db}}?host={d}&port={port}"
    finally:
        subprocess.run(
            [*pre, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"], capture_output=True
        )
        shutil.rmtree(d, ignore_errors=True)


def create_db(base: str, name: str) -> str:
    import psycopg

    host = base.split("host=")[1].split("&")[0]
    port = base.split("port=")[1]
    with psycopg.connect(host=host, port=port, user="postgres", dbname="postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}"')
        c.execute(f'CREATE DATABASE "{name}"')
    return base.replace("{db}", name)


def module_cluster() -> Iterator[str]:
    """A test module's PostgreSQL cluster, for its ``pg`` fixture
    (``pg = pytest.fixture(scope="module", name="pg")(module_cluster)``): the module's tests are skipped,
    with why, where no cluster can start."""
    import pytest

    if pg_bin() is None:
        pytest.skip("no PostgreSQL binaries (/usr/lib/postgresql/*/bin); run make sysdeps")
    try:
        with cluster() as base:
            yield base
    except (RuntimeError, OSError) as err:
        pytest.skip(f"cannot start a PostgreSQL cluster: {err}")
