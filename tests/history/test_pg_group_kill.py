"""Group commit under SIGKILL on PostgreSQL (``history/pgprep.py``: the commit as one text, its COMMIT
in it): ``tests/web/test_group_kill.py``'s test on a PostgreSQL database. A real ``pontoon serve``,
four tables played at once, killed (``PONTOON_CRASH_AT=shared:3``) just before the text of the first
commit that writes the calls of three or more tables is sent; restarted on the same database, no
event any client was shown is lost, none shown was uncommitted, the rounds finish, the audit is clean
and no money is made or lost."""

from __future__ import annotations

import pytest

from tests.history.pg import create_db, module_cluster
from tests.web.test_group_kill import shared_kill

pg = pytest.fixture(scope="module", name="pg")(module_cluster)


@pytest.mark.postgres
def test_sigkill_inside_a_commit_shared_by_several_tables_on_postgresql(pg: str) -> None:
    shared_kill(create_db(pg, "t_group_kill"))
