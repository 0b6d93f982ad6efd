"""Running a study's batches as tasks on a Dask cluster (optional extra `rulekit[dask]`).

`--dask local` starts a cluster of one single-threaded worker process per core on this
machine, bound to 127.0.0.1, without a dashboard, and speaking TLS with mutual
authentication under a key made for this run alone (`Security.temporary()`): a scheduler
runs whatever code a client submits, so without that any user of the machine could run
code as the user of rulekit through it. `--dask tcp://HOST:PORT` (or `tls://`) uses the
scheduler at that address (its workers need rulekit installed, nothing else: the game
travels with each task as its checked document). Each task plays one batch of games; a
worker that dies loses nothing, since the scheduler runs its batches again elsewhere,
and the games come out the same, as every game's seeds derive from the study's seed.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from rulekit.errors import RulekitError
from rulekit.studies.command import install_hint
from rulekit.studies.runner import play_batch


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise RulekitError("--dask needs Dask's distributed scheduler: install the extra with "
                           + install_hint("dask")) from None
    return distributed


def local_cluster(distributed: Any) -> Any:
    """A cluster on this machine that only this process can use: TLS on 127.0.0.1 where
    every end (scheduler, workers, client) shows a certificate signed by a key that exists
    only in this process's memory, and no web port at all.

    `dashboard_address=None` alone still leaves the scheduler's web server listening (on
    8787, with its info pages) and each worker's (metrics): they serve no routes here and
    stop listening before any task is submitted.
    """
    import dask

    try:
        security = distributed.Security.temporary()
    except ImportError:
        raise RulekitError("--dask local needs the cryptography package for its private "
                           "keys: install the extra with "
                           + install_hint("dask")) from None
    # the workers' processes get this configuration from their nannies
    with dask.config.set({"distributed.scheduler.http.routes": [],
                          "distributed.worker.http.routes": []}):
        cluster = distributed.LocalCluster(
            n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True,
            host="127.0.0.1", protocol="tls://", security=security, dashboard_address=None,
            worker_dashboard_address=None)
    try:
        with distributed.Client(cluster, security=security) as client:
            client.run_on_scheduler(_stop_web_server)
            client.run(_stop_web_server)
    except BaseException:
        cluster.close()
        raise
    return cluster


def _stop_web_server(dask_scheduler: Any = None, dask_worker: Any = None) -> None:
    """Close the web port of the scheduler or worker this runs on (in its event loop)."""
    server = dask_scheduler if dask_scheduler is not None else dask_worker
    if getattr(server, "http_server", None) is not None:
        server.http_server.stop()


def run_on_dask(address: str, shipment: tuple,
                batches: Callable[[int, int], list[tuple[int, int]]], count: int,
                tick: Callable[[int], Any]) -> Iterator[Any]:
    """The results of `play_batch` for every batch, in game order."""
    distributed = _import_distributed()
    cluster = None
    try:
        if address == "local":
            cluster = local_cluster(distributed)
            client = distributed.Client(cluster, security=cluster.security)
        else:
            client = distributed.Client(address, timeout="5s")
    except (OSError, ValueError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise RulekitError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
    try:
        workers = sum(client.nthreads().values()) or 1
        ranges = batches(count, workers)
        run_id = uuid.uuid4().hex[:12]
        # a window of batches in flight keeps the scheduler's memory flat in the number of games
        window = 4 * workers
        pending = distributed.as_completed()
        index: dict[str, int] = {}

        def submit(k: int) -> None:
            start, stop = ranges[k]
            future = client.submit(play_batch, *shipment, start, stop, pure=False,
                                   key=f"rulekit-batch-{run_id}-{k}")
            index[future.key] = k
            pending.add(future)

        for k in range(min(window, len(ranges))):
            submit(k)
        submitted = min(window, len(ranges))
        done: dict[int, Any] = {}
        next_k = 0
        for future in pending:
            k = index.pop(future.key)
            done[k] = future.result()
            tick(ranges[k][1] - ranges[k][0])
            if submitted < len(ranges):
                submit(submitted)
                submitted += 1
            while next_k in done:
                yield done.pop(next_k)
                next_k += 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
