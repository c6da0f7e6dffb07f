"""Random joins and leaves of one account on casino and British tables of two lobbies (two
``StorePersistence`` on one SQLite file, as two processes would have), against a model of the
account: a buy-in is accepted exactly when the account holds it, the store's balance (read by either
lobby) always equals the model's and is never negative, and a refused join leaves the table as it was
(the casino buy-in's hold and its deposit are never counted twice or not at all, across re-joins)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from decimal import Decimal
from itertools import count
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon.errors import PontoonError
from pontoon.history import open_store
from pontoon.history.audit import audit
from pontoon.history.logins import LoginRecords
from pontoon.history.store import Store
from pontoon.web.auth import Auth
from pontoon.web.hosting import HostedTable
from pontoon.web.lobby import Lobby
from pontoon.web.models import JoinIn, TableIn
from pontoon.web.site import Security
from pontoon.web.store_persistence import StorePersistence
from pontoon.web.tokens import Signer
from tests.web.conftest import FAST

_names = count()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    s = open_store(f"sqlite:///{Path(tmp_path_factory.mktemp('od')) / 'h.sqlite'}")
    yield s
    try:
        assert audit(s)["integrity"] == "ok"
    finally:
        s.close()


ops = st.lists(
    st.tuples(
        st.sampled_from(["join", "leave"]),
        st.integers(0, 3),
        st.sampled_from(["100", "250", "400", "600", "999.99", "1000"]),
        st.booleans(),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=ops)
def test_buy_ins_against_a_model(store: Store, ops: list[tuple[str, int, str, bool]]) -> None:
    signer = Signer.new("s", 3600)
    lobbies = [Lobby(FAST, StorePersistence(store), signer) for _ in range(2)]
    auth = Auth(Security(), LoginRecords(store), lobbies[0], signer)  # as POST /api/accounts: a guest
    name, _ = asyncio.run(auth.create(f"acct{next(_names)}", None))
    hosts: list[tuple[Lobby, HostedTable]] = []
    for i, lob in enumerate(lobbies):  # a casino and a British table in each "process"
        hosts.append((lob, lob.create_table(TableIn(preset="mbs", seed=i))))
        hosts.append((lob, lob.create_table(TableIn(preset="british", seats=3, seed=i))))
    model = Decimal(1000)
    held: dict[int, Decimal] = {}
    for verb, k, amount, stale in ops:
        lob, host = hosts[k]
        want = Decimal(amount)
        if verb == "join" and name not in host.members:
            before = host.members_snapshot()
            body = JoinIn(box=1, buy_in=amount) if host.game == "casino" else JoinIn(buy_in=amount)
            try:
                if stale:  # as after a balance read that another process has made stale: only the
                    host.join(name, body.box, None, want)  # type: ignore[attr-defined]  # store's check
                else:
                    lob.join(host, name, body)
            except PontoonError as err:
                assert want > model, f"refused a buy-in of {amount} with {model} in the account: {err}"
                assert f"buy-in {amount} is more than the balance " in str(err), str(err)
                assert host.members_snapshot() == before
            else:
                assert want <= model, f"accepted a buy-in of {amount} with only {model} in the account"
                model -= want
                held[k] = want
        elif verb == "leave" and name in host.members:
            back = host.leave(name)  # type: ignore[attr-defined]
            assert back == held.pop(k)  # no round played: the buy-in paid back at once
            model += back
        for other in lobbies:  # both "processes" read the store's balance
            got = other.balance(name)
            assert got == model and got >= 0, (got, model, verb, k, amount)
    for lob, host in hosts:  # leave the tables empty for the module's audit
        if name in host.members:
            host.leave(name)  # type: ignore[attr-defined]
        lob.store.table_closed(host.id)
