"""Bots play many games of one game file; the statistics a designer balances rules with.

Everything random comes from seeds derived from one `seed`, so a report can be
reproduced exactly (apart from the time it took) and compared with the report of
a changed rule or param.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rulekit.agents import Agent, make_agent
from rulekit.errors import FlowError, RulekitError

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


def play_game(state: State, agents: Sequence[Agent], rng: random.Random) -> int:
    """Play `state` to its end with one agent per seat; returns the number of decisions."""
    decisions = 0
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            seat = state.current_player
            state.apply(agents[seat].choose(state, rng))
            decisions += 1
    return decisions


def _stats(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "stdev": 0.0, "min": 0, "max": 0}
    return {
        "mean": round(statistics.fmean(values), 4),
        "stdev": round(statistics.pstdev(values), 4),
        "min": min(values),
        "max": max(values),
    }


def simulate(
    game: Game,
    games: int,
    players: int,
    bots: list[str],
    seed: int,
    progress: Callable[[int], Any] | None = None,
) -> dict[str, Any]:
    """Play `games` bot games and summarise them as JSON-able data.

    `progress`, if given, is called with 1 after each finished game (it fits
    `click.progressbar(...).update`). A `FlowError` (a rule that breaks at run time)
    stops the run and is raised again, naming the game and its seed so it can be
    reproduced with `rulekit play --auto`.
    """
    if games < 1:
        raise RulekitError(f"games must be at least 1, not {games}")
    bots = [b.strip().lower() for b in bots]
    if not bots or any(not b for b in bots):
        raise RulekitError("no bots given; name at least one, e.g. random")
    for name in dict.fromkeys(bots):
        make_agent(name)  # an unknown name fails before any game is played
    if not game.min_players <= players <= game.max_players:
        raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                           f"players, not {players}")

    started = time.perf_counter()
    seat_wins = [0.0] * players
    seat_scores: list[list[int]] = [[] for _ in range(players)]
    bot_names = list(dict.fromkeys(bots))
    bot_wins = dict.fromkeys(bot_names, 0.0)
    bot_seat_games = dict.fromkeys(bot_names, 0)
    bot_scores: dict[str, list[int]] = {b: [] for b in bot_names}
    turns: list[int] = []
    decisions: list[int] = []
    reasons: Counter[str] = Counter()

    for i in range(games):
        game_seed = derive_seed(seed, "game", i)
        names = seat_bots(bots, players, i)
        agents = [make_agent(n) for n in names]
        rng = random.Random(derive_seed(seed, "bots", i))
        state = game.new_game(players=players, seed=game_seed)
        try:
            n_decisions = play_game(state, agents, rng)
        except FlowError as exc:
            raise FlowError(f"game {i} (seed {game_seed}, bots {', '.join(names)}): "
                            f"{exc}") from exc
        scores = state.scores()
        winners = state.winners()
        share = 1.0 / len(winners) if winners else 0.0
        for seat in range(players):
            seat_scores[seat].append(scores[seat])
            bot_scores[names[seat]].append(scores[seat])
            bot_seat_games[names[seat]] += 1
        for seat in winners:
            seat_wins[seat] += share
            bot_wins[names[seat]] += share
        turns.append(state.turn)
        decisions.append(n_decisions)
        reasons[state.end_reason or "none"] += 1
        if progress is not None:
            progress(1)

    return {
        "game": game.name,
        "games": games,
        "players": players,
        "bots": list(bots),
        "seed": seed,
        "params": dict(game.params),
        "by_seat": [
            {
                "seat": seat,
                "wins": round(seat_wins[seat], 4),
                "win_rate": round(seat_wins[seat] / games, 4),
                "score": _stats(seat_scores[seat]),
            }
            for seat in range(players)
        ],
        # win_rate per bot is per seat it occupied (wins / seat-games), so a bot that
        # fills two seats of every game is compared fairly with one that fills one.
        "by_bot": [
            {
                "bot": b,
                "seat_games": bot_seat_games[b],
                "wins": round(bot_wins[b], 4),
                "win_rate": round(bot_wins[b] / bot_seat_games[b], 4)
                if bot_seat_games[b] else 0.0,
                "score": _stats(bot_scores[b]),
            }
            for b in bot_names
        ],
        "length": {
            "turns": _stats(turns),
            "decisions": _stats(decisions),
        },
        "end_reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        "seconds": round(time.perf_counter() - started, 3),
    }
