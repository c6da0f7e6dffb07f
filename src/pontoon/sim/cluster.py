"""Running the chunks on Dask: a local cluster of processes (``--workers``) or an existing
scheduler (``--scheduler tcp://host:8786``).

Each chunk is a pure task ``run_chunk(spec, entropy, index, rounds, session_length)``: Dask
recomputes a lost worker's chunk, and because a chunk's random numbers depend only on its index,
the totals are the same integers whatever the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pontoon.errors import PontoonError

if TYPE_CHECKING:
    from pontoon.sim.api import SimSpec, Totals


class ClusterError(PontoonError):
    """The Dask cluster could not be started or reached."""


def run_on_dask(
    spec: SimSpec,
    entropy: int,
    sizes: list[int],
    session_length: int,
    totals: Totals,
    workers: int | None,
    scheduler: str | None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Run every chunk on Dask and add the results into ``totals``; returns the worker count."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as err:  # pragma: no cover - dask is a dependency
        raise ClusterError(f"dask.distributed is not installed: {err}") from None
    from pontoon.sim.api import run_chunk

    cluster = None
    try:
        if scheduler is not None:
            try:
                client = Client(scheduler, timeout=15)
            except (OSError, TimeoutError) as err:
                raise ClusterError(f"cannot reach the Dask scheduler at {scheduler!r}: {err}") from None
        else:
            cluster = LocalCluster(
                n_workers=workers or 1,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=40,
            )
            client = Client(cluster)
        try:
            nworkers = len(client.scheduler_info().get("workers", {})) or (workers or 1)
            spec_f = client.scatter(spec, broadcast=True)
            futures = [
                client.submit(run_chunk, spec_f, entropy, i, n, session_length, pure=True, retries=2)
                for i, n in enumerate(sizes)
            ]
            index = {fut.key: i for i, fut in enumerate(futures)}
            results = {}
            for fut in as_completed(futures):
                i = index[fut.key]
                results[i] = fut.result()
                if progress:
                    progress(sizes[i])
                fut.release()
            # add in chunk order (integer sums: the order does not matter, but sessions keep it)
            for i in range(len(sizes)):
                acc, mom, sess = results[i]
                totals.add(acc, mom, sess)
            return nworkers
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
