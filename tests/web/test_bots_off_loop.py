"""A British bot banker's solved or best decision is taken in a worker thread, not on the event loop.

The ``best`` banker reads every hand (analysis/british/reading.py): its Reader is built on his first turn
(about 1 s with the compiled kernels, 20 s with numba's first compile of the pure build), then 20 ms a turn
heads-up and seconds with 6 or 7 players. Taken inside the table's move, as the British bots' turns were,
it froze the server's event loop (every table, every socket) for that long: ``bench/bench_loop_lag.py``
measured the loop 0.9-1.3 s late at a three-seat table of best bots (21.9 s the first time in a fresh pure
install), 0.05 s once it is a job for a worker thread (``bot_job``, as a casino bot's decision is)."""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from typing import Any

import pytest

from pontoon.web import host_actions
from pontoon.web.app import create_app
from pontoon.web.models import CLIENT_MESSAGE, JoinIn, TableIn
from tests.web.conftest import FAST
from tests.web.play import british_choice


def _table(level: str, seed: int) -> tuple[Any, Any]:
    """A British table of two seats, ann and a bot of ``level``, through the server's lobby (no event loop
    runs: nothing but this test moves the table)."""
    srv = create_app(FAST).state.server
    srv.lobby.credit("ann", Decimal(1000))
    host = srv.lobby.create_table(TableIn(preset="british", seats=2, seed=seed))
    srv.lobby.join(host, "ann", JoinIn(buy_in="300"))
    host_actions.do(srv, host, "ann", host_actions.AddBotMsg(action="fill_bots", level=level))
    return srv, host


def _ann_plays(host: Any) -> None:
    """ann plays her turns (the tests' simple policy, from her own state) until someone else is to act."""
    for _ in range(40):
        st = json.loads(json.dumps(host.state_for("ann"), default=str))
        pick = british_choice(st)
        g = host.game_obj
        if pick is None or g.round is None or g.round.is_over() or g.round.to_act() != "ann":
            return
        host.handle("ann", CLIENT_MESSAGE.validate_python(pick))


def _run(decide: Any, out: list[Any]) -> None:
    out.append(decide())


@pytest.mark.parametrize("level", ["solved", "best"])
def test_a_bot_bankers_decision_is_a_job_for_a_worker_thread(level: str) -> None:
    for seed in range(1, 12):  # a table whose first banker (drawn at random, 003) is the bot
        srv, host = _table(level, seed)
        if host.game_obj.banker != "ann":
            break
    bot = host.game_obj.banker
    assert bot.startswith("bot-")
    first = host.game_obj.round
    played = 0
    for _ in range(20):
        _ann_plays(host)
        rnd = host.game_obj.round
        if rnd is not first or rnd is None or rnd.is_over():
            break  # his round is over (the next one dealt)
        assert rnd.to_act() == bot and rnd.phase == "banker", (rnd.phase, rnd.to_act())
        version = host.version
        job = host.bot_job()
        assert job is not None and job[0] == bot  # the move stopped at his turn: nothing decided on the loop
        got: list[Any] = []
        t = threading.Thread(target=_run, args=(job[1], got))  # as asyncio.to_thread runs it
        t.start()
        t.join(120)
        assert got and got[0].verb in ("stick", "twist"), got
        assert host.version == version and rnd.to_act() == bot  # the table did not move meanwhile
        host.bot_act(bot, got[0])
        assert host.version > version
        played += 1
    assert played >= 1  # the banker's turn came and was played from the job
