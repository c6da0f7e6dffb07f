"""The simulator's API: validation, reproducibility, exact integer totals, Dask = single process."""

from __future__ import annotations

import math

import pytest

from pontoon.rules import resolve_rules
from pontoon.sim.api import SimulationError, build_spec, simulate

MBS = resolve_rules("mbs")


def _key(out: dict) -> tuple:
    return (out["rounds"], out["totals"]["main_game_net"], out["totals"]["all_wagers_net"], str(out["lines"]))


def test_same_seed_same_totals_and_chunks_are_independent() -> None:
    a = simulate(MBS, 30_000, seed=11, chunk_rounds=10_000, side_bets=["pair"])
    b = simulate(MBS, 30_000, seed=11, chunk_rounds=10_000, side_bets=["pair"])
    c = simulate(MBS, 30_000, seed=12, chunk_rounds=10_000, side_bets=["pair"])
    assert _key(a) == _key(b)
    assert _key(a) != _key(c)
    # the first two chunks of a longer run are the same chunks
    d = simulate(MBS, 20_000, seed=11, chunk_rounds=10_000, side_bets=["pair"])
    e = simulate(MBS, 10_000, seed=11, chunk_rounds=10_000, side_bets=["pair"])
    assert d["lines"]["pair"]["hits"] >= e["lines"]["pair"]["hits"]


def test_report_shape() -> None:
    out = simulate(
        resolve_rules("rws-plus"), 20_000, seed=1, boxes=3, side_bets=["pair", "bonus"], session_length=50
    )
    for k in ("rounds", "seconds", "rounds_per_second", "house_edge", "ci95", "sd", "lines"):
        assert k in out
    for line in (
        "pontoon",
        "21_5_cards",
        "21_6_cards",
        "21_7plus_cards",
        "678_mixed",
        "777_spades",
        "super_bonus",
    ):
        assert {"hit_rate", "return"} <= set(out["lines"][line])
    assert out["lines"]["bonus"]["wagers"] == 60_000
    assert out["sessions"]["count"] == 400
    assert math.isfinite(out["house_edge"]) and out["ci95"] > 0 and out["sd"] > 0


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        ({"boxes": 0}, "boxes"),
        ({"boxes": 8}, "boxes"),
        ({"side_bets": ["bonus"]}, "not offered in mbs"),
        ({"insurance": "sometimes"}, "insurance"),
        ({"penetration": 0.05}, "penetration"),
        ({"penetration": 0.5, "csm": True}, "not both"),
        ({"bet": "5"}, "main wager"),
        ({"strategy": "nosuchfile.json"}, "not found"),
    ],
)
def test_bad_input(kwargs, msg) -> None:
    with pytest.raises(SimulationError if "not found" not in msg else Exception, match=msg):
        simulate(MBS, 100, **kwargs)


def test_bad_rounds_and_workers() -> None:
    with pytest.raises(SimulationError, match="rounds"):
        simulate(MBS, 0)
    with pytest.raises(SimulationError, match="not both"):
        simulate(MBS, 10, workers=2, scheduler="tcp://127.0.0.1:1")


def test_money_quantum_is_exact() -> None:
    spec = build_spec(resolve_rules("rws-pandemonium"), side_bets=["pandemonium", "pair"], insurance="always")
    from pontoon.sim import _kernels as K

    # 10 wager: 3:2 = 15, surrender and insurance 5, side 5 x multipliers: all whole quanta of 5
    assert spec.quantum == 5
    assert spec.P[K.P_W] == 2 and spec.P[K.P_NAT] == 3 and spec.P[K.P_SURR_LOSS] == 1


def test_cut_card_voids_are_counted() -> None:
    # penetration 1.0 with 7 boxes: the shoe runs out mid-round now and then (rulings 2: void)
    out = simulate(MBS, 3_000, seed=3, boxes=7, penetration=1.0)
    assert out["counts"]["void_rounds"] > 0


def test_dask_gives_identical_totals() -> None:
    pytest.importorskip("dask.distributed")
    kw = dict(seed=2024, chunk_rounds=20_000, side_bets=["pair"], boxes=2)
    single = simulate(MBS, 60_000, **kw)
    dask = simulate(MBS, 60_000, workers=2, **kw)
    assert dask["workers"] == 2
    assert _key(single) == _key(dask)


def test_tasks_group_consecutive_chunks() -> None:
    from pontoon.sim.cluster import TASK_ROUNDS, TASKS_PER_WORKER, _tasks, chunks_per_task

    assert list(_tasks(iter([5, 5, 5, 5, 3]), 2)) == [(0, [5, 5]), (2, [5, 5]), (4, [3])]
    assert list(_tasks(iter([7]), 4)) == [(0, [7])]
    # tapering: 400 chunks, 10 per task, 2 workers: full tasks, then smaller, single chunks last
    tasks = list(_tasks(iter([1] * 400), 10, 400, 2))
    firsts = [f for f, _ in tasks]
    assert firsts == sorted(firsts) and sum(len(b) for _, b in tasks) == 400
    assert all(f + len(b) == g for (f, b), (g, _) in zip(tasks, tasks[1:], strict=False))  # consecutive
    lens = [len(b) for _, b in tasks]
    assert lens[:36] == [10] * 36 and lens[-4:] == [1] * 4
    assert lens == sorted(lens, reverse=True)
    assert chunks_per_task(3, 20_000, 2) == 1  # too few chunks to group
    assert chunks_per_task(400, 500_000, 2) == TASK_ROUNDS // 500_000  # capped by task size
    assert chunks_per_task(10_000, 1_000, 4) == 10_000 // (TASKS_PER_WORKER * 4)  # enough tasks per worker


def test_dask_tasks_of_several_chunks_give_identical_totals() -> None:
    """35 chunks on two workers run as tasks of 2 chunks (and one of 1): the same integers; one
    local worker is this process (no cluster), the same integers again."""
    pytest.importorskip("dask.distributed")
    from pontoon.sim.cluster import chunks_per_task

    kw = dict(seed=5, chunk_rounds=5_000, side_bets=["pair"], boxes=2)
    assert chunks_per_task(35, 5_000, 2) == 2
    single = simulate(MBS, 175_000, **kw)
    dask = simulate(MBS, 175_000, workers=2, **kw)
    one = simulate(MBS, 175_000, workers=1, **kw)
    assert dask["workers"] == 2 and one["workers"] == 1
    assert _key(single) == _key(dask) == _key(one)


def test_dask_recomputes_a_lost_workers_chunks() -> None:
    """A worker killed (SIGKILL) while it runs chunks: they are recomputed elsewhere, none lost or
    counted twice (the totals are the single process's to the last integer)."""
    pytest.importorskip("dask.distributed")
    import os
    import signal

    from dask.distributed import Client, LocalCluster

    kw = dict(seed=77, chunk_rounds=500_000, boxes=1)
    rounds = 16 * 500_000
    single = simulate(MBS, rounds, **kw)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        # one client at a time in this process: the worker pids are read before the run, and the kill
        # is a plain signal (a second client polling the scheduler from the first one's callback
        # raced it: "Event ... bound to a different event loop", seen twice in 4 full runs)
        with Client(cluster) as c:
            pids = c.run(os.getpid)
        victim = sorted(pids)[0]
        killed: list[str] = []

        def kill_a_worker(_n: int) -> None:
            # after the first chunk, 15 are left and both workers hold chunks in flight
            if not killed:
                os.kill(pids[victim], signal.SIGKILL)
                killed.append(victim)

        out = simulate(MBS, rounds, scheduler=cluster.scheduler_address, progress=kill_a_worker, **kw)
        with Client(cluster) as c:
            alive = set(c.scheduler_info()["workers"])
    assert killed, "no worker was killed"
    assert victim not in alive  # it died (its nanny started a new one)
    assert _key(out) == _key(single)
