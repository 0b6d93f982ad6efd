"""One game of a study: its seeds, its seating, its bots, and the record it leaves.

Game `i` of a study with seed `s` is the same game in any process and on any machine:
its dice come from `derive_seed(s, "game", i)`, its bots' choices from
`derive_seed(s, "bots", i)`, and its seating from `seat_bots`. That is what lets a
study run in parallel, on a cluster, or on two variants (compare, sweep) and still
give the report of a run in one process. A study that seats and seeds its games
otherwise (the ladder's round robin) brings its own `Seating`.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulekit.bots import Bot as Agent
from rulekit.bots import make as make_agent
from rulekit.bots.greedy import GreedyAgent
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


@functools.lru_cache(maxsize=64, typed=True)  # typed: seed True is not seed 1
def seeds_of(seed: int, *parts: object) -> Callable[[object], int]:
    """`derive_seed(seed, *parts, i)` as a function of `i`, for a study's every game.

    The hash of the common head `seed:parts:` is computed once and copied for each game,
    so a game's seed costs one short hash instead of building and hashing the whole text:
    the same bytes are hashed, so the same seeds come out.
    """
    head = hashlib.sha256((":".join(str(p) for p in (seed, *parts)) + ":").encode())
    copy, from_bytes = head.copy, int.from_bytes

    def derive(i: object) -> int:
        h = copy()
        h.update(str(i).encode())
        return from_bytes(h.digest()[:8], "big") >> 1

    return derive


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
        return (seat_bots(bots, players, index), seeds_of(seed, "game")(index),
                seeds_of(seed, "bots")(index))


#: simulate's, compare's and sweep's seating
STUDY = Seating()


def play_game(state: State, agents: Sequence[Agent], rng: random.Random) -> int:
    """Play `state` to its end with one agent per seat; returns the number of decisions."""
    return _play(state, agents, rng)[0]


def _play(state: State, agents: Sequence[Agent], rng: random.Random,
          log: bool = True, all_random: bool | None = None) -> tuple[int, int, int]:
    """Play to the end; (decisions, options summed over decisions, most options at once).
    Without `log`, random bots' games may leave moves out of the log (nobody reads it).
    `all_random`: whether every agent is a random bot, if the caller knows."""
    # a State of the engine (not a stand-in); asked of its class, since reading a new
    # game's attribute would take it off its session
    fast = getattr(type(state), "_playout", None)
    if all_random is None:
        all_random = all(type(a) is RandomAgent for a in agents)
    if fast is not None and all_random:
        # random bots only: the same game as their `choose` through the API, played on
        # the engine's fast path of random play
        play = fast(state, rng, None, None, study=True, log=log)
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


#: bots that keep nothing from one game to the next (their own rng is used only by calls
#: without one, and a study always passes its own): made once per process and reused
_STATELESS = (RandomAgent, GreedyAgent)
_SEATED: dict[tuple[str, ...], tuple[list[Agent], bool]] = {}


def _agents(names: Sequence[str]) -> tuple[list[Agent], bool]:
    """The bots of a seating and whether they are all random bots.

    Bots that keep nothing between games are made once per process and seating; others
    (a search bot keeps its last statistics) are made for each game, as a player would
    meet them.
    """
    key = tuple(names)
    seated = _SEATED.get(key)
    if seated is not None:
        return seated
    agents = [make_agent(n) for n in names]
    seated = (agents, all(type(a) is RandomAgent for a in agents))
    if all(type(a) in _STATELESS for a in agents) and len(_SEATED) < 256:
        _SEATED[key] = seated
    return seated


def _winners(scores: list) -> list[int]:
    """`State.winners()` from scores already computed (it would compute them again)."""
    best = max(scores)
    return [i for i, s in enumerate(scores) if s == best]


def play_one(game: Game, players: int, bots: Sequence[str], seed: int, index: int,
             seating: Seating = STUDY) -> dict:
    """Play game `index` of a study and return its record (JSON-able, one line of
    `--games-out`): seed, bots by seat, scores, winners, length, options, end reason.

    A `FlowError` (a rule that breaks at run time) is raised again naming the game and
    its seed, so that it can be reproduced with `rulekit play --auto`.
    """
    names, game_seed, bots_seed = seating.of(bots, players, seed, index)
    agents, all_random = _agents(names)
    rng = random.Random(bots_seed)
    state = game.new_game(players=players, seed=game_seed)
    try:
        decisions, options, most = _play(state, agents, rng, log=False, all_random=all_random)
        scores = state.scores()
        winners = (_winners(scores) if type(state).winners is _engine_winners()
                   else state.winners())
    except FlowError as exc:
        raise FlowError(f"game {index} (seed {game_seed}, bots {', '.join(names)}): "
                        f"{exc}") from exc
    record: dict[str, Any] = {
        "game": index, "seed": game_seed, "bots": names, "scores": scores,
        "winners": winners, "turns": state.turn, "decisions": decisions,
        "options": options, "max_options": most, "end": state.end_reason or "none",
    }
    return record


@functools.cache
def _engine_winners() -> Any:
    from rulekit.engine.state import State

    return State.winners
