"""The `rulekit` command: validate, simulate and play game files from the terminal.

A user's mistake (a bad file, a bad `--set`, an unknown bot) ends with one clear
message on stderr and exit code 1; click's own usage errors exit with 2. No
Python traceback for anything a user can cause.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from rulekit.agents import Agent, known_agents, make_agent
from rulekit.errors import Diagnostic, GameFileError, RulekitError


# ---- shared helpers ----------------------------------------------------------------------------
def _print_error(exc: RulekitError) -> None:
    if isinstance(exc, GameFileError) and exc.diagnostics:
        for d in exc.diagnostics:
            click.echo(d.format(), err=True)
    else:
        click.echo(f"error: {exc}", err=True)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn any `RulekitError` into its message on stderr and exit code 1."""
    try:
        yield
    except RulekitError as exc:
        _print_error(exc)
        raise click.exceptions.Exit(1) from None


def _parse_bots(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    """`random,greedy` -> ['random', 'greedy']; an unknown name is a usage error."""
    names = [n.strip().lower() for n in value.split(",")]
    if not names or any(not n for n in names):
        raise click.BadParameter(f"expected bot names separated by commas, e.g. "
                                 f"{','.join(known_agents())}")
    for name in names:
        try:
            make_agent(name)
        except RulekitError as exc:
            raise click.BadParameter(str(exc)) from None
    return names


def _load(file: str, sets: Sequence[str]) -> Any:
    """The game with `--set` overrides; errors are RulekitErrors for `_user_errors`."""
    import rulekit
    from rulekit.spec.params import parse_set_options

    overrides = parse_set_options(list(sets)) if sets else None
    return rulekit.load_game(file, overrides=overrides)


def _players(game: Any, players: int | None) -> int:
    if players is None:
        return game.min_players
    if not game.min_players <= players <= game.max_players:
        raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                           f"players, not {players}")
    return players


_bots_option = click.option(
    "--bots", default="random", show_default=True, callback=_parse_bots,
    help=f"bots by name, comma-separated, assigned to seats in turn ({', '.join(known_agents())})")
_set_option = click.option(
    "--set", "sets", multiple=True, metavar="NAME=VALUE",
    help="override a param of the game; the value is read as YAML (repeatable)")
_seed_option = click.option("--seed", type=int, default=0, show_default=True,
                            help="seed of every random choice, for reproducible runs")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulekit")
def main() -> None:
    """rulekit: board games written as YAML files, validated, simulated and played."""


# ---- validate ----------------------------------------------------------------------------------
@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="human-readable lines, or JSON for tools")
def validate(files: tuple[str, ...], fmt: str) -> None:
    """Check game files against the schema and the semantic rules.

    Exit code 0 when every file is valid, 1 when one is not.
    """
    import rulekit

    results = []
    for file in files:
        diagnostics: list[Diagnostic] = []
        try:
            rulekit.load_game(file)
        except GameFileError as exc:
            diagnostics = list(exc.diagnostics) or [Diagnostic(file, 0, 0, str(exc) or "invalid")]
        except RulekitError as exc:
            diagnostics = [Diagnostic(file, 0, 0, str(exc))]
        results.append((file, diagnostics))

    if fmt == "json":
        click.echo(json.dumps([
            {"file": f, "valid": not ds, "diagnostics": [d.as_dict() for d in ds]}
            for f, ds in results
        ], indent=2))
    else:
        for f, ds in results:
            if not ds:
                click.echo(f"{f}: ok")
            for d in ds:
                click.echo(d.format())
    if any(ds for _, ds in results):
        raise click.exceptions.Exit(1)


# ---- schema ------------------------------------------------------------------------------------
@main.command()
def schema() -> None:
    """Print the JSON Schema of game files (for editors and other tools)."""
    from rulekit.spec.schema import schema_text

    click.echo(schema_text())


# ---- simulate ----------------------------------------------------------------------------------
@main.command()
@click.argument("file", type=click.Path())
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True,
              help="how many games to play")
@click.option("--players", type=int, default=None,
              help="players per game  [default: the game's minimum]")
@_bots_option
@_seed_option
@_set_option
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def simulate(file: str, games: int, players: int | None, bots: list[str], seed: int,
             sets: tuple[str, ...], as_json: bool) -> None:
    """Let bots play many games and report win rates, scores, length and how games ended."""
    from rulekit.simulate import simulate as run

    with _user_errors():
        game = _load(file, sets)
        n = _players(game, players)
        if games >= 50 and _is_tty(sys.stderr):
            with click.progressbar(length=games, label="simulating", file=sys.stderr) as bar:
                report = run(game, games, n, bots, seed, progress=bar.update)
        else:
            report = run(game, games, n, bots, seed)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(format_report(report))


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _mean_sd(s: dict) -> str:
    return f"{s['mean']:7.1f} ± {s['stdev']:<5.1f}"


def format_report(r: dict) -> str:
    """The simulation report as a few aligned tables, for reading in a terminal."""
    lines = [
        f"{r['game']}: {r['games']} games, {r['players']} players, "
        f"bots {', '.join(r['bots'])}, seed {r['seed']} ({r['seconds']:.2f} s)",
    ]
    if r["params"]:
        params = ", ".join(f"{k}={json.dumps(v)}" for k, v in r["params"].items())
        lines.append(f"params: {params}")
    lines += ["", "seat  win rate  score mean ± sd     min    max"]
    for s in r["by_seat"]:
        sc = s["score"]
        lines.append(f"{s['seat']:>4}  {_pct(s['win_rate']):>8}  {_mean_sd(sc):<17}"
                     f"{sc['min']:>6} {sc['max']:>6}")
    width = max(len("bot"), *(len(b["bot"]) for b in r["by_bot"]))
    lines += ["", f"{'bot':<{width}}  seat-games  win rate  score mean ± sd     min    max"]
    for b in r["by_bot"]:
        sc = b["score"]
        lines.append(f"{b['bot']:<{width}}  {b['seat_games']:>10}  {_pct(b['win_rate']):>8}  "
                     f"{_mean_sd(sc):<17}{sc['min']:>6} {sc['max']:>6}")
    t, d = r["length"]["turns"], r["length"]["decisions"]
    lines += [
        "",
        f"game length: {t['mean']:.1f} turns (min {t['min']}, max {t['max']}); "
        f"{d['mean']:.1f} decisions per game (min {d['min']}, max {d['max']})",
        "",
        "how games ended:",
    ]
    width = max((len(k) for k in r["end_reasons"]), default=0)
    for reason, count in r["end_reasons"].items():
        lines.append(f"  {reason:<{width}}  {count:>6}  {_pct(count / r['games'])}")
    return "\n".join(lines)


# ---- play --------------------------------------------------------------------------------------
class _EndOfInput(Exception):
    """stdin is exhausted: the person (or the pipe) has nothing more to say."""


@main.command()
@click.argument("file", type=click.Path())
@click.option("--players", type=int, default=None,
              help="players in the game  [default: the game's minimum]")
@click.option("--seat", type=int, default=0, show_default=True, help="the seat you play")
@_bots_option
@_seed_option
@_set_option
@click.option("--auto", is_flag=True, help="bots play every seat, you only watch")
@click.option("--level", "first_level", type=click.IntRange(min=1), default=1,
              show_default=True, help="for a game with levels: the level to start at")
def play(file: str, players: int | None, seat: int, bots: list[str], seed: int,
         sets: tuple[str, ...], auto: bool, first_level: int) -> None:
    """Play a game in the terminal against bots; choices are read from stdin.

    Type the number of a choice or its label. End of input stops the game. A game
    file with `levels:` is played as a series: each level passed opens the next.
    """
    from rulekit.simulate import derive_seed

    with _user_errors():
        game = _load(file, sets)
        n = _players(game, players)
        if not auto and not 0 <= seat < n:
            raise click.BadParameter(f"there are seats 0 to {n - 1}, not {seat}",
                                     param_hint="'--seat'")
        human = None if auto else seat
        if game.levels:
            if first_level > len(game.levels):
                raise click.BadParameter(f"{game.name} has levels 1 to {len(game.levels)}",
                                         param_hint="'--level'")
            _play_levels(game, n, seat, human, bots, seed, first_level)
            return
        agents, who = _seat_agents(n, human, bots)
        state = game.new_game(players=n, seed=seed)
        rng = random.Random(derive_seed(seed, "bots", "play"))
        click.echo(f"{game.name}, {n} players: "
                   + ", ".join(who[s] for s in range(n)) + f"; seed {seed}")
        try:
            _play_loop(state, human, agents, who, rng)
        except _EndOfInput:
            click.echo(f"\nend of input: the game stops at turn {state.turn}.")
            return
        except KeyboardInterrupt:
            click.echo(f"\ninterrupted: the game stops at turn {state.turn}.")
            return
        _echo_result(state, human, who)


def _seat_agents(n: int, human: int | None, bots: Sequence[str],
                 ) -> tuple[dict[int, Agent], dict[int, str]]:
    """A bot for every seat but the person's (bots assigned in turn), and each seat's name."""
    agents: dict[int, Agent] = {}
    bot_names: dict[int, str] = {}
    bot_seats = [s for s in range(n) if s != human]
    for k, s in enumerate(bot_seats):
        bot_names[s] = bots[k % len(bots)]
        agents[s] = make_agent(bot_names[s])
    who = {s: (f"player {s} ({bot_names[s]})" if s in bot_names else f"player {s} (you)")
           for s in range(n)}
    return agents, who


def _echo_result(state: Any, human: int | None, who: dict[int, str]) -> None:
    """The final position as the person may see it, the scores, the winners, the end."""
    n = len(who)
    click.echo("")
    click.echo(state.render(human))
    scores = state.scores()
    winners = state.winners()
    click.echo("")
    click.echo("scores: " + ", ".join(f"{who[s]} {scores[s]}" for s in range(n)))
    label = "winner" if len(winners) == 1 else "winners (shared)"
    click.echo(f"{label}: " + ", ".join(who[s] for s in winners))
    click.echo(f"game ended by: {state.end_reason or 'the flow running out'}"
               f" after {state.turn} turns")


def _play_levels(game: Any, n: int, seat: int, human: int | None, bots: list[str], seed: int,
                 first: int) -> None:
    """Play the file's levels in turn, for the person at `seat`.

    A level passes when that seat's score is greater than the level's `min_score`; then
    the next level starts. Failing a level, or passing the last, ends the series with a
    summary. A level's `bots` (a name or a list, one per computer seat in turn) replace
    `--bots`; every level is a new game with its own seed derived from `seed`.
    """
    from rulekit.simulate import derive_seed

    levels = game.levels
    results: list[tuple[int, str, int, int, bool]] = []
    for i in range(first, len(levels) + 1):
        level = levels[i - 1]
        name = str(level.get("name") or f"level {i}")
        minimum = int(level.get("min_score", 0))
        level_bots = level.get("bots") or bots
        if isinstance(level_bots, str):
            level_bots = [level_bots]
        agents, who = _seat_agents(n, human, level_bots)
        level_seed = derive_seed(seed, "level", i)
        click.echo(f"\n=== {game.name}, level {i} of {len(levels)}: {name}; "
                   f"score more than {minimum} to pass ===")
        click.echo(", ".join(who[s] for s in range(n)) + f"; seed {level_seed}")
        state = game.new_game(players=n, seed=level_seed)
        rng = random.Random(derive_seed(seed, "bots", "play", i))
        try:
            _play_loop(state, human, agents, who, rng)
        except (_EndOfInput, KeyboardInterrupt) as exc:
            why = "end of input" if isinstance(exc, _EndOfInput) else "interrupted"
            click.echo(f"\n{why}: the series stops at level {i}, turn {state.turn}.")
            _echo_series(game, results, stopped=True)
            return
        _echo_result(state, human, who)
        score = state.scores()[seat]
        passed = score > minimum
        results.append((i, name, score, minimum, passed))
        verdict = "passed" if passed else "failed"
        click.echo(f"level {i} ({name}) {verdict}: level score {score}, minimum {minimum}")
        if not passed:
            break
    _echo_series(game, results, stopped=False)


def _echo_series(game: Any, results: list[tuple[int, str, int, int, bool]],
                 stopped: bool) -> None:
    """The summary of a series of levels: each level played, and how far the person got."""
    total = len(game.levels)
    passed = sum(1 for r in results if r[4])
    click.echo("\n=== series summary ===")
    for i, name, score, minimum, ok in results:
        click.echo(f"  level {i} {name}: {score} (minimum {minimum}) "
                   f"{'passed' if ok else 'failed'}")
    if stopped:
        click.echo(f"series stopped after {passed} level(s) passed")
    elif results and all(r[4] for r in results) and results[-1][0] == total:
        click.echo(f"series complete: the last level ({total}) passed")
    else:
        click.echo(f"series over: {passed} level(s) passed of {total}")


def _play_loop(state: Any, human: int | None, agents: dict[int, Agent],
               who: dict[int, str], rng: random.Random) -> None:
    """Drive the game: chance and bots automatically, the person through stdin."""
    shown = len(state.log)
    # outcomes of secret chance steps (a deal into hidden hands) are not shown
    secret = frozenset(name for kind in state.game.components
                       for name, chance in type(kind).chances.items() if not chance.public)
    turn = None
    while not state.is_over:
        if state.turn != turn:
            turn = state.turn
            click.echo(f"\n--- turn {turn}: {who.get(state.active, f'player {state.active}')} ---")
        if state.is_chance:
            state.resolve_chance()
        else:
            seat = state.current_player
            if seat == human:
                state.apply(_ask(state, seat))
            else:
                state.apply(agents[seat].choose(state, rng))
        shown = _echo_log(state.log, shown, who, human, secret)
    _echo_log(state.log, shown, who, human, secret)


def _echo_log(log: list[dict], shown: int, who: dict[int, str], human: int | None,
              secret: frozenset[str] = frozenset()) -> int:
    """Print the log entries added since `shown`: rolls, moves, what the rules say."""
    for entry in log[shown:]:
        if "chance" in entry and entry["chance"] in secret:
            click.echo(f"{entry['chance']}: done (hidden)")
        elif "chance" in entry:
            click.echo(f"{entry['chance']}: {json.dumps(entry.get('outcome'))}")
        elif "action" in entry:
            seat = entry.get("seat")
            forced = " (forced)" if entry.get("forced") else ""
            click.echo(f"{who.get(seat, f'player {seat}')}: {entry['action']}{forced}")
        elif "say" in entry:
            click.echo(str(entry["say"]))
        else:
            click.echo(json.dumps(entry))
    return len(log)


def _ask(state: Any, seat: int) -> str:
    """The label the person picks; asks again until it is a legal one."""
    actions = state.legal_actions()
    labels = [a.label for a in actions]
    click.echo("")
    click.echo(state.render(seat))
    scores = state.scores()
    click.echo("scores so far: " + ", ".join(f"player {i} {x}" for i, x in enumerate(scores)))
    click.echo(f"\nplayer {seat}, your choice:")
    for i, label in enumerate(labels, 1):
        click.echo(f"  {i:>2}. {label}")
    while True:
        click.echo("> ", nl=False)
        line = sys.stdin.readline()
        if not line:
            raise _EndOfInput
        text = " ".join(line.split())
        if not _is_tty(sys.stdin):
            click.echo(text)  # a pipe is not echoed like a terminal; keep the transcript legible
        if not text:
            continue
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(labels):
                return labels[k - 1]
            click.echo(f"{k} is not a legal choice: type a number from 1 to {len(labels)} "
                       "or a label")
            continue
        if text in labels:
            return text
        folded = [label for label in labels if label.lower() == text.lower()]
        if len(folded) == 1:
            return folded[0]
        click.echo(f"{text!r} is not a legal choice: type a number from 1 to {len(labels)} "
                   "or one of the labels above")


if __name__ == "__main__":
    main()
