"""Table leases on a real SQLite file: one owner at a time, renewed by the heartbeat, taken over once
expired (a dead owner), refused while live."""

from __future__ import annotations

from pathlib import Path

from pontoon.history import open_store
from pontoon.history.leases import Leases


def test_lease_claim_renew_expire_takeover(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    sa, sb = open_store(url), open_store(url)
    a = Leases(sa, "proc-a", "http://127.0.0.1:1", ttl=5)
    b = Leases(sb, "proc-b", "http://127.0.0.1:2", ttl=5)
    assert a.claim("aaaa0001", now=100) and a.claim("aaaa0001", now=101)
    assert not b.claim("aaaa0001", now=102)  # live: refused
    assert b.claim("bbbb0002", now=102)
    owner = b.owner_of("aaaa0001")
    assert owner is not None and owner["owner"] == "proc-a" and owner["address"] == "http://127.0.0.1:1"
    assert a.renew(now=104) == {"aaaa0001"}  # heartbeat: expires at 109 now
    assert not b.claim("aaaa0001", now=108)
    assert b.renew(now=106) == {"bbbb0002"} and b.expired(now=109.5) == {"aaaa0001"}
    assert b.claim("aaaa0001", now=109.5)  # a has died: b takes the table over
    assert a.renew(now=110) == set()  # a (if it comes back) no longer holds it
    assert not a.claim("aaaa0001", now=110)
    b.release("aaaa0001")
    assert a.claim("aaaa0001", now=111)
    sa.close()
    sb.close()


def test_epochs_fence_a_stale_owner(tmp_path: Path) -> None:
    """Every change of owner raises the lease's epoch; ``fence`` refuses a write by anyone but the
    holder at its epoch, inside the write's own transaction (nothing is committed)."""
    import pytest

    from pontoon.history.leases import LeaseLost

    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    sa, sb = open_store(url), open_store(url)
    a = Leases(sa, "proc-a", "http://127.0.0.1:1", ttl=5)
    b = Leases(sb, "proc-b", "http://127.0.0.1:2", ttl=5)
    assert a.claim("cccc0003", now=100) and a.epochs["cccc0003"] == 1
    assert a.claim("cccc0003", now=101) and a.epochs["cccc0003"] == 1  # renewing its own: the same token
    with sa.engine.begin() as conn:
        a.fence(conn, "cccc0003")  # the holder writes
    assert b.claim("cccc0003", now=200) and b.epochs["cccc0003"] == 2  # a stalled past its ttl: b takes over
    with pytest.raises(LeaseLost), sa.engine.begin() as conn:
        a.fence(conn, "cccc0003")
    with sb.engine.begin() as conn:
        b.fence(conn, "cccc0003")
    sa.close()
    sb.close()


def test_a_stalled_server_cannot_commit_after_a_takeover(make_live, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A live server holds a table's lease; another process takes it over (a's lease expired while it
    stalled: modelled by b claiming at a time past a's expiry, without waiting). a's next action is
    refused by the fence inside its write transaction: no event of a's is committed after the
    takeover, the client is told, and a stops serving the table."""
    import time

    from pontoon.history.store import Store
    from pontoon.web.store_persistence import StorePersistence
    from tests.web.conftest import FAST

    url = f"sqlite:///{tmp_path / 'h.sqlite'}"
    sa, sb = open_store(url), open_store(url)
    la = Leases(sa, "proc-a", "http://127.0.0.1:1", ttl=600)
    a = make_live(FAST, StorePersistence(sa, leases=la))
    tid = a.table(preset="mbs", seed=9)
    tok = a.join(tid, a.account("ann"), box=1, buy_in="100")
    c = a.ws(tid, tok)
    c.wait_state(lambda m: m["you"] == "ann")
    c.send({"type": "bet", "amount": "10"})
    c.wait_state(lambda m: m["phase"] == "play")
    c.drain(0.2)

    def events(store: Store) -> int:
        return sum(len(store.events_(int(t["id"]))) for t in store.tables_(label="web"))

    before = events(sb)
    lb = Leases(sb, "proc-b", "http://127.0.0.1:2", ttl=600)
    assert lb.claim(tid, now=time.time() + 1200)  # past a's expiry: b holds the lease (epoch 2)
    pick = next(x for x in c.state["legal"] if x["verb"] in ("stand", "hit"))
    c.send({"type": "act", "action": {"verb": pick["verb"], "box": pick["box"]}})
    err = c.error()
    assert "taken over by another process" in err
    assert events(sb) == before  # nothing of a's committed after the takeover
    assert tid not in a.srv.lobby.tables
    r = a.http.get(f"/api/tables/{tid}")
    assert r.status_code == 409 and r.json()["owner"] == "http://127.0.0.1:2"
    sb.close()
