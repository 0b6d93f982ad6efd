"""Instructions per random game of each shipped game file, counted by valgrind.

    python benchmarks/instructions.py [--games 20] [--seed 1]

CPU time on a shared machine moves with the load; the number of instructions a game takes
does not. For each game (Qwixx with 3 players, Level X with 2, Domino 7 with 4) and each
way of playing (the API loop of compare.py, `State.playout`, and the plain reference of
benchmarks/reference/ through the API loop), it runs Python under
`valgrind --tool=callgrind` twice, once loading the game and playing `--games` random games
and once only loading it, and divides the difference by the number of games. Needs
valgrind on the PATH; each count takes a few seconds to a minute.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: (name, YAML file, players), as in compare.py
GAMES = [("Qwixx", "qwixx.yaml", 3), ("Level X", "levelx.yaml", 2),
         ("Domino 7", "domino7.yaml", 4)]
#: the YAML game through the API loop of compare.py and through `State.playout`, and the
#: plain reference of benchmarks/reference/ through the same API loop
MODES = ("api", "playout", "plain")


def play(file: str, players: int, mode: str, games: int, seed: int) -> None:
    """Load the game and play `games` random games: what valgrind counts."""
    import rulekit
    from benchmarks.playouts import playout

    if mode == "plain":
        from benchmarks.reference import domino7, levelx, qwixx
        game: Any = {"qwixx.yaml": qwixx.GAME, "levelx.yaml": levelx.GAME,
                     "domino7.yaml": domino7.GAME}[file]
    else:
        game = rulekit.load_game(ROOT / "games" / file)
        # the generated modules are made once per game and process: counted in the run
        # that only loads, not per game
        game.flat  # noqa: B018
        game.flat_session  # noqa: B018
        import rulekit.backends.session  # noqa: F401  (what a new game imports)
    rng = random.Random(seed)
    for i in range(games):
        state = game.new_game(players=players, seed=seed + i)
        if mode == "playout":
            state.playout(rng)
        else:
            playout(state, rng)


def count(file: str, players: int, mode: str, games: int, seed: int) -> int:
    """Instructions of one run of this script's `--child` under callgrind."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
           __file__, "--child", file, str(players), mode, str(games), str(seed)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments; print instructions per game of every game and mode."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--child"]:
        file, players, mode, games, seed = args[1:]
        play(file, int(players), mode, int(games), int(seed))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="random games per count")
    ap.add_argument("--seed", type=int, default=1)
    opts = ap.parse_args(args)
    if opts.games < 1:
        ap.error("--games must be at least 1")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    # a first load writes the bytecode caches, which would count against the first game
    play(GAMES[0][1], GAMES[0][2], "api", 0, opts.seed)
    print(f"instructions per game (millions), {opts.games} random games from seed {opts.seed}:")
    for name, file, players in GAMES:
        per_game = []
        counts: dict[str, float] = {}
        for mode in MODES:
            loaded = count(file, players, mode, 0, opts.seed)
            played = count(file, players, mode, opts.games, opts.seed)
            counts[mode] = (played - loaded) / opts.games
            per_game.append(f"{mode} {counts[mode] / 1e6:.2f} M")
        # YAML / plain as compare.py's games/s would give it if every instruction took
        # as long (they do not quite: compare.py times them)
        ratio = counts["plain"] / counts["api"]
        fast = counts["plain"] / counts["playout"]
        print(f"  {name} ({players} players): {', '.join(per_game)}; "
              f"YAML / plain {ratio:.2f}x (playout {fast:.2f}x)")


if __name__ == "__main__":
    main()
