"""Random playouts per second of the YAML games against hand-written Python, in one run.

    python benchmarks/compare.py [--games 200] [--rounds 5] [--seed 1] [--json]

For each shipped game (Qwixx with 3 players, Level X with 2, Domino 7 with 4) it times
random playouts of the YAML file through rulekit's API and of its plain reference
(benchmarks/reference/) through the same loop (`resolve_chance()`, then
`apply(rng.choice(legal_actions()))`), and for Qwixx also the optimised reference that
plays without any API and Qwixx's turns written by hand over rulekit's own State
(reference/qwixx_bound.py: the games of `State.playout`, the most generated code could
reach). Absolute figures on a shared machine are noisy, so the contenders
take turns: every round runs each of them once on the same seeds, in a rotating order, and
each keeps its best round; time is the process's CPU time, so waiting for a busy core does
not count. `State.playout` takes the flat backend where it covers the game; the same
games on the machine's path, and random games as a study plays them (no log written),
are measured beside it. The ratios are what to read: the targets are the API loop at
least as fast as each plain reference, playouts 2.5 times as fast, and whole random games
of Qwixx (new_game and State.playout) at least 0.75x the optimised game.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rulekit  # noqa: E402
from benchmarks.playouts import playout  # noqa: E402
from benchmarks.reference import domino7, levelx, qwixx, qwixx_bound, qwixx_fast  # noqa: E402

#: the engine's targets, as ratios of games/s measured in one run: the API loop at least
#: as fast as each plain reference, playouts 2.5 times as fast, and whole random games
#: of Qwixx (new_game and State.playout) three quarters as fast as the optimised game
TARGET_API_VS_PLAIN = 1.0
TARGET_VS_PLAIN = 2.5
TARGET_VS_OPTIMISED = 0.75

#: (name, YAML file, players, plain reference, optimised random game or None, the game's
#: turns written by hand over rulekit's State or None)
GAMES = [
    ("Qwixx", "qwixx.yaml", 3, qwixx.GAME, qwixx_fast.random_game, qwixx_bound.playout),
    ("Level X", "levelx.yaml", 2, levelx.GAME, None, None),
    ("Domino 7", "domino7.yaml", 4, domino7.GAME, None, None),
]


def api_runner(game: Any, players: int) -> Callable[[int, int], int]:
    """Random playouts through the State API (rulekit's or a reference's): returns a
    function that plays `games` games from seeds seed, seed + 1, ... and counts decisions."""
    def run(games: int, seed: int) -> int:
        rng = random.Random(seed)
        return sum(playout(game.new_game(players=players, seed=seed + i), rng)
                   for i in range(games))
    return run


def playout_runner(game: Any, players: int) -> Callable[[int, int], int]:
    """Random playouts of a YAML game through `State.playout`, the fast path that search
    bots' playouts take: random games like `api_runner`'s, without a call per move."""
    def run(games: int, seed: int) -> int:
        rng = random.Random(seed)
        return sum(game.new_game(players=players, seed=seed + i).playout(rng)
                   for i in range(games))
    return run


def machine_runner(game: rulekit.Game, players: int) -> Callable[[int, int], int]:
    """`playout_runner`'s games on the machine's path (the flat backend set aside): what
    the flat backend is measured against."""
    inner = playout_runner(game, players)

    def run(games: int, seed: int) -> int:
        saved = game.__dict__.get("flat")
        game.__dict__["flat"] = None
        try:
            return inner(games, seed)
        finally:
            game.__dict__["flat"] = saved
    return run


def study_runner(game: rulekit.Game, players: int) -> Callable[[int, int], int]:
    """Random games as a study plays them (`rulekit simulate` with random bots): the moves
    and options counted, the log left unwritten where nobody reads it."""
    def run(games: int, seed: int) -> int:
        rng = random.Random(seed)
        return sum(game.new_game(players=players, seed=seed + i)._playout(
            rng, None, None, study=True, log=False).made for i in range(games))
    return run


def bound_runner(game: rulekit.Game, players: int,
                 playout: Callable[[rulekit.State, random.Random], None]
                 ) -> Callable[[int, int], int]:
    """The playouts of `playout_runner`, played by a hand-written `playout(state, rng)` over
    rulekit's State (the same games): the most generated code could reach. It counts no
    decisions."""
    def run(games: int, seed: int) -> int:
        rng = random.Random(seed)
        for i in range(games):
            playout(game.new_game(players=players, seed=seed + i), rng)
        return 0
    return run


def direct_runner(random_game: Callable[[int, random.Random], list[int]],
                  players: int) -> Callable[[int, int], int]:
    """Random games of an optimised reference: each game its own Random(seed + i), as the
    API games get; it counts no decisions."""
    def run(games: int, seed: int) -> int:
        for i in range(games):
            random_game(players, random.Random(seed + i))
        return 0
    return run


def measure(games: int, rounds: int, seed: int) -> list[dict[str, Any]]:
    """Every contender of every game, interleaved round by round; games/s of each round."""
    contenders: list[tuple[dict[str, Any], str, Callable[[int, int], int]]] = []
    results = []
    for name, file, players, plain, fast, bound in GAMES:
        entry: dict[str, Any] = {"game": name, "players": players, "contenders": {}}
        yaml_game = rulekit.load_game(ROOT / "games" / file)
        runs = [("yaml", api_runner(yaml_game, players)),
                ("playout", playout_runner(yaml_game, players)),
                ("machine", machine_runner(yaml_game, players)),
                ("study", study_runner(yaml_game, players)),
                ("plain", api_runner(plain, players))]
        if fast is not None:
            runs.append(("optimised", direct_runner(fast, players)))
        if bound is not None:
            runs.append(("bound", bound_runner(yaml_game, players, bound)))
        for kind, run in runs:
            entry["contenders"][kind] = {"rounds": [], "decisions_per_game": None}
            contenders.append((entry, kind, run))
        results.append(entry)
    for r in range(rounds):
        # a rotating order, so that no contender always runs right after the same one
        k = r % len(contenders)
        for entry, kind, run in contenders[k:] + contenders[:k]:
            # CPU time of this process: time spent waiting for a core shared with other
            # work does not count, which keeps the figures of a busy machine comparable
            start = time.process_time()
            decisions = run(games, seed)
            seconds = time.process_time() - start
            c = entry["contenders"][kind]
            c["rounds"].append(games / seconds)
            if decisions:
                c["decisions_per_game"] = decisions / games
    for entry in results:
        cs = entry["contenders"]
        for c in cs.values():
            c["best"] = max(c["rounds"])
            c["median"] = statistics.median(c["rounds"])
        entry["yaml_vs_plain"] = cs["yaml"]["best"] / cs["plain"]["best"]
        entry["playout_vs_plain"] = cs["playout"]["best"] / cs["plain"]["best"]
        entry["study_vs_plain"] = cs["study"]["best"] / cs["plain"]["best"]
        entry["playout_vs_machine"] = cs["playout"]["best"] / cs["machine"]["best"]
        if "optimised" in cs:
            entry["yaml_vs_optimised"] = cs["yaml"]["best"] / cs["optimised"]["best"]
            entry["playout_vs_optimised"] = cs["playout"]["best"] / cs["optimised"]["best"]
            entry["study_vs_optimised"] = cs["study"]["best"] / cs["optimised"]["best"]
        if "bound" in cs and "optimised" in cs:
            entry["bound_vs_optimised"] = cs["bound"]["best"] / cs["optimised"]["best"]
            entry["playout_vs_bound"] = cs["playout"]["best"] / cs["bound"]["best"]
    return results


def table(results: list[dict[str, Any]], games: int, rounds: int) -> str:
    """The figures as a Markdown table, with the targets and whether they are met."""
    lines = [
        f"Random playouts, games per CPU second (best of {rounds} rounds of {games} games "
        "each):",
        "",
        "| game | players | YAML (rulekit API) | YAML (`State.playout`) | its machine path "
        "| a study's games | plain reference (same API) | optimised (no API) | YAML / plain "
        "| YAML / optimised |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for e in results:
        cs = e["contenders"]
        fast = f"{cs['optimised']['best']:,.0f}" if "optimised" in cs else "-"
        vs_fast = (f"{e['yaml_vs_optimised']:.2f}x (playout {e['playout_vs_optimised']:.2f}x, "
                   f"study {e['study_vs_optimised']:.2f}x)" if "yaml_vs_optimised" in e
                   else "-")
        lines.append(f"| {e['game']} | {e['players']} | {cs['yaml']['best']:,.0f} | "
                     f"{cs['playout']['best']:,.0f} | {cs['machine']['best']:,.0f} | "
                     f"{cs['study']['best']:,.0f} | {cs['plain']['best']:,.0f} | {fast} | "
                     f"{e['yaml_vs_plain']:.2f}x (playout {e['playout_vs_plain']:.2f}x, "
                     f"study {e['study_vs_plain']:.2f}x) | {vs_fast} |")
    lines.append("")
    lines.append(f"Targets: the API loop >= {TARGET_API_VS_PLAIN}x each plain reference, "
                 f"playouts >= {TARGET_VS_PLAIN}x, Qwixx's whole random games >= "
                 f"{TARGET_VS_OPTIMISED}x the optimised game. The playout's flat backend "
                 "against its machine path: " + ", ".join(
                     f"{e['game']} {e['playout_vs_machine']:.2f}x" for e in results) + ".")

    def met(value: float, target: float) -> str:
        return "met" if value >= target else "not met"

    for e in results:
        found = [f"API loop vs plain {met(e['yaml_vs_plain'], TARGET_API_VS_PLAIN)}",
                 f"playout vs plain {met(e['playout_vs_plain'], TARGET_VS_PLAIN)}"]
        if "yaml_vs_optimised" in e:
            found.append("whole games vs optimised "
                         f"{met(e['playout_vs_optimised'], TARGET_VS_OPTIMISED)}")
        dpg = ", ".join(f"{kind} {c['decisions_per_game']:.1f}"
                        for kind, c in e["contenders"].items() if c["decisions_per_game"])
        lines.append(f"  {e['game']}: {'; '.join(found)} (decisions per game: {dpg})")
    for e in results:
        if "bound_vs_optimised" in e:
            lines.append(
                f"{e['game']}'s turns by hand over rulekit's State (the most generated code "
                f"could reach): {e['contenders']['bound']['best']:,.0f} games/s, "
                f"{e['bound_vs_optimised']:.2f}x the optimised; `State.playout` is "
                f"{e['playout_vs_bound']:.2f}x of it.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, measure every contender, print the table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per contender and round")
    ap.add_argument("--rounds", type=int, default=5, help="rounds; each contender keeps its best")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        ap.error("--games and --rounds must be at least 1")
    try:
        results = measure(args.games, args.rounds, args.seed)
    except rulekit.RulekitError as exc:
        sys.exit(str(exc))
    if args.json:
        print(json.dumps({"games": args.games, "rounds": args.rounds, "seed": args.seed,
                          "clock": "process CPU time",
                          "targets": {"yaml_vs_plain": TARGET_VS_PLAIN,
                                      "yaml_vs_optimised": TARGET_VS_OPTIMISED},
                          "results": results}, indent=2))
    else:
        print(table(results, args.games, args.rounds))


if __name__ == "__main__":
    main()
