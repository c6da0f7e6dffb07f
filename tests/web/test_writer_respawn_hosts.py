"""After the writer process's death a table is rebuilt in place as a NEW host object (web/respawn.py);
the dropped one must show nothing and write nothing from then on: an in-process server (its writer a
real child process, killed with an action in flight), the old host object kept and asked to settle
on the server's own event loop as a message still queued for its lock would."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from pontoon.history import open_store
from pontoon.history.writer_proc import ProcessCommitter
from pontoon.web.models import parse_client
from pontoon.web.store_persistence import StorePersistence
from tests.web.conftest import FAST
from tests.web.play import casino_choice


def test_the_dropped_host_settles_false_and_records_nothing(make_live: Any, tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    p = StorePersistence(store, writer="process")
    live = make_live(FAST, p)
    try:
        ann = live.account("ann")
        tid = live.table(preset="mbs", seed=11)
        seat = live.join(tid, ann, box=1, buy_in="300")
        c = live.ws(tid, seat)
        c.wait_state(lambda m: m["you"] is not None)
        c.send({"type": "bet", "amount": "10"})
        st = c.wait_state(lambda m: m["phase"] == "play")
        old = live.srv.lobby.tables[tid]
        old_rec = p.recorders[tid]
        group = p.group
        assert isinstance(group, ProcessCommitter) and group.loop is not None
        pid = group.pid
        os.kill(pid, signal.SIGSTOP)  # the action's write stays in flight
        pick = casino_choice(st)
        assert pick is not None
        c.send({"type": "act", "action": pick})
        time.sleep(0.3)
        os.kill(pid, signal.SIGKILL)
        t0 = time.monotonic()
        while live.srv.lobby.tables.get(tid) in (None, old):
            assert time.monotonic() - t0 < 20, "not rebuilt"
            time.sleep(0.02)
        new = live.srv.lobby.tables[tid]
        assert old.closed and not new.closed and group.restarts == 1 and group.pid != pid
        assert p.recorders[tid] is not old_rec  # the rebuilt table's own recorder

        def settled(host: Any) -> bool:
            return bool(asyncio.run_coroutine_threadsafe(live.srv.settled(host), group.loop).result(10))

        assert settled(new) is True
        assert settled(old) is False  # a dropped host: nothing of it shown, though its id is served
        # a move on the old host (a message still queued for its lock) records nothing: its recorder
        # was detached at the drop, and it settles False
        before = len(store.events_(old_rec.table_id))

        async def poke() -> tuple[int, bool]:
            v, nxt = old.version, casino_choice(old.state_for("ann"))
            msg = {"type": "bet", "amount": "10"} if nxt is None else {"type": "act", "action": nxt}
            old.handle("ann", parse_client(json.dumps(msg)))  # (the old engine table's round moved on)
            return old.version - v, await live.srv.settled(old)

        moved, shown = asyncio.run_coroutine_threadsafe(poke(), group.loop).result(10)
        assert moved and shown is False
        group.drain()
        c2 = live.ws(tid, seat)  # the seat's token works on the rebuilt table
        st2 = c2.wait_state(lambda m: m["you"] is not None)
        assert st2["round_no"] == st["round_no"] and st2["phase"] == "play"
        assert len(store.events_(old_rec.table_id)) == before
        c2.close()
    finally:
        live.stop()
        store.close()
