"""Random playouts per second of a game file, through the public API only.

The number that decides how far simulation and search bots can look ahead.

    python benchmarks/playouts.py [--file games/qwixx.yaml] [--players 3] [--games 2000]
    python benchmarks/playouts.py --clone      # clones per second of a mid-game state
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rulekit  # noqa: E402


def playout(state: rulekit.State, rng: random.Random) -> int:
    """Play uniformly random moves to the end; returns the number of decisions."""
    decisions = 0
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions


def bench_playouts(game: rulekit.Game, players: int, games: int, seed: int) -> dict[str, float]:
    """Time `games` random playouts from new games (setup included)."""
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        decisions += playout(game.new_game(players=players, seed=seed + i), rng)
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "games_per_s": games / seconds,
        "decisions_per_s": decisions / seconds,
        "decisions_per_game": decisions / games,
    }


def mid_game(game: rulekit.Game, players: int, seed: int) -> rulekit.State:
    """A state about half-way through a random game: a realistic thing to clone."""
    rng = random.Random(seed)
    total = playout(game.new_game(players=players, seed=seed), rng)
    rng = random.Random(seed)
    state = game.new_game(players=players, seed=seed)
    done = 0
    while not state.is_over and done < total // 2:
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
            done += 1
    return state


def bench_clones(game: rulekit.Game, players: int, clones: int, seed: int) -> dict[str, float]:
    """Time `clones` clones of one mid-game state."""
    state = mid_game(game, players, seed)
    start = time.perf_counter()
    for _ in range(clones):
        state.clone()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "clones_per_s": clones / seconds, "turn": state.turn}


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run one benchmark, print its figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", default=str(ROOT / "games" / "qwixx.yaml"))
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=2000, help="playouts (or clones x 10)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--clone", action="store_true", help="measure clones/s of a mid-game state")
    args = ap.parse_args(argv)

    try:
        game = rulekit.load_game(args.file)
    except rulekit.RulekitError as exc:
        sys.exit(str(exc))
    label = f"{game.name}, {args.players} players"
    if args.clone:
        r = bench_clones(game, args.players, args.games * 10, args.seed)
        print(f"{label}: {args.games * 10} clones of a turn-{r['turn']} state "
              f"in {r['seconds']:.2f} s: {r['clones_per_s']:,.0f} clones/s")
    else:
        r = bench_playouts(game, args.players, args.games, args.seed)
        print(f"{label}: {args.games} random playouts in {r['seconds']:.2f} s")
        print(f"  {r['games_per_s']:,.1f} games/s")
        print(f"  {r['decisions_per_s']:,.0f} decisions/s")
        print(f"  {r['decisions_per_game']:.1f} decisions per game")


if __name__ == "__main__":
    main()
