"""A deterministic scripted table for the history tests, in-process or as a subprocess.

Every decision is a function of (seed, round number, events so far): a hash picks among the legal
actions, so a table recovered after a crash makes exactly the decisions the uninterrupted one makes.

    python tests/history/driver.py --db sqlite:///PATH --preset mbs --seed 1 --rounds 20 [--fair] [--resume]

prints one JSON line: the table id, the rounds played, the balances and the hash-chain head.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from pontoon.british.bots import Bots
from pontoon.british.table import BritishGame
from pontoon.casino.table import CasinoTable
from pontoon.fair import FairShuffler
from pontoon.history import Recorder, Store, open_store, recover
from pontoon.protocol import BETTING, TABLE
from pontoon.rules import resolve_rules

CASINO = ["mbs", "federal", "rws-plus", "rws-pandemonium", "blackjack"]
BRITISH = ["british", "shoot"]
VERBS = {"insure", "surrender", "hit", "stand", "split", "double", "rescue"}
LABEL = "driver"


def pick(n: int, *parts: object) -> int:
    return zlib.crc32(":".join(map(str, parts)).encode()) % n


def new_table(
    store: Store,
    preset: str,
    seed: int,
    balance: int = 1000,
    fair: bool = False,
    short_shoe: bool = False,
    secret: bool = False,
) -> tuple[CasinoTable | BritishGame, Recorder]:
    """``fair``: the table deals from ``FairShuffler(test_seed=seed)`` (deterministic, so a killed run
    can be compared with an uninterrupted one, commitments and reveals included). ``short_shoe``: a
    casino shoe of 4 decks cut at 25% (the least the rules allow): a new shoe every few rounds."""
    rules: Any = resolve_rules(preset)
    if short_shoe and preset not in BRITISH:
        rules = type(rules).model_validate({**rules.model_dump(mode="json"), "decks": 4, "penetration": 0.25})
    t: CasinoTable | BritishGame
    shuffler = (
        (FairShuffler() if secret else FairShuffler(test_seed=seed)) if fair else None
    )  # secret: real seeds
    if preset in BRITISH:
        t = BritishGame(rules, ["ann", "bob", "cat"], banker="ann", rng=seed, fair=shuffler)
        rec = Recorder(store, t, label=LABEL, meta={"preset": preset, "seed": seed})
    else:
        t = CasinoTable(rules, rng=seed, fair=shuffler)
        rec = Recorder(store, t, label=LABEL, meta={"preset": preset, "seed": seed})
        t.join("ann", balance)
        t.join("bob", balance)
    return t, rec


def casino_round(t: CasinoTable, seed: int) -> None:
    for _ in casino_calls(t, seed):
        pass


def casino_calls(t: CasinoTable, seed: int) -> Iterator[None]:
    """One round of ``casino_round``, paused after each table call (the server's way: it waits for
    the call's commit before it shows anything and takes the next action: bench_history ``--driver loop``)."""
    r = t.rules
    if t.in_round and t.round is not None:
        rnd = t.round
    else:
        rnd = t.new_round()
        yield
    n = t.rounds_played + 1
    plan: list[tuple[int, str, str, Decimal]] = [
        (1, "ann", "main", r.table_min),
        (2, "bob", "main", r.table_min * 2),
    ]
    for kind in r.side_bets:
        if pick(2, seed, n, kind):
            plan.append((1, "ann", kind, r.side_min))
    if rnd.to_act() is BETTING:
        done = sum(1 for e in rnd.log.events if e.kind == "bet")
        for b in plan[done:]:
            t.place_bet(*b)
            yield
        t.deal()
        yield
    while not rnd.is_over():
        seat = rnd.to_act()
        legal = (
            [a for a in rnd.legal_actions(seat) if a.verb in VERBS and t.can(seat, a)]
            if isinstance(seat, str)
            else []
        )
        actor: Any = seat
        if not legal:
            actor = TABLE
            legal = [a for a in rnd.legal_actions(TABLE) if a.verb in VERBS]
        t.act(actor, legal[pick(len(legal), seed, n, rnd.log.count)])
        yield
    t.end_round()
    yield


def british_round(g: BritishGame, bots: Bots) -> None:
    if g.round is None:
        bots.prepare_table(g)
        rnd = g.new_round()
    else:
        rnd = g.round
    while not rnd.is_over():
        seat, verb, amt = bots.decide(rnd)
        g.act(seat, verb, amt)
    g.end_round()


def play(t: CasinoTable | BritishGame, seed: int, rounds: int) -> None:
    bots = Bots()
    while t.rounds_played < rounds:
        if isinstance(t, CasinoTable):
            casino_round(t, seed)
        else:
            british_round(t, bots)


def finish(t: CasinoTable | BritishGame, rec: Recorder) -> None:
    """Close the table (a fair shoe's seed is revealed) and its record."""
    t.close()
    rec.close()


def summary(store: Store, t: CasinoTable | BritishGame, table_id: int) -> dict[str, Any]:
    return {
        "table": table_id,
        "rounds": t.rounds_played,
        "balances": {k: str(v) for k, v in t.balances().items()},
        "last_hash": store.table(table_id)["last_hash"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--preset", default="mbs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--fair", action="store_true", help="a fair table (test mode) with a short casino shoe")
    a = ap.parse_args(argv)
    store = open_store(a.db)
    got = recover(store, label=LABEL) if a.resume else []
    if a.resume and not got and store.tables_():
        print(json.dumps({"error": "no open table"}))
        return 3
    if got:
        t, rec = got[-1].table, got[-1].recorder
        if isinstance(t, CasinoTable):  # killed while the players were still sitting down
            for who in ("ann", "bob"):
                if who not in t.seats():
                    t.join(who, 1000)
    else:  # a new table (also when a kill came before the table's first commit)
        t, rec = new_table(store, a.preset, a.seed, fair=a.fair, short_shoe=a.fair)
    play(t, a.seed, a.rounds)
    finish(t, rec)
    print(json.dumps(summary(store, t, rec.table_id)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
