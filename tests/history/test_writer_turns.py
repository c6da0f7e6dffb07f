"""The server's hand-off to the writer process (history/writer_proc.py, recorder.py).

- The recorder hands a round's calls to the writer process made plain already (``Recorder._round_call``
  -> ``ProcessCommitter.enqueue_plain``, no ``Batch``/``Row`` in between): tables played on the event
  loop (uvloop, the acknowledgements read by the loop, many tables' calls in one turn) commit exactly
  what the writer thread commits of the same play recorded record by record (``Recorder._on``, the
  one-pass path off): events with their hashes, ledger, rounds, shoes; the audit clean.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pontoon.british.bots import Bots
from pontoon.british.table import BritishGame
from pontoon.casino.table import CasinoTable
from pontoon.fair import FairShuffler
from pontoon.history import Recorder, open_store
from pontoon.history.audit import audit
from pontoon.history.writer_proc import ProcessCommitter, start_writer_process
from pontoon.rules import resolve_rules
from pontoon.web.wakeups import Wakeups
from tests.history.conftest import dump
from tests.history.driver import casino_calls


def _tables(seed: int) -> list[CasinoTable | BritishGame]:
    out: list[CasinoTable | BritishGame] = []
    for i in range(6):
        rules: Any = resolve_rules("mbs")  # a short shoe: a new shoe every few rounds
        rules = type(rules).model_validate({**rules.model_dump(mode="json"), "decks": 4, "penetration": 0.25})
        t = CasinoTable(rules, rng=seed + i)
        t.join("ann", 1000)
        t.join("bob", 1000)
        out.append(t)
    for i, fair in enumerate((False, True)):
        shuffler = FairShuffler(test_seed=seed + i) if fair else None
        out.append(
            BritishGame(
                resolve_rules("british"), ["ann", "bob", "cat"], banker="ann", rng=seed + i, fair=shuffler
            )
        )  # type: ignore[arg-type]
    return out


def _calls(t: CasinoTable | BritishGame, n: int, bots: Bots) -> Any:
    """One round, paused after each call of a casino table, after the round of a British one."""
    if isinstance(t, CasinoTable):
        yield from casino_calls(t, n)
        return
    if t.round is None:
        bots.prepare_table(t)
        t.new_round()
    rnd = t.round
    assert rnd is not None
    while not rnd.is_over():
        seat, verb, amt = bots.decide(rnd)
        t.act(seat, verb, amt)
    t.end_round()
    yield


def _play(url: str, writer: str, rounds: int, turns: list[int]) -> tuple[list[Any], int]:
    """Every table a task on one uvloop loop, each call's commit awaited as the server does; the calls
    of each loop turn sent together counted in ``turns``."""
    import uvloop

    store = open_store(url)
    real_round_call = Recorder._round_call
    real_flush = ProcessCommitter._flush_locked
    if writer == "thread":  # the reference: every record through ``_on``
        Recorder._round_call = lambda self, recs: None  # type: ignore[method-assign,assignment]
    try:
        group = start_writer_process(store) if writer == "process" else store.start_group()
        tables = _tables(11)
        recs = [Recorder(store, t, label="turns", meta={"i": i}, defer=True) for i, t in enumerate(tables)]
        wakeups = Wakeups()
        plain = [0]
        if isinstance(group, ProcessCommitter):
            real = group.enqueue_plain

            def counted(table_id: int, calls: list[Any]) -> Any:
                plain[0] += 1
                return real(table_id, calls)

            group.enqueue_plain = counted  # type: ignore[method-assign]

        def flush(self: ProcessCommitter) -> None:
            if self.out:
                turns.append(len(self.out))
            real_flush(self)

        ProcessCommitter._flush_locked = flush  # type: ignore[method-assign]

        async def one(t: CasinoTable | BritishGame, rec: Recorder) -> None:
            bots = Bots()
            for n in range(rounds):
                for _ in _calls(t, n, bots):
                    fut = group.pending(rec.table_id)
                    if fut is not None:
                        assert await wakeups.wait(fut) is None
                    assert rec.table_id not in group.failed

        async def main() -> None:
            if isinstance(group, ProcessCommitter):
                group.use_loop(asyncio.get_running_loop())
                assert group.loop is not None
            await asyncio.gather(*(one(t, r) for t, r in zip(tables, recs, strict=True)))

        uvloop.run(main())
        for r in recs:
            r.close()
        group.drain()
        assert audit(store)["integrity"] == "ok"
        return [dump(store, r.table_id) for r in recs], plain[0]
    finally:
        ProcessCommitter._flush_locked = real_flush  # type: ignore[method-assign]
        Recorder._round_call = real_round_call  # type: ignore[method-assign]
        store.close()


@pytest.mark.slow
def test_plain_calls_on_the_loop_commit_what_the_thread_commits(tmp_path: Path) -> None:
    turns: list[int] = []
    thread, _ = _play(f"sqlite:///{tmp_path / 'thread'}.sqlite", "thread", 12, [])
    process, plain = _play(f"sqlite:///{tmp_path / 'process'}.sqlite", "process", 12, turns)
    assert plain >= 300  # (the round's calls took the plain path)
    assert max(turns) > 1 and sum(turns) >= plain  # (several tables' calls sent as one message)
    assert process == thread


def test_plain_calls_on_the_loop_commit_what_the_thread_commits_ci(tmp_path: Path) -> None:
    turns: list[int] = []
    thread, _ = _play(f"sqlite:///{tmp_path / 'thread'}.sqlite", "thread", 3, [])
    process, plain = _play(f"sqlite:///{tmp_path / 'process'}.sqlite", "process", 3, turns)
    assert plain >= 60
    assert max(turns) > 1 and sum(turns) >= plain
    assert process == thread
