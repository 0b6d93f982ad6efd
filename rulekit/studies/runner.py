"""Where a study's games run: in this process, in a pool of local processes, or on Dask.

Every runner yields the same thing: for each game index in increasing order, one record
per game variant of the study (one for simulate, two for compare, one per point for
sweep), all played on that index's seeds. Games run in batches; batches may finish in
any order, and the runner hands them on in game order, so that a report does not depend
on where or in how many processes the games ran.

Other processes receive a `Side` per variant: the checked document and its params, from
which they build the game again without reading any file (a remote Dask worker needs
rulekit installed, not the game files).
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulekit.errors import FlowError, RulekitError
from rulekit.studies.play import STUDY, Seating, play_one

if TYPE_CHECKING:
    from rulekit import Game
    from rulekit.spec.source import Source

#: games per batch at most: a batch is the unit a process or a Dask task plays
MAX_BATCH = 50
#: with the default number of jobs, runs of fewer games stay in this process: starting
#: processes and loading the game in each would cost more than the games
AUTO_MIN_GAMES = 500

Rows = tuple[dict, ...]
Progress = Callable[[int], Any]


@dataclass(frozen=True)
class Side:
    """One game variant as it travels to another process: document, params, a digest."""

    source: Source
    params: dict
    key: str

    @classmethod
    def of(cls, game: Game) -> Side:
        digest = hashlib.sha256(pickle.dumps((game.source, game.params))).hexdigest()
        return cls(game.source, dict(game.params), digest)

    def game(self) -> Game:
        """The game, built once per process."""
        game = _GAMES.get(self.key)
        if game is None:
            from rulekit.engine.game import check_source

            game = _GAMES[self.key] = check_source(self.source, self.params)
        return game


_GAMES: dict[str, Game] = {}
# the engine's work budgets are per process: one game at a time in a process
_ONE_AT_A_TIME = threading.Lock()


@dataclass(frozen=True)
class Plan:
    """What a study plays: its variants, players, bots, seed, number of games and how
    each game is seated and seeded."""

    games: Sequence[Game]
    players: int
    bots: tuple[str, ...]
    seed: int
    count: int
    seating: Seating = STUDY

    def rows(self, index: int) -> Rows:
        return tuple(play_one(g, self.players, self.bots, self.seed, index, self.seating)
                     for g in self.games)


def play_batch(sides: Sequence[Side], players: int, bots: Sequence[str], seed: int,
               seating: Seating, start: int, stop: int) -> list[Rows] | tuple[str, str]:
    """Play games start..stop-1 of every side (in a pool process or a Dask task).

    A rulekit error comes back as ("flow" or "error", message), since not every error
    class of rulekit survives pickling.
    """
    with _ONE_AT_A_TIME:
        try:
            games = [s.game() for s in sides]
            return [tuple(play_one(g, players, bots, seed, i, seating) for g in games)
                    for i in range(start, stop)]
        except FlowError as exc:
            return ("flow", str(exc))
        except RulekitError as exc:
            return ("error", str(exc))


def _unpack(result: list[Rows] | tuple[str, str]) -> list[Rows]:
    if isinstance(result, tuple):
        kind, message = result
        raise (FlowError if kind == "flow" else RulekitError)(message)
    return result


def batches(count: int, workers: int) -> list[tuple[int, int]]:
    """Game ranges: about four per worker (so that a slow batch does not keep the others
    waiting), between 1 and MAX_BATCH games each."""
    size = max(1, min(MAX_BATCH, math.ceil(count / (4 * max(1, workers)))))
    return [(a, min(a + size, count)) for a in range(0, count, size)]


def run(plan: Plan, jobs: int | None = 1, dask: str | None = None,
        progress: Progress | None = None) -> Iterator[Rows]:
    """The rows of every game of `plan`, in game order; `progress(n)` after n more games.

    `jobs`: processes to use (None: every core, but one for runs under AUTO_MIN_GAMES);
    `dask`: a scheduler address or "local" for a local cluster (overrides `jobs`).
    """
    tick = progress or (lambda n: None)
    if dask is not None:
        from rulekit.studies.cluster import run_on_dask

        for batch in run_on_dask(dask, _shipment(plan), batches, plan.count, tick):
            yield from _unpack(batch)
        return
    if jobs is None:
        jobs = 1 if plan.count < AUTO_MIN_GAMES else (os.cpu_count() or 1)
    ranges = batches(plan.count, jobs)
    if jobs <= 1 or len(ranges) <= 1:
        for i in range(plan.count):
            yield plan.rows(i)
            tick(1)
        return
    yield from _run_in_pool(plan, min(jobs, len(ranges)), ranges, tick)


def _shipment(plan: Plan) -> tuple:
    return ([Side.of(g) for g in plan.games], plan.players, plan.bots, plan.seed, plan.seating)


def _run_in_pool(plan: Plan, jobs: int, ranges: list[tuple[int, int]],
                 tick: Progress) -> Iterator[Rows]:
    import multiprocessing

    # spawn: a clean interpreter per process on every platform (no forked locks or state)
    pool = multiprocessing.get_context("spawn").Pool(
        jobs, initializer=_pool_start, initargs=_shipment(plan))
    try:
        for result in pool.imap(_pool_batch, ranges):
            rows = _unpack(result)
            yield from rows
            tick(len(rows))
    finally:
        pool.terminate()  # on Ctrl-C too: the unfinished batches are dropped
        pool.join()


_POOL_PLAN: tuple = ()


def _pool_start(*shipment: Any) -> None:
    """In a pool process: keep the study, and leave Ctrl-C to the main process."""
    global _POOL_PLAN
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _POOL_PLAN = shipment


def _pool_batch(span: tuple[int, int]) -> list[Rows] | tuple[str, str]:
    return play_batch(*_POOL_PLAN, *span)
