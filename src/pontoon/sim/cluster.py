"""Running the chunks on Dask: a local cluster of processes (``--workers``) or an existing
scheduler (``--scheduler tcp://host:8786``).

Each chunk is a pure task ``run_chunk_summary(spec, entropy, index, rounds, session_length)``:
Dask recomputes a lost worker's chunk, and because a chunk's random numbers depend only on its
index, the totals are the same integers whatever the number of workers. Chunks are submitted
from a lazy plan with a bounded number in flight, so memory does not grow with the rounds.

A local cluster listens on 127.0.0.1 only, and opens no dashboard unless ``dashboard=True``
(``--dashboard``; issue 10 item 9).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pontoon.errors import PontoonError
from pontoon.sim.chunk import run_chunk_summary, warm_up

if TYPE_CHECKING:
    from pontoon.sim.chunk import SimSpec, Totals

IN_FLIGHT_PER_WORKER = 4  # chunks submitted ahead of the results, per worker
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
    from dask.distributed import LocalCluster

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
) -> tuple[int, float, float]:
    """Run every chunk on Dask and add the results into ``totals``.

    Returns (workers used, compile seconds, simulation seconds)."""
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
            client.run(warm_up, spec)  # every worker compiles (or loads its cache) before the clock
            compile_seconds = time.perf_counter() - t0
            spec_f = client.scatter(spec, broadcast=True)
            t1 = time.perf_counter()
            limit = max(2, IN_FLIGHT_PER_WORKER * nworkers)
            pending: dict[Any, int] = {}
            it = enumerate(sizes)
            exhausted = False
            while pending or not exhausted:
                while not exhausted and len(pending) < limit:
                    nxt = next(it, None)
                    if nxt is None:
                        exhausted = True
                        break
                    i, n = nxt
                    fut = client.submit(
                        run_chunk_summary, spec_f, entropy, i, n, session_length, pure=True, retries=2
                    )
                    pending[fut] = n
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
            return nworkers, compile_seconds, time.perf_counter() - t1
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
