"""simulate: bots play many games of one game; the figures a designer balances rules with.

Each figure streams (see `stats`): a report of a million games needs the memory of a
report of ten. Every rate and mean carries its 95% interval as `ci95: [low, high]`.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rulekit.bots import make as make_agent
from rulekit.errors import RulekitError
from rulekit.studies.runner import Plan, Progress, run
from rulekit.studies.stats import Rate, Ratio, Tally, significant

if TYPE_CHECKING:
    from rulekit import Game


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a study; `report` is the report of the games finished before it."""

    def __init__(self, report: dict) -> None:
        super().__init__()
        self.report = report


class SimulateTally:
    """The figures of one game variant, updated game by game."""

    def __init__(self, game: Any, players: int, bots: Sequence[str]) -> None:
        self.game = game
        self.players = players
        self.bots = list(bots)
        self.bot_names = list(dict.fromkeys(bots))
        self.games = 0
        self.seat_win = [Rate() for _ in range(players)]
        self.seat_score = [Tally() for _ in range(players)]
        self.bot_win = {b: Rate() for b in self.bot_names}
        self.bot_score = {b: Tally() for b in self.bot_names}
        self.score = Tally()  # every seat's score
        self.ties = Rate()
        self.turns = Tally()
        self.decisions = Tally()
        self.options = Ratio()
        self.max_options = 0
        self.ends: dict[str, int] = {}

    def add(self, r: dict) -> None:
        """Count one game's record (see `play.play_one`)."""
        self.games += 1
        winners = r["winners"]
        share = 1.0 / len(winners) if winners else 0.0
        for seat, (name, score) in enumerate(zip(r["bots"], r["scores"])):
            won = share if seat in winners else 0.0
            self.seat_win[seat].add(won)
            self.seat_score[seat].add(score)
            self.bot_win[name].add(won)
            self.bot_score[name].add(score)
            self.score.add(score)
        self.ties.add(1.0 if len(winners) > 1 else 0.0)
        self.turns.add(r["turns"])
        self.decisions.add(r["decisions"])
        self.options.add(r["options"], r["decisions"])
        self.max_options = max(self.max_options, r["max_options"])
        self.ends[r["end"]] = self.ends.get(r["end"], 0) + 1

    def report(self) -> dict[str, Any]:
        fair = 1 / self.players
        first = self.seat_win[0]
        lo, hi = first.ci95()
        ends = sorted(self.ends.items(), key=lambda kv: (-kv[1], kv[0]))
        return {
            "game": self.game.name,
            "games": self.games,
            "players": self.players,
            "bots": self.bots,
            "params": dict(self.game.params),
            "by_seat": [
                {"seat": s, "wins": round(self.seat_win[s].hits, 4),
                 "win_rate": self.seat_win[s].summary(),
                 "significant": significant(self.seat_win[s].ci95(), fair),
                 "score": self.seat_score[s].summary()}
                for s in range(self.players)
            ],
            # a bot's win rate is per seat it occupied (wins / seat-games), so a bot that
            # fills two seats of every game is compared fairly with one that fills one
            "by_bot": [
                {"bot": b, "seat_games": self.bot_win[b].n, "wins": round(self.bot_win[b].hits, 4),
                 "win_rate": self.bot_win[b].summary(), "score": self.bot_score[b].summary()}
                for b in self.bot_names
            ],
            "fair_share": round(fair, 4),
            # seat 0's win rate minus its fair share, with the interval of that difference
            "first_player_edge": {"diff": round(first.rate - fair, 4),
                                  "ci95": [round(lo - fair, 4), round(hi - fair, 4)],
                                  "significant": significant((lo, hi), fair)},
            "score": self.score.summary(),
            "tie_rate": self.ties.summary(),
            "length": {"turns": self.turns.summary(), "decisions": self.decisions.summary()},
            "options_per_decision": self.options.summary() | {"max": self.max_options},
            "end_reasons": dict(ends),
            "end_reason_rates": {k: _rate(v, self.games) for k, v in ends},
        }


def _rate(hits: int, n: int) -> dict:
    r = Rate()
    r.hits, r.n = hits, n
    return r.summary()


def check_setup(game: Any, games: int, players: int, bots: Sequence[str]) -> list[str]:
    """The bots' names, normalised; a `RulekitError` for anything a study cannot run."""
    if games < 1:
        raise RulekitError(f"games must be at least 1, not {games}")
    names = [b.strip().lower() for b in bots]
    if not names or any(not b for b in names):
        raise RulekitError("no bots given; name at least one, e.g. random")
    for name in dict.fromkeys(names):
        make_agent(name)  # an unknown name fails before any game is played
    if not game.min_players <= players <= game.max_players:
        raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                           f"players, not {players}")
    return names


class GamesOut:
    """`--games-out FILE.jsonl`: one JSON line per game and variant, written as games finish."""

    def __init__(self, out: TextIO | None, labels: Sequence[str | None]) -> None:
        self.out = out
        self.labels = labels

    def write(self, rows: Iterable[dict]) -> None:
        if self.out is None:
            return
        import json

        for label, record in zip(self.labels, rows):
            line = record if label is None else {"variant": label} | record
            self.out.write(json.dumps(line) + "\n")


@contextlib.contextmanager
def _whole() -> Iterator[None]:
    """Ctrl-C waits while a finished game is counted and written, so that the report and
    the games file hold the same whole games; it takes effect right after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if not caught or previous is signal.SIG_IGN:
        return
    if callable(previous) and previous is not signal.default_int_handler:
        previous(signal.SIGINT, None)  # a handler of the program's own
    else:
        raise KeyboardInterrupt


def stream(games: Sequence[Any], count: int, players: int, bots: Sequence[str], seed: int,
           add: Callable[[tuple], None], jobs: int | None, dask: str | None,
           progress: Progress | None, out: GamesOut | None) -> tuple[int, float, bool]:
    """Play the study and feed each game's rows to `add`, in game order.

    Returns (games finished, seconds, interrupted): Ctrl-C stops the run and keeps what
    finished, for the caller to report.
    """
    started = time.perf_counter()
    plan = Plan(tuple(games), players, tuple(bots), seed, count)
    done = 0
    try:
        if dask is None and _plain_ctrl_c():
            with _Counting() as counting:
                for rows in run(plan, jobs, dask, progress):
                    counting.inside = True
                    add(rows)
                    if out is not None:
                        out.write(rows)
                    done += 1
                    counting.leave()
        else:
            for rows in run(plan, jobs, dask, progress):
                with _whole():
                    add(rows)
                    if out is not None:
                        out.write(rows)
                    done += 1
    except KeyboardInterrupt:
        return done, time.perf_counter() - started, True
    return done, time.perf_counter() - started, False


def _plain_ctrl_c() -> bool:
    """Whether Ctrl-C raises KeyboardInterrupt here, as Python's own handler makes it."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


class _Counting:
    """`_whole` for a whole study at once, where Ctrl-C is Python's KeyboardInterrupt:
    one handler for the run rather than two changes of the handler per game. Ctrl-C
    while a finished game is counted (`inside`) takes effect once it is counted
    (`leave`); at any other time at once."""

    def __init__(self) -> None:
        self.inside = False
        self.caught = False

    def _handler(self, signum: int, frame: Any) -> None:
        if self.inside:
            self.caught = True
        else:
            raise KeyboardInterrupt

    def leave(self) -> None:
        self.inside = False
        if self.caught:
            self.caught = False
            raise KeyboardInterrupt

    def __enter__(self) -> _Counting:
        self.previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self.previous)


def simulate(game: Game, games: int, players: int, bots: list[str], seed: int,
             progress: Progress | None = None, jobs: int | None = 1, dask: str | None = None,
             games_out: TextIO | None = None,
             tallies: list[SimulateTally] | None = None) -> dict[str, Any]:
    """Play `games` bot games and summarise them as JSON-able data.

    `progress(n)` is called after n more games (it fits `click.progressbar(...).update`);
    `jobs`/`dask` choose where games run (`runner.run`), with the same report anywhere;
    `games_out` receives a JSON line per game; `tallies`, if given, receives the tally (for
    plots). Ctrl-C raises `Interrupted` holding the report of the games finished.
    """
    names = check_setup(game, games, players, bots)
    t = SimulateTally(game, players, names)
    done, seconds, stopped = stream([game], games, players, names, seed,
                                    lambda rows: t.add(rows[0]), jobs, dask, progress,
                                    GamesOut(games_out, [None]))
    if tallies is not None:
        tallies.append(t)
    report = {"seed": seed} | t.report() | {"seconds": round(seconds, 3)}
    if stopped:
        raise Interrupted(report | {"interrupted": True, "games_planned": games})
    return report
