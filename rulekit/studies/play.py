"""One game of a study: its seeds, its seating, its bots, and the record it leaves.

Game `i` of a study with seed `s` is the same game in any process and on any machine:
its dice come from `derive_seed(s, "game", i)`, its bots' choices from
`derive_seed(s, "bots", i)`, and its seating from `seat_bots`. That is what lets a
study run in parallel, on a cluster, or on two variants (compare, sweep) and still
give the report of a run in one process. A study that seats and seeds its games
otherwise (the ladder's round robin) brings its own `Seating`.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulekit.bots import Bot as Agent
from rulekit.bots import make as make_agent
from rulekit.bots.random_bot import RandomAgent
from rulekit.errors import FlowError

if TYPE_CHECKING:
    from rulekit import Game, State


def derive_seed(seed: int, *parts: object) -> int:
    """A seed for one game (or one bot rng) computed from the run's seed, the same in any process.

    A hash rather than `seed + i`, so that runs with neighbouring seeds do not share games.
    """
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def seat_bots(bots: Sequence[str], players: int, game_index: int) -> list[str]:
    """Which bot sits in each seat in game `game_index`.

    Bots fill the seats cyclically and the assignment moves on by one bot per game,
    so that over a run every bot plays from every seat and seat order favours nobody.
    """
    k = len(bots)
    return [bots[(seat + game_index) % k] for seat in range(players)]


@dataclass(frozen=True)
class Seating:
    """Who plays game `index` of a study, and on which seeds: a study's own rule.

    It travels with the study to other processes, so a subclass must pickle (a
    module-level dataclass does).
    """

    def of(self, bots: Sequence[str], players: int, seed: int,
           index: int) -> tuple[list[str], int, int]:
        """(bot by seat, the game's seed, the bots' rng seed) of game `index`."""
        return (seat_bots(bots, players, index), derive_seed(seed, "game", index),
                derive_seed(seed, "bots", index))


#: simulate's, compare's and sweep's seating
STUDY = Seating()


def play_game(state: State, agents: Sequence[Agent], rng: random.Random) -> int:
    """Play `state` to its end with one agent per seat; returns the number of decisions."""
    return _play(state, agents, rng)[0]


def _play(state: State, agents: Sequence[Agent], rng: random.Random,
          log: bool = True) -> tuple[int, int, int]:
    """Play to the end; (decisions, options summed over decisions, most options at once).
    Without `log`, random bots' games may leave moves out of the log (nobody reads it)."""
    fast = getattr(state, "_playout", None)  # a State of the engine (not a stand-in)
    if fast is not None and all(type(a) is RandomAgent for a in agents):
        # random bots only: the same game as their `choose` through the API, played on
        # the engine's fast path of random play
        play = fast(rng, None, None, study=True, log=log)
        return play.made, play.options, play.most
    decisions = options = most = 0
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            seat = state.current_player
            k = len(state.legal_actions())
            options += k
            if k > most:
                most = k
            state.apply(agents[seat].choose(state, rng))
            decisions += 1
    return decisions, options, most


def play_one(game: Game, players: int, bots: Sequence[str], seed: int, index: int,
             seating: Seating = STUDY) -> dict:
    """Play game `index` of a study and return its record (JSON-able, one line of
    `--games-out`): seed, bots by seat, scores, winners, length, options, end reason.

    A `FlowError` (a rule that breaks at run time) is raised again naming the game and
    its seed, so that it can be reproduced with `rulekit play --auto`.
    """
    names, game_seed, bots_seed = seating.of(bots, players, seed, index)
    agents = [make_agent(n) for n in names]
    rng = random.Random(bots_seed)
    state = game.new_game(players=players, seed=game_seed)
    try:
        decisions, options, most = _play(state, agents, rng, log=False)
        scores, winners = state.scores(), state.winners()
    except FlowError as exc:
        raise FlowError(f"game {index} (seed {game_seed}, bots {', '.join(names)}): "
                        f"{exc}") from exc
    record: dict[str, Any] = {
        "game": index, "seed": game_seed, "bots": names, "scores": scores,
        "winners": winners, "turns": state.turn, "decisions": decisions,
        "options": options, "max_options": most, "end": state.end_reason or "none",
    }
    return record
