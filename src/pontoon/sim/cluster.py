"""Running the chunks on Dask: a local cluster of processes (``--workers``) or an existing
scheduler (``--scheduler tcp://host:8786``).

Each task is a pure function ``run_chunks_summary(spec, entropy, first, sizes, session_length)``
of a run of consecutive chunks: Dask recomputes a lost worker's task, and because a chunk's random
numbers depend only on its index, the totals are the same integers whatever the number of workers
and however chunks are grouped into tasks. Tasks are submitted from a lazy plan with a bounded
number in flight, so memory does not grow with the rounds.

Speed (issue 15 item 4; ``bench/bench_sim.py --workers``): the workers start, and compile or
load the kernels, before the clock starts (``compile_seconds`` is reported apart); a task holds
several chunks (about ``TASK_SECONDS`` of work, at least ``TASKS_PER_WORKER`` tasks per worker
so the last ones balance, and tapering to single chunks at the end), so the scheduler round
trip and result transfer are paid per task, not per 50 ms chunk; the local cluster's workers run without Dask's statistical profiler, which
otherwise samples the one busy thread every 10 ms and takes the GIL from it between kernel
calls (the kernel itself runs without the GIL: ``nogil`` on ``_kernels.run_random``).

A local cluster listens on 127.0.0.1 only, and opens no dashboard unless ``dashboard=True``
(``--dashboard``; issue 10 item 9).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pontoon.errors import PontoonError
from pontoon.sim.chunk import run_chunks_summary, warm_up

if TYPE_CHECKING:
    from pontoon.sim.chunk import SimSpec, Totals

IN_FLIGHT_PER_WORKER = 2  # tasks submitted ahead of the results, per worker
TASK_ROUNDS = 5_000_000  # rounds per task at most when there are enough (about 0.5 s of work)
TASKS_PER_WORKER = 8  # at least this many tasks per worker when the run is large enough
TAPER = 2  # at the end a task holds at most the chunks left / (TAPER x workers) (``_tasks``)
CONNECT_TIMEOUT = 15  # seconds to reach an existing scheduler
_ADDRESS = re.compile(r"^(tcp|tls|ws|wss)://[A-Za-z0-9._\-\[\]:]+:\d{1,5}$")


class ClusterError(PontoonError):
    """The Dask cluster could not be started or reached."""


def check_address(address: object) -> str:
    """A scheduler address such as ``tcp://10.0.0.5:8786`` (protocol, host, port), else ClusterError."""
    if not isinstance(address, str) or not _ADDRESS.match(address.strip()):
        raise ClusterError(
            f"--scheduler {str(address)[:60]!r} is not a scheduler address: give PROTOCOL://HOST:PORT, "
            "e.g. tcp://10.0.0.5:8786"
        )
    port = int(address.rsplit(":", 1)[1])
    if not 1 <= port <= 65535:
        raise ClusterError(f"--scheduler {address!r}: the port must be 1 to 65535")
    return address.strip()


def _local_cluster(workers: int, dashboard: bool) -> Any:
    import dask
    from dask.distributed import LocalCluster

    # the workers' statistical profiler off: it only ever sees the kernel's one frame, and each
    # sample takes the GIL from the worker thread between kernel calls (the nanny hands this
    # configuration to the worker processes it starts)
    with dask.config.set(
        {
            "distributed.worker.profile.enabled": False,
            # background wake-ups of every process: the event-loop health tick (20 ms), the system
            # and memory monitors (500 / 100 ms); a chunk run needs none of them often
            "distributed.admin.tick.interval": "500ms",
            "distributed.admin.system-monitor.interval": "2s",
            "distributed.worker.memory.monitor-interval": "1s",
        }
    ):
        return _start_local(LocalCluster, workers, dashboard)


def _start_local(LocalCluster: Any, workers: int, dashboard: bool) -> Any:
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",  # loopback only: a local run is reachable from this machine alone
        dashboard_address="127.0.0.1:8787" if dashboard else None,
        worker_dashboard_address=None,
        scheduler_kwargs={"dashboard": dashboard},
        silence_logs=40,
    )


def chunks_per_task(chunks: int, chunk_rounds: int, workers: int) -> int:
    """How many consecutive chunks one task plays: about ``TASK_ROUNDS`` rounds, but at least
    ``TASKS_PER_WORKER`` tasks per worker when there are that many chunks."""
    by_size = max(1, TASK_ROUNDS // max(chunk_rounds, 1))
    by_count = max(1, chunks // (TASKS_PER_WORKER * max(workers, 1)))
    return min(by_size, by_count)


def _tasks(
    sizes: Iterable[int], per_task: int, total: int = 0, workers: int = 1
) -> Iterator[tuple[int, list[int]]]:
    """(first chunk index, chunk sizes) of each task, made lazily from the chunk plan.

    With ``total`` (the plan's chunk count) the tasks taper off at the end (guided scheduling):
    a task holds at most the chunks left over ``TAPER`` tasks per worker, so the last ones are
    single chunks and no worker idles for long while another finishes a large last task. The
    chunks, hence the totals, do not change; only their grouping."""
    batch: list[int] = []
    first = 0
    want = per_task
    for i, n in enumerate(sizes):
        if not batch:
            first = i
            if total:
                want = max(1, min(per_task, (total - i) // (TAPER * max(workers, 1))))
        batch.append(n)
        if len(batch) == want:
            yield first, batch
            batch = []
    if batch:
        yield first, batch


def run_on_dask(
    spec: SimSpec,
    entropy: int,
    sizes: Iterable[int],
    session_length: int,
    totals: Totals,
    workers: int | None,
    scheduler: str | None,
    progress: Callable[[int], None] | None = None,
    *,
    dashboard: bool = False,
    chunks: int = 0,
    chunk_rounds: int = 0,
    cpu: dict[str, float] | None = None,
    task: Callable[..., Any] = run_chunks_summary,
    warm: Callable[..., float] = warm_up,
) -> tuple[int, float, float]:
    """Run every chunk on Dask and add the results into ``totals``. ``chunks`` and
    ``chunk_rounds`` (the plan's size) let tasks hold several chunks; 0 = one chunk per task.
    ``task``/``warm``: the chunk runner and warm-up of another kernel with the same shapes (the
    British simulator's ``british_fast.run_chunks``/``warm_up``; its totals have the same ``add``).

    Returns (workers used, compile seconds, simulation seconds); ``cpu`` (if given) receives the
    CPU seconds of the simulation: ``workers`` (summed over the worker processes) and
    ``this_process`` (client and, for a local cluster, scheduler)."""
    try:
        from dask.distributed import Client, wait
    except ImportError as err:  # pragma: no cover - dask is a dependency
        raise ClusterError(f"dask.distributed is not installed: {err}") from None

    cluster = None
    try:
        if scheduler is not None:
            address = check_address(scheduler)
            try:
                client = Client(address, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as err:
                raise ClusterError(f"cannot reach the Dask scheduler at {address!r}: {err}") from None
        else:
            try:
                cluster = _local_cluster(workers or 1, dashboard)
            except (OSError, TimeoutError, RuntimeError) as err:
                raise ClusterError(f"cannot start a local Dask cluster of {workers} workers: {err}") from None
            client = Client(cluster)
        try:
            nworkers = len(client.scheduler_info().get("workers", {})) or (workers or 1)
            t0 = time.perf_counter()
            client.run(warm, spec)  # every worker compiles (or loads its cache) before the clock
            compile_seconds = time.perf_counter() - t0
            spec_f = client.scatter(spec, broadcast=True)
            w_cpu0 = client.run(time.process_time)
            p_cpu0 = time.process_time()
            t1 = time.perf_counter()
            limit = max(2, IN_FLIGHT_PER_WORKER * nworkers)
            per_task = chunks_per_task(chunks, chunk_rounds, nworkers) if chunks and chunk_rounds else 1
            pending: dict[Any, int] = {}
            it = _tasks(sizes, per_task, chunks, nworkers)
            exhausted = False
            while pending or not exhausted:
                while not exhausted and len(pending) < limit:
                    nxt = next(it, None)
                    if nxt is None:
                        exhausted = True
                        break
                    first, batch = nxt
                    fut = client.submit(
                        task,
                        spec_f,
                        entropy,
                        first,
                        batch,
                        session_length,
                        pure=True,
                        retries=2,
                    )
                    pending[fut] = sum(batch)
                if not pending:
                    break
                done, _ = wait(list(pending), return_when="FIRST_COMPLETED")
                for fut in done:
                    n = pending.pop(fut)
                    acc, mom, hist = fut.result()  # integer sums: the order does not matter
                    totals.add(acc, mom, hist)
                    fut.release()
                    if progress:
                        progress(n)
            seconds = time.perf_counter() - t1
            if cpu is not None:
                w_cpu1 = client.run(time.process_time)
                cpu["this_process"] = time.process_time() - p_cpu0
                cpu["workers"] = sum(w_cpu1[w] - w_cpu0.get(w, w_cpu1[w]) for w in w_cpu1)
            return nworkers, compile_seconds, seconds
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
