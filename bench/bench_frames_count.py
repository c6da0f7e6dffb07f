"""The server's work per round in one process, counted in machine instructions (callgrind), not timed:
a count that the load of other jobs does not move, for old-against-new comparisons on a shared machine.

``python bench/bench_frames_count.py [--rounds 60] [--spectators 1] [--deltas 1|2] [--src DIR ...]``

For each source tree (``--src``, repeatable; default this checkout's ``src``): a casino table (``mbs``,
seed 7) with two seats and S spectators, all asking for deltas (``--deltas 2``: split, as the page
asks since 2026-11-28; a tree without them sends its deltas), plays R rounds in one process, with no
sockets and no event loop: every message handled (``CasinoHost.handle``: the engine's step, the
records) and its change's frames made for every connection (``frames.broadcast``: the views, the
deltas, the texts). Run under ``valgrind --tool=callgrind`` twice, with R rounds and with none, and
the difference divided by R is printed: the instructions of one round (the players' own choices,
``tests/web/play.casino_choice`` on a state, are counted in too, alike for every tree). Needs valgrind;
each run takes a minute or two (valgrind is about 50 times slower). Not a timed test.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def play(rounds: int, spectators: int, deltas: int = 1) -> int:
    """The rounds (the part that is counted); the number of changes."""
    from decimal import Decimal

    from pontoon.rules import find_rules
    from pontoon.web import frames
    from pontoon.web.casino_host import CasinoHost
    from pontoon.web.hosting import Settings
    from pontoon.web.models import Envelope
    from pontoon.web.persistence import MemoryPersistence

    sys.path.insert(0, ROOT)
    from tests.web.play import casino_choice

    class Conn:
        def __init__(self, name: str | None) -> None:
            self.name, self.deltas, self.kind, self.seq, self.history_mark = name, deltas, None, -1, -1

        def push(self, text: str) -> None:
            pass

    host = CasinoHost(  # (seeded: the same shoes, so the same rounds, in every tree)
        "abcd0001", "t", find_rules("mbs"), 7, Settings(), MemoryPersistence(), lambda n, a: None, seeded=True
    )
    names = ["ann", "bob"]
    for i, n in enumerate(names):
        host.join(n, i + 1, None, Decimal(1000))
    conns = [Conn(n) for n in names] + [Conn(None) for _ in range(spectators)]
    frames.broadcast(host, conns)
    bet = Envelope.model_validate({"msg": {"type": "bet", "amount": "10"}}).msg
    changes = 0
    while host.table.rounds_played < rounds:
        msgs = []
        if not host.table.in_round:
            msgs = [(0, bet), (1, bet)]
        else:
            for i, n in enumerate(names):
                pick = casino_choice(host.state_for(n, False))
                if pick is not None:
                    msgs = [(i, Envelope.model_validate({"msg": {"type": "act", "action": pick}}).msg)]
                    break
        if not msgs:
            raise RuntimeError("no one can act")
        for i, m in msgs:
            host.handle(names[i], m)
            frames.broadcast(host, conns)
            changes += 1
    return changes


def count(src: str, rounds: int, spectators: int, deltas: int = 1) -> int:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src), PYTHONHASHSEED="0")
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
        + [os.path.abspath(__file__), "--play", str(rounds), "--spectators", str(spectators)]
        + ["--deltas", str(deltas)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    m = re.search(r"Collected : (\d+)", out.stderr)
    if m is None:
        raise RuntimeError(f"no count from callgrind: {out.stderr[-300:]}")
    return int(m.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--spectators", type=int, default=1)
    ap.add_argument("--src", action="append", default=[], help="a source tree (repeatable)")
    ap.add_argument("--deltas", type=int, default=1, choices=(1, 2), help="1: deltas, 2: split deltas")
    ap.add_argument("--play", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.play is not None:
        play(a.play, a.spectators, a.deltas)
        return 0
    if shutil.which("valgrind") is None:
        print("error: valgrind is needed (apt-get install valgrind)", file=sys.stderr)
        return 2
    srcs = a.src or [os.path.join(ROOT, "src")]
    print(
        f"bench_frames_count: mbs, 2 seats, {a.spectators} spectators, deltas {a.deltas}, {a.rounds} rounds"
    )
    for src in srcs:
        full, none = count(src, a.rounds, a.spectators, a.deltas), count(src, 0, a.spectators, a.deltas)
        print(f"{src}: {(full - none) / a.rounds / 1e6:.2f} M instructions a round", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
