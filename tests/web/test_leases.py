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
