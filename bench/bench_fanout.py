"""The fan-out's cost per change in one process (no sockets, no event loop): how the state frames of a
change are built, against how main built them.

``python bench/bench_fanout.py [--rounds 40] [--spectators 0,10,100]``

Two casino tables of ``mbs`` with the same seed, each with two players (one connection each) and S
spectators, play the same rounds change by change (bet, bet, hit/stand ...). After each change one
table's frames are made as main made them (``old``: a state built and serialized per connection name,
every connection a full state) and the other's by ``web/frames.py`` (``new``: once per view kind, and a
delta for connections that ask for it, as the page does), alternately first, so that the machine's
load falls on both alike. Reported per change: the server's time to make every frame, the bytes sent
to all connections, and the clients' time to read them (``json.loads``, and the delta applied).
Not a timed test; numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


class FakeConn:
    def __init__(self, name: str | None, deltas: bool) -> None:
        self.name, self.deltas = name, deltas
        self.kind: str | None = None
        self.seq = -1
        self.history_mark = -1
        self.texts: list[str] = []

    def push(self, text: str) -> None:
        self.texts.append(text)


def old_broadcast(host: Any, conns: list[FakeConn]) -> None:
    """main's ``Server.broadcast`` (before issue 25 item 3)."""
    cache: dict[tuple[str | None, bool], str] = {}
    for c in conns:
        key = (c.name, c.history_mark != host.history_mark)
        if key not in cache or (c.name and c.name in host.notices):
            cache[key] = json.dumps(host.state_for(c.name, key[1]))
        c.history_mark = host.history_mark
        c.push(cache[key])


def read(conns: list[FakeConn], held: dict[int, Any]) -> None:
    """What the clients do with what they were sent: parse it, apply a delta."""
    from pontoon.web.delta import apply

    for c in conns:
        for t in c.texts:
            m = json.loads(t)
            if m.get("type") == "delta":
                held[id(c)] = apply(m["ops"], held[id(c)])
            else:
                held[id(c)] = m
        c.texts.clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--spectators", default="0,10,100")
    a = ap.parse_args(argv)
    from tests.web.conftest import FAST, LiveServer
    from tests.web.play import casino_choice

    from pontoon.web import frames
    from pontoon.web.models import Envelope

    live = LiveServer(FAST)
    print(f"bench_fanout: mbs, 2 players, {a.rounds} rounds per table, {os.cpu_count()} CPUs")
    print(
        f"{'spectators':>10} {'changes':>7} {'old us/change':>13} {'new us/change':>13} {'old KB/change':>13} "
        f"{'new KB/change':>13} {'old client us':>13} {'new client us':>13}"
    )
    try:
        for spectators in [int(x) for x in a.spectators.split(",") if x]:
            hosts = []
            for _ in range(2):
                tid = live.table(preset="mbs", seed=7)
                for i, n in enumerate(("ann", "bob")):
                    live.join(tid, live.account(f"{n}{tid}"), box=i + 1, buy_in="1000")
                hosts.append(live.srv.lobby.tables[tid])
            old_h, new_h = hosts
            names = list(old_h.members)
            conns = {
                "old": [FakeConn(n, False) for n in names]
                + [FakeConn(None, False) for _ in range(spectators)],
                "new": [FakeConn(n, True) for n in list(new_h.members)]
                + [FakeConn(None, True) for _ in range(spectators)],
            }
            spent = {"old": 0.0, "new": 0.0}
            sent = {"old": 0, "new": 0}
            readt = {"old": 0.0, "new": 0.0}
            held: dict[int, Any] = {}
            changes = 0
            while old_h.table.rounds_played < a.rounds:
                st = old_h.state_for(names[0] if old_h.table.round is None else None)
                msgs: list[tuple[int, dict[str, Any]]] = []
                if st["phase"] == "betting":
                    msgs = [(i, {"type": "bet", "amount": "10"}) for i in range(2)]
                else:
                    for i, n in enumerate(names):
                        pick = casino_choice(old_h.state_for(n))
                        if pick is not None:
                            msgs = [(i, {"type": "act", "action": pick})]
                            break
                for i, msg in msgs:
                    m = Envelope.model_validate({"msg": msg}).msg
                    order = [("old", old_h), ("new", new_h)]
                    if changes % 2:
                        order.reverse()
                    for mode, h in order:
                        h.handle(list(h.members)[i], m)
                        t0 = time.process_time()
                        if mode == "old":
                            old_broadcast(h, conns[mode])
                        else:
                            frames.broadcast(h, conns[mode])
                        spent[mode] += time.process_time() - t0
                        sent[mode] += sum(len(t) for c in conns[mode] for t in c.texts)
                        t0 = time.process_time()
                        read(conns[mode], held)
                        readt[mode] += time.process_time() - t0
                    changes += 1
            n = max(1, changes)
            print(
                f"{spectators:>10} {changes:>7} {spent['old'] * 1e6 / n:>13.0f} {spent['new'] * 1e6 / n:>13.0f} "
                f"{sent['old'] / n / 1024:>13.1f} {sent['new'] / n / 1024:>13.1f} "
                f"{readt['old'] * 1e6 / n:>13.0f} {readt['new'] * 1e6 / n:>13.0f}",
                flush=True,
            )
    finally:
        live.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
