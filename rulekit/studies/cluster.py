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
