"""Running a study's batches as tasks on a Dask cluster (optional extra `rulekit[dask]`).

`--dask local` starts a cluster of one single-threaded worker process per core on this
machine, bound to 127.0.0.1 and without a dashboard; `--dask tcp://HOST:PORT` uses the
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
from rulekit.studies.runner import play_batch


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise RulekitError("--dask needs Dask's distributed scheduler: install the extra with "
                           "pip install 'rulekit[dask]'") from None
    return distributed


def run_on_dask(address: str, shipment: tuple,
                batches: Callable[[int, int], list[tuple[int, int]]], count: int,
                tick: Callable[[int], Any]) -> Iterator[Any]:
    """The results of `play_batch` for every batch, in game order."""
    distributed = _import_distributed()
    cluster = None
    try:
        if address == "local":
            cluster = distributed.LocalCluster(
                n_workers=os.cpu_count() or 1, threads_per_worker=1, processes=True,
                host="127.0.0.1", dashboard_address=None)
            client = distributed.Client(cluster)
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
        futures = [client.submit(play_batch, *shipment, start, stop, pure=False,
                                 key=f"rulekit-batch-{run_id}-{k}")
                   for k, (start, stop) in enumerate(ranges)]
        order = {f.key: k for k, f in enumerate(futures)}
        done: dict[int, Any] = {}
        next_k = 0
        for future in distributed.as_completed(futures):
            k = order[future.key]
            done[k] = future.result()
            futures[k] = None  # the cluster may forget it once we hold the result
            tick(ranges[k][1] - ranges[k][0])
            while next_k in done:
                yield done.pop(next_k)
                next_k += 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
