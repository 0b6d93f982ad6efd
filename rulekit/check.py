"""Random games as a check of a game file, for `rulekit validate --simulate N`.

The schema and the semantic checks see the file; only playing shows whether its rules
work: whether every game ends, whether a decision always has a legal option, whether
anything fails while a game runs, and whether the scores stay within the file's
`score_bounds`. Game k (0-based) is played with seed k by random moves (drawn from an
RNG of its own, seeded with k as well), with the player counts from min to max in turn,
so that every problem found names what reproduces it.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rulekit.errors import EndlessFlowError, NoOptionError, RulekitError

if TYPE_CHECKING:
    from rulekit.engine.game import Game

#: a game that plays longer than this (seconds) is reported as never ending
DEFAULT_TIME_LIMIT = 20.0

NEVER_ENDS = "never ends"
NO_LEGAL_ACTION = "no legal action"
ERROR = "error"
SCORE_OUT_OF_BOUNDS = "score out of bounds"
NOT_ZERO_SUM = "not zero-sum"
#: how far from 0 the scores of a `zero_sum` game may add up (fractions as floats)
ZERO_SUM_TOLERANCE = 1e-9


@dataclass
class Problem:
    """One game that went wrong, with what reproduces it: seed and player count."""

    file: str
    game: int  # the game's number in the run, from 1
    seed: int
    players: int
    kind: str  # NEVER_ENDS, NO_LEGAL_ACTION, ERROR, SCORE_OUT_OF_BOUNDS or NOT_ZERO_SUM
    message: str

    def format(self) -> str:
        return (f"{self.file}: game {self.game} (seed {self.seed}, {self.players} players): "
                f"{self.kind}: {self.message}")

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "game": self.game, "seed": self.seed,
                "players": self.players, "kind": self.kind, "message": self.message}


@dataclass
class CheckReport:
    """What playing one file's games found."""

    file: str
    games: int
    players: list[int]
    seconds: float
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        counts = ", ".join(str(n) for n in self.players)
        found = "no problems" if self.ok else f"{len(self.problems)} problem(s)"
        return (f"{self.file}: {self.games} random games played ({counts} players): {found} "
                f"({self.seconds:.1f} s)")

    def as_dict(self) -> dict[str, Any]:
        return {"games": self.games, "players": self.players,
                "seconds": round(self.seconds, 3),
                "problems": [p.as_dict() for p in self.problems]}


class _OutOfTime(BaseException):
    """Raised by the alarm inside a game that plays too long (a BaseException, so that no
    handler of the engine mistakes it for a failing rule)."""


@contextmanager
def _deadline(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after `seconds`, where signals allow it (the main thread)."""
    if (not seconds or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def player_counts(game: Game) -> list[int]:
    """The player counts the game allows, from the least to the most."""
    return list(range(game.min_players, max(game.min_players, game.max_players) + 1))


def check_game(game: Game, games: int, time_limit: float | None = DEFAULT_TIME_LIMIT,
               progress: Callable[[int], Any] | None = None) -> CheckReport:
    """Play `games` random games of `game` and report every one that went wrong.

    Never raises for a problem of the game: a failing rule, an internal error or a game
    that plays too long each become a `Problem` naming the game, seed and player count.
    """
    counts = player_counts(game)
    report = CheckReport(game.file, games, counts, 0.0)
    start = time.perf_counter()
    for k in range(games):
        players = counts[k % len(counts)]
        found = _play_one(game, k, players, time_limit)
        if found is not None:
            kind, message = found
            report.problems.append(Problem(game.file, k + 1, k, players, kind, message))
        if progress is not None:
            progress(1)
    report.seconds = time.perf_counter() - start
    return report


def _play_one(game: Game, seed: int, players: int,
              time_limit: float | None) -> tuple[str, str] | None:
    """Play one random game; (kind, message) of what went wrong, or None."""
    rng = random.Random(seed)
    state = None
    try:
        with _deadline(time_limit):
            state = game.new_game(players=players, seed=seed)
            while not state.is_over:
                if state.is_chance:
                    state.resolve_chance()
                    continue
                actions = state.legal_actions()
                if not actions:
                    return NO_LEGAL_ACTION, (f"seat {state.current_player} has no legal "
                                             f"action at turn {state.turn}")
                state.apply(rng.choice(actions))
            scores = state.scores()
    except _OutOfTime:
        where = f" (at turn {state.turn})" if state is not None else ""
        return NEVER_ENDS, f"the game played for more than {time_limit:g} s{where}"
    except EndlessFlowError as exc:
        return NEVER_ENDS, str(exc)
    except NoOptionError as exc:
        return NO_LEGAL_ACTION, str(exc)
    except RulekitError as exc:
        return ERROR, f"{type(exc).__name__}: {exc}"
    except RecursionError:
        return ERROR, "internal error: RecursionError (the rules nest too deeply)"
    except Exception as exc:  # a failure of rulekit itself: reported, never a traceback
        return ERROR, f"internal error: {type(exc).__name__}: {exc}"
    lo, hi = game.score_bounds.get(players, (None, None))
    out = [f"seat {s} scored {x}" for s, x in enumerate(scores)
           if (lo is not None and x < lo) or (hi is not None and x > hi)]
    if out:
        return SCORE_OUT_OF_BOUNDS, (f"{', '.join(out)}; score_bounds allow "
                                     f"{_bound(lo)} to {_bound(hi)} with {players} players")
    if game.zero_sum and abs(sum(scores)) > ZERO_SUM_TOLERANCE:
        return NOT_ZERO_SUM, (f"the scores {', '.join(map(_bound, scores))} add up to "
                              f"{_bound(sum(scores))}, but the file says zero_sum: true")
    return None


def _bound(x: Any) -> str:
    return "any" if x is None else f"{x:g}" if isinstance(x, float) else str(x)
